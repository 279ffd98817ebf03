"""Public API of the log-prob kernels (see the package docstring).

The C++ ops (csrc/ops.cpp) get their fake kernel (shapes, for torch.compile) and their autograd here,
next to the Python wrapper, once the loader has built and loaded the extension (_register_ops).
"""

from __future__ import annotations

from functools import cache

import torch

from pipeline.kernels import loader, reference
from pipeline.kernels.reference import CHUNK_TOKENS, IGNORE_INDEX


# ------------------------------------------------------------------ the C++ op: fake kernels + autograd
def _fake_forward(logits, targets, ignore_index, temperature, softcap):
    out_dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32
    n = logits.shape[0]
    return logits.new_empty(n, dtype=out_dtype), logits.new_empty(n, dtype=out_dtype)


def _fake_backward(grad, logits, targets, lse, ignore_index, temperature, softcap):
    return torch.empty_like(logits)


def _setup_context(ctx, inputs, output):
    logits, targets, ignore_index, temperature, softcap = inputs
    ctx.save_for_backward(logits, targets, output[1])
    ctx.args = (ignore_index, temperature, softcap)
    ctx.mark_non_differentiable(output[1])


def _backward(ctx, grad_logp, _grad_lse):
    logits, targets, lse = ctx.saved_tensors
    grad = torch.ops.pipeline_kernels.token_logprobs_backward(
        grad_logp.contiguous(), logits, targets, lse, *ctx.args
    )
    return grad, None, None, None, None


@cache
def _register_ops() -> bool:
    """Build and load the extension (lazily, on first use), then attach the fake kernels and autograd
    to its ops, once. False when the extension is unavailable (the reference is used)."""
    if not loader.extension_available():
        return False
    torch.library.register_fake("pipeline_kernels::token_logprobs", _fake_forward)
    torch.library.register_fake("pipeline_kernels::token_logprobs_backward", _fake_backward)
    torch.library.register_autograd("pipeline_kernels::token_logprobs", _backward, setup_context=_setup_context)
    return True


@torch.compiler.assume_constant_result
def extension_available() -> bool:
    # A constant to torch.compile: the loader (files, env, build) stays out of traced graphs.
    return _register_ops()


@torch.compiler.assume_constant_result
def _cuda_kernels() -> bool:
    return _register_ops() and loader.cuda_built()


def _use_extension(t: torch.Tensor) -> bool:
    # a CPU-only build (no CUDA_HOME) still serves CPU tensors; CUDA tensors then take the reference,
    # as do float64 CUDA tensors (the CUDA kernels take fp32/bf16/fp16; fp64 is for checks, not speed)
    if t.is_cuda:
        return t.dtype != torch.float64 and _cuda_kernels()
    return extension_available()


def backend() -> str:
    """'extension' when the compiled ops are in use, else 'reference'."""
    return "extension" if extension_available() else "reference"


def _softcap_arg(softcap: float | None) -> float:
    # The C++ schema carries "no softcap" as 0.0 so the op signature stays plain floats.
    return 0.0 if softcap is None else float(softcap)


def _check(logits: torch.Tensor, targets: torch.Tensor, temperature: float, softcap: float | None) -> None:
    if logits.dim() != 2 or targets.dim() != 1 or targets.shape[0] != logits.shape[0]:
        raise ValueError(f"expected logits [N,V] and targets [N], got {tuple(logits.shape)} and {tuple(targets.shape)}")
    if not temperature > 0:
        raise ValueError("temperature must be positive")
    if softcap is not None and not softcap > 0:
        raise ValueError("softcap must be positive or None")


def _token_logprobs_and_lse(
    logits: torch.Tensor, targets: torch.Tensor, ignore_index: int, temperature: float, softcap: float | None
) -> tuple[torch.Tensor, torch.Tensor]:
    if _use_extension(logits):
        return torch.ops.pipeline_kernels.token_logprobs(
            logits, targets, ignore_index, float(temperature), _softcap_arg(softcap)
        )
    return _ReferenceTokenLogprobs.apply(logits, targets, ignore_index, temperature, softcap)


def _token_logprobs_backward(
    grad: torch.Tensor,
    logits: torch.Tensor,
    targets: torch.Tensor,
    lse: torch.Tensor,
    ignore_index: int,
    temperature: float,
    softcap: float | None,
) -> torch.Tensor:
    if _use_extension(logits):
        return torch.ops.pipeline_kernels.token_logprobs_backward(
            grad, logits, targets, lse, ignore_index, float(temperature), _softcap_arg(softcap)
        )
    return reference.token_logprobs_backward(grad, logits, targets, lse, ignore_index, temperature, softcap)


class _ReferenceTokenLogprobs(torch.autograd.Function):
    """The reference behind the same saved-lse contract as the extension op."""

    @staticmethod
    def forward(ctx, logits, targets, ignore_index, temperature, softcap):  # type: ignore[override]
        logp, lse = reference.token_logprobs_and_lse(logits, targets, ignore_index, temperature, softcap)
        ctx.save_for_backward(logits, targets, lse)
        ctx.args = (ignore_index, temperature, softcap)
        ctx.mark_non_differentiable(lse)
        return logp, lse

    @staticmethod
    def backward(ctx, grad_logp, _grad_lse):  # type: ignore[override]
        logits, targets, lse = ctx.saved_tensors
        grad = reference.token_logprobs_backward(grad_logp.contiguous(), logits, targets, lse, *ctx.args)
        return grad, None, None, None, None


def token_logprobs(
    logits: torch.Tensor,
    targets: torch.Tensor,
    ignore_index: int = IGNORE_INDEX,
    temperature: float = 1.0,
    softcap: float | None = None,
) -> torch.Tensor:
    """Per-token log-prob of `targets` under `logits`: fp32 [N] (fp64 for fp64 logits).

    logits: [N, V] fp32/bf16/fp16; targets: int64 [N], rows equal to ignore_index give 0 (no gradient).
    The logits are transformed as softcap * tanh(x / softcap) (if softcap) then divided by temperature.
    Differentiable w.r.t. logits; the backward recomputes the softmax from the saved log-sum-exp.
    """
    _check(logits, targets, temperature, softcap)
    targets = targets.to(torch.long).contiguous()
    return _token_logprobs_and_lse(logits.contiguous(), targets, ignore_index, temperature, softcap)[0]


def _segment(tok: torch.Tensor, valid: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    count = valid.sum(dim=1)
    total = tok.sum(dim=1)
    # clamp keeps an empty sequence at 0 / 1 = 0 instead of 0 / 0 = nan
    mean = total / count.clamp(min=1).to(total.dtype)
    return total, mean, count


def _valid(labels: torch.Tensor, mask: torch.Tensor | None, ignore_index: int) -> torch.Tensor:
    valid = labels != ignore_index
    if mask is not None:
        if mask.shape != labels.shape:
            raise ValueError(f"mask shape {tuple(mask.shape)} != labels shape {tuple(labels.shape)}")
        valid = valid & mask.bool()
    return valid


def sequence_logprobs(
    logits: torch.Tensor,
    labels: torch.Tensor,
    mask: torch.Tensor | None = None,
    ignore_index: int = IGNORE_INDEX,
    temperature: float = 1.0,
    softcap: float | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per-sequence (sum[B] fp32, mean[B] fp32, count[B] int64) of response-token log-probs.

    logits[b, t] scores labels[b, t] (no shift here: shift before calling, as for TRL's
    selective_log_softmax). A token counts when labels != ignore_index and mask (optional bool [B, T])
    is true. A sequence with no counted token gives 0, 0, 0.
    """
    if logits.dim() != 3 or labels.shape != logits.shape[:2]:
        raise ValueError(f"expected logits [B,T,V] and labels [B,T], got {tuple(logits.shape)}, {tuple(labels.shape)}")
    b, t, v = logits.shape
    valid = _valid(labels, mask, ignore_index)
    targets = torch.where(valid, labels, torch.full_like(labels, ignore_index))
    tok = token_logprobs(logits.reshape(b * t, v), targets.reshape(-1), ignore_index, temperature, softcap)
    return _segment(tok.view(b, t), valid)


def _compute_dtype(hidden: torch.Tensor) -> torch.dtype:
    dev = hidden.device.type
    return torch.get_autocast_dtype(dev) if torch.is_autocast_enabled(dev) else hidden.dtype


class _FusedLinearLogprobs(torch.autograd.Function):
    """Token log-probs of hidden @ weight.T, chunked over tokens; backward recomputes each chunk's logits.

    The matmul dtype is fixed in forward (the autocast dtype if autocast is on, else hidden's) and
    reused in backward, which runs outside autocast: the recomputed logits are bit-identical to the
    ones the saved log-sum-exp came from.
    """

    @staticmethod
    def forward(ctx, hidden, weight, targets, temperature, softcap, chunk_size):  # type: ignore[override]
        n = hidden.shape[0]
        dtype = _compute_dtype(hidden)
        acc = reference.out_dtype(dtype)
        logp = hidden.new_empty(n, dtype=acc)
        lse = hidden.new_empty(n, dtype=acc)
        w = weight.to(dtype)
        with torch.autocast(hidden.device.type, enabled=False):
            for s in range(0, n, chunk_size):
                e = min(s + chunk_size, n)
                logits = hidden[s:e].to(dtype) @ w.t()
                logp[s:e], lse[s:e] = _token_logprobs_and_lse(logits, targets[s:e], IGNORE_INDEX, temperature, softcap)
                del logits
        ctx.save_for_backward(hidden, weight, targets, lse)
        ctx.args = (temperature, softcap, chunk_size, dtype)
        return logp

    @staticmethod
    def backward(ctx, grad_logp):  # type: ignore[override]
        hidden, weight, targets, lse = ctx.saved_tensors
        temperature, softcap, chunk_size, dtype = ctx.args
        grad_logp = grad_logp.contiguous().to(lse.dtype)
        w = weight.to(dtype)
        need_h, need_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        grad_hidden = torch.empty_like(hidden) if need_h else None
        # fp32 (fp64 for fp64) accumulation across chunks whatever the weight dtype
        grad_weight = torch.zeros(weight.shape, dtype=lse.dtype, device=weight.device) if need_w else None
        for s in range(0, hidden.shape[0], chunk_size):
            e = min(s + chunk_size, hidden.shape[0])
            h = hidden[s:e].to(dtype)
            g = _token_logprobs_backward(grad_logp[s:e], h @ w.t(), targets[s:e], lse[s:e], IGNORE_INDEX,
                                         temperature, softcap)
            if need_h:
                grad_hidden[s:e] = (g @ w).to(hidden.dtype)
            if need_w:
                _accumulate_weight_grad(grad_weight, g, h, dtype)
        if grad_weight is not None:
            grad_weight = grad_weight.to(weight.dtype)
        return grad_hidden, grad_weight, None, None, None, None


def _accumulate_weight_grad(grad_weight: torch.Tensor, g: torch.Tensor, h: torch.Tensor, dtype: torch.dtype) -> None:
    """grad_weight += g.T @ h in fp32. bf16/fp16 values are exact in TF32, so on a GPU the product may use
    TF32 tensor cores without changing a bit of the inputs (fp32 accumulation either way)."""
    lossless_tf32 = g.is_cuda and dtype in (torch.bfloat16, torch.float16)
    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = previous or lossless_tf32
    try:
        grad_weight.addmm_(g.t().to(grad_weight.dtype), h.to(grad_weight.dtype))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous


def fused_linear_sequence_logprobs(
    hidden: torch.Tensor,
    weight: torch.Tensor,
    labels: torch.Tensor,
    mask: torch.Tensor | None = None,
    chunk_size: int = CHUNK_TOKENS,
    temperature: float = 1.0,
    softcap: float | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per-sequence (sum[B], mean[B], count[B]) of log p(labels) under logits = hidden @ weight.T.

    Contract (what a DPO trainer passes):
      hidden: [B, T, H] any float dtype (the LM's last hidden state, already aligned so hidden[b, t]
              predicts labels[b, t] -- shift before calling); weight: [V, H] (the LM head), any float dtype,
              cast to hidden's dtype for the matmul.
      labels: int64 [B, T], ignore_index -100 on non-response tokens; mask: optional bool [B, T] (AND-ed).
      chunk_size: tokens per chunk; only [chunk_size, V] logits exist at a time, forward and backward.
    Returns fp32 sum and mean, int64 count; an empty sequence gives 0, 0, 0. Differentiable w.r.t.
    hidden and weight: the backward recomputes each chunk's logits from the saved log-sum-exp and
    applies each token's own upstream gradient, so distinct per-sequence gradients (DPO's chosen vs
    rejected weights) are exact; no gradient is precomputed in the forward.
    """
    if hidden.dim() != 3 or labels.shape != hidden.shape[:2] or weight.dim() != 2 or weight.shape[1] != hidden.shape[2]:
        raise ValueError(
            f"expected hidden [B,T,H], weight [V,H], labels [B,T]; got {tuple(hidden.shape)}, "
            f"{tuple(weight.shape)}, {tuple(labels.shape)}"
        )
    if chunk_size < 1:
        raise ValueError("chunk_size must be >= 1")
    if not temperature > 0:
        raise ValueError("temperature must be positive")
    b, t, _ = hidden.shape
    valid = _valid(labels, mask, IGNORE_INDEX)
    # Only counted tokens go through the head: padding and prompt tokens cost nothing.
    rows = valid.reshape(-1).nonzero().squeeze(1)
    flat = hidden.reshape(b * t, -1)
    tok_valid = _FusedLinearLogprobs.apply(
        flat.index_select(0, rows).contiguous(), weight, labels.reshape(-1).index_select(0, rows),
        temperature, softcap, chunk_size,
    )
    tok = torch.zeros(b * t, dtype=tok_valid.dtype, device=hidden.device).index_add(0, rows, tok_valid)
    return _segment(tok.view(b, t), valid)


def selective_log_softmax(
    logits: torch.Tensor,
    index: torch.Tensor,
    temperature: float = 1.0,
    row_mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """Drop-in for TRL's `trl.trainer.utils.selective_log_softmax` (same signature and result).

    index has shape logits.shape[:-1] (one token per position) or (..., K); the result has index's
    shape and logits' dtype, like TRL's. Positions where row_mask == 0 give 0.
    """
    if temperature <= 0:
        raise ValueError("temperature must be positive")
    v = logits.shape[-1]
    flat = logits.reshape(-1, v)
    squeeze = index.dim() == logits.dim() - 1
    idx = index.unsqueeze(-1) if squeeze else index
    cols = []
    for k in range(idx.shape[-1]):
        tgt = idx[..., k].reshape(-1)
        # TRL has no ignore value: every index is scored, so use one no valid index can equal.
        cols.append(token_logprobs(flat, tgt, ignore_index=-(2**62), temperature=temperature))
    out = torch.stack(cols, dim=-1).view(idx.shape).to(logits.dtype)
    if squeeze:
        out = out.squeeze(-1)
    if row_mask is not None:
        out = out.masked_fill(row_mask == 0, 0.0)
    return out
