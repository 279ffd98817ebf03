"""Any OpenAI-compatible chat endpoint (vLLM, SGLang, llama.cpp server, Ollama, hosted APIs), on httpx.

Spec: `openai:<base_url>|<model>`, e.g. `openai:http://localhost:8000/v1|meta-llama/Llama-3.1-8B-Instruct`;
several servers of the same model are joined by commas: `openai:http://gpu1:8000/v1,http://gpu2:8000/v1|m`
(the spec as written is the generator's name, so it names the cache and the candidates).

Up to `concurrency` requests are in flight per panel member, spread over its servers (fleet.py). A failed
try is retried with capped exponential backoff and jitter (tenacity) on 429/5xx, timeouts, broken
connections and malformed 200 replies; a Retry-After header is honoured up to the same cap. Every failure
ends in one BackendError line naming the URL and what happened.

A request that carries a JSON schema (pipeline/structured) is sent with `response_format` of type
json_schema (vLLM, SGLang, llama.cpp and OpenAI enforce it while decoding). A server that refuses the
field (HTTP 400 or 422 on such a request, where the same request without it succeeds) is asked without it
from then on, said once in the log: its replies are then plain prompting, validated by the caller like
any other. Each response's meta says which way it was made ("constrained": "response_format" or "prompt").

The API key is read from an environment variable at call time and only ever placed in the
Authorization header: never in params, the cache, logs or error messages. Server text quoted in an
error, and an answer before it is cached, are scrubbed of it, since some servers echo request headers
back. A URL names basic-auth credentials only as environment variables (pipeline/backends/endpoints.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import logging
import math
import os
import re
import time
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx
import tenacity

from pipeline.backends.base import BackendError, Request, Response
from pipeline.backends.endpoints import check_credential, parse_model, shown_url
from pipeline.backends.fleet import ROUTINGS, Fleet

log = logging.getLogger(__name__)
# httpx logs every request at INFO: a hundred thousand lines for one generate run.
logging.getLogger("httpx").setLevel(logging.WARNING)

RETRY_STATUS = {408, 409, 425, 429}
# Server errors that a second try cannot fix.
PERMANENT_5XX = {501, 505}


def retry_after_s(value: str | None) -> float | None:
    """A Retry-After header in seconds (it is either a number of seconds or an HTTP date)."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, IndexError):
            return None
    return max(0.0, seconds) if math.isfinite(seconds) else None


class Retryable(Exception):
    """A failed try worth another one: what happened, where, and how long the server asked us to wait."""

    def __init__(self, url: str, what: str, retry_after: float | None = None):
        super().__init__(f"{url}: {what}")
        self.url, self.what, self.retry_after = url, what, retry_after


class BackoffOrRetryAfter(tenacity.wait.wait_base):
    """Exponential backoff with jitter, or the server's Retry-After when longer; both capped."""

    def __init__(self, initial: float, cap: float):
        # initial * 2**(try - 1) plus up to `initial` of jitter, so failed clients do not retry in step.
        exponential = tenacity.wait_exponential(multiplier=initial, max=cap)
        self.backoff = exponential + tenacity.wait_random(0, initial)
        self.cap = cap

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        delay = min(self.backoff(retry_state), self.cap)
        asked = getattr(retry_state.outcome.exception(), "retry_after", None) if retry_state.outcome else None
        return max(delay, min(asked, self.cap)) if asked is not None else delay


class SchemaRejected(Exception):
    """A server's 400/422 to a request that carried response_format: maybe the field it cannot serve."""

    def __init__(self, url: str, status: int, what: str):
        super().__init__(f"{url}: HTTP {status}: {what}")


# Servers answer an unsupported response_format with one of these.
SCHEMA_REFUSAL_STATUS = {400, 422}


class OpenAIGenerator:
    # run_cached hands over every request at once and stores each response as it arrives.
    streams_responses = True

    def __init__(
        self,
        model: str,
        concurrency: int = 4,
        timeout_s: float = 120.0,
        max_retries: int = 3,
        api_key_env: str = "OPENAI_API_KEY",
        backoff_s: float = 1.0,
        max_wait_s: float = 30.0,
        rate_limit_rps: float = 0.0,
        routing: str = "least_loaded",
    ):
        self.name = f"openai:{model}"
        try:
            self.servers, self.model = parse_model(model)
        except BackendError as exc:
            raise BackendError(f"openai backend: {exc}") from None
        checks = [
            ("timeout_s", timeout_s, timeout_s > 0, "> 0 seconds"),
            ("concurrency", concurrency, concurrency >= 1, ">= 1"),
            ("max_retries", max_retries, max_retries >= 0, ">= 0"),
            ("retry_backoff_s", backoff_s, backoff_s >= 0, ">= 0 seconds"),
            ("retry_max_wait_s", max_wait_s, max_wait_s >= 0, ">= 0 seconds"),
            ("rate_limit_rps", rate_limit_rps, rate_limit_rps >= 0, ">= 0 (0: no limit)"),
        ]
        for key, value, ok, allowed in checks:
            if not (ok and math.isfinite(value)):
                raise BackendError(f"{self.name}: {key} must be {allowed}, got {value!r}")
        if routing not in ROUTINGS:
            raise BackendError(f"{self.name}: routing must be one of {', '.join(ROUTINGS)}, got {routing!r}")
        self.urls = [server.url for server in self.servers]
        self.concurrency = int(concurrency)
        # Callers that batch (judges, IRAC) hand over enough to keep every slot busy.
        self.batch_size = self.concurrency * 2
        self.timeout_s = float(timeout_s)
        self.max_retries = int(max_retries)
        self.api_key_env = api_key_env
        self.wait = BackoffOrRetryAfter(backoff_s, max_wait_s)
        self.rate_limit_rps = float(rate_limit_rps)
        self.routing = routing
        # Kept between generate() calls, so a rate limit also holds across the batches of a judge.
        self.fleet = Fleet(self.urls, routing, self.rate_limit_rps)
        # False once the server has refused response_format: schemas are then left to the prompt.
        self.response_format = True

    # ---------------------------------------------------------------------------------------- sync face
    def generate(
        self, requests: Sequence[Request], on_response: Callable[[int, Response], None] | None = None
    ) -> list[Response]:
        """One response per request, in order; `on_response(index, response)` runs as each one arrives."""
        out: list[Response | None] = [None] * len(requests)

        def done(i: int, response: Response) -> None:
            out[i] = response
            if on_response is not None:
                on_response(i, response)

        if requests:
            run_coroutine(self._run_all(list(requests), done))
        return out  # type: ignore[return-value]

    # --------------------------------------------------------------------------------------- async core
    async def _run_all(self, requests: list[Request], done: Callable[[int, Response], None]) -> None:
        key = os.environ.get(self.api_key_env) or ""
        check_credential(key, f"the environment variable {self.api_key_env}")
        # Basic auth of servers whose URL names it ($VAR references, read now); it replaces the bearer key.
        auths = {server.url: server.basic_auth() for server in self.servers}
        run_secrets = Secrets(auths, [key, *(part for auth in auths.values() if auth for part in auth)])
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        fleet = self.fleet
        slots = min(self.concurrency, len(requests))
        todo = iter(enumerate(requests))
        async with contextlib.AsyncExitStack() as stack:
            # One small client per worker (a keep-alive connection to each server it calls): httpcore's
            # pool scans all its connections on every request, so one pool shared by hundreds of requests
            # in flight costs CPU quadratic in their number (encode/httpx#3215).
            ssl_context = httpx.create_ssl_context()  # once: loading the CA bundle takes milliseconds
            limits = httpx.Limits(max_connections=len(self.urls), max_keepalive_connections=len(self.urls))
            timeout = httpx.Timeout(self.timeout_s, pool=None)
            clients = [
                await stack.enter_async_context(
                    httpx.AsyncClient(headers=headers, limits=limits, timeout=timeout, verify=ssl_context)
                )
                for _ in range(slots)
            ]

            # `slots` workers share one iterator: exactly `slots` requests in flight, none queued as tasks.
            async def worker(client: httpx.AsyncClient) -> None:
                for i, request in todo:
                    done(i, await self._call(client, fleet, request, run_secrets))

            tasks = [asyncio.ensure_future(worker(c)) for c in clients]
            try:
                await asyncio.gather(*tasks)
            finally:
                # The first failure ends the run: stop the other workers instead of leaving them running.
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    async def _call(self, client: httpx.AsyncClient, fleet: Fleet, request: Request, secrets: Secrets) -> Response:
        if request.schema is None:
            return await self._send(client, fleet, request, secrets, False)
        if self.response_format:
            try:
                response = await self._send(client, fleet, request, secrets, True)
                return Response(response.text, response.finish_reason, {**response.meta, "constrained": "response_format"})
            except SchemaRejected as exc:
                # The same request without the field: if this one fails too, the field was not the fault.
                response = await self._send(client, fleet, request, secrets, False)
                if self.response_format:
                    self.response_format = False
                    log.warning("%s refuses response_format (%s); asking with the prompt alone from now on, "
                                "every reply validated as before", self.name, exc)
                return Response(response.text, response.finish_reason, {**response.meta, "constrained": "prompt"})
        response = await self._send(client, fleet, request, secrets, False)
        return Response(response.text, response.finish_reason, {**response.meta, "constrained": "prompt"})

    async def _send(
        self, client: httpx.AsyncClient, fleet: Fleet, request: Request, secrets: Secrets, with_schema: bool
    ) -> Response:
        body = self._body(request, with_schema)
        retrying = tenacity.AsyncRetrying(
            stop=tenacity.stop_after_attempt(self.max_retries + 1),
            wait=self.wait,
            retry=tenacity.retry_if_exception_type(Retryable),
            before_sleep=self._log_retry,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._try(client, fleet, body, secrets, request.max_new_tokens, with_schema)
        except Retryable as exc:
            tries = self.max_retries + 1
            raise BackendError(f"{exc.url}: giving up after {tries} attempts ({exc.what})") from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    async def _try(
        self, client: httpx.AsyncClient, fleet: Fleet, body: bytes, secrets: Secrets, max_new_tokens: int,
        with_schema: bool = False,
    ) -> Response:
        # Each try picks its server anew, so a retry can land on a healthy member of the fleet.
        async with fleet.use() as server:
            url = shown_url(server.url)
            auth = secrets.auths.get(server.url)
            try:
                reply = await asyncio.wait_for(
                    client.post(server.url, content=body, auth=auth or httpx.USE_CLIENT_DEFAULT), self.timeout_s
                )
            except (httpx.TimeoutException, asyncio.TimeoutError):
                raise Retryable(url, f"no reply within {self.timeout_s:g}s") from None
            except httpx.RemoteProtocolError as exc:
                raise Retryable(url, f"broken reply ({scrub(str(exc), secrets.values)})") from None
            except (httpx.RequestError, OSError) as exc:
                # Refused or reset connections, undecodable bodies: the server may be back on the next try.
                what = scrub(str(exc), secrets.values) or "connection failed"
                raise Retryable(url, f"{type(exc).__name__}: {what}") from None
        status = reply.status_code
        if status in RETRY_STATUS or (status >= 500 and status not in PERMANENT_5XX):
            raise Retryable(url, f"HTTP {status}", retry_after_s(reply.headers.get("Retry-After")))
        if with_schema and status in SCHEMA_REFUSAL_STATUS:
            raise SchemaRejected(url, status, excerpt(reply, secrets.values))
        if not 200 <= status < 300:
            raise BackendError(f"{url}: HTTP {status}: {excerpt(reply, secrets.values)}{self._hint(status)}")
        return self._parse(reply, url, secrets.values, max_new_tokens)

    def _hint(self, status: int) -> str:
        """What to do about a refusal that retrying cannot fix."""
        if status in (401, 403):
            return f" (is the key in the environment variable {self.api_key_env} right for this server?)"
        if status == 404:
            return f" (check the base url and that the server serves the model {self.model!r})"
        return ""

    def _log_retry(self, state: tenacity.RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        delay = state.next_action.sleep if state.next_action else 0.0
        log.warning("%s; retry %d/%d in %.1fs", exc, state.attempt_number, self.max_retries, delay)

    def _body(self, request: Request, with_schema: bool = False) -> bytes:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": request.prompt}],
            "temperature": request.temperature,
            "top_p": request.top_p,
            "max_tokens": request.max_new_tokens,
            "seed": request.seed,
        }
        if with_schema and request.schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": json.loads(request.schema), "strict": True},
            }
        return json.dumps(body).encode("utf-8")

    def _parse(self, reply: httpx.Response, url: str, secrets: Sequence[str], max_new_tokens: int) -> Response:
        """A well-formed chat completion, or Retryable: only an answer is cached, and a cached entry is
        served on every rerun, so a reply that is not one (an HTML error page, no `choices`, null content,
        an unknown finish reason, a NaN token count, far more text than max_new_tokens allows) is a
        fault of the server to retry, never an answer. Secrets a server echoes are redacted before the
        answer reaches the cache."""
        cap = max_new_tokens * MAX_BYTES_PER_TOKEN
        if len(reply.content) > cap + ENVELOPE_BYTES:
            raise Retryable(url, f"200 reply of {len(reply.content)} bytes, more than {max_new_tokens} tokens "
                                 f"can hold ({cap + ENVELOPE_BYTES} bytes)")
        try:
            obj = reply.json()
        except ValueError:
            kind = reply.headers.get("Content-Type", "no content type").split(";")[0]
            raise Retryable(url, f"200 reply is not JSON ({kind}, {len(reply.content)} bytes)") from None
        try:
            choice = obj["choices"][0]
            text = choice["message"]["content"]
            if not isinstance(text, str):
                raise TypeError(f"content is {type(text).__name__}, not text")
        except (KeyError, IndexError, TypeError) as exc:
            shape = sorted(obj)[:6] if isinstance(obj, dict) else type(obj).__name__
            raise Retryable(url, f"200 reply is not a chat completion (no text at choices[0].message.content; "
                                 f"{type(exc).__name__}: {scrub(str(exc), secrets)}; top level: {shape})") from None
        if len(text.encode("utf-8")) > cap:
            raise Retryable(url, f"answer of {len(text.encode('utf-8'))} bytes, more than {max_new_tokens} "
                                 f"tokens can hold ({cap} bytes)")
        # Some servers leave finish_reason out of a finished reply; anything else must be a known reason.
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        if reason is None:
            reason = "stop"
        if reason not in FINISH_REASONS:
            raise Retryable(url, f"200 reply has finish_reason {scrub(repr(reason), secrets)[:60]} "
                                 f"(known: {', '.join(sorted(FINISH_REASONS))})")
        model = obj.get("model")
        meta: dict[str, Any] = {"model": redact(model, secrets) if isinstance(model, str) else self.model}
        usage = obj.get("usage") or {}
        if isinstance(usage, dict) and "completion_tokens" in usage:
            tokens = usage["completion_tokens"]
            if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
                raise Retryable(url, f"200 reply has usage.completion_tokens {scrub(repr(tokens), secrets)[:40]}, "
                                     "not a count")
            meta["completion_tokens"] = tokens
        # A lone surrogate ("\\ud800" in the JSON) is no text a later stage can write as UTF-8.
        text = _LONE_SURROGATE.sub("\ufffd", redact(text, secrets))
        return Response(text.strip(), reason, meta)


# finish_reason values of OpenAI-compatible servers (OpenAI, vLLM, SGLang, llama.cpp, TGI, Ollama).
FINISH_REASONS = frozenset({"stop", "length", "content_filter", "tool_calls", "function_call", "eos",
                            "eos_token", "stop_sequence"})
# The longest tokens of common vocabularies are runs of spaces or punctuation well under 64 bytes: an
# answer longer than max_new_tokens x 64 bytes is not one the server was asked for.
MAX_BYTES_PER_TOKEN = 64
# Room for the JSON around the answer (ids, usage, escapes of the text).
ENVELOPE_BYTES = 64 * 1024


@dataclass(frozen=True)
class Secrets:
    """The credentials of one run: each server's basic auth, and every value to redact from what a server
    says (the bearer key too)."""

    auths: dict[str, tuple[str, str] | None]
    values: Sequence[str]


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_CREDENTIAL = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+")


# Values this short are no secret worth the name, and replacing every "abc" of an answer would corrupt it.
MIN_REDACTED_CHARS = 6


def redact(text: str, secrets: Sequence[str]) -> str:
    """`text` with every secret (and any bearer or basic credential) replaced by [redacted]."""
    for secret in sorted({s for s in secrets if len(s) >= MIN_REDACTED_CHARS}, key=len, reverse=True):
        text = text.replace(secret, "[redacted]")
    return _CREDENTIAL.sub(r"\1 [redacted]", text)


def scrub(text: str, secrets: Sequence[str] | str) -> str:
    """Server text fit for a message: one line, short, and without any secret or bearer token."""
    text = redact(text, [secrets] if isinstance(secrets, str) else secrets)
    return " ".join(text.split())[:300]


def excerpt(reply: httpx.Response, secrets: Sequence[str]) -> str:
    """What an error reply says: the JSON error message when there is one, else the start of the body."""
    try:
        obj = reply.json()
        error = obj.get("error") if isinstance(obj, dict) else None
        text = error.get("message") if isinstance(error, dict) else error
        text = text if isinstance(text, str) and text else reply.text
    except ValueError:
        text = reply.text
    return scrub(text, secrets) or "(empty body)"


def run_coroutine(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine to completion from sync code, also when the caller already has a running loop
    (a notebook): that loop cannot be re-entered, so the coroutine gets a thread and loop of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()
