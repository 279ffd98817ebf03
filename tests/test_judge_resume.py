"""The judge stage with an `llm:` judge on a real loopback endpoint, killed with SIGKILL at several points:
a rerun writes byte-identical labels and repeats at most the calls that were in flight (the generate
stage's twin is in test_endpoints_reliability.py). The endpoint answers like a chat model asked for a
label: one of the allowed labels, picked by a hash of the prompt, and now and then a reply that is not
JSON, so the schema retry (a second prompt) is interrupted and resumed too."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from conftest import LoopbackServer, chat_reply, make_project_copy, read_chat, run_stage_killed, send_json

from pipeline.io import write_records
from pipeline.judges import file_name
from pipeline.records import QA, Candidate, Context, Passage

KEY_ENV = "LEGAL_RM_TEST_JUDGE_KEY"
CANARY = "sk-canary-judge-51c0ffee-do-not-leak"
N_CANDIDATES = 30
CONCURRENCY = 4
_ALLOWED = re.compile(r"<(?:one of|以下之一)[:：] ?([^>]+)>")


def digest(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def label_reply(prompt: str) -> str:
    """What the fake judge model says to `prompt`: an allowed label, or (for one first prompt in five) a
    reply that breaks the schema. A retry prompt (it quotes the bad reply) always gets a label."""
    allowed = [a.strip() for a in _ALLOWED.search(prompt).group(1).split(",")]
    if "not a valid JSON object" not in prompt and digest(prompt) % 5 == 0:
        return "I think the answer is mostly fine."
    return json.dumps({"label": allowed[digest(prompt) % len(allowed)], "reason": "loopback judge"})


class JudgeServer(LoopbackServer):
    """/v1/chat/completions answering label_reply; counts calls per prompt; with `hold_from`, calls from
    that number on get no reply until `release` is set (the kill then always finds calls in flight)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body, prompt = read_chat(self)
                with outer.lock:
                    outer.per_prompt[prompt] += 1
                    held = outer.hold_from is not None and outer.calls >= outer.hold_from
                if held:
                    outer.release.wait(timeout=60)
                time.sleep(0.01)
                if self.headers.get("Authorization") != f"Bearer {CANARY}":
                    return send_json(self, 401, {"error": "bad key"})
                try:
                    send_json(self, 200, chat_reply(body["model"], label_reply(prompt)))
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client was killed

        super().__init__(Handler)
        self.httpd.handle_error = lambda request, address: None

    def reset(self, hold_from: int | None = None) -> None:
        with self.lock:
            self.per_prompt: Counter[str] = Counter()
            self.hold_from = hold_from
            self.release = threading.Event()

    @property
    def calls(self) -> int:
        return sum(self.per_prompt.values())


def write_inputs(repo: Path, spec: str) -> Path:
    """Passages, questions, contexts and candidates (answers and refusals) for the judge stage."""
    interim = repo / "data" / "interim"
    passages = [Passage(f"d{i}/p0", f"d{i}", f"d{i}", "Orders",
                        f"The tribunal ordered the tenant to pay arrears of ${i}00 within 14 days.")
                for i in range(N_CANDIDATES)]
    qas = [QA(f"q{i}", f"What did the tribunal order in matter {i}?", f"Arrears of ${i}00 within 14 days.",
              f"d{i}/p0", f"d{i}", "factual", [f"${i}00"], ["within 14 days"]) for i in range(N_CANDIDATES)]
    contexts = [Context(f"q{i}/gold_only", f"q{i}", "gold_only", True, [f"d{i}/p0"], 0) for i in range(N_CANDIDATES)]
    texts = ["The tenant must pay ${i}00 in arrears within 14 days.", "The passages do not say.",
             "The tenant must pay ${i}00."]
    candidates = [Candidate(f"q{i}/gold_only/g{i % 3}", f"q{i}/gold_only", f"offline:g{i % 3}",
                            texts[i % 3].format(i=i), "stop") for i in range(N_CANDIDATES)]
    for name, records in (("passages", passages), ("qa", qas), ("contexts", contexts), ("candidates", candidates)):
        write_records(interim / f"{name}.jsonl", records)
    params = repo / "judge_params.yaml"
    params.write_text(
        f"judge:\n  judges: ['{spec}']\n  max_retries: 1\n"
        f"generate:\n  concurrency: {CONCURRENCY}\n  timeout_s: 10\n  max_retries: 1\n"
        f"  retry_backoff_s: 0.05\n  api_key_env: {KEY_ENV}\n"
    )
    return params


def run_judge(repo: Path, params: Path, server: JudgeServer, kill_after: int | None = None) -> int:
    env = {**os.environ, KEY_ENV: CANARY, "HF_HUB_OFFLINE": "1"}
    cmd = [sys.executable, "-m", "pipeline.stages.judge", "--params", str(params)]
    return run_stage_killed(cmd, repo, env, repo / "judge", server, kill_after)


def test_judge_killed_at_any_point_resumes_to_identical_labels_repeating_only_calls_in_flight(tmp_path):
    repo = make_project_copy(tmp_path / "repo", tmp_path / "remote")
    with JudgeServer() as server:
        spec = f"llm:openai:{server.url}|judge-model"
        params = write_inputs(repo, spec)
        labels_file = repo / "data/interim/labels" / file_name(spec)
        cache = repo / "data/cache/judge"
        assert run_judge(repo, params, server) == 0, (repo / "judge.stderr").read_text()[-2000:]
        reference = labels_file.read_bytes()
        total = server.calls
        labels = [json.loads(line) for line in reference.decode().splitlines()]
        # The run is worth resuming: behaviour for all, three more dimensions for the attempted ones, retries.
        assert len(labels) == N_CANDIDATES and total > 2 * N_CANDIDATES
        assert {lab["behaviour"] for lab in labels} >= {"attempted", "abstained"}
        assert any("not a valid JSON object" in p for p in server.per_prompt)  # retries happened
        for kill_after in (1, total // 2, total):
            subprocess.run(["rm", "-rf", str(cache), str(labels_file.parent)], check=True)
            server.reset()
            assert run_judge(repo, params, server, kill_after) == -signal.SIGKILL
            sent_before_kill = server.calls
            assert not labels_file.exists()  # nothing half-written
            server.reset()
            assert run_judge(repo, params, server) == 0, (repo / "judge.stderr").read_text()[-2000:]
            assert labels_file.read_bytes() == reference
            # Every prompt is asked once on the rerun, and only calls in flight at the kill were asked twice.
            assert set(server.per_prompt.values()) <= {1}
            assert sent_before_kill + server.calls - total <= CONCURRENCY
    leaks = [p for p in tmp_path.rglob("*") if p.is_file() and CANARY.encode() in p.read_bytes()]
    assert leaks == []
