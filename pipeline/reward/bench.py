"""Reward-model throughput: the API against the plain way, and the server under concurrent clients.

    python -m pipeline.reward.bench [--items 8 --responses 5 --repeats 3 --clients 1 8 32]

The model is the real profile's: the packaged SmolLM2-135M-Instruct (converted on first use, as the `hf:`
members and the DPO bench load it) with a LoRA adapter of params/real.yaml's shape (train.lora: r, target
modules, the top layers only); a trained adapter can be given with --adapter and its base with --base,
otherwise the adapter is untrained with random B (the cost of a forward does not depend on the weights).
The items are the real profile's kind: a question, four passages of a seeded synthetic decision cut as
the corpus stage cuts them (corpus.max_passage_chars of params/real.yaml), five answers of 1 to 5 of its
sentences or the refusal.

- api: RewardModel.score, every scoring (sum, mean, ref_sum, ref_mean): each item's prompt once, the
  shared trunk once for policy and reference, the LM head on response tokens only (fused kernel).
- plain: each response its own prompt+response row, full logits over every position, the policy
  (adapter on) and the reference (adapter off) each in their own pass: pipeline/scoring/two_pass.py,
  batched by length under score.batch_tokens as the API is.
- plain_batch1 (--batch1): the same, one row per forward.

Responses/s comes from the best of `repeats` (methods interleaved), and per CPU-second; ratios against
plain are given for both, with the largest difference between the ways' scores. The server part starts
`python -m pipeline.reward serve` on a free loopback port and sends requests of one item (five answers)
from 1, 8 and 32 concurrent clients (httpx): requests/s, p50 and p95 latency. Writes
reports/bench/reward.json.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from pipeline import params as params_mod
from pipeline import paths
from pipeline.io import write_json
from pipeline.reward.items import Item
from pipeline.reward.model import RewardModel
from pipeline.scoring.encode import EncodedItem
from pipeline.scoring.two_pass import score_rows_two_pass

OUT = paths.BENCH / "reward.json"
PACKAGED = "smollm2-135m-instruct"
REAL_PARAMS = Path("params/real.yaml")


def bench_items(n: int, responses: int, min_chars: int, max_chars: int, refusal: str, seed: int = 0) -> list[Item]:
    """Items like the real profile's contexts: four passages of a synthetic decision, a question, answers of
    one to `responses` of its sentences (the last one the refusal)."""
    from pipeline.corpus.passages import split_passages, split_sentences
    from pipeline.synth import generate_decisions

    decisions = generate_decisions(n, {"insider_trading": 0.4, "criminal_sentencing": 0.3,
                                       "residential_tenancy": 0.3}, seed)
    rng = random.Random(seed)
    items = []
    for decision in decisions:
        shown = split_passages([decision], min_chars, max_chars)[:4]
        sentences = [s for p in shown for s in split_sentences(p.text)]
        answers = [" ".join(sentences[:k]) for k in range(1, responses)] + [refusal]
        question = f"What did the decision in {decision.title} hold about {shown[rng.randrange(len(shown))].heading.lower()}?"
        items.append(Item(decision.id, question, tuple(shown), tuple(answers[:responses])))
    return items


def adapter_folder(base: Path, out: Path, lora: Any) -> Path:
    """An untrained adapter of params/real.yaml's LoRA shape on `base`, saved as the train stage saves one."""
    from peft import get_peft_model

    from pipeline.models import load_base
    from pipeline.models.loading import portable_base
    from pipeline.stages.train import portable_config
    from pipeline.training.run import lora_config

    model, _ = load_base(base, device="cpu")
    peft_model = get_peft_model(model, lora_config(lora, model.config.num_hidden_layers))
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, param in peft_model.named_parameters():
            if "lora_B" in name:
                param.copy_(torch.randn(param.shape, generator=generator) * 0.02)
    peft_model.save_pretrained(out, safe_serialization=True)
    portable_config(out / "adapter_config.json", portable_base(base))
    return out


def plain(rm: RewardModel, encoded: list[EncodedItem], batch_tokens: int, batch1: bool = False) -> dict[str, np.ndarray]:
    """sum and ref_sum per response, the plain way: policy and reference each over full prompt+response rows."""
    model = rm.model

    def rows() -> Any:
        if not batch1:
            return score_rows_two_pass(model, encoded, batch_tokens)
        # One row per forward: a budget no two rows fit together.
        return score_rows_two_pass(model, encoded, 1)

    policy = rows()
    with model.disable_adapter():
        reference = rows()
    return {"sum": policy.sums, "ref_sum": policy.sums - reference.sums}


def timed(methods: dict[str, Callable[[], Any]], repeats: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    wall: dict[str, list[float]] = {k: [] for k in methods}
    cpu: dict[str, list[float]] = {k: [] for k in methods}
    for _ in range(repeats):
        for name, fn in methods.items():
            w, c = time.perf_counter(), time.process_time()
            fn()
            cpu[name].append(time.process_time() - c)
            wall[name].append(time.perf_counter() - w)
    return wall, cpu


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def clients(url: str, bodies: list[dict], concurrency: int) -> tuple[float, list[float]]:
    """(wall seconds, latency of each request) with `concurrency` clients taking requests from a queue."""
    import httpx

    queue: asyncio.Queue[dict] = asyncio.Queue()
    for body in bodies:
        queue.put_nowait(body)
    latencies: list[float] = []

    async def client(http: httpx.AsyncClient) -> None:
        while not queue.empty():
            body = queue.get_nowait()
            started = time.perf_counter()
            reply = await http.post(f"{url}/v1/score", json=body)
            reply.raise_for_status()
            latencies.append(time.perf_counter() - started)

    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(timeout=600, limits=limits) as http:
        started = time.perf_counter()
        await asyncio.gather(*(client(http) for _ in range(concurrency)))
        return time.perf_counter() - started, latencies


def server_bench(adapter: Path, base: Path, params_file: str, items: list[Item], levels: list[int],
                 per_client: int) -> dict[str, Any]:
    """The served model under 1, 8, 32 concurrent clients, each request one item."""
    import httpx

    from pipeline.reward.server import wait_healthy

    port = free_port()
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    cmd = [sys.executable, "-m", "pipeline.reward", "serve", "--model", str(adapter), "--base", str(base),
           "--params", params_file, "--port", str(port), "--device", "cpu"]
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            if not wait_healthy(url, server, 600):
                log.seek(0)
                raise SystemExit(f"reward bench: the server did not start:\n{log.read().decode()[-2000:]}")
            bodies = [{"items": [{"id": i.id, "question": i.question, "responses": list(i.responses), "gold": i.gold,
                                  "passages": [{"heading": p.heading, "text": p.text} for p in i.passages]}]}
                      for i in items]
            asyncio.run(clients(url, bodies[:2], 1))  # warm-up
            out = {}
            for level in levels:
                n = max(per_client * level, len(bodies))
                wall, latencies = asyncio.run(clients(url, [bodies[k % len(bodies)] for k in range(n)], level))
                out[str(level)] = {"clients": level, "requests": n, "requests_per_s": round(n / wall, 3),
                                   "responses_per_s": round(n * len(items[0].responses) / wall, 3),
                                   "latency_p50_s": round(float(np.percentile(latencies, 50)), 4),
                                   "latency_p95_s": round(float(np.percentile(latencies, 95)), 4)}
                print(f"reward bench: server, {level} clients: {out[str(level)]['requests_per_s']:.2f} requests/s, "
                      f"p50 {out[str(level)]['latency_p50_s']:.3f}s, p95 {out[str(level)]['latency_p95_s']:.3f}s",
                      flush=True)
            out["batches"] = httpx.get(f"{url}/health").json()["counts"]
            return out
        finally:
            server.terminate()
            server.wait(timeout=60)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--params", default=str(REAL_PARAMS), help="the profile whose LoRA shape and passages to use")
    ap.add_argument("--base", default=None, help="base folder (default: the packaged SmolLM2, converted)")
    ap.add_argument("--adapter", default=None, help="a trained adapter (default: an untrained one of the profile's shape)")
    ap.add_argument("--items", type=int, default=8)
    ap.add_argument("--responses", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--batch1", action="store_true", help="also time the plain way one row per forward")
    ap.add_argument("--clients", type=int, nargs="*", default=[1, 8, 32], help="server concurrency levels ([] skips)")
    ap.add_argument("--requests-per-client", type=int, default=2)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    params = params_mod.load(args.params)
    from pipeline.kernels import backend
    from pipeline.models.packaged import converted

    base = Path(args.base) if args.base else converted(PACKAGED)
    with tempfile.TemporaryDirectory(prefix="reward-bench-") as tmp:
        adapter = Path(args.adapter) if args.adapter else adapter_folder(base, Path(tmp) / "adapter", params.train)
        rm = RewardModel.load(adapter, params, base=base, device="cpu")
        items = bench_items(args.items, args.responses, params.corpus.min_passage_chars, params.corpus.max_passage_chars,
                            params.generate.refusal)
        fitted = rm.encode(items)
        encoded = [EncodedItem(f.prompt, f.responses) for f in fitted]  # type: ignore[arg-type]
        n_responses = sum(len(i.responses) for i in items)
        batch_tokens = params.score.batch_tokens
        api_out = rm.score_fitted(items, fitted)
        plain_out = plain(rm, encoded, batch_tokens)
        api_sum = np.concatenate([s.scores["sum"] for s in api_out])
        api_ref = np.concatenate([s.scores["ref_sum"] for s in api_out])
        diff = {"sum": float(np.abs(api_sum - plain_out["sum"]).max()),
                "ref_sum": float(np.abs(api_ref - plain_out["ref_sum"]).max())}
        methods: dict[str, Callable[[], Any]] = {"api": lambda: rm.score_fitted(items, fitted),
                                                 "plain": lambda: plain(rm, encoded, batch_tokens)}
        if args.batch1:
            methods["plain_batch1"] = lambda: plain(rm, encoded, batch_tokens, batch1=True)
        wall, cpu = timed(methods, args.repeats)
        rate = {k: n_responses / min(v) for k, v in wall.items()}
        cpu_rate = {k: n_responses / min(v) for k, v in cpu.items()}
        median = {k: n_responses / statistics.median(v) for k, v in wall.items()}
        print(f"reward bench: api {rate['api']:.2f} responses/s, plain {rate['plain']:.2f} "
              f"(x{rate['api'] / rate['plain']:.2f}; x{cpu_rate['api'] / cpu_rate['plain']:.2f} in CPU time), "
              f"max |diff| {max(diff.values()):.2e}", flush=True)
        served = server_bench(adapter, base, args.params, items, args.clients, args.requests_per_client) \
            if args.clients else {}
    result = {
        "model": rm.loaded.base_id, "adapter": args.adapter or "untrained, params.train.lora shape, random B",
        "lora": {"r": params.train.lora.r, "top_layers": params.train.lora.top_layers,
                 "target_modules": list(params.train.lora.target_modules)},
        "trunk_layers_shared": rm.split, "layers": rm.model.get_base_model().config.num_hidden_layers,
        "threads": torch.get_num_threads(), "machine": platform.machine(), "kernels": backend(),
        "items": len(items), "responses_per_item": args.responses, "responses": n_responses,
        "prompt_tokens_mean": round(float(np.mean([len(e.prompt) for e in encoded])), 1),
        "response_tokens_mean": round(float(np.mean([len(r) for e in encoded for r in e.responses])), 1),
        "batch_tokens": batch_tokens, "repeats": args.repeats,
        "responses_per_s": {k: round(v, 3) for k, v in rate.items()},
        "responses_per_s_median": {k: round(v, 3) for k, v in median.items()},
        "responses_per_cpu_s": {k: round(v, 3) for k, v in cpu_rate.items()},
        "speedup_vs_plain": {k: round(v / rate["plain"], 3) for k, v in rate.items()},
        "speedup_vs_plain_median": {k: round(v / median["plain"], 3) for k, v in median.items()},
        "speedup_vs_plain_cpu": {k: round(v / cpu_rate["plain"], 3) for k, v in cpu_rate.items()},
        "max_abs_diff_vs_plain": diff,
        "seconds": {k: [round(t, 3) for t in v] for k, v in wall.items()},
        "server": served,
    }
    write_json(args.out, result)
    print(f"reward bench -> {args.out}")


if __name__ == "__main__":
    main()
