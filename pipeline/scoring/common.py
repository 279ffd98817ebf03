"""What the scorers share: the result arrays and access to a causal LM's decoder and head."""

from __future__ import annotations

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
