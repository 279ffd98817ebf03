"""Nothing secret is written (issue 19): a credential never leaves memory.

A password or token written into an `openai:` URL is refused when the params are read (params are copied
into dvc.lock, ids, file names and reports), without repeating it; basic auth names environment
variables instead, which are read when requests go out. A key that cannot go into a header stops in one
line without showing it. A server that echoes the credentials it received gets them redacted before
its answer is cached. The end-to-end test runs the data stages with `dvc repro` against a loopback
server that echoes both canaries, pushes to a DVC remote, and greps every file, DVC object and log line.
"""

from __future__ import annotations

import base64
import json
import os

import pytest
import yaml
from conftest import ROOT, ChatServer, chat_reply, make_project_copy, run

from pipeline.backends import BackendError, Request, make_generator
from pipeline.backends.endpoints import parse_model
from pipeline.params import GenerateParams, ParamsError, from_dict

pytestmark = pytest.mark.reliability

KEY = "sk-env-canary-51c7e2a09b"
PASSWORD = "url-pass-canary-9d04f3"
KEY_ENV, USER_ENV, PASSWORD_ENV = "LEGAL_RM_TEST_KEY", "LEGAL_RM_TEST_USER", "LEGAL_RM_TEST_PASSWORD"
SMOKE_PARAMS = ROOT / "params" / "smoke.yaml"


def with_panel(*entries: str, **sections) -> dict:
    raw = yaml.safe_load(SMOKE_PARAMS.read_text(encoding="utf-8"))
    raw["generate"]["panel"] = ["offline:cautious", *entries]
    for dotted, value in sections.items():
        section, key = dotted.split("__")
        raw[section][key] = value
    return raw


@pytest.mark.parametrize(("where", "raw"), [
    ("generate.panel[1]", with_panel(f"openai:http://alice:{PASSWORD}@127.0.0.1:9/v1|m")),
    ("generate.panel[1]", with_panel(f"openai:http://127.0.0.1:9/v1,https://{PASSWORD}@h.example/v1|m")),
    ("generate.panel[1]", with_panel(f"openai:https://h.example/v1?api_key={PASSWORD}|m")),
    ("judge.judges[2]", with_panel(judge__judges=["rule:strict", "rule:lenient",
                                                  f"llm:openai:http://u:{PASSWORD}@h.example/v1|m"])),
    ("augment.rewriter", with_panel(augment__rewriter=f"openai:http://u:{PASSWORD}@h.example/v1|m")),
    ("irac.systems[1]", with_panel(irac__systems=["rule", f"openai:http://u:{PASSWORD}@h.example/v1|m"])),
    ("irac.judge", with_panel(irac__judge=f"openai:http://u:{PASSWORD}@h.example/v1|m")),
], ids=["password", "token-as-user", "query-key", "judge", "rewriter", "irac-system", "irac-judge"])
def test_a_credential_written_into_params_is_refused_without_repeating_it(where, raw):
    with pytest.raises(ParamsError) as info:
        from_dict(raw, source="params.yaml")
    message = str(info.value)
    assert message.startswith(f"params.yaml: {where}: ") and PASSWORD not in message
    assert "\n" not in message and ("environment variable" in message or "api_key_env" in message)


@pytest.mark.parametrize("url", [f"http://${USER_ENV}:${PASSWORD_ENV}@h.example/v1",
                                 "http://alice:${" + PASSWORD_ENV + "}@h.example:8000",
                                 "https://h.example/openai/v1?api-version=2024-06-01"])
def test_credentials_named_by_environment_variables_are_accepted(url):
    from_dict(with_panel(f"openai:{url}|m"))
    servers, model = parse_model(f"{url}|m")
    assert model == "m" and "@" not in servers[0].url and servers[0].url.split("?")[0].endswith("/chat/completions")


def credential_echo(headers, body: dict, prompt: str, n: int) -> tuple[int, dict]:
    """A chat endpoint that wants either basic auth (user alice and PASSWORD) or the bearer KEY, and, like
    a misconfigured proxy, repeats the credential it received in the answer and the model name."""
    auth = headers.get("Authorization", "")
    if auth == f"Bearer {KEY}":
        secret = KEY
    elif auth.startswith("Basic ") and base64.b64decode(auth[6:]).decode() == f"alice:{PASSWORD}":
        secret = PASSWORD
    else:
        return 401, {"error": {"message": f"denied; you sent {auth}"}}
    question = prompt.rsplit("Question:", 1)[-1].strip()[:80]
    answer = f"Based on the passages, {question} (authorised as {secret}; header {auth})"
    return 200, chat_reply(f"{body['model']}@{secret}", answer, completion_tokens=9)


def auth_server() -> ChatServer:
    return ChatServer(credential_echo)


def basic_entry(server: ChatServer) -> str:
    """The server as a panel entry whose URL names the password's environment variable."""
    return f"openai:{server.url.replace('http://', f'http://alice:${PASSWORD_ENV}@')}|served"


@pytest.fixture
def secrets_env(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)


def cfg() -> GenerateParams:
    return GenerateParams(api_key_env=KEY_ENV, max_retries=0, timeout_s=30.0)


def test_basic_auth_comes_from_the_environment_and_an_echo_is_redacted_before_caching(secrets_env):
    with auth_server() as server:
        basic = make_generator(basic_entry(server), cfg()).generate([Request("Question: who paid?")])[0]
        bearer = make_generator(f"openai:{server.url}|served", cfg()).generate([Request("Question: who paid?")])[0]
    for response in (basic, bearer):
        shown = json.dumps([response.text, response.meta])
        assert PASSWORD not in shown and KEY not in shown and "[redacted]" in response.text
        assert response.text.startswith("Based on the passages, who paid?")


def test_an_unset_password_variable_stops_in_one_line(secrets_env, monkeypatch):
    monkeypatch.delenv(PASSWORD_ENV)
    with auth_server() as server, pytest.raises(BackendError) as info:
        make_generator(basic_entry(server), cfg()).generate([Request("q")])
    assert server.calls == 0
    assert f"the environment variable {PASSWORD_ENV} named in the URL is not set" in str(info.value)


@pytest.mark.parametrize(("value", "says"), [(f"{KEY}\nX-Evil: 1", f"control character at position {len(KEY) + 1}"),
                                              (f"{KEY}\u00e9", f"non-ASCII character at position {len(KEY) + 1}")])
def test_a_key_that_cannot_go_into_a_header_stops_without_showing_it(monkeypatch, value, says):
    monkeypatch.setenv(KEY_ENV, value)
    with auth_server() as server, pytest.raises(BackendError) as info:
        make_generator(f"openai:{server.url}|served", cfg()).generate([Request("q")])
    assert server.calls == 0
    message = str(info.value)
    assert says in message and KEY_ENV in message and KEY not in message and "X-Evil" not in message


@pytest.mark.slow
def test_no_canary_lands_in_any_file_dvc_object_or_log_of_a_run(tmp_path, secrets_env):
    """The data stages with two HTTP panel members (basic auth from the environment; the bearer key),
    both echoed by the server, then `dvc push`: neither canary in any file of the project, its DVC cache,
    the remote or the run's output."""
    repo = make_project_copy(tmp_path / "repo", tmp_path / "remote")
    with auth_server() as server:
        raw = yaml.safe_load((repo / "params.yaml").read_text())
        raw["generate"].update(panel=["offline:cautious", basic_entry(server), f"openai:{server.url}|served"],
                               api_key_env=KEY_ENV)
        (repo / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
        run(["git", "add", "-A"], repo)
        run(["git", "-c", "user.email=t@localhost", "-c", "user.name=t", "commit", "-qm", "http panel"], repo)
        repro = run(["dvc", "repro", "data_report"], repo)
        push = run(["dvc", "push"], repo)
        assert server.calls > 0
    candidates = [json.loads(line) for line in (repo / "data/interim/candidates.jsonl").read_text().splitlines()]
    served = [c for c in candidates if c["generator"].startswith("openai:")]
    assert served and all("[redacted]" in c["text"] for c in served)
    assert all(c["meta"]["model"] == "served@[redacted]" for c in served)
    logs = repro.stdout + repro.stderr + push.stdout + push.stderr
    for canary in (KEY, PASSWORD):
        assert canary not in logs
        hits = [str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")
                if p.is_file() and canary.encode() in p.read_bytes()]
        assert hits == [], f"{canary} written to {hits}"
    assert list((tmp_path / "remote").rglob("*")), "dvc push wrote nothing to search"
    assert os.environ[KEY_ENV] == KEY  # the run had the secrets, and used them

