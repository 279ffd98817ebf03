"""The original LegalRewardBench evaluation style, kept only as a benchmark baseline.

Batch size 1, one full forward per response, and a full-vocabulary log_softmax over every position
before picking the response tokens: simple and slow. Scores equal the other scorers'.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from pipeline.scoring.common import ResponseScores, device_of
from pipeline.scoring.encode import EncodedPair


@torch.inference_mode()
def score_naive(
    model: Any, pairs: Sequence[EncodedPair], progress: Callable[[int], None] | None = None
) -> ResponseScores:
    device = device_of(model)
    out = ResponseScores.empty(len(pairs))
    for i, p in enumerate(pairs):
        results = []
        for response in (p.chosen, p.rejected):
            ids = torch.tensor([p.prompt + response], device=device)
            logits = model(input_ids=ids).logits
            logp = torch.log_softmax(logits.float(), dim=-1)[0, len(p.prompt) - 1 : -1]
            token_logp = logp.gather(-1, torch.tensor(response, device=device)[:, None]).squeeze(-1)
            results.append((float(token_logp.sum()), len(response)))
        (cs, cn), (rs, rn) = results
        out.chosen_sum[i], out.chosen_tokens[i], out.chosen_mean[i] = cs, cn, cs / cn
        out.rejected_sum[i], out.rejected_tokens[i], out.rejected_mean[i] = rs, rn, rs / rn
        if progress:
            progress(1)
    return out
