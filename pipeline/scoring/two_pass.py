"""Plain two-pass scoring: prompt+chosen and prompt+rejected as two separate rows, full logits.

The usual way to score a pair (one forward per response, the LM head over every position), batched by
length like the shared-prefix scorer. It is the reference the shared-prefix scorer must equal, and the
baseline its speed is measured against.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import torch

from pipeline.kernels import IGNORE_INDEX, fused_linear_sequence_logprobs, sequence_logprobs
from pipeline.scoring.batching import length_batches
from pipeline.scoring.common import ResponseScores, RowScores, decoder_and_head, device_of, pad_id
from pipeline.scoring.encode import EncodedItem, EncodedPair


def score_two_pass(
    model: Any,
    pairs: Sequence[EncodedPair],
    batch_tokens: int = 8192,
    progress: Callable[[int], None] | None = None,
    head: Literal["full", "fused"] = "full",
) -> ResponseScores:
    """head="full": the model's logits over every position (the plain way); "fused": the head runs on
    response positions only through the fused kernel (used by the bench to separate the two savings)."""
    return ResponseScores.from_rows(score_rows_two_pass(model, pairs, batch_tokens, progress, head))


@torch.inference_mode()
def score_rows_two_pass(
    model: Any,
    items: Sequence[EncodedPair | EncodedItem],
    batch_tokens: int = 8192,
    progress: Callable[[int], None] | None = None,
    head: Literal["full", "fused"] = "full",
) -> RowScores:
    """Every response of every item as its own prompt+response row (`progress` counts rows)."""
    decoder, weight, softcap = decoder_and_head(model)
    device, pad = device_of(model), pad_id(model)
    # One row per response, in item order: for pairs, row 2i is prompt+chosen of pair i, row 2i+1 prompt+rejected.
    out = RowScores.empty([len(p.responses) for p in items])
    rows = [(p.prompt, r) for p in items for r in p.responses]
    sums, means, counts = out.sums, out.means, out.counts
    for batch in length_batches([len(a) + len(b) for a, b in rows], batch_tokens):
        length = max(len(rows[i][0]) + len(rows[i][1]) for i in batch)
        ids = torch.full((len(batch), length), pad, dtype=torch.long)
        attn = torch.zeros((len(batch), length), dtype=torch.long)
        labels = torch.full((len(batch), length), IGNORE_INDEX, dtype=torch.long)
        for j, i in enumerate(batch):
            prompt, response = rows[i]
            n_p, n_r = len(prompt), len(response)
            ids[j, : n_p + n_r] = torch.tensor(prompt + response)
            attn[j, : n_p + n_r] = 1
            # logits at t predict the token at t + 1: response tokens sit at n_p .. n_p + n_r - 1.
            labels[j, n_p - 1 : n_p + n_r - 1] = torch.tensor(response)
        labels = labels.to(device)
        if head == "full":
            logits = model(input_ids=ids.to(device), attention_mask=attn.to(device), use_cache=False).logits
            total, mean, count = sequence_logprobs(logits, labels, labels != IGNORE_INDEX, softcap=softcap)
        else:
            hidden = decoder(input_ids=ids.to(device), attention_mask=attn.to(device), use_cache=False).last_hidden_state
            total, mean, count = fused_linear_sequence_logprobs(
                hidden, weight, labels, labels != IGNORE_INDEX, softcap=softcap
            )
        idx = np.asarray(batch)
        sums[idx], means[idx], counts[idx] = total.double().cpu().numpy(), mean.double().cpu().numpy(), count.cpu().numpy()
        if progress:
            progress(len(batch))
    return out
