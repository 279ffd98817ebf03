"""Scoring several models that differ only in their top layers over one pass of the shared trunk.

Adapters trained with LoRA on the last layers only (train.lora.top_layers) leave the layers below them
untouched, so the base model and every such adapter compute the same hidden states up to the first
adapted layer. The trunk (the decoder's first `split` layers) runs once per batch, exactly as the
shared-prefix scorer runs the whole decoder (prompts once, both responses on their KV cache), and its
output is kept; each model then runs only layers `split`.. on it. The numbers are those of
score_shared_prefix (the same operations on the same inputs); a real model scored with three adapters
does about 40% of the work.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from pipeline.kernels import CHUNK_TOKENS
from pipeline.scoring.batching import length_batches
from pipeline.scoring.common import ResponseScores, RowScores, decoder_and_head, device_of, pad_id
from pipeline.scoring.encode import EncodedItem, EncodedPair
from pipeline.scoring.shared_prefix import (
    Repeats,
    additive,
    on_device,
    record_logprobs,
    response_repeats,
    supports_custom_mask,
    token_passes,
    two_passes,
)


def shared_layers(adapter_dirs: Sequence[Path]) -> int:
    """How many bottom layers every adapter leaves untouched (0: some adapter adapts every layer)."""
    lowest = []
    for folder in adapter_dirs:
        layers = json.loads((Path(folder) / "adapter_config.json").read_text()).get("layers_to_transform")
        if not layers:
            return 0
        lowest.append(min([layers] if isinstance(layers, int) else layers))
    return min(lowest, default=0)


@contextlib.contextmanager
def layers_of(decoder: torch.nn.Module, start: int, stop: int | None) -> Iterator[torch.nn.Module]:
    """The decoder running only layers [start, stop); below the top it ends without its final norm (the
    output is then the input of layer `stop`). The layers keep their own index into the KV cache."""
    layers, norm = decoder.layers, decoder.norm
    decoder.layers = torch.nn.ModuleList(list(layers)[start:stop])
    if stop is not None and stop < len(layers):
        decoder.norm = torch.nn.Identity()
    try:
        yield decoder
    finally:
        decoder.layers, decoder.norm = layers, norm


@dataclass
class TrunkBatch:
    """One length batch after the trunk: its item indices, the prompts' and responses' hidden states and
    the response inputs (positions, mask, labels) the top layers need."""

    indices: list[int]
    prompt_states: torch.Tensor  # [B, P, H]
    prompt_len: torch.Tensor  # [B]
    response_states: torch.Tensor  # [R, W, H]: the items' responses in order (2B for pairs)
    inputs: dict[str, torch.Tensor]
    repeats: Repeats = 2  # responses per prompt (response_repeats)


@torch.inference_mode()
def trunk_batches(model: Any, pairs: Sequence[EncodedPair | EncodedItem], split: int,
                  batch_tokens: int = 8192) -> list[TrunkBatch]:
    """The first `split` layers of `model` (adapters off or absent) over every pair (or item), once."""
    if not supports_custom_mask(model):
        raise ValueError("shared-trunk scoring needs sdpa or eager attention (a custom 4D mask)")
    decoder, weight, _ = decoder_and_head(model)
    device, pad = device_of(model), pad_id(model)
    out = []
    with layers_of(decoder, 0, split):
        for batch in length_batches([p.shared_length for p in pairs], batch_tokens):
            group = [pairs[i] for i in batch]
            prompt_states, prompt_len, response_states, inputs = token_passes(decoder, group, pad, device, weight.dtype)
            out.append(TrunkBatch(list(batch), prompt_states, prompt_len, response_states, inputs,
                                  response_repeats(group)))
    return out


@torch.inference_mode()
def score_responses_from_trunk(model: Any, trunk: Sequence[TrunkBatch], split: int, sizes: Sequence[int],
                               chunk_size: int = CHUNK_TOKENS) -> RowScores:
    """score_responses' scores of `model` (its active adapter) for items with `sizes` responses each,
    running only layers `split`.. on the trunk's hidden states."""
    decoder, weight, softcap = decoder_and_head(model)
    out = RowScores.empty(sizes)
    with layers_of(decoder, split, None):
        for tb in trunk:
            repeats = on_device(tb.repeats, weight.device)
            prompt_states, response_states = two_passes(
                decoder, {"inputs_embeds": tb.prompt_states},
                {"inputs_embeds": tb.response_states, "position_ids": tb.inputs["position_ids"]},
                additive(tb.inputs["mask"], weight.dtype), repeats)
            record_logprobs(out, tb.indices, prompt_states, tb.prompt_len, response_states, tb.inputs["labels"],
                            weight, softcap, chunk_size, repeats)
    return out


def score_from_trunk(model: Any, trunk: Sequence[TrunkBatch], split: int, n_pairs: int,
                     chunk_size: int = CHUNK_TOKENS) -> ResponseScores:
    """score_shared_prefix's scores of `model` (its active adapter), running only layers `split`.. on
    the trunk's hidden states."""
    return ResponseScores.from_rows(score_responses_from_trunk(model, trunk, split, [2] * n_pairs, chunk_size))
