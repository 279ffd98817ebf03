"""What the CPU pin (pipeline/cpu_pin.py) costs: the same work under the pinned AVX2 code paths and under
the machine's own (LRP_CPU_DISPATCH=native), side by side in one run; writes JSON.

    python -m pipeline.cpu_bench                     # -> reports/bench/cpu_pin.json

The code paths are chosen once per process, so each measurement is a child process, native and pinned
in turn (ABAB) so that a change in the machine's load falls on both. Each child times, after one
warm-up: training steps of the built-in Llama at the default profile's pretraining size (params.yaml
`pretrain`: forward, backward, AdamW; ATen's and MKL's kernels) and the fused log-prob extension's
forward over a scoring-sized batch (its build ISA follows the pin). Times are medians; the ratio is
pinned / native (above 1: the pin costs time).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from pipeline import cpu_pin, paths


def _child(steps: int) -> dict:
    """One measurement under the code paths this process was started with."""
    mode = cpu_pin.pin()
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from pipeline import params as params_mod
    from pipeline.kernels import backend, token_logprobs

    p = params_mod.load().pretrain
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=p.vocab_size, hidden_size=p.hidden_size, intermediate_size=p.intermediate_size,
                         num_hidden_layers=p.num_layers, num_attention_heads=p.num_heads,
                         num_key_value_heads=p.num_kv_heads, max_position_embeddings=p.max_position_embeddings)
    model = LlamaForCausalLM(config)
    optimiser = torch.optim.AdamW(model.parameters(), lr=p.lr)
    ids = torch.randint(0, p.vocab_size, (p.batch_size, p.seq_len))

    def train_step() -> None:
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()

    logits = torch.randn(4096, 32000)
    targets = torch.randint(0, 32000, (4096,))
    token_logprobs(logits, targets)  # builds (once) and loads the extension outside the timing

    def timed(fn, n: int) -> float:
        fn()
        times = []
        for _ in range(n):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    return {"mode": mode, "capability": torch.backends.cpu.get_cpu_capability(), "threads": torch.get_num_threads(),
            "kernel_backend": backend(), "train_step_s": timed(train_step, steps),
            "logprobs_s": timed(lambda: token_logprobs(logits, targets), steps * 4)}


def _measure(mode: str, steps: int) -> dict:
    """One child's times under `mode` (native: none of the pin's settings passed down)."""
    env = {k: v for k, v in os.environ.items() if k not in cpu_pin.SETTINGS}
    env[cpu_pin.SWITCH] = mode
    proc = subprocess.run([sys.executable, "-m", "pipeline.cpu_bench", "--child", "--steps", str(steps)],
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="children per mode, alternating")
    parser.add_argument("--steps", type=int, default=5, help="timed training steps per child")
    parser.add_argument("--out", default=str(paths.REPORTS / "bench" / "cpu_pin.json"))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.steps)))
        return
    runs: dict[str, list[dict]] = {cpu_pin.NATIVE: [], cpu_pin.PINNED: []}
    for _ in range(args.repeats):
        for mode in (cpu_pin.NATIVE, cpu_pin.PINNED):
            runs[mode].append(_measure(mode, args.steps))
    result: dict = {"machine": platform.machine(), "cpu_count": os.cpu_count(), "repeats": args.repeats,
                    "steps": args.steps, "runs": runs}
    for key in ("train_step_s", "logprobs_s"):
        native = statistics.median(r[key] for r in runs[cpu_pin.NATIVE])
        pinned = statistics.median(r[key] for r in runs[cpu_pin.PINNED])
        result[key] = {"native": native, "pinned": pinned, "ratio_pinned_over_native": pinned / native}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"cpu_bench: train step x{result['train_step_s']['ratio_pinned_over_native']:.2f}, fused log-probs "
          f"x{result['logprobs_s']['ratio_pinned_over_native']:.2f} pinned / native "
          f"({runs[cpu_pin.NATIVE][0]['capability']} native) -> {out}")


if __name__ == "__main__":
    main()
