"""The HTTP backend against a misbehaving endpoint: a real loopback server that injects 429 (with
Retry-After), 500, stalls, truncated bodies, HTML and schema-less JSON; the response cache under kill -9
of the generate stage; and a canary API key that must appear nowhere but the Authorization header."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from conftest import LoopbackServer, chat_reply, make_project_copy, read_chat, run_stage_killed

from pipeline.backends import BackendError, Request, make_generator
from pipeline.backends.base import cache_key
from pipeline.backends.cache import ResponseCache, run_cached
from pipeline.io import write_records
from pipeline.params import GenerateParams
from pipeline.records import QA, Context, Passage

pytestmark = pytest.mark.reliability

CANARY = "sk-canary-7f3a9c0e5d1b-do-not-leak"
KEY_ENV = "LEGAL_RM_TEST_API_KEY"
FAULTS = ("429", "500", "stall", "truncated", "html", "schemaless")
# What the final message says when a fault never stops.
FAULT_MESSAGE = {
    "429": "HTTP 429",
    "500": "HTTP 500",
    "stall": "no reply within",
    "truncated": "broken reply",
    "html": "200 reply is not JSON (text/html",
    "schemaless": "200 reply is not a chat completion",
}


def answer(prompt: str) -> str:
    return f"answer {hashlib.sha256(prompt.encode()).hexdigest()[:12]}"


class FaultServer(LoopbackServer):
    """/v1/chat/completions on loopback. `plan(prompt, n)` names the fault for the n-th call (from 0) of a
    prompt, or None for the real answer; every reply takes `latency` seconds. Counts calls per prompt,
    the peak number in flight and when each call arrived."""

    def __init__(self, plan: Callable[[str, int], str | None] = lambda p, n: None, latency: float = 0.0,
                 retry_after: str = "0", stall_s: float = 2.0):
        self.plan, self.latency, self.retry_after, self.stall_s = plan, latency, retry_after, stall_s
        self.lock = threading.Lock()
        self.reset()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as vLLM and hosted APIs serve

            def log_message(self, *args):
                pass

            def do_POST(self):
                body, prompt = read_chat(self)
                with outer.lock:
                    n = outer.per_prompt[prompt]
                    outer.per_prompt[prompt] += 1
                    outer.arrivals.append(time.monotonic())
                    outer.in_flight += 1
                    outer.peak = max(outer.peak, outer.in_flight)
                    held = outer.hold_from is not None and len(outer.arrivals) >= outer.hold_from
                if held:  # keep the client waiting until the test has killed it
                    outer.release.wait(timeout=60)
                fault = outer.plan(prompt, n)
                time.sleep(outer.latency + (outer.stall_s if fault == "stall" else 0.0))
                # Out of flight before the reply leaves: the client cannot send its next call earlier.
                with outer.lock:
                    outer.in_flight -= 1
                try:
                    self.reply(prompt, body, fault)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up on a stalled call

            def reply(self, prompt, body, fault):
                if self.headers.get("Authorization") != f"Bearer {CANARY}":
                    return self.send(401, {"error": {"message": f"bad key; you sent {dict(self.headers)}"}})
                if fault == "429":
                    return self.send(429, {"error": "slow down"}, {"Retry-After": outer.retry_after})
                if fault == "500":
                    return self.send(500, {"error": "boom"})
                if fault == "html":
                    return self.send(200, b"<html><body>502 Bad Gateway</body></html>", ctype="text/html")
                if fault == "schemaless":
                    return self.send(200, {"object": "error", "message": "overloaded"})
                if fault == "echo":  # a broken proxy that reflects the request headers, key included
                    return self.send(200, {"headers": dict(self.headers)})
                if fault == "echo401":
                    return self.send(401, {"error": {"message": f"denied; you sent {dict(self.headers)}"}})
                self.send(200, chat_reply(body["model"], answer(prompt), completion_tokens=2),
                          truncate=fault == "truncated")

            def send(self, status, obj, headers=None, ctype="application/json", truncate=False):
                data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                if truncate:  # promise the whole body, send half, hang up
                    self.wfile.write(data[: len(data) // 2])
                    self.close_connection = True
                else:
                    self.wfile.write(data)

        super().__init__(Handler)
        self.httpd.handle_error = lambda request, address: None  # stalled calls end in broken pipes

    def reset(self, hold_from: int | None = None) -> None:
        """Forget the counts; with hold_from, calls from that number on (counting from 1) get no reply
        until `release` is set."""
        with self.lock:
            self.per_prompt: Counter[str] = Counter()
            self.arrivals: list[float] = []
            self.in_flight = self.peak = 0
            self.hold_from = hold_from
            self.release = threading.Event()

    @property
    def calls(self) -> int:
        return sum(self.per_prompt.values())


def fault_timeout(fault: str) -> float:
    """The client's timeout for a fault test: short where the fault is a stall (the try must time out),
    else http_cfg's long one. A stall is four times the short timeout, which an answered call on a loaded
    two-core machine still keeps well inside (at 0.3 s one did not, once)."""
    return 0.5 if fault == "stall" else 10.0


def http_cfg(**kw) -> GenerateParams:
    # A long timeout unless a test needs a try to time out: on a loaded machine a short one times out tries
    # the server has not even counted yet, and the test's call counts would depend on the machine's load.
    kw = {"concurrency": 4, "timeout_s": 10.0, "max_retries": 2, "retry_backoff_s": 0.01,
          "retry_max_wait_s": 0.5, "api_key_env": KEY_ENV, **kw}
    return GenerateParams(**kw)


@pytest.fixture(autouse=True)
def canary_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, CANARY)


def cache_lines(root: Path, torn_ok: bool = False) -> list[dict]:
    """Every record of the cache folder; a line that does not parse fails the test, except a torn last
    line (a process killed mid-write) when `torn_ok`."""
    rows = []
    for path in sorted(root.glob("*.jsonl")):
        data = path.read_bytes()
        if torn_ok and not data.endswith(b"\n"):
            data = data[: data.rfind(b"\n") + 1]
        rows += [json.loads(line) for line in data.decode().splitlines()]
    return rows


# ------------------------------------------------------------------------------------ faults survived
@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_is_retried_and_the_answer_cached_once(fault, tmp_path, caplog):
    requests = [Request(f"question {i}") for i in range(6)]
    # Every prompt meets the fault on its first two calls: two retries each, then the answer.
    with FaultServer(lambda p, n: fault if n < 2 else None, retry_after="0.05") as server:
        gen = make_generator(f"openai:{server.url}|m", http_cfg(timeout_s=fault_timeout(fault)))
        with ResponseCache(tmp_path, gen.name) as cache:
            out, calls = run_cached(gen, requests, cache)
    assert calls == 6 and server.calls == 18 and set(server.per_prompt.values()) == {3}
    assert [r.text for r in out] == [answer(r.prompt) for r in requests]
    rows = cache_lines(tmp_path)
    assert sorted(r["key"] for r in rows) == sorted(cache_key(gen.name, r) for r in requests)
    retries = [r.getMessage() for r in caplog.records if "retry" in r.getMessage()]
    assert len(retries) == 12 and all(FAULT_MESSAGE[fault] in m for m in retries)


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_that_never_ends_is_one_line_naming_the_url_and_the_cache_keeps_the_rest(fault, tmp_path):
    requests = [Request(f"question {i}") for i in range(8)]
    doomed = requests[5].prompt
    plan = lambda p, n: fault if p == doomed else None  # noqa: E731
    with FaultServer(plan) as server:
        gen = make_generator(f"openai:{server.url}|m", http_cfg(concurrency=2, timeout_s=fault_timeout(fault)))
        with pytest.raises(BackendError) as info, ResponseCache(tmp_path, gen.name) as cache:
            run_cached(gen, requests, cache)
        assert server.per_prompt[doomed] == 3  # one try and two retries
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{server.url}/chat/completions: giving up after 3 attempts (")
    assert FAULT_MESSAGE[fault] in message
    # What arrived before the failure is committed, every line whole; a rerun sends only the rest.
    done = {r["key"] for r in cache_lines(tmp_path)}
    assert cache_key(gen.name, requests[5]) not in done and len(done) >= 5
    with ResponseCache(tmp_path, gen.name) as cache:
        assert sum(cache.get(cache_key(gen.name, r)) is not None for r in requests) == len(done)


def test_retry_after_is_honoured_up_to_the_cap():
    with FaultServer(lambda p, n: "429" if n == 0 else None, retry_after="0.4") as server:
        gen = make_generator(f"openai:{server.url}|m", http_cfg(retry_max_wait_s=5.0))
        gen.generate([Request("q")])
        first, second = server.arrivals
    assert second - first >= 0.4
    # A server asking for an hour is waited on for the cap only, then answered.
    with FaultServer(lambda p, n: "429" if n == 0 else None, retry_after="3600") as server:
        gen = make_generator(f"openai:{server.url}|m", http_cfg(retry_max_wait_s=0.2))
        [resp] = gen.generate([Request("q")])
        first, second = server.arrivals
    assert resp.text == answer("q") and 0.2 <= second - first < 30


def test_client_errors_are_not_retried_and_echoed_headers_never_show_the_key(caplog):
    for name in ("httpx", "httpcore", "pipeline"):
        caplog.set_level(logging.DEBUG, logger=name)
    with FaultServer(lambda p, n: "echo401") as server:
        gen = make_generator(f"openai:{server.url}|m", http_cfg())
        with pytest.raises(BackendError, match=r"HTTP 401: denied; you sent") as info:
            gen.generate([Request("q")])
        assert server.calls == 1
    assert CANARY not in str(info.value) and "[redacted]" in str(info.value)
    with FaultServer(lambda p, n: "echo") as server:
        with pytest.raises(BackendError, match="200 reply is not a chat completion") as info:
            make_generator(f"openai:{server.url}|m", http_cfg()).generate([Request("q")])
    assert CANARY not in str(info.value)
    assert CANARY not in caplog.text and "Bearer" not in caplog.text


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf])
def test_a_non_positive_timeout_is_refused_before_any_call(bad):
    # Built directly: params validation refuses these earlier still, and the backend must not rely on it.
    from pipeline.backends.openai import OpenAIGenerator

    expected = r"^openai:http://127.0.0.1:9/v1\|m: timeout_s must be > 0 seconds, got"
    with pytest.raises(BackendError, match=expected):
        OpenAIGenerator("http://127.0.0.1:9/v1|m", timeout_s=bad)


def test_specs_and_cache_keys_of_one_server_are_unchanged():
    """The cache of earlier runs stays valid: same name, same key (values computed before the async
    backend existed)."""
    gen = make_generator("openai:http://127.0.0.1:8000/v1|m", http_cfg())
    assert gen.name == "openai:http://127.0.0.1:8000/v1|m"
    assert cache_key(gen.name, Request("What is the penalty?", max_new_tokens=64)) == (
        "6139314f51b0d72cebd814379b2da7d3a7d5d9895656e1a09cd7ede84d6fba49")
    assert cache_key(gen.name, Request("What is the penalty?", temperature=0.7, seed=3)) == (
        "93c51ed839a25ab7bea7522a41e2b0ffbed4a535e3f0ae478f687222d00d8b4c")
    for bad in ("openai:http://a/v1,|m", "openai:http://a/v1,http://a/v1|m", "openai:http://a/v1,ftp://b|m"):
        with pytest.raises(BackendError, match="openai"):
            make_generator(bad, http_cfg())


# ------------------------------------------------------------------------------------ fleet and limits
@pytest.mark.parametrize("routing", ["least_loaded", "round_robin"])
def test_a_fleet_shares_the_work_and_in_flight_stays_bounded(routing):
    requests = [Request(f"q{i}") for i in range(24)]
    with FaultServer(latency=0.03) as a, FaultServer(latency=0.03) as b:
        gen = make_generator(f"openai:{a.url},{b.url}|m", http_cfg(concurrency=6, routing=routing))
        out = gen.generate(requests)
    assert [r.text for r in out] == [answer(r.prompt) for r in requests]
    assert a.calls + b.calls == 24 and a.calls >= 6 and b.calls >= 6
    if routing == "round_robin":
        assert a.calls == b.calls == 12


def test_requests_in_flight_never_exceed_concurrency():
    with FaultServer(latency=0.03) as server:
        make_generator(f"openai:{server.url}|m", http_cfg(concurrency=5)).generate(
            [Request(f"q{i}") for i in range(30)])
    assert 2 <= server.peak <= 5


def test_the_rate_limit_spaces_requests_per_server():
    with FaultServer() as server:
        gen = make_generator(f"openai:{server.url}|m", http_cfg(concurrency=8, rate_limit_rps=25.0))
        gen.generate([Request(f"q{i}") for i in range(9)])
        arrivals = server.arrivals
    assert arrivals[-1] - arrivals[0] >= 8 / 25.0 * 0.9


# ------------------------------------------------------------------------------------ kill -9 of generate
N_QUESTIONS = 40
CONCURRENCY = 4


def write_stage_inputs(repo: Path, spec: str) -> Path:
    passages = [Passage(f"d{i}/p0", f"d{i}", f"d{i}", "Orders", f"Order number {i}: a fine of HK${i},000.")
                for i in range(N_QUESTIONS)]
    qas = [QA(f"q{i}", f"What fine did order number {i} impose?", f"HK${i},000", f"d{i}/p0", f"d{i}",
              "factual", [f"HK${i},000"], []) for i in range(N_QUESTIONS)]
    contexts = [Context(f"q{i}/gold_only", f"q{i}", "gold_only", True, [f"d{i}/p0"], 0)
                for i in range(N_QUESTIONS)]
    for name, records in (("passages", passages), ("qa", qas), ("contexts", contexts)):
        write_records(repo / "data" / "interim" / f"{name}.jsonl", records)
    params = repo / "kill_params.yaml"
    params.write_text(
        "generate:\n"
        f"  panel: ['{spec}']\n  variants: [gold_only]\n  concurrency: {CONCURRENCY}\n  timeout_s: 10\n"
        f"  max_retries: 1\n  retry_backoff_s: 0.05\n  api_key_env: {KEY_ENV}\n"
    )
    return params


def stage_command(params: Path, name: str) -> list[str]:
    return [sys.executable, "-m", "pipeline.stages.generate", "--params", str(params),
            "--out", f"data/interim/{name}.jsonl", "--cache-dir", f"data/cache/{name}"]


def run_stage(repo: Path, params: Path, name: str, kill_after: int | None = None,
              server: FaultServer | None = None) -> int:
    """Run the stage; with kill_after, SIGKILL it once the server has seen that many calls (the server
    holds the replies from that call on, so the kill always finds calls in flight). Returns the exit
    status. Its output goes to files in the work tree (which the canary search covers)."""
    env = {**os.environ, KEY_ENV: CANARY, "HF_HUB_OFFLINE": "1"}
    return run_stage_killed(stage_command(params, name), repo, env, repo / name, server, kill_after)


def test_kill_9_at_any_point_then_a_rerun_gives_identical_output_and_few_repeated_calls(tmp_path):
    repo = make_project_copy(tmp_path / "repo", tmp_path / "remote")
    with FaultServer(latency=0.02) as server:
        params = write_stage_inputs(repo, f"openai:{server.url}|served-model")
        assert run_stage(repo, params, "reference") == 0
        reference = (repo / "data/interim/reference.jsonl").read_bytes()
        assert server.calls == N_QUESTIONS and reference.count(b"\n") == N_QUESTIONS
        # Early, midway, and once every call has gone out (the output write is then under way).
        for kill_after in (1, N_QUESTIONS // 2, N_QUESTIONS):
            name = f"killed_at_{kill_after}"
            assert run_stage(repo, params, name, kill_after, server) == -signal.SIGKILL
            sent_before_kill = server.calls
            # A killed output write leaves a temporary file beside the output; the rerun sweeps it.
            (repo / f"data/interim/.{name}.jsonl.x1y2z3.tmp").write_text("half an outp")
            cached = len(cache_lines(repo / f"data/cache/{name}", torn_ok=True))
            server.reset()
            assert run_stage(repo, params, name) == 0
            assert (repo / f"data/interim/{name}.jsonl").read_bytes() == reference
            # The rerun asks exactly what the cache lacks, once each; only calls in flight are repeated.
            assert server.calls == len(server.per_prompt) == N_QUESTIONS - cached
            assert sent_before_kill + server.calls - N_QUESTIONS <= CONCURRENCY
            assert not list((repo / "data/interim").glob(".*.tmp"))
            assert len(cache_lines(repo / f"data/cache/{name}")) == N_QUESTIONS
    leaks = [p for p in tmp_path.rglob("*") if p.is_file() and CANARY.encode() in p.read_bytes()]
    assert leaks == []


def test_the_stage_ends_in_one_line_naming_the_url_when_the_endpoint_keeps_failing(tmp_path):
    repo = make_project_copy(tmp_path / "repo", tmp_path / "remote")
    doomed = "What fine did order number 7 impose?"
    with FaultServer(lambda p, n: "500" if doomed in p else None) as server:
        params = write_stage_inputs(repo, f"openai:{server.url}|served-model")
        assert run_stage(repo, params, "failing") == 1
    lines = (repo / "failing.stderr").read_text().strip().splitlines()
    first = f"generate: error: {server.url}/chat/completions: giving up after 2 attempts (HTTP 500)"
    assert lines[-1].startswith(first)
    assert "Traceback" not in "\n".join(lines)
    # No output, and every answer that did arrive is in the cache, whole.
    assert not (repo / "data/interim/failing.jsonl").exists()
    assert not list((repo / "data/interim").glob(".*.tmp"))
    # (Only answers still on their way when the failure stopped the run can be missing.)
    answered = sum(n for p, n in server.per_prompt.items() if doomed not in p)
    cached = len(cache_lines(repo / "data/cache/failing"))
    assert 7 <= cached and answered - cached <= CONCURRENCY - 1
    leaks = [p for p in tmp_path.rglob("*") if p.is_file() and CANARY.encode() in p.read_bytes()]
    assert leaks == []
