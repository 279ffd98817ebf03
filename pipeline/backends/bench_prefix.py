"""What reusing prompt prefixes saves: the irac stage's field extraction in its three prompt modes, on the
real packaged model (SmolLM2-135M-Instruct, CPU), with the hf backend's prefix cache off and on, side by
side in one run.

    python -m pipeline.backends.bench_prefix [--decisions 2] [--value-chars 32] [--reasoning-tokens 32]

Per mode the stage sends one batch over all decisions (standard: one call; expert_steps and self_steps: a
free reasoning call, then the constrained answer after it), so four of a decision's five prompts repeat
the decision an earlier one already read. The JSON (default reports/bench/prefix_cache.json) gives wall
seconds each way, the ratio off / on, prompt tokens reused, and whether the outputs are identical (they
must be: the reused keys and values are the ones the prompt would compute). The load average before and
after is recorded, as on a shared machine it moves seconds more than anything measured here.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from pipeline import paths
from pipeline.io import write_json

OUT = str(paths.BENCH / "prefix_cache.json")
MODEL = "smollm2-135m-instruct"
MODES = ("standard", "expert_steps", "self_steps")


def _extract(generator, decisions, specs, value_chars: int, reasoning_tokens: int) -> tuple[float, list]:
    from pipeline.irac.llm import ModelSystem
    from pipeline.params import DecodingParams

    system = ModelSystem(generator, 0, DecodingParams(max_new_tokens=64), constrained=True,
                         value_max_chars=value_chars, reasoning_tokens=reasoning_tokens)
    started = time.perf_counter()
    outputs = [o for mode in MODES for o in system.run(decisions, specs, "fields", mode)]
    return time.perf_counter() - started, [(o.id, o.status, o.fields, o.meta.get("reasoning")) for o in outputs]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decisions", type=int, default=2)
    ap.add_argument("--value-chars", type=int, default=32)
    ap.add_argument("--reasoning-tokens", type=int, default=32)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--prefix-tokens", type=int, default=65536)
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args(argv)

    from pipeline.backends import make_generator
    from pipeline.backends.base import Request
    from pipeline.irac.schema import field_specs
    from pipeline.params import GenerateParams, Params
    from pipeline.synth import generate_decisions

    decisions = generate_decisions(args.decisions, Params().decisions.case_mix, 13)
    specs = field_specs(decisions)
    load_before = os.getloadavg()
    result: dict = {}
    for way, tokens in (("off", 0), ("on", args.prefix_tokens)):
        generator = make_generator(f"hf:{MODEL}", GenerateParams(batch_size=args.batch_size, prefix_cache_tokens=tokens))
        generator.generate([Request("Say hello.", max_new_tokens=4)])  # warm-up: first-call allocations
        seconds, outputs = _extract(generator, decisions, specs, args.value_chars, args.reasoning_tokens)
        result[way] = {"seconds": round(seconds, 2), "outputs": outputs,
                       "prefix_hits": generator.prefixes.hits, "reused_prompt_tokens": generator.prefixes.reused_tokens}
    off, on = result["off"], result["on"]
    report = {
        "what": "irac fields extraction in three modes, hf backend prefix cache off vs on (same process order)",
        "model": MODEL,
        "decisions": args.decisions,
        "seconds_off": off["seconds"],
        "seconds_on": on["seconds"],
        "speedup_off_over_on": round(off["seconds"] / on["seconds"], 3) if on["seconds"] else None,
        "prefix_hits": on["prefix_hits"],
        "reused_prompt_tokens": on["reused_prompt_tokens"],
        "identical_outputs": off["outputs"] == on["outputs"],
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "cpu_count": os.cpu_count(),
        "machine": platform.machine(),
    }
    write_json(args.out, report)
    print(report)


if __name__ == "__main__":
    main()
