"""Stage `train`: one LoRA reward model per entry of train.runs -- a DVC foreach entry
(train_dpo@<entry>, train_sft@<entry>).

    python -m pipeline.stages.train --run dpo-pairs-s0
      -> models/adapters/dpo-pairs-s0/ (PEFT adapter + train_meta.json)
         reports/training/dpo-pairs-s0.csv (curve the report reads)
         reports/training/dpo-pairs-s0/ (dvclive curves for `dvc plots`: pipeline/training/live.py)
         logs/dpo-pairs-s0.json (wall time on this machine; not an output)

With train.launch.num_processes N > 1 the stage re-runs itself on N ranks (pipeline/distributed.py):
each takes train.batch_size / N pairs a step, and rank 0 alone writes the files above.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import io
import json
import logging
import time
from pathlib import Path
from typing import Any

import torch

from pipeline import distributed, paths
from pipeline.io import InputError, atomic_dir, write_json, write_run_log, write_text
from pipeline.models.loading import base_info, load_base, portable_base
from pipeline.params import RUN_PARAMS, Params, ParamsError, parse_run, to_dict
from pipeline.stages import path_options, run, start
from pipeline.training.data import Counts, cap, load_training_examples, tokenize
from pipeline.training.run import CURVE_FIELDS, train_adapter

log = logging.getLogger("pipeline.stages.train")



def curve_csv(rows: list[dict], objective: str) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CURVE_FIELDS[objective], extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
    return buf.getvalue()


def run_params(prm: Params, objective: str) -> dict[str, Any]:
    """{dotted key: value} of RUN_PARAMS[objective]; an empty train.trainer_kwargs is left out (the
    pass-through came later: a run without one records what it recorded before)."""
    values = to_dict(prm)
    out = {}
    for key in RUN_PARAMS[objective]:
        value: Any = values
        for part in key.split("."):
            value = value[part]
        if key == "train.trainer_kwargs" and not value:
            continue
        out[key] = value
    return out


def portable_config(config: Path, base: tuple[str, str | None]) -> None:
    """Make adapter_config.json the same bytes on every rerun and usable from any folder: PEFT keeps
    target_modules as a set and writes it in hash order, which differs between processes (a sorted list
    instead), and records the base as the folder it was loaded from, models/base, which stock
    AutoPeftModelForCausalLM resolves only from the repository root (the base's portable id instead,
    pipeline.models.loading.portable_base)."""
    data = json.loads(config.read_text(encoding="utf-8"))
    if isinstance(data.get("target_modules"), list):
        data["target_modules"] = sorted(data["target_modules"])
    data["base_model_name_or_path"], data["revision"] = base
    write_json(config, data)


def main(argv: list[str] | None = None) -> None:
    args, prm = start(__doc__, argv, _arguments)
    t = prm.train
    if distributed.relaunch_if_needed("pipeline.stages.train", argv, t.launch):
        return
    distributed.bind_device()
    spec = parse_run(args.run)
    name = spec.name

    examples = load_training_examples(spec.corpus, "train", t.external_pairs)
    counts = Counts(pairs_in=len(examples))
    kept = cap(examples, t.max_pairs, prm.seed)
    counts.capped = len(examples) - len(kept)
    model, tokenizer = load_base(args.base)
    check_target_modules(model, t.lora.target_modules)
    rows = tokenize(kept, tokenizer, t.max_length, t.overlong, counts)
    log.info("%s: %d pairs in, %d capped, %d over-long (%d fitted by dropping distractors, %d left out), %d used",
             name, counts.pairs_in, counts.capped, counts.overlong, counts.refit, counts.dropped, counts.pairs_used)

    if not rows:
        raise InputError(f"train split of {spec.corpus}", None, None,
                         f"no training pairs left of {counts.pairs_in} ({counts.dropped} over-long ones left out "
                         "by train.overlong): raise train.max_length or build more pairs")
    started = time.perf_counter()
    # Rank 0 logs the dvclive curves into a temporary folder that replaces reports/training/<run> only
    # when training succeeds: a failed run (a NaN loss) leaves no half curve behind.
    with atomic_dir(paths.TRAINING_CURVES / name) if distributed.is_main() else contextlib.nullcontext() as live:
        result = train_adapter(model, tokenizer, rows, spec.objective, t, spec.seed, name, curves_dir=live)
    wall = time.perf_counter() - started
    meta = {
        "run": name,
        "objective": spec.objective,
        "corpus": spec.corpus,
        "seed": spec.seed,
        "base_model": base_info(args.base).get("base_model"),
        # Exactly the params this objective reads (its dvc.yaml stage lists the same keys).
        "params": run_params(prm, spec.objective),
        "counts": dataclasses.asdict(counts),
        "steps": result.steps,
        "final_loss": round(result.final_loss, 6),
        "trainable_params": result.trainable_params,
        "tokens": {
            "prompt_mean": round(sum(len(r["prompt_ids"]) for r in rows) / len(rows), 1),
            "chosen_mean": round(sum(len(r["chosen_ids"]) for r in rows) / len(rows), 1),
            "rejected_mean": round(sum(len(r["rejected_ids"]) for r in rows) / len(rows), 1),
        },
    }
    if not distributed.is_main():
        return
    with atomic_dir(paths.ADAPTERS / name) as tmp:
        result.model.save_pretrained(tmp, safe_serialization=True)
        # PEFT adds a model-card template; it carries no information and is not reproducible.
        (tmp / "README.md").unlink(missing_ok=True)
        portable_config(tmp / "adapter_config.json", portable_base(args.base))
        write_json(tmp / "train_meta.json", meta)
    write_run_log(name, {"wall_time_s": round(wall, 2), "torch_threads": torch.get_num_threads(),
                         **({"processes": distributed.world_size()} if distributed.world_size() > 1 else {})})
    write_text(paths.TRAINING_CURVES / f"{name}.csv", curve_csv(result.curve, spec.objective))
    print(f"train {name}: {counts.pairs_used} pairs ({counts.refit} fitted by dropping distractors, "
          f"{counts.dropped} left out), {result.steps} steps, "
          f"final loss {result.final_loss:.4f}, {wall:.1f}s -> {paths.ADAPTERS / name}")


def check_target_modules(model: torch.nn.Module, targets: list[str]) -> None:
    """Every train.lora.target_modules entry names layers of the base, checked before any training (PEFT
    would stop with a traceback once the trainer is built)."""
    layers = {name.rsplit(".", 1)[-1] for name, module in model.named_modules() if not list(module.children())}
    for i, target in enumerate(targets):
        if target not in layers:
            raise ParamsError(f"train.lora.target_modules[{i}]: the base model has no layer {target!r} "
                              f"(it has: {', '.join(sorted(layers))})")


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", required=True, help="<objective>-<corpus>-s<seed>, e.g. dpo-pairs_aug-s0")
    path_options(base=paths.BASE)(parser)


if __name__ == "__main__":
    run(main)
