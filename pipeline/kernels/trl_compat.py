"""Make TRL use our log-probs.

TRL 1.16 computes log-probs in two places:
  * `trl.trainer.utils.selective_log_softmax(logits, index, temperature, row_mask)`, imported by name
    into several trainers (CPO, ORPO, SDPO, ...);
  * DPOTrainer's fused LM head (`add_fused_lm_head`), which calls
    `trl.trainer.utils._ChunkedLogProbFunction.apply(hidden, weight, bias, targets, temperature,
    chunk_size, softcap, logit_scale, outputs)` from hidden states -- DPOTrainer never materialises logits.

`use_fused_logprobs()` swaps both for ours while the block runs and restores TRL's afterwards:

    from pipeline.kernels.trl_compat import use_fused_logprobs
    with use_fused_logprobs():
        trainer.train()

The extra per-token outputs DPOTrainer asks for (entropy, mean logit, top-1 hit) are metrics only; they
are computed without gradient in a second chunked pass. A linear head with a bias falls back to TRL's own.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import torch

from pipeline.kernels import ops, reference

_TOKEN_CHUNK_BYTES = 64 * 2**20  # logits of one chunk of tokens (fp32)


def _metrics(hidden, weight, targets, temperature, softcap, chunk, outputs):
    """TRL's optional outputs, computed without gradient chunk by chunk."""
    want = {name: name in outputs for name in ("entropy", "log_sum_sq_probs", "mean_logits", "is_top1")}
    if not any(want.values()):
        return None, None, None, None
    cols: dict[str, list[torch.Tensor]] = {k: [] for k, v in want.items() if v}
    with torch.no_grad():
        w = weight.to(hidden.dtype)
        for s in range(0, hidden.shape[0], chunk):
            z = reference.transform(hidden[s : s + chunk] @ w.t(), temperature, softcap)
            logp = torch.log_softmax(z, dim=-1)
            if want["entropy"]:
                cols["entropy"].append(-(logp.exp() * logp).sum(-1))
            if want["log_sum_sq_probs"]:
                cols["log_sum_sq_probs"].append(torch.logsumexp(2 * logp, dim=-1))
            if want["mean_logits"]:
                cols["mean_logits"].append(z.mean(-1))
            if want["is_top1"]:
                cols["is_top1"].append(z.argmax(-1) == targets[s : s + chunk])
    cat = {k: torch.cat(v) if v else None for k, v in cols.items()}
    return cat.get("entropy"), cat.get("log_sum_sq_probs"), cat.get("mean_logits"), cat.get("is_top1")


class FusedChunkedLogProb:
    """Stands in for TRL's `_ChunkedLogProbFunction` (same `apply` signature and 5-tuple result)."""

    original = None  # TRL's class, set while swapped in

    @staticmethod
    def apply(hidden, weight, bias, targets, temperature, chunk_size, final_logit_softcapping=None,
              logit_scale=1.0, outputs=("log_probs",)):
        if bias is not None or type(weight) is not torch.Tensor and not isinstance(weight, torch.nn.Parameter):
            return FusedChunkedLogProb.original.apply(
                hidden, weight, bias, targets, temperature, chunk_size, final_logit_softcapping, logit_scale, outputs
            )
        if logit_scale != 1.0:
            hidden = hidden * logit_scale  # (h * s) @ W.T == s * (h @ W.T)
        # TRL's chunk_size splits the vocabulary; ours splits tokens, sized to bound the logits chunk.
        chunk = max(1, _TOKEN_CHUNK_BYTES // (4 * weight.shape[0]))
        logp = ops._FusedLinearLogprobs.apply(
            hidden.contiguous(), weight, targets.contiguous(), temperature, final_logit_softcapping, chunk
        )
        extras = _metrics(hidden, weight, targets, temperature, final_logit_softcapping, chunk, outputs)
        return (logp, *extras)


def _trl_modules() -> list:
    return [m for name, m in list(sys.modules.items()) if (name == "trl" or name.startswith("trl.")) and m]


@contextmanager
def use_fused_logprobs() -> Iterator[None]:
    """Route TRL's log-prob computations through pipeline.kernels inside the block (see module doc)."""
    import trl.trainer.utils as trl_utils

    orig_sls = trl_utils.selective_log_softmax
    orig_chunked = getattr(trl_utils, "_ChunkedLogProbFunction", None)
    swapped: list[tuple[object, str, object]] = []
    for mod in _trl_modules():
        if getattr(mod, "selective_log_softmax", None) is orig_sls:
            swapped.append((mod, "selective_log_softmax", orig_sls))
            mod.selective_log_softmax = ops.selective_log_softmax
    if orig_chunked is not None:
        FusedChunkedLogProb.original = orig_chunked
        swapped.append((trl_utils, "_ChunkedLogProbFunction", orig_chunked))
        trl_utils._ChunkedLogProbFunction = FusedChunkedLogProb
    try:
        yield
    finally:
        for mod, attr, orig in swapped:
            setattr(mod, attr, orig)
        # modules imported inside the block copied our function by name: give them TRL's back
        for mod in _trl_modules():
            if getattr(mod, "selective_log_softmax", None) is ops.selective_log_softmax:
                mod.selective_log_softmax = orig_sls
