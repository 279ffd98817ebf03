"""Scoring throughput, side by side in one process on the same model and pairs.

    python -m pipeline.scoring.bench [--prompt-tokens 600 --response-tokens 80 --pairs 32]

Compares the shared-prefix scorer, plain two-pass scoring (full logits), two-pass with the fused head on
response positions only (to separate the two savings), and the LegalRewardBench style (batch 1, full
log_softmax). The model is models/base when it exists, else a random model of params.pretrain's size.
Methods run interleaved, repeats times. pairs/s is reported from the best repeat (the least disturbed by
other load on a shared machine), from the median, and per CPU-second of the process (robust to other
jobs sharing the cores); ratios are given for each. Writes reports/bench/scoring.json.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from pipeline import params as params_mod
from pipeline import paths
from pipeline.io import write_json
from pipeline.scoring import EncodedPair, score_naive, score_shared_prefix, score_two_pass

OUT = paths.BENCH / "scoring.json"


def random_model(p: params_mod.PretrainParams, hidden: int | None = None, vocab: int | None = None) -> Any:
    """A random Llama of params.pretrain's shape; --hidden/--vocab scale it (heads keep 32-dim, MLP 3x)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    hidden = hidden or p.hidden_size
    heads = p.num_heads if hidden == p.hidden_size else hidden // 32
    kv_heads = p.num_kv_heads if hidden == p.hidden_size else max(1, heads // 2)
    config = LlamaConfig(
        vocab_size=vocab or p.vocab_size, hidden_size=hidden,
        intermediate_size=p.intermediate_size if hidden == p.hidden_size else 3 * hidden,
        num_hidden_layers=p.num_layers, num_attention_heads=heads, num_key_value_heads=kv_heads,
        max_position_embeddings=p.max_position_embeddings,
    )
    return LlamaForCausalLM(config).eval()


def synthetic_pairs(n: int, prompt: int, response: int, vocab: int, seed: int = 0) -> list[EncodedPair]:
    """Random ids with lengths within +-10% of the targets (speed does not depend on content)."""
    rng = random.Random(seed)

    def ids(target: int) -> list[int]:
        return [rng.randrange(3, vocab) for _ in range(rng.randint(int(target * 0.9), int(target * 1.1)))]

    return [EncodedPair(ids(prompt), ids(response), ids(response)) for _ in range(n)]


def run(methods: dict[str, Callable[[], Any]], repeats: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """(wall seconds, process CPU seconds) per method and repeat, methods interleaved."""
    wall: dict[str, list[float]] = {k: [] for k in methods}
    cpu: dict[str, list[float]] = {k: [] for k in methods}
    for fn in methods.values():  # warm-up (allocator, kernel build)
        fn()
    for _ in range(repeats):
        for name, fn in methods.items():
            w, c = time.perf_counter(), time.process_time()
            fn()
            cpu[name].append(time.process_time() - c)
            wall[name].append(time.perf_counter() - w)
    return wall, cpu


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--params", default=str(params_mod.DEFAULT_PATH))
    ap.add_argument("--pairs", type=int, default=32)
    ap.add_argument("--prompt-tokens", type=int, default=600)
    ap.add_argument("--response-tokens", type=int, default=80)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--batch-tokens", type=int, default=None)
    ap.add_argument("--random-model", action="store_true", help="ignore models/base")
    ap.add_argument("--hidden", type=int, default=None, help="random model: hidden size (default params.pretrain)")
    ap.add_argument("--vocab", type=int, default=None, help="random model: vocabulary (default params.pretrain)")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    params = params_mod.load(args.params)
    batch_tokens = args.batch_tokens or params.score.batch_tokens
    from pipeline.kernels import backend

    if paths.BASE_META.exists() and not args.random_model:
        from pipeline.models import load_base

        model, _ = load_base()
        source = str(paths.BASE)
    else:
        model = random_model(params.pretrain, args.hidden, args.vocab)
        source = "random (params.pretrain shape)" if not (args.hidden or args.vocab) else "random (scaled)"
    vocab = model.get_output_embeddings().weight.shape[0]
    pairs = synthetic_pairs(args.pairs, args.prompt_tokens, args.response_tokens, vocab)
    methods = {
        "shared_prefix": lambda: score_shared_prefix(model, pairs, batch_tokens),
        "two_pass": lambda: score_two_pass(model, pairs, batch_tokens),
        "two_pass_fused_head": lambda: score_two_pass(model, pairs, batch_tokens, head="fused"),
        "naive_batch1": lambda: score_naive(model, pairs),
    }
    check = {k: fn() for k, fn in methods.items()}
    max_diff = max(float(np.abs(check[k].chosen_sum - check["two_pass"].chosen_sum).max()) for k in check)
    times, cpu = run(methods, args.repeats)
    rate = {k: args.pairs / min(v) for k, v in times.items()}
    # CPU seconds are far less disturbed than wall time when other jobs share the cores.
    cpu_rate = {k: args.pairs / min(v) for k, v in cpu.items()}
    median = {k: args.pairs / statistics.median(v) for k, v in times.items()}
    result = {
        "model": source,
        "n_params": sum(p.numel() for p in model.parameters()),
        "vocab": vocab,
        "device": str(next(model.parameters()).device),
        "threads": torch.get_num_threads(),
        "machine": platform.machine(),
        "kernels": backend(),
        "pairs": args.pairs,
        "prompt_tokens": args.prompt_tokens,
        "response_tokens": args.response_tokens,
        "batch_tokens": batch_tokens,
        "repeats": args.repeats,
        "pairs_per_s": {k: round(v, 3) for k, v in rate.items()},
        "pairs_per_s_median": {k: round(v, 3) for k, v in median.items()},
        "seconds": {k: [round(t, 4) for t in v] for k, v in times.items()},
        "cpu_seconds": {k: [round(t, 4) for t in v] for k, v in cpu.items()},
        "pairs_per_cpu_s": {k: round(v, 3) for k, v in cpu_rate.items()},
        "speedup_vs_two_pass_cpu": {k: round(v / cpu_rate["two_pass"], 3) for k, v in cpu_rate.items()},
        "speedup_vs_two_pass": {k: round(v / rate["two_pass"], 3) for k, v in rate.items()},
        "speedup_vs_naive": {k: round(v / rate["naive_batch1"], 3) for k, v in rate.items()},
        "speedup_vs_two_pass_median": {k: round(v / median["two_pass"], 3) for k, v in median.items()},
        "max_abs_diff_vs_two_pass": max_diff,
    }
    write_json(args.out, result)
    print("scoring bench: " + ", ".join(f"{k} {v:.2f} pairs/s" for k, v in rate.items())
          + f"; shared-prefix x{result['speedup_vs_two_pass']['shared_prefix']:.2f} vs two-pass "
          f"(x{result['speedup_vs_two_pass_cpu']['shared_prefix']:.2f} in CPU time), "
          f"x{result['speedup_vs_naive']['shared_prefix']:.2f} vs naive -> {args.out}")


if __name__ == "__main__":
    main()
