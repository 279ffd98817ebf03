"""Stage `train`: one LoRA reward model per entry of train.runs -- a DVC foreach entry.

    python -m pipeline.stages.train --run dpo-pairs-s0
      -> models/adapters/dpo-pairs-s0/ (PEFT adapter + train_meta.json)
         reports/training/dpo-pairs-s0.csv (curve for `dvc plots`)
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import logging
import time
from pathlib import Path

from pipeline.io import atomic_dir, write_json, write_text
from pipeline.models.loading import BASE_DIR, base_info, load_base
from pipeline.params import parse_run
from pipeline.stages import run, start
from pipeline.training.data import Counts, cap, load_corpus, tokenize
from pipeline.training.run import CURVE_FIELDS, train_adapter

log = logging.getLogger("pipeline.stages.train")

ADAPTERS = Path("models/adapters")
CURVES = Path("reports/training")


def curve_csv(rows: list[dict], objective: str) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CURVE_FIELDS[objective], extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
    return buf.getvalue()


def main(argv: list[str] | None = None) -> None:
    args, prm = start(__doc__, argv, _arguments)
    t = prm.train
    spec = parse_run(args.run)
    name = spec.name

    examples = load_corpus(spec.corpus, "train", t.external_pairs)
    counts = Counts(pairs_in=len(examples))
    kept = cap(examples, t.max_pairs, prm.seed)
    counts.capped = len(examples) - len(kept)
    model, tokenizer = load_base(args.base)
    rows = tokenize(kept, tokenizer, t.max_length, t.overlong, counts)
    log.info("%s: %d pairs in, %d capped, %d over-long (%d fitted by dropping distractors, %d left out), %d used",
             name, counts.pairs_in, counts.capped, counts.overlong, counts.refit, counts.dropped, counts.pairs_used)

    started = time.perf_counter()
    result = train_adapter(model, tokenizer, rows, spec.objective, t, spec.seed)
    wall = time.perf_counter() - started
    meta = {
        "run": name,
        "objective": spec.objective,
        "corpus": spec.corpus,
        "seed": spec.seed,
        "base_model": base_info(args.base).get("base_model"),
        "params": dataclasses.asdict(t),
        "counts": dataclasses.asdict(counts),
        "steps": result.steps,
        "final_loss": round(result.final_loss, 6),
        "trainable_params": result.trainable_params,
        "wall_time_s": round(wall, 2),
        "tokens": {
            "prompt_mean": round(sum(len(r["prompt_ids"]) for r in rows) / len(rows), 1),
            "chosen_mean": round(sum(len(r["chosen_ids"]) for r in rows) / len(rows), 1),
            "rejected_mean": round(sum(len(r["rejected_ids"]) for r in rows) / len(rows), 1),
        },
    }
    with atomic_dir(ADAPTERS / name) as tmp:
        result.model.save_pretrained(tmp, safe_serialization=True)
        # PEFT adds a model-card template; it carries no information and is not reproducible.
        (tmp / "README.md").unlink(missing_ok=True)
        write_json(tmp / "train_meta.json", meta)
    write_text(CURVES / f"{name}.csv", curve_csv(result.curve, spec.objective))
    print(f"train {name}: {counts.pairs_used} pairs ({counts.refit} fitted by dropping distractors, "
          f"{counts.dropped} left out), {result.steps} steps, "
          f"final loss {result.final_loss:.4f}, {wall:.1f}s -> {ADAPTERS / name}")


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", required=True, help="<objective>-<corpus>-s<seed>, e.g. dpo-pairs_aug-s0")
    parser.add_argument("--base", default=str(BASE_DIR))


if __name__ == "__main__":
    run(main)
