"""torch.compile traces through the ops (fake kernels give shapes; autograd is registered)."""

from __future__ import annotations

import torch
from kernel_oracle import logprobs64

from pipeline.kernels import backend, fused_linear_sequence_logprobs, sequence_logprobs, token_logprobs


def test_compile_fullgraph_forward_and_backward():
    def loss_fn(logits, labels, weights):
        total, mean, _ = sequence_logprobs(logits, labels)
        return (total * weights).sum() + mean.sum()

    compiled = torch.compile(loss_fn, fullgraph=backend() == "extension", backend="aot_eager")
    logits = torch.randn(2, 4, 30)
    labels = torch.randint(0, 30, (2, 4))
    labels[0, 0] = -100
    weights = torch.tensor([1.0, -2.0])
    a = logits.clone().requires_grad_()
    compiled(a, labels, weights).backward()
    b = logits.clone().requires_grad_()
    loss_fn(b, labels, weights).backward()
    torch.testing.assert_close(a.grad, b.grad)


def test_compile_inductor_token_logprobs():
    fn = torch.compile(lambda x, t: token_logprobs(x * 2.0, t).sum(), fullgraph=backend() == "extension")
    x = torch.randn(8, 50)
    t = torch.randint(0, 50, (8,))
    torch.testing.assert_close(fn(x, t).double(), logprobs64(x * 2.0, t).sum(), atol=1e-4, rtol=1e-5)


def test_compile_fused_linear():
    fn = torch.compile(fused_linear_sequence_logprobs, backend="aot_eager")
    h = torch.randn(2, 3, 8, requires_grad=True)
    w = torch.randn(20, 8, requires_grad=True)
    labels = torch.randint(0, 20, (2, 3))
    total, _, _ = fn(h, w, labels, None, 2)
    total.sum().backward()
    ref_total, _, _ = fused_linear_sequence_logprobs(h.detach(), w.detach(), labels, None, 2)
    torch.testing.assert_close(total, ref_total)
    assert h.grad is not None and w.grad is not None
