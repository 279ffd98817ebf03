"""Scoring items with a base model and any adapters loaded on it, the way the score stage scores pairs.

Every item's prompt runs once for all its responses (pipeline/scoring/shared_prefix.py), the LM head runs
on response tokens only through the fused kernel (pipeline/kernels), and when every adapter leaves the
bottom layers untouched (train.lora.top_layers) those layers run once for the base and all adapters
(pipeline/scoring/shared_trunk.py). The base's pass is the reference of every adapter: ref_sum and ref_mean
are the adapter's scores minus it (docs/method.md §9), computed as pipeline/scoring/registry.py computes
them for the score stage, so the same pairs get the same floats.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.scoring.common import RowScores
from pipeline.scoring.encode import EncodedItem
from pipeline.scoring.shared_prefix import score_responses
from pipeline.scoring.shared_trunk import score_responses_from_trunk, shared_layers, trunk_batches

BASE = "base"
PLAIN_SCORINGS = ("sum", "mean")
REF_SCORINGS = ("ref_sum", "ref_mean")


@contextlib.contextmanager
def base_of(model: Any) -> Iterator[Any]:
    """The base model: a PEFT model with its adapters disabled, or the model itself."""
    disable = getattr(model, "disable_adapter", None)
    with disable() if callable(disable) else contextlib.nullcontext():
        yield model


def trunk_split(adapter_folders: Sequence[Path]) -> int:
    """Bottom layers no adapter touches (0: some adapter adapts every layer, or there is none)."""
    return shared_layers(adapter_folders) if adapter_folders else 0


def score_models(model: Any, adapters: Sequence[str], items: Sequence[EncodedItem], batch_tokens: int,
                 split: int = 0) -> dict[str, RowScores]:
    """Row scores of the base (key BASE) and of each named adapter of `model` over `items`. With `split`,
    layers below it run once for all of them."""
    sizes = [len(i.responses) for i in items]
    out: dict[str, RowScores] = {}
    trunk = trunk_batches(model, items, split, batch_tokens) if split else None

    def one() -> RowScores:
        if trunk is not None:
            return score_responses_from_trunk(model, trunk, split, sizes)
        return score_responses(model, items, batch_tokens)

    with base_of(model):
        out[BASE] = one()
    for name in adapters:
        model.set_adapter(name)
        out[name] = one()
    return out


def scorings(rows: RowScores, reference: RowScores | None) -> dict[str, np.ndarray]:
    """Per response: sum and mean, and with the reference's rows ref_sum and ref_mean (policy minus reference,
    as pipeline.scoring.registry.scorings takes them)."""
    out = {"sum": rows.sums, "mean": rows.means}
    if reference is not None:
        out["ref_sum"] = rows.sums - reference.sums
        out["ref_mean"] = rows.means - reference.means
    return out
