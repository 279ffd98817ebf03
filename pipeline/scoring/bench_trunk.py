"""Scoring a base model and its top-layer adapters: each model over the whole decoder, or all of them over one
pass of the shared trunk (pipeline/scoring/shared_trunk.py), side by side in one process.

    python -m pipeline.scoring.bench_trunk --root real --pairs 24     # after `dvc repro real/dvc.yaml`

Reads <root>/models/base, the adapters under <root>/models/adapters and the first test pairs of
<root>/data/processed/pairs_aug; the two ways alternate, `repeats` times each. Writes wall and CPU seconds
(best and median), their ratio and the largest difference between the two ways' scores to
reports/bench/shared_trunk.json.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from pipeline import paths
from pipeline.io import write_json
from pipeline.models import load_base, load_with_adapter
from pipeline.scoring import encode_pairs, encoded, score_shared_prefix
from pipeline.scoring.shared_trunk import score_from_trunk, shared_layers, trunk_batches

OUT = paths.BENCH / "shared_trunk.json"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default="real")
    ap.add_argument("--pairs", type=int, default=24)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    root = Path(args.root)
    model, tokenizer = load_base(root / paths.BASE)
    adapters = sorted(p for p in (root / paths.ADAPTERS).iterdir() if (p / "adapter_config.json").exists())
    split = shared_layers(adapters)
    if not split:
        raise SystemExit("bench_trunk: the adapters adapt every layer (train.lora.top_layers 0): nothing is shared")
    pairs = paths.read_split(root / paths.PAIRS_AUG, "test")[: args.pairs]
    fitted = [encoded(f) for f in encode_pairs(tokenizer, pairs, 1024) if f.fits]
    peft = model
    for adapter in adapters:
        peft = load_with_adapter(peft, adapter)
    names = ["base", *(a.name for a in adapters)]

    def each_model(score) -> dict[str, np.ndarray]:
        out = {}
        for name in names:
            if name == "base":
                with peft.disable_adapter():
                    out[name] = score().chosen_sum
            else:
                peft.set_adapter(name)
                out[name] = score().chosen_sum
        return out

    def whole() -> dict[str, np.ndarray]:
        return each_model(lambda: score_shared_prefix(peft, fitted))

    def shared() -> dict[str, np.ndarray]:
        trunk = trunk_batches(peft.get_base_model(), fitted, split)
        return each_model(lambda: score_from_trunk(peft, trunk, split, len(fitted)))

    times: dict[str, list[tuple[float, float]]] = {"whole_decoder": [], "shared_trunk": []}
    results = {}
    for _ in range(args.repeats):
        for label, fn in (("whole_decoder", whole), ("shared_trunk", shared)):
            wall, cpu = time.perf_counter(), time.process_time()
            results[label] = fn()
            times[label].append((time.perf_counter() - wall, time.process_time() - cpu))
    diff = max(float(np.abs(results["whole_decoder"][n] - results["shared_trunk"][n]).max()) for n in names)
    summary = {
        label: {"wall_s_best": round(min(w for w, _ in t), 2), "wall_s_median": round(statistics.median(w for w, _ in t), 2),
                "cpu_s_best": round(min(c for _, c in t), 2)}
        for label, t in times.items()
    }
    report = {
        "what": "base + adapters scored on the same pairs: whole decoder per model vs one pass of the shared trunk",
        "models": names, "pairs": len(fitted), "layers": peft.get_base_model().config.num_hidden_layers,
        "shared_layers": split, "repeats": args.repeats, "threads": torch.get_num_threads(), "machine": platform.machine(),
        **summary,
        "speedup_wall_best": round(summary["whole_decoder"]["wall_s_best"] / summary["shared_trunk"]["wall_s_best"], 2),
        "speedup_cpu_best": round(summary["whole_decoder"]["cpu_s_best"] / summary["shared_trunk"]["cpu_s_best"], 2),
        "max_abs_diff_chosen_sum": diff,
    }
    write_json(args.out, report)
    print(f"bench_trunk: {len(names)} models x {len(fitted)} pairs: whole {summary['whole_decoder']['wall_s_best']}s, "
          f"shared trunk {summary['shared_trunk']['wall_s_best']}s ({report['speedup_wall_best']}x), "
          f"max |diff| {diff:.2e} -> {args.out}")


if __name__ == "__main__":
    main()
