"""Shared fixtures: a throw-away copy of the project, as a git + DVC repo on the smoke profile."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from pipeline import cpu_pin

# The CPU code paths of every stage (pipeline/cpu_pin.py), also for the stages tests run in this process:
# before any test module imports torch, so in-process and child-process results agree bit for bit.
cpu_pin.pin()

ROOT = Path(__file__).resolve().parents[1]
# What a clone of the project holds that the pipeline needs; data, models and reports are DVC's to make.
PROJECT_FILES = ["pipeline", "csrc", "dvc.yaml", "params", "data/external", "data/validation", "pyproject.toml", ".dvcignore", ".gitignore"]


def run(cmd: list[str], cwd: Path, check: bool = True, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if pythonpath is not None:  # a folder outside the project copy runs this checkout's pipeline package
        env["PYTHONPATH"] = str(pythonpath)
    # The stages run `python -m pipeline...`: make that this interpreter, and reuse the built extension.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("PIPELINE_EXT_DIR", str(ROOT / ".cache" / "torch_extensions"))
    env["HF_HUB_OFFLINE"] = "1"
    env["TRANSFORMERS_OFFLINE"] = "1"
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


class LoopbackServer:
    """A real HTTP server on 127.0.0.1 (a free port) serving `handler` on a thread; use it as a context
    manager. Subclasses build their handler class, then call super().__init__(handler)."""

    def __init__(self, handler: type):
        from http.server import ThreadingHTTPServer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


class ChatServer(LoopbackServer):
    """/v1/chat/completions on loopback: `reply(headers, body, prompt, n)` gives (status, JSON object) for
    the n-th call (from 1); `calls` counts them."""

    def __init__(self, reply):
        from http.server import BaseHTTPRequestHandler

        self.calls, self.lock = 0, threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as vLLM and hosted APIs serve

            def log_message(self, *args):
                pass

            def do_POST(self):
                body, prompt = read_chat(self)
                with outer.lock:
                    outer.calls += 1
                    n = outer.calls
                send_json(self, *reply(self.headers, body, prompt, n))

        super().__init__(Handler)


def read_chat(handler) -> tuple[dict, str]:
    """The JSON body of a /v1/chat/completions request a loopback handler received, and its first
    message's text (the prompt)."""
    body = json.loads(handler.rfile.read(int(handler.headers.get("Content-Length", 0))))
    return body, body["messages"][0]["content"]


def chat_reply(model: str, text: str, finish: str = "stop", completion_tokens: int | None = None) -> dict:
    """An OpenAI-style chat completion carrying `text` (with usage when completion_tokens is given)."""
    reply = {"model": model, "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": finish}]}
    if completion_tokens is not None:
        reply["usage"] = {"completion_tokens": completion_tokens}
    return reply


def send_json(handler, status: int, obj) -> None:
    """Reply from a loopback test server's request handler with a JSON body."""
    data = json.dumps(obj).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def run_stage_killed(cmd: list[str], cwd: Path, env: dict, log: Path, server, kill_after: int | None) -> int:
    """Run a stage command (output appended to log.stdout / log.stderr); with kill_after, SIGKILL it once
    `server` has seen that many calls. The server holds its replies from that call on (server.reset(
    hold_from=...)), so the kill always finds calls in flight; `server.release` frees them afterwards.
    Returns the exit status (-9 when killed)."""
    import signal
    import time

    if kill_after is not None:
        server.reset(hold_from=kill_after)
    with open(f"{log}.stdout", "ab") as out, open(f"{log}.stderr", "ab") as err:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err)
        if kill_after is not None:
            deadline = time.monotonic() + 60
            while server.calls < kill_after and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.001)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=60)
            server.release.set()
        return proc.wait(timeout=120)


def make_project_copy(dest: Path, remote: Path) -> Path:
    """Copy the project into `dest` as a fresh git repo whose params.yaml is the smoke profile."""
    dest.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in PROJECT_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dest / name)
    (dest / ".dvc").mkdir()
    shutil.copy2(ROOT / ".dvc" / ".gitignore", dest / ".dvc" / ".gitignore")
    (dest / ".dvc" / "config").write_text(f"[core]\n    remote = local\n['remote \"local\"']\n    url = {remote}\n")
    shutil.copy2(ROOT / "params" / "smoke.yaml", dest / "params.yaml")
    run(["git", "init", "-q", "-b", "main"], dest)
    run(["git", "add", "-A"], dest)
    run(["git", "-c", "user.email=t@localhost", "-c", "user.name=t", "commit", "-qm", "project"], dest)
    return dest


def tiny_llama_config(tokenizer, heads: int = 2, kv_heads: int = 1):
    """A random two-layer Llama for tests of mechanics (no weights are downloaded, none are meaningful)."""
    from transformers import LlamaConfig

    return LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        max_position_embeddings=512,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )


@pytest.fixture(scope="session")
def smoke_repo(tmp_path_factory) -> Path:
    """The project copy after one full `dvc repro` on the smoke profile (shared by the slow tests)."""
    base = tmp_path_factory.mktemp("smoke")
    repo = make_project_copy(base / "repo", base / "remote")
    run(["dvc", "repro"], repo)
    return repo
