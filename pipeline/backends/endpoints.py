"""The base URLs of an `openai:` panel entry, read once, and the credentials they may name.

A panel entry is a name: it becomes the cache key, candidate and pair ids, file names, dvc.lock (which
copies params) and the reports. So it must never hold a secret. A password written into a URL
(`http://user:secret@host/v1`) or a credential-like query value (`?api_key=...`) is refused when the
params are read, before any work, with a message that does not repeat it. A server that wants basic
auth names environment variables instead: `http://$PROXY_USER:$PROXY_PASSWORD@host/v1` (or `${NAME}`);
their values are read when the requests are sent and go only into the Authorization header. A bearer
key comes from `generate.api_key_env` as before.

No httpx here: params.py checks every entry with `check_model` and must stay light.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from pipeline.backends.base import BackendError

# An environment variable reference, the whole of a userinfo part: $NAME or ${NAME}.
_ENV_REF = re.compile(r"^\$(?:\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)\}|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))$")
# Query keys that carry a credential (Azure's `sig`, `api_key`, `access_token`, ...).
_SECRET_QUERY = re.compile(r"(?i)(key|token|secret|passw|pwd|sig|auth|credential)")


class EndpointError(BackendError):
    """An `openai:` entry that cannot be used as written; the message never holds a credential."""


@dataclass(frozen=True)
class Server:
    # The base URL as written, credentials only as $NAME references: safe to show and to store.
    written: str
    # What requests are sent to: written without its userinfo, with /chat/completions.
    url: str
    # Environment variables of basic auth (user, password), or None: no userinfo.
    user_env: str | None = None
    password_env: str | None = None
    user: str | None = None

    def basic_auth(self) -> tuple[str, str] | None:
        """(user, password) from the environment at call time, or None when the URL names none."""
        if self.user_env is None and self.user is None:
            return None
        user = self.user if self.user_env is None else _env(self.user_env, self.written)
        password = "" if self.password_env is None else _env(self.password_env, self.written)
        return user, password


def shown_url(url: str) -> str:
    """A URL as messages show it: no user:password@ and no query (either may carry a credential)."""
    parts = urlsplit(url)
    host = f"[{parts.hostname}]" if ":" in (parts.hostname or "") else parts.hostname
    return f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}{parts.path}"


def parse_model(model: str) -> tuple[list[Server], str]:
    """'<url>[,<url>...]|<model>' -> (servers, model name); EndpointError when malformed or when a URL
    holds a literal credential."""
    urls, sep, name = model.partition("|")
    bases = [u.strip().rstrip("/") for u in urls.split(",")]
    if not sep or not name or not all(b.startswith(("http://", "https://")) for b in bases):
        shown = ",".join(shown_url(b) if b.startswith(("http://", "https://")) else "<not a URL>" for b in bases)
        raise EndpointError(
            f"expected 'openai:<http(s) base url>[,<more base urls>]|<model>', got 'openai:{shown}|{name}'"
        )
    if len(set(bases)) != len(bases):
        raise EndpointError(f"'openai:{model}' lists a base url twice")
    return [_server(b) for b in bases], name


def check_model(model: str) -> None:
    """Raise EndpointError when the model part of an `openai:` entry is malformed or holds a secret."""
    parse_model(model)


def _server(base: str) -> Server:
    try:
        parts = urlsplit(base)
        parts.port  # noqa: B018 - a port that is not a number raises here, not at the first request
    except ValueError as exc:
        raise EndpointError(f"{shown_url(base) if '@' not in base else '<url>'}: not a valid URL ({exc})") from None
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if _SECRET_QUERY.search(key) and value:
            raise EndpointError(
                f"{shown_url(base)}: the query parameter {key!r} looks like a credential; params are copied "
                "into dvc.lock and the reports, so a secret must not be written there (give the key through "
                "generate.api_key_env)"
            )
    path = parts.path if parts.path not in ("", "/") else "/v1"
    netloc = parts.netloc.rpartition("@")[2]
    url = f"{parts.scheme}://{netloc}{path}/chat/completions" + (f"?{parts.query}" if parts.query else "")
    if "@" not in parts.netloc:
        return Server(base, url)
    user, has_password, password = parts.netloc.rpartition("@")[0].partition(":")
    user_ref = _ENV_REF.match(user)
    # A user name alone may be a token (http://<token>@host): it must name a variable, as a password must.
    if (has_password and not _ENV_REF.match(password)) or (not has_password and not user_ref):
        raise EndpointError(
            f"{shown_url(base)}: the URL holds a credential; params are copied into dvc.lock, ids and reports, "
            "so name environment variables instead: http://user:$PASSWORD_VAR@host/... (or ${PASSWORD_VAR})"
        )
    return Server(
        base,
        url,
        user_env=_ref_name(user_ref) if user_ref else None,
        password_env=_ref_name(_ENV_REF.match(password)) if has_password else None,
        user=None if user_ref else user,
    )


def _ref_name(match: re.Match[str] | None) -> str:
    assert match is not None
    return match["braced"] or match["bare"]


def _env(name: str, where: str) -> str:
    value = os.environ.get(name)
    if value is None:
        raise EndpointError(f"{shown_url(where)}: the environment variable {name} named in the URL is not set")
    check_credential(value, f"the environment variable {name}")
    return value


def check_credential(value: str, what: str) -> None:
    """A credential goes into an HTTP header: a control character (a pasted newline) or a non-ASCII
    character cannot, and showing the value to say so would print the secret."""
    for i, char in enumerate(value):
        if ord(char) < 0x20 or ord(char) == 0x7F:
            raise EndpointError(f"{what} holds a control character at position {i + 1} (a pasted newline?); "
                                "set it to the credential alone")
        if ord(char) > 0x7E:
            raise EndpointError(f"{what} holds a non-ASCII character at position {i + 1}; an HTTP header "
                                "cannot carry it (is it the right value?)")
