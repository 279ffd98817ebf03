"""`python -m pipeline.reward serve` over loopback: a real uvicorn process, a real HTTP client (httpx), concurrent
clients batched together, malformed requests refused naming the field, clients that leave mid-request,
and logs that hold counts only."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
import reward_project
from conftest import ROOT
from test_reward_api import interim

from pipeline.reward import RewardModel, parse_item
from pipeline.reward.server import wait_healthy

ADAPTER = "models/adapters/dpo-pairs-s1"
LIMITS = {"reward.serve.batch_wait_ms": 150.0, "reward.serve.max_items": 6, "reward.serve.max_body_bytes": 30000,
          "reward.serve.max_batch_items": 12}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request_items(root: Path) -> list[dict]:
    """Every context of the project as an item: its question, passages and the four answers to it."""
    passages, qas, contexts = interim(root)
    candidates = [json.loads(line) for line in (root / "data/interim/candidates.jsonl").read_text().splitlines()]
    return [{"id": cid, "question": qas[c.qa_id].question,
             "passages": [{"heading": passages[p].heading, "text": passages[p].text} for p in c.passage_ids],
             "responses": [x["text"] for x in candidates if x["context_id"] == cid]}
            for cid, c in sorted(contexts.items())]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = reward_project.build(tmp_path_factory.mktemp("reward-serve"), top_layers=True, **LIMITS)
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1",
               PIPELINE_EXT_DIR=os.environ.get("PIPELINE_EXT_DIR", str(ROOT / ".cache" / "torch_extensions")))
    log = open(root / "server.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.reward", "serve", "--model", ADAPTER, "--port", str(port)],
                            cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    if not wait_healthy(url, proc, 300):
        raise AssertionError(f"server did not start: {(root / 'server.log').read_text()[-3000:]}")
    yield url, root
    proc.terminate()
    proc.wait(timeout=30)
    log.close()


@pytest.fixture(scope="module")
def api(server):
    _, root = server
    return RewardModel.load(root / ADAPTER, root / "params.yaml")


def expected(api: RewardModel, items: list[dict]) -> list[list[float]]:
    return [s.scores["ref_sum"] for s in api.score([parse_item(i, str(k), 64) for k, i in enumerate(items)])]


def test_health_names_the_model_and_what_it_gives(server):
    url, _ = server
    health = httpx.get(f"{url}/health").json()
    assert health["status"] == "ok" and health["model"] == "dpo-pairs-s1"
    assert health["base"].startswith("legal-rm/builtin-") and health["scorings"] == ["sum", "mean", "ref_sum", "ref_mean"]


def test_a_request_gets_the_api_s_rewards_ranked(server, api):
    url, root = server
    items = request_items(root)[:3]
    reply = httpx.post(f"{url}/v1/score", json={"items": items}, timeout=120)
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["model"] == "dpo-pairs-s1" and body["scoring"] == "ref_sum"
    for result, item, want in zip(body["results"], items, expected(api, items), strict=True):
        assert result["id"] == item["id"] and result["rewards"] == pytest.approx(want, abs=1e-4)
        assert result["pick"] == result["order"][0] == max(range(4), key=lambda k: (result["rewards"][k], -k))
    other = httpx.post(f"{url}/v1/score", json={"items": items[:1], "scoring": "mean"}, timeout=120).json()
    assert other["scoring"] == "mean" and other["results"][0]["rewards"] == other["results"][0]["scores"]["mean"]


def test_concurrent_clients_are_batched_together_and_each_gets_its_own_answer(server, api):
    url, root = server
    items = request_items(root)
    before = httpx.get(f"{url}/health").json()["counts"]
    requests = [items[k:k + 2] for k in range(0, 16, 2)] + [items[k:k + 1] for k in range(4)]
    replies: list = [None] * len(requests)
    start = threading.Barrier(len(requests))

    def client(k: int) -> None:
        with httpx.Client(timeout=120) as c:
            start.wait()
            replies[k] = c.post(f"{url}/v1/score", json={"items": requests[k]})

    threads = [threading.Thread(target=client, args=(k,)) for k in range(len(requests))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for reply, sent in zip(replies, requests, strict=True):
        assert reply.status_code == 200, reply.text
        results = reply.json()["results"]
        assert [r["id"] for r in results] == [i["id"] for i in sent]
        for result, want in zip(results, expected(api, sent), strict=True):
            assert result["rewards"] == pytest.approx(want, abs=1e-4)
    after = httpx.get(f"{url}/health").json()["counts"]
    batches = after.get("batches", 0) - before.get("batches", 0)
    assert after["answered"] - before.get("answered", 0) == len(requests)
    assert after["items"] - before.get("items", 0) == sum(len(r) for r in requests)
    # 12 requests, at most 12 items a call: batched, not one call each.
    assert 2 <= batches < len(requests), (batches, len(requests))


@pytest.mark.parametrize(("body", "status", "field"), [
    ({"items": [{"question": "q?", "passages": ["p"]}]}, 422, "items[0].responses"),
    ({"items": [{"question": "q?", "passages": ["p"], "responses": []}]}, 422, "items[0].responses"),
    ({"items": [{"question": "q?", "passages": [{"heading": "h"}], "responses": ["a"]}]}, 422, "items[0].passages[0].text"),
    ({"items": []}, 422, "items"),
    ({"items": [{"question": "q?", "passages": ["p"], "responses": ["a"]}] * 7}, 422, "items"),
    ({"items": [{"question": "q?", "passages": ["p"], "responses": ["a"]}], "scoring": "best"}, 422, "scoring"),
    ({"items": [{"question": "q?", "passages": ["evidence " * 400], "responses": ["a"]}]}, 422, "items[0].passages"),
    ({"items": [{"question": "q?", "passages": ["x" * 40000], "responses": ["a"]}]}, 413, "body"),
    ("not json at all", 422, "body"),
])
def test_a_malformed_request_is_refused_naming_the_field(server, body, status, field):
    url, _ = server
    content = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    reply = httpx.post(f"{url}/v1/score", content=content, headers={"content-type": "application/json"}, timeout=60)
    assert reply.status_code == status, reply.text
    assert reply.json()["field"] == field and reply.json()["error"].startswith(f"{field}: ")


def test_clients_that_disconnect_mid_request_do_not_hurt_the_server(server, api):
    url, root = server
    host, port = url.removeprefix("http://").split(":")
    before = httpx.get(f"{url}/health").json()["counts"]
    body = json.dumps({"items": request_items(root)[:6]}).encode()
    # One leaves in the middle of its body, one right after sending a whole request (while it is scored).
    for sent in (body[: len(body) // 2], body):
        with socket.create_connection((host, int(port))) as s:
            s.sendall(b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      + f"Content-Length: {len(body)}\r\n\r\n".encode() + sent)
            time.sleep(0.05)
    time.sleep(1.0)
    items = request_items(root)[6:8]
    reply = httpx.post(f"{url}/v1/score", json={"items": items}, timeout=120)
    assert reply.status_code == 200
    for result, want in zip(reply.json()["results"], expected(api, items), strict=True):
        assert result["rewards"] == pytest.approx(want, abs=1e-4)
    after = httpx.get(f"{url}/health").json()["counts"]
    assert after.get("disconnected", 0) - before.get("disconnected", 0) >= 1
    assert after["answered"] - before.get("answered", 0) <= 2  # the leaver's answer, if it was ready, went nowhere


def test_the_log_holds_counts_and_no_request_content(server):
    _, root = server
    texts = [t for item in request_items(root) for t in (item["question"], item["id"], *item["responses"])]
    log = (root / "server.log").read_text(encoding="utf-8")
    assert not [t for t in texts if t in log]
    ours = [line for line in log.splitlines() if "pipeline.reward.server" in line]
    assert ours and all(re.search(r"INFO: scored \d+ items \(\d+ responses\) of \d+ requests in [\d.]+s$", line)
                        for line in ours), ours
    # No access log: no client address, method or path (the start line names where the server listens).
    rest = [line for line in log.splitlines() if not line.startswith("reward serve: ")]
    assert not [line for line in rest if "127.0.0.1" in line or "POST" in line or "/v1/score" in line]
