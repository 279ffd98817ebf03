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

import numpy as np
import torch

from pipeline.kernels import CHUNK_TOKENS, IGNORE_INDEX, fused_linear_sequence_logprobs
from pipeline.scoring.batching import length_batches
from pipeline.scoring.common import ResponseScores, decoder_and_head, device_of, pad_id
from pipeline.scoring.encode import EncodedPair
from pipeline.scoring.shared_prefix import additive, prompt_batch, response_batch, supports_custom_mask


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
    """One length batch after the trunk: its pair indices, the prompts' and responses' hidden states and
    the response inputs (positions, mask, labels) the top layers need."""

    indices: list[int]
    prompt_states: torch.Tensor  # [B, P, H]
    prompt_len: torch.Tensor  # [B]
    response_states: torch.Tensor  # [2B, W, H]
    inputs: dict[str, torch.Tensor]


def _cache_kw(decoder: torch.nn.Module) -> str:
    import inspect

    return "cache" if "cache" in inspect.signature(decoder.forward).parameters else "past_key_values"


@torch.inference_mode()
def trunk_batches(model: Any, pairs: Sequence[EncodedPair], split: int,
                  batch_tokens: int = 8192) -> list[TrunkBatch]:
    """The first `split` layers of `model` (adapters off or absent) over every pair, once."""
    if not supports_custom_mask(model):
        raise ValueError("shared-trunk scoring needs sdpa or eager attention (a custom 4D mask)")
    decoder, weight, _ = decoder_and_head(model)
    device, pad = device_of(model), pad_id(model)
    out = []
    with layers_of(decoder, 0, split):
        for batch in length_batches([p.shared_length for p in pairs], batch_tokens):
            group = [pairs[i] for i in batch]
            prompt_ids, prompt_len = prompt_batch(group, pad)
            first = decoder(input_ids=prompt_ids.to(device), use_cache=True)
            cache = getattr(first, "cache", None) or first.past_key_values
            cache.batch_repeat_interleave(2)
            inputs = {k: v.to(device) for k, v in response_batch(group, pad, prompt_ids.shape[1]).items()}
            second = decoder(input_ids=inputs["input_ids"], position_ids=inputs["position_ids"],
                             attention_mask=additive(inputs["mask"], weight.dtype), use_cache=True,
                             **{_cache_kw(decoder): cache})
            out.append(TrunkBatch(list(batch), first.last_hidden_state, prompt_len, second.last_hidden_state, inputs))
    return out


@torch.inference_mode()
def score_from_trunk(model: Any, trunk: Sequence[TrunkBatch], split: int, n_pairs: int,
                     chunk_size: int = CHUNK_TOKENS) -> ResponseScores:
    """score_shared_prefix's scores of `model` (its active adapter), running only layers `split`.. on
    the trunk's hidden states."""
    decoder, weight, softcap = decoder_and_head(model)
    device = device_of(model)
    out = ResponseScores.empty(n_pairs)
    with layers_of(decoder, split, None):
        for tb in trunk:
            first = decoder(inputs_embeds=tb.prompt_states, use_cache=True)
            cache = getattr(first, "cache", None) or first.past_key_values
            cache.batch_repeat_interleave(2)
            second = decoder(inputs_embeds=tb.response_states, position_ids=tb.inputs["position_ids"],
                             attention_mask=additive(tb.inputs["mask"], weight.dtype), use_cache=True,
                             **{_cache_kw(decoder): cache}).last_hidden_state
            rows = torch.arange(len(tb.indices), device=device)
            last_prompt = first.last_hidden_state[rows, tb.prompt_len.to(device) - 1].repeat_interleave(2, dim=0)
            predictors = torch.cat([last_prompt[:, None], second[:, :-1]], dim=1)
            labels = tb.inputs["labels"]
            total, mean, count = fused_linear_sequence_logprobs(
                predictors, weight, labels, labels != IGNORE_INDEX, chunk_size=chunk_size, softcap=softcap
            )
            total, mean, count = (t.double().cpu().numpy() for t in (total, mean, count))
            idx = np.asarray(tb.indices)
            out.chosen_sum[idx], out.rejected_sum[idx] = total[0::2], total[1::2]
            out.chosen_mean[idx], out.rejected_mean[idx] = mean[0::2], mean[1::2]
            out.chosen_tokens[idx], out.rejected_tokens[idx] = count[0::2], count[1::2]
    return out
