"""One SFT step (forward + backward) on the same batch: stock TRL SFTTrainer beside our kernel's loss.

    python -m pipeline.training.bench_sft --root real        # after `dvc repro real/dvc.yaml` (its base model)

The rows are bench_dpo's (the first training pairs of <root>/data/processed/pairs_aug, as the train stage
renders them; SFT reads prompt + chosen). `trl` is TRL's own SFTTrainer (its fused LM head over every
position); `kernel` is pipeline.training.sft.KernelSFTTrainer (train.logprobs "kernel"). Both start from
separate copies of the base model with the same LoRA weights, dropout 0, no gradient checkpointing, and
get the identical collated batch; the ways alternate, `repeats` times each. reports/bench/sft_step.json
gets wall seconds (best and median), the ratio against `trl`, and the loss and gradient differences.
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import statistics
import tempfile
from pathlib import Path
from typing import Any

import torch
from datasets import Dataset
from trl import SFTConfig, SFTTrainer

from pipeline import params as params_mod
from pipeline import paths
from pipeline.io import write_json
from pipeline.models import load_base
from pipeline.training.bench_dpo import batch_rows, step
from pipeline.training.data import sft_rows
from pipeline.training.run import build_trainer, lora_config

OUT = paths.BENCH / "sft_step.json"
WAYS = ("trl", "kernel")


def stock_trainer(model: Any, tokenizer: Any, rows: list[dict], t: params_mod.TrainParams, out_dir: str) -> SFTTrainer:
    args = SFTConfig(output_dir=out_dir, per_device_train_batch_size=len(rows), learning_rate=t.lr, report_to="none",
                     use_cpu=not torch.cuda.is_available(), gradient_checkpointing=False, max_length=None,
                     dataset_kwargs={"skip_prepare_dataset": True})
    return SFTTrainer(model=model, args=args, train_dataset=Dataset.from_list(sft_rows(rows)),
                      processing_class=tokenizer, peft_config=lora_config(t, model.config.num_hidden_layers))


def build(base_dir: Path, rows: list[dict], t: params_mod.TrainParams, seed: int, out_dir: str
          ) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    trainers: dict[str, Any] = {}
    for way in WAYS:
        model, tokenizer = load_base(base_dir)
        if way == "trl":
            trainers[way] = stock_trainer(model, tokenizer, rows, t, out_dir)
        else:
            one = dataclasses.replace(t, logprobs=way, max_steps=1, batch_size=len(rows), grad_accum=1)
            trainers[way] = build_trainer(model, tokenizer, rows, "sft", one, seed, out_dir)
            assert trainers[way].logprobs_mode == way, f"{way} fell back to {trainers[way].logprobs_mode}"
    generator = torch.Generator().manual_seed(seed)
    named = {w: dict(tr.model.named_parameters()) for w, tr in trainers.items()}
    with torch.no_grad():  # the same adapter, off its zero init, in every trainer
        for name, p in named["trl"].items():
            if "lora_B" in name:
                p.copy_(torch.randn(p.shape, generator=generator) * 0.02)
            if "lora_" in name:
                named["kernel"][name].copy_(p)
    for trainer in trainers.values():
        trainer.current_gradient_accumulation_steps = 1  # set by Trainer's loop, which a single step skips
    batch = trainers["trl"].data_collator([trainers["trl"].train_dataset[i] for i in range(len(rows))])
    return trainers, batch


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default="real")
    ap.add_argument("--params", default="params/real.yaml")
    ap.add_argument("--rows", type=int, default=0, help="rows in the batch (0: train.batch_size)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    root = Path(args.root)
    p = params_mod.load(args.params)
    t = dataclasses.replace(p.train, lora=dataclasses.replace(p.train.lora, dropout=0.0))
    n_rows = args.rows or t.batch_size
    _, tokenizer = load_base(root / paths.BASE)
    rows = batch_rows(root, tokenizer, t, n_rows, p.seed)
    with tempfile.TemporaryDirectory(prefix="bench-sft-") as out_dir:
        trainers, batch = build(root / paths.BASE, rows, t, p.seed, out_dir)
        walls: dict[str, list[float]] = {w: [] for w in WAYS}
        results: dict[str, tuple[torch.Tensor, dict]] = {}
        for _ in range(args.repeats):
            for way in WAYS:
                wall, loss, grads = step(trainers[way], batch)
                walls[way].append(wall)
                results[way] = (loss, grads)
    ref_loss, ref_grads = results["trl"]
    report: dict[str, Any] = {
        "what": "one SFT training step (forward + backward, no optimizer step) on the same batch and LoRA weights",
        "model": str(root / paths.BASE), "layers": trainers["trl"].model.config.num_hidden_layers,
        "lora_top_layers": t.lora.top_layers, "lora_r": t.lora.r, "rows": n_rows,
        "tokens": int(batch["attention_mask"].sum()), "response_tokens": int((batch["labels"] != -100).sum()),
        "repeats": args.repeats, "threads": torch.get_num_threads(), "machine": platform.machine(),
        "torch": torch.__version__,
    }
    for way in WAYS:
        loss, grads = results[way]
        report[way] = {
            "wall_s_best": round(min(walls[way]), 3), "wall_s_median": round(statistics.median(walls[way]), 3),
            "loss": float(loss), "abs_loss_diff_vs_trl": abs(float(loss) - float(ref_loss)),
            "max_abs_grad_diff_vs_trl": max((float((grads[n] - ref_grads[n]).abs().max()) for n in ref_grads),
                                            default=0.0),
            "speedup_vs_trl_best": round(min(walls["trl"]) / min(walls[way]), 2),
        }
    write_json(args.out, report)
    print(f"bench_sft: {n_rows} rows, " + ", ".join(
        f"{w} {report[w]['wall_s_best']}s ({report[w]['speedup_vs_trl_best']}x, |dloss| "
        f"{report[w]['abs_loss_diff_vs_trl']:.1e})" for w in WAYS) + f" -> {args.out}")


if __name__ == "__main__":
    main()
