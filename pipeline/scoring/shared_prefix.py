"""Shared-prefix scoring: the prompt runs once and all its responses are scored from its KV cache.

Pass 1 runs the batch's prompts (right-padded, plain causal attention: a real token never sees the
padding after it, so the fast causal kernel applies). Its KV cache is repeated for each prompt's
responses (two for a pair: chosen and rejected; any number for an item of pipeline/reward), and pass 2
runs all of them together as short rows on top of it: each response token sees
its own prompt (not the padding) and the earlier tokens of its own response, at positions continuing
the prompt. Every response token therefore gets exactly the hidden state a separate prompt+response
pass would give, while the prompt's layers run once and the LM head runs only on response positions
(through the fused kernel: no [tokens x vocab] log-softmax is materialised).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import torch

from pipeline.kernels import CHUNK_TOKENS, IGNORE_INDEX, fused_linear_sequence_logprobs
from pipeline.scoring.batching import length_batches
from pipeline.scoring.common import ResponseScores, RowScores, decoder_and_head, device_of, pad_id
from pipeline.scoring.encode import EncodedItem, EncodedPair

# A batch's prompts each repeated for their responses: one count for all (2 for pairs), or one per prompt.
Repeats = int | torch.Tensor


def prompt_batch(pairs: Sequence[EncodedPair | EncodedItem], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(right-padded prompt ids [B, P], prompt lengths [B])."""
    lengths = torch.tensor([len(p.prompt) for p in pairs])
    ids = torch.full((len(pairs), int(lengths.max())), pad, dtype=torch.long)
    for row, p in enumerate(pairs):
        ids[row, : len(p.prompt)] = torch.tensor(p.prompt)
    return ids, lengths


def response_repeats(items: Sequence[EncodedPair | EncodedItem]) -> Repeats:
    """How many response rows each prompt of a batch feeds: one int when they all feed the same number."""
    counts = [len(p.responses) for p in items]
    return counts[0] if len(set(counts)) == 1 else torch.tensor(counts)


def response_batch(pairs: Sequence[EncodedPair | EncodedItem], pad: int, prompt_width: int) -> dict[str, torch.Tensor]:
    """Pass-2 inputs, one row per response in item order: for pairs, row 2i is pair i's chosen response
    and row 2i + 1 its rejected one.

    mask[row, 0, i, k] is True where response token i may attend cache/key position k: the first
    `prompt_width` keys are the padded prompt (visible up to the row's prompt length), the rest are
    this pass's own tokens (causal).
    """
    responses = [r for p in pairs for r in p.responses]
    prompt_len = torch.tensor([len(p.prompt) for p in pairs for _ in p.responses])
    width = max(len(r) for r in responses)
    ids = torch.full((len(responses), width), pad, dtype=torch.long)
    labels = torch.full((len(responses), width), IGNORE_INDEX, dtype=torch.long)
    for row, r in enumerate(responses):
        ids[row, : len(r)] = torch.tensor(r)
        labels[row, : len(r)] = torch.tensor(r)
    steps = torch.arange(width)
    positions = prompt_len[:, None] + steps[None, :]
    sees_prompt = torch.arange(prompt_width)[None, None, :] < prompt_len[:, None, None]
    sees_own = (steps[None, :] <= steps[:, None])[None].expand(len(responses), -1, -1)
    mask = torch.cat([sees_prompt.expand(-1, width, -1), sees_own], dim=2)[:, None]
    return {"input_ids": ids, "position_ids": positions, "mask": mask, "labels": labels}


def additive(mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    # A float mask works with both sdpa and eager attention.
    out = torch.zeros(mask.shape, dtype=dtype, device=mask.device)
    return out.masked_fill_(~mask, torch.finfo(dtype).min)


def supports_custom_mask(model: Any) -> bool:
    impl = getattr(getattr(model, "config", None), "_attn_implementation", None) or "sdpa"
    return impl in ("sdpa", "eager")


def cache_keyword(decoder: torch.nn.Module) -> str:
    # transformers renamed past_key_values to cache (5.x); accept both.
    return "cache" if "cache" in inspect.signature(decoder.forward).parameters else "past_key_values"


def repeat_cache(cache: Any, repeats: Repeats) -> None:
    """Each prompt's KV cache repeated for its responses, in place."""
    if isinstance(repeats, int):
        cache.batch_repeat_interleave(repeats)
    else:
        cache.batch_select_indices(torch.arange(len(repeats)).repeat_interleave(repeats))


def two_passes(decoder: torch.nn.Module, prompt: dict[str, torch.Tensor], responses: dict[str, torch.Tensor],
               mask: torch.Tensor, repeats: Repeats = 2) -> tuple[torch.Tensor, torch.Tensor]:
    """(prompt states, response states): pass 1 over the prompts (`prompt`: input_ids or inputs_embeds),
    its cache repeated for each prompt's responses (`repeats`), pass 2 over the responses (`responses`
    likewise, with response_batch's positions and the additive `mask`)."""
    first = decoder(**prompt, use_cache=True)
    cache = getattr(first, "cache", None) or first.past_key_values
    repeat_cache(cache, repeats)
    second = decoder(**responses, attention_mask=mask, use_cache=True, **{cache_keyword(decoder): cache})
    return first.last_hidden_state, second.last_hidden_state


def token_passes(decoder: torch.nn.Module, group: Sequence[EncodedPair | EncodedItem], pad: int,
                 device: torch.device, dtype: torch.dtype
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
    """two_passes over a batch of items' token ids: (prompt states, prompt lengths, response states, the
    response inputs of response_batch)."""
    prompt_ids, prompt_len = prompt_batch(group, pad)
    inputs = {k: v.to(device) for k, v in response_batch(group, pad, prompt_ids.shape[1]).items()}
    prompt_states, response_states = two_passes(
        decoder, {"input_ids": prompt_ids.to(device)},
        {"input_ids": inputs["input_ids"], "position_ids": inputs["position_ids"]}, additive(inputs["mask"], dtype),
        on_device(response_repeats(group), device))
    return prompt_states, prompt_len, response_states, inputs


def on_device(repeats: Repeats, device: torch.device) -> Repeats:
    return repeats if isinstance(repeats, int) else repeats.to(device)


def response_logprobs(prompt_states: torch.Tensor, prompt_len: torch.Tensor, response_states: torch.Tensor,
                      labels: torch.Tensor, weight: torch.Tensor, softcap: float | None,
                      chunk_size: int, repeats: Repeats = 2) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(sum, mean, count) of each response row's log-probs through the fused kernel; differentiable, so
    DPO training (pipeline/training/dpo.py) uses it as well as the scorers."""
    # Response token t is predicted by the state before it: the last prompt token for t = 0.
    device = response_states.device
    rows = torch.arange(prompt_states.shape[0], device=device)
    last_prompt = prompt_states[rows, prompt_len.to(device) - 1].repeat_interleave(on_device(repeats, device), dim=0)
    predictors = torch.cat([last_prompt[:, None], response_states[:, :-1]], dim=1)
    return fused_linear_sequence_logprobs(
        predictors, weight, labels, labels != IGNORE_INDEX, chunk_size=chunk_size, softcap=softcap
    )


def record_logprobs(out: RowScores, batch: Sequence[int], prompt_states: torch.Tensor,
                    prompt_len: torch.Tensor, response_states: torch.Tensor, labels: torch.Tensor,
                    weight: torch.Tensor, softcap: float | None, chunk_size: int, repeats: Repeats = 2) -> None:
    """Sum, mean and count of the responses' log-probs of the items at `batch` (through the fused kernel)
    into their rows of `out`."""
    scores = response_logprobs(prompt_states, prompt_len, response_states, labels, weight, softcap, chunk_size,
                               repeats)
    total, mean, count = (t.double().cpu().numpy() for t in scores)
    rows = out.rows_of(batch)
    out.sums[rows], out.means[rows], out.counts[rows] = total, mean, count


@torch.inference_mode()
def score_responses(
    model: Any,
    items: Sequence[EncodedPair | EncodedItem],
    batch_tokens: int = 8192,
    chunk_size: int = CHUNK_TOKENS,
    progress: Callable[[int], None] | None = None,
) -> RowScores:
    """Every response of every item, each item's prompt run once (`progress` counts items)."""
    if not supports_custom_mask(model):
        raise ValueError("shared-prefix scoring needs sdpa or eager attention (a custom 4D mask)")
    decoder, weight, softcap = decoder_and_head(model)
    device, pad = device_of(model), pad_id(model)
    out = RowScores.empty([len(p.responses) for p in items])
    for batch in length_batches([p.shared_length for p in items], batch_tokens):
        group = [items[i] for i in batch]
        prompt_states, prompt_len, response_states, inputs = token_passes(decoder, group, pad, device, weight.dtype)
        record_logprobs(out, batch, prompt_states, prompt_len, response_states, inputs["labels"], weight, softcap,
                        chunk_size, response_repeats(group))
        if progress:
            progress(len(batch))
    return out


def score_shared_prefix(
    model: Any,
    pairs: Sequence[EncodedPair],
    batch_tokens: int = 8192,
    chunk_size: int = CHUNK_TOKENS,
    progress: Callable[[int], None] | None = None,
) -> ResponseScores:
    return ResponseScores.from_rows(score_responses(model, pairs, batch_tokens, chunk_size, progress))
