"""One DPO step (forward + backward) on the same batch: stock TRL DPOTrainer beside our trainer's log-prob paths.

    python -m pipeline.training.bench_dpo --root real        # after `dvc repro real/dvc.yaml` (its base model)

Reads <root>/models/base and the first training pairs of <root>/data/processed/pairs_aug (chat template and
the over-long policy as the train stage applies them) and builds, on separate copies of the base model with
the same LoRA weights (moved off their zero init, dropout 0 so every path sees the same network):
- `trl`: TRL's own DPOTrainer class, its log-probs and its reference pass untouched;
- `kernel` and `shared`: pipeline.training.dpo.KernelDPOTrainer with train.logprobs "kernel" / "shared".
Every trainer gets the identical collated batch; gradient checkpointing is off for all (on a CPU it only
recomputes). The ways alternate, `repeats` times each; reports/bench/dpo_step.json gets wall seconds (best
and median), the ratios against `trl`, and the largest loss and gradient differences against `trl`.
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
from datasets import Dataset
from trl import DPOConfig, DPOTrainer
from trl.trainer.dpo_trainer import DataCollatorForPreference

from pipeline import params as params_mod
from pipeline import paths
from pipeline.io import write_json
from pipeline.models import load_base
from pipeline.training.data import cap, load_training_examples, tokenize
from pipeline.training.run import build_trainer, lora_config

OUT = paths.BENCH / "dpo_step.json"
WAYS = ("trl", "kernel", "shared")


def batch_rows(root: Path, tokenizer: Any, t: params_mod.TrainParams, n: int, seed: int) -> list[dict]:
    examples = cap(load_training_examples("pairs_aug", "train", root=root), n, seed)
    return tokenize(examples, tokenizer, t.max_length, t.overlong)


def stock_trainer(model: Any, tokenizer: Any, rows: list[dict], t: params_mod.TrainParams, out_dir: str) -> DPOTrainer:
    """TRL's DPOTrainer as a user would build it from text; the timed batch is collated from `rows` instead,
    so the text dataset only has to be valid."""
    text = Dataset.from_list([{"prompt": tokenizer.decode(r["prompt_ids"]), "chosen": tokenizer.decode(r["chosen_ids"]),
                               "rejected": tokenizer.decode(r["rejected_ids"])} for r in rows])
    args = DPOConfig(output_dir=out_dir, per_device_train_batch_size=len(rows), beta=t.beta, loss_type=[t.loss_type],
                     learning_rate=t.lr, report_to="none", use_cpu=not torch.cuda.is_available(),
                     gradient_checkpointing=False, max_length=None, disable_dropout=False)
    return DPOTrainer(model=model, args=args, train_dataset=text, processing_class=tokenizer,
                      peft_config=lora_config(t, model.config.num_hidden_layers))


def same_lora(trainers: dict[str, Any], seed: int) -> None:
    """Every trainer's adapter gets the same non-zero weights (policy != reference, so the loss is not log 2)."""
    generator = torch.Generator().manual_seed(seed)
    first = trainers[WAYS[0]].model
    with torch.no_grad():
        for name, p in first.named_parameters():
            if "lora_B" in name:
                p.copy_(torch.randn(p.shape, generator=generator) * 0.02)
        state = {n: p for n, p in first.named_parameters() if "lora_" in n}
        for way in WAYS[1:]:
            for name, p in trainers[way].model.named_parameters():
                if "lora_" in name:
                    p.copy_(state[name])


def step(trainer: Any, batch: dict) -> tuple[float, torch.Tensor, dict[str, torch.Tensor]]:
    """(wall seconds, loss, LoRA gradients) of one training step's forward and backward."""
    model = trainer.model
    model.zero_grad(set_to_none=True)
    start = time.perf_counter()
    loss = trainer.training_step(model, batch)
    wall = time.perf_counter() - start
    grads = {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}
    return wall, loss.detach(), grads


def build(base_dir: Path, rows: list[dict], t: params_mod.TrainParams, seed: int, out_dir: str
          ) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """(trainer per way, the collated batch of `rows`), every trainer on its own copy of the base model,
    with the same LoRA weights."""
    trainers: dict[str, Any] = {}
    for way in WAYS:
        model, tokenizer = load_base(base_dir)
        if way == "trl":
            trainers[way] = stock_trainer(model, tokenizer, rows, t, out_dir)
        else:
            one = dataclasses.replace(t, logprobs=way, max_steps=1, batch_size=len(rows), grad_accum=1)
            trainers[way] = build_trainer(model, tokenizer, rows, "dpo", one, seed, out_dir)
            assert trainers[way].logprobs_mode == way, f"{way} fell back to {trainers[way].logprobs_mode}"
    same_lora(trainers, seed)
    for trainer in trainers.values():
        trainer.current_gradient_accumulation_steps = 1  # set by Trainer's loop, which a single step skips
    batch = DataCollatorForPreference(pad_token_id=tokenizer.pad_token_id)(
        [{k: r[k] for k in ("prompt_ids", "chosen_ids", "rejected_ids")} for r in rows])
    return trainers, batch


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default="real")
    ap.add_argument("--params", default="params/real.yaml")
    ap.add_argument("--pairs", type=int, default=0, help="pairs in the batch (0: train.batch_size)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    root = Path(args.root)
    p = params_mod.load(args.params)
    t = dataclasses.replace(p.train, lora=dataclasses.replace(p.train.lora, dropout=0.0))
    n_pairs = args.pairs or t.batch_size
    _, tokenizer = load_base(root / paths.BASE)
    rows = batch_rows(root, tokenizer, t, n_pairs, p.seed)
    with tempfile.TemporaryDirectory(prefix="bench-dpo-") as out_dir:
        trainers, batch = build(root / paths.BASE, rows, t, p.seed, out_dir)
        walls: dict[str, list[float]] = {w: [] for w in WAYS}
        results: dict[str, tuple[torch.Tensor, dict]] = {}
        for _ in range(args.repeats):
            for way in WAYS:
                wall, loss, grads = step(trainers[way], batch)
                walls[way].append(wall)
                results[way] = (loss, grads)
    ref_loss, ref_grads = results["trl"]
    tokens = int(batch["attention_mask"].sum())
    report: dict[str, Any] = {
        "what": "one DPO training step (forward + backward, no optimizer step) on the same batch and LoRA weights",
        "model": str(root / paths.BASE), "layers": trainers["trl"].model.config.num_hidden_layers,
        "lora_top_layers": t.lora.top_layers, "lora_targets": list(t.lora.target_modules), "lora_r": t.lora.r,
        "pairs": n_pairs, "tokens_trl_rows": tokens,
        "tokens_prompt_once": sum(len(r["prompt_ids"]) + len(r["chosen_ids"]) + len(r["rejected_ids"]) for r in rows),
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
    print(f"bench_dpo: {n_pairs} pairs, " + ", ".join(
        f"{w} {report[w]['wall_s_best']}s ({report[w]['speedup_vs_trl_best']}x, |dloss| "
        f"{report[w]['abs_loss_diff_vs_trl']:.1e})" for w in WAYS) + f" -> {args.out}")


if __name__ == "__main__":
    main()
