"""torch.library glue for the C++ ops: fake kernels (shapes for torch.compile) and autograd."""

from __future__ import annotations

import torch


@torch.library.register_fake("pipeline_kernels::token_logprobs")
def _fake_forward(logits, targets, ignore_index, temperature, softcap):
    out_dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32
    n = logits.shape[0]
    return logits.new_empty(n, dtype=out_dtype), logits.new_empty(n, dtype=out_dtype)


@torch.library.register_fake("pipeline_kernels::token_logprobs_backward")
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


torch.library.register_autograd("pipeline_kernels::token_logprobs", _backward, setup_context=_setup_context)
