"""One training run: LoRA adapter on the base model with DPO or SFT (docs/method.md §8), given tokenized rows.

`train_adapter` is the pure core of the train stage: model + tokenizer + rows + params in, trained
PEFT model + curve out. The stage does the file I/O around it.
"""

from __future__ import annotations

import logging
import math
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import torch
from datasets import Dataset
from peft import LoraConfig
from transformers import PreTrainedModel, PreTrainedTokenizerBase, TrainerCallback
from trl import DPOConfig, SFTConfig

from pipeline import distributed
from pipeline.io import NonFiniteError
from pipeline.params import OBJECTIVES, ParamsError, TrainParams
from pipeline.training.data import sft_rows
from pipeline.training.dpo import KernelDPOTrainer
from pipeline.training.live import LiveCurves
from pipeline.training.sft import KernelSFTTrainer

log = logging.getLogger(__name__)

# Columns of the per-run curve CSV (reports/training/<run>.csv); missing values are left empty.
CURVE_FIELDS = {
    "dpo": ["step", "epoch", "loss", "rewards_margins", "rewards_accuracies", "rewards_chosen", "rewards_rejected"],
    "sft": ["step", "epoch", "loss", "mean_token_accuracy"],
}


@dataclass
class TrainResult:
    model: Any  # PeftModel
    curve: list[dict] = field(default_factory=list)
    steps: int = 0
    final_loss: float = float("nan")
    trainable_params: int = 0


class StopOnNonFiniteLoss(TrainerCallback):
    """Stops a run at the first logged NaN or inf loss, naming run and step: training on would save NaN
    weights, and every score of the adapter would be NaN too. The trainer logs the mean loss of the last
    `logging_steps` steps with its NaN filter off (_common_args), so a bad step anywhere shows."""

    def __init__(self, run: str):
        self.run = run

    def on_log(self, args, state, control, logs=None, **kwargs):
        # "loss" every logging_steps; "train_loss" once, over the whole run, at the end.
        for key in ("loss", "train_loss"):
            value = (logs or {}).get(key)
            if value is not None and not math.isfinite(value):
                first = max(1, state.global_step - args.logging_steps + 1) if key == "loss" else 1
                raise NonFiniteError(
                    f"run {self.run}: training loss is {value} at step {state.global_step} (first bad step in "
                    f"{first}..{state.global_step}); no adapter was written: lower train.lr (or train.beta), "
                    "or check the base model for NaN weights")


def lora_config(t: TrainParams, num_layers: int | None = None) -> LoraConfig:
    """LoRA on train.lora.target_modules of every decoder layer, or of the last train.lora.top_layers of the
    model's `num_layers` only: the frozen layers below them then need no backward pass at all."""
    top = t.lora.top_layers
    layers = list(range(num_layers - top, num_layers)) if num_layers and 0 < top < num_layers else None
    return LoraConfig(r=t.lora.r, lora_alpha=t.lora.alpha, lora_dropout=t.lora.dropout,
                      target_modules=list(t.lora.target_modules), layers_to_transform=layers, bias="none",
                      task_type="CAUSAL_LM")


def _common_args(t: TrainParams, seed: int, out_dir: str) -> dict[str, Any]:
    # On N processes (train.launch) the global batch stays batch_size x grad_accum: each rank takes
    # batch_size / N pairs a step (distributed.split_batch for N that does not divide batch_size), and
    # every rank has the same seed (the same LoRA init and data order).
    batch, accum = distributed.per_device(t.batch_size, t.grad_accum, distributed.world_size())
    return {
        "output_dir": out_dir,
        "per_device_train_batch_size": batch,
        "gradient_accumulation_steps": accum,
        "learning_rate": t.lr,
        "num_train_epochs": t.epochs,
        "max_steps": t.max_steps,
        "logging_steps": t.logging_steps,
        "seed": seed,
        "data_seed": seed,
        "report_to": "none",
        "save_strategy": "no",
        "bf16": t.bf16,
        "use_cpu": not torch.cuda.is_available(),
        "dataloader_num_workers": 0,
        "disable_tqdm": False,
        # Log a NaN or inf loss as it is (the default replaces it by the running mean), so
        # StopOnNonFiniteLoss sees it.
        "logging_nan_inf_filter": False,
        # pipeline.training.data already applied the over-long policy; nothing may be cut again here.
        "max_length": None,
    }


def _config(cls: type, t: TrainParams, seed: int, out_dir: str, **own: Any) -> Any:
    """`cls` (TRL's DPOConfig or SFTConfig) from the shared arguments, the objective's own (`own`), then
    train.trainer_kwargs over both; a key that is not an argument of `cls` stops with a ParamsError."""
    known = {f.name for f in fields(cls) if f.init}
    for key in t.trainer_kwargs:
        if key not in known:
            raise ParamsError(f"train.trainer_kwargs.{key}: not an argument of TRL's {cls.__name__} "
                              "(see its documentation for the arguments it takes)")
    return cls(**{**_common_args(t, seed, out_dir), **own, **t.trainer_kwargs})


def build_trainer(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, rows: Sequence[dict],
                  objective: str, t: TrainParams, seed: int, out_dir: str, name: str = "run",
                  curves_dir: str | Path | None = None):
    """The TRL trainer for one run (exposed for tests that need a single step); `name` names the run in
    messages; `curves_dir`, when given, gets the run's dvclive curves (pipeline/training/live.py)."""
    trainer = _trainer(model, tokenizer, rows, objective, t, seed, out_dir)
    trainer.add_callback(StopOnNonFiniteLoss(name))
    if curves_dir is not None:
        trainer.add_callback(LiveCurves(curves_dir))
    return trainer


def _trainer(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, rows: Sequence[dict],
             objective: str, t: TrainParams, seed: int, out_dir: str):
    if objective == "dpo":
        data = Dataset.from_list([{k: r[k] for k in ("prompt_ids", "chosen_ids", "rejected_ids")} for r in rows])
        # TRL's DPO turns dropout off by default; keep docs/method.md §8's LoRA dropout on the policy (the reference,
        # the adapter disabled, has no LoRA dropout to disagree with).
        # TRL turns gradient checkpointing on by default; the shared-prompt path needs the KV cache it turns
        # off, and keeps less in memory anyway (train.trainer_kwargs can still turn it on: logprobs "kernel").
        own = {"gradient_checkpointing": False} if t.logprobs == "shared" else {}
        args = _config(DPOConfig, t, seed, out_dir, beta=t.beta, loss_type=[t.loss_type], disable_dropout=False,
                       **own)
        return KernelDPOTrainer(model=model, args=args, train_dataset=data, processing_class=tokenizer,
                                peft_config=lora_config(t, model.config.num_hidden_layers), logprobs=t.logprobs)
    if objective == "sft":
        data = Dataset.from_list(sft_rows(rows))
        args = _config(SFTConfig, t, seed, out_dir, dataset_kwargs={"skip_prepare_dataset": True})
        return KernelSFTTrainer(model=model, args=args, train_dataset=data, processing_class=tokenizer,
                                peft_config=lora_config(t, model.config.num_hidden_layers), logprobs=t.logprobs)
    raise ValueError(f"unknown objective {objective!r} (known: {', '.join(OBJECTIVES)})")


def _curve(history: list[dict], objective: str) -> list[dict]:
    rows = []
    for entry in history:
        if "loss" not in entry:  # the closing summary entry has train_loss instead
            continue
        row = {"step": entry.get("step"), "epoch": entry.get("epoch"), "loss": entry["loss"]}
        for key, value in entry.items():
            name = key.replace("/", "_")
            if name in CURVE_FIELDS[objective]:
                row[name] = value
        rows.append(row)
    return rows


def train_adapter(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, rows: Sequence[dict],
                  objective: str, t: TrainParams, seed: int, name: str = "run",
                  curves_dir: str | Path | None = None) -> TrainResult:
    """Train a LoRA adapter on `rows` (from pipeline.training.data.tokenize); deterministic given seed.
    A NaN or inf loss stops it with NonFiniteError naming `name` and the step. With `curves_dir` the
    loss (and DPO's reward margin and accuracy) of every logging step go to that dvclive folder."""
    if not rows:
        raise ValueError("no training pairs left after the over-long policy and cap")
    torch.manual_seed(seed)
    with tempfile.TemporaryDirectory(prefix="train-") as out_dir:
        trainer = build_trainer(model, tokenizer, rows, objective, t, seed, out_dir, name, curves_dir)
        trainable = sum(p.numel() for p in trainer.model.parameters() if p.requires_grad)
        trainer.train()
    curve = _curve(trainer.state.log_history, objective)
    # A run shorter than logging_steps logs no curve point; its closing summary still has the mean loss.
    summary = [e["train_loss"] for e in trainer.state.log_history if "train_loss" in e]
    final = curve[-1]["loss"] if curve else (summary[-1] if summary else float("nan"))
    peft_model = trainer.accelerator.unwrap_model(trainer.model)
    peft_model.eval()
    return TrainResult(peft_model, curve, trainer.state.global_step, final, trainable)
