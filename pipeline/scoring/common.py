"""What the scorers share: the result arrays and access to a causal LM's decoder and head."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from pipeline.models.loading import unwrap


@dataclass
class ResponseScores:
    """Per pair, in input order: log-prob sum and mean of each response, and its scored token count."""

    chosen_sum: np.ndarray
    chosen_mean: np.ndarray
    rejected_sum: np.ndarray
    rejected_mean: np.ndarray
    chosen_tokens: np.ndarray
    rejected_tokens: np.ndarray

    @classmethod
    def empty(cls, n: int) -> ResponseScores:
        f = lambda: np.zeros(n, dtype=np.float64)  # noqa: E731
        i = lambda: np.zeros(n, dtype=np.int64)  # noqa: E731
        return cls(f(), f(), f(), f(), i(), i())

    @classmethod
    def from_rows(cls, rows: RowScores) -> ResponseScores:
        """The pair view of row scores whose every item is a pair (rows 2i and 2i + 1: chosen, rejected)."""
        if not np.all(np.diff(rows.offsets) == 2):
            raise ValueError("pair scores need exactly two responses per item")
        return cls(rows.sums[0::2], rows.means[0::2], rows.sums[1::2], rows.means[1::2], rows.counts[0::2],
                   rows.counts[1::2])


@dataclass
class RowScores:
    """Per response, the responses of every item one after another (item order, then response order):
    log-prob sum, mean and scored token count. Item i's responses are rows offsets[i]:offsets[i + 1]."""

    sums: np.ndarray
    means: np.ndarray
    counts: np.ndarray
    offsets: np.ndarray

    @classmethod
    def empty(cls, sizes: Sequence[int]) -> RowScores:
        offsets = np.concatenate([[0], np.cumsum(np.asarray(sizes, dtype=np.int64))]).astype(np.int64)
        n = int(offsets[-1])
        return cls(np.zeros(n, dtype=np.float64), np.zeros(n, dtype=np.float64), np.zeros(n, dtype=np.int64), offsets)

    def rows_of(self, items: Sequence[int]) -> np.ndarray:
        """Row indices of `items`' responses, in the order a batch of those items lays its rows out."""
        if not len(items):
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([np.arange(self.offsets[i], self.offsets[i + 1]) for i in items])

    def item(self, i: int) -> slice:
        return slice(int(self.offsets[i]), int(self.offsets[i + 1]))

    @property
    def n_items(self) -> int:
        return len(self.offsets) - 1


def decoder_and_head(model: Any) -> tuple[torch.nn.Module, torch.Tensor, float | None]:
    """(decoder returning hidden states, LM-head weight [V, H], final logit softcap or None)."""
    lm = unwrap(model)
    decoder = lm.get_decoder() if hasattr(lm, "get_decoder") else lm.model
    head = lm.get_output_embeddings()
    if getattr(head, "bias", None) is not None:
        raise NotImplementedError("an LM head with a bias is not supported by the fused scorer")
    for name in ("logit_scale", "logits_scaling"):
        if getattr(lm.config, name, 1.0) not in (None, 1.0):
            raise NotImplementedError(f"config.{name} != 1 is not supported by the fused scorer")
    softcap = getattr(lm.config, "final_logit_softcapping", None)
    return decoder, head.weight, softcap


def device_of(model: Any) -> torch.device:
    return next(model.parameters()).device


def pad_id(model: Any) -> int:
    # Padding never reaches a counted position, so any valid id works when the model has none.
    config = unwrap(model).config
    pad = getattr(config, "pad_token_id", None)
    return int(pad) if pad is not None else 0
