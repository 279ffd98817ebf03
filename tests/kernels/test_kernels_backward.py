"""Gradients: gradcheck in float64, and against float64 autograd with distinct per-sequence upstream
gradients (as DPO gives chosen and rejected sequences)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_oracle import logprobs64, sequence64

from pipeline.kernels import fused_linear_sequence_logprobs, ops, sequence_logprobs, token_logprobs


@pytest.mark.parametrize("temperature,softcap", [(1.0, None), (0.7, None), (1.5, 3.0)])
def test_gradcheck_token_logprobs(temperature, softcap):
    x = torch.randn(5, 13, dtype=torch.float64, requires_grad=True)
    t = torch.tensor([0, 12, -100, 5, 7])
    assert torch.autograd.gradcheck(lambda a: token_logprobs(a, t, -100, temperature, softcap), (x,))


def test_gradcheck_reference_backend():
    x = torch.randn(4, 9, dtype=torch.float64, requires_grad=True)
    t = torch.tensor([0, 8, -100, 5])
    fn = lambda a: ops._ReferenceTokenLogprobs.apply(a, t, -100, 0.8, 2.0)[0]  # noqa: E731
    assert torch.autograd.gradcheck(fn, (x,))


def test_gradcheck_fused_linear():
    h = torch.randn(2, 4, 6, dtype=torch.float64, requires_grad=True)
    w = torch.randn(11, 6, dtype=torch.float64, requires_grad=True)
    labels = torch.tensor([[1, -100, 3, 10], [-100, -100, 0, 2]])

    def fn(h, w):
        s, m, _ = fused_linear_sequence_logprobs(h, w, labels, chunk_size=2)
        return s, m

    assert torch.autograd.gradcheck(fn, (h, w))


DTYPE_TOL = {torch.float32: 2e-5, torch.float64: 1e-9, torch.bfloat16: 1.6e-2, torch.float16: 2e-3}


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 8),
    v=st.integers(1, 200),
    dtype=st.sampled_from(list(DTYPE_TOL)),
    temperature=st.sampled_from([1.0, 0.5]),
    softcap=st.sampled_from([None, 5.0]),
    seed=st.integers(0, 2**31 - 1),
)
def test_token_grad_matches_float64(n, v, dtype, temperature, softcap, seed):
    g = torch.Generator().manual_seed(seed)
    x = (torch.randn(n, v, generator=g, dtype=torch.float64) * 3).to(dtype)
    t = torch.randint(0, v, (n,), generator=g)
    t[torch.rand(n, generator=g) < 0.25] = -100
    up = torch.randn(n, generator=g, dtype=torch.float64)
    xa = x.clone().requires_grad_()
    (token_logprobs(xa, t, -100, temperature, softcap).double() * up).sum().backward()
    x64 = x.double().requires_grad_()
    (logprobs64(x64, t, -100, temperature, softcap) * up).sum().backward()
    assert xa.grad.dtype == dtype
    torch.testing.assert_close(xa.grad.double(), x64.grad, atol=DTYPE_TOL[dtype], rtol=DTYPE_TOL[dtype])


def test_grad_neg_inf_and_ignored_garbage():
    x = torch.randn(3, 40)
    x[0, ::2] = float("-inf")
    x[1] = float("nan")  # ignored row: no gradient, no nan leaking
    t = torch.tensor([1, -100, 2])
    xa = x.clone().requires_grad_()
    (token_logprobs(xa, t) * torch.tensor([0.3, 2.0, -1.1])).sum().backward()
    assert torch.all(xa.grad[1] == 0)
    assert torch.all(xa.grad[0, ::2] == 0)
    x64 = x.double().requires_grad_()
    (logprobs64(x64, t) * torch.tensor([0.3, 2.0, -1.1], dtype=torch.float64)).sum().backward()
    torch.testing.assert_close(xa.grad[[0, 2]].double(), x64.grad[[0, 2]], atol=1e-6, rtol=1e-5)


def _dpo_like_loss(total, mean, w_sum, w_mean):
    # distinct weights per sequence: a shortcut that shares one upstream gradient would fail here
    return (total * w_sum).sum() + (mean * w_mean).sum()


@pytest.mark.parametrize("chunk_size", [1, 3, 64])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_fused_linear_per_sequence_gradients(chunk_size, dtype):
    torch.manual_seed(0)
    b, t, h, v = 4, 6, 16, 97
    hidden = torch.randn(b, t, h).to(dtype)
    weight = (torch.randn(v, h) * 0.3).to(dtype)
    labels = torch.randint(0, v, (b, t))
    labels[:, :2] = -100  # prompt tokens
    labels[3] = -100  # empty sequence
    mask = torch.ones(b, t, dtype=torch.bool)
    mask[1, -1] = False
    w_sum = torch.tensor([1.0, -2.0, 0.5, 3.0])
    w_mean = torch.tensor([-0.7, 0.2, 1.3, 0.9])

    ha, wa = hidden.clone().requires_grad_(), weight.clone().requires_grad_()
    total, mean, count = fused_linear_sequence_logprobs(ha, wa, labels, mask, chunk_size=chunk_size)
    _dpo_like_loss(total, mean, w_sum, w_mean).backward()

    h64, w64 = hidden.double().requires_grad_(), weight.double().requires_grad_()
    wt, wm, wc = sequence64(h64 @ w64.t(), labels, mask)
    _dpo_like_loss(wt, wm, w_sum.double(), w_mean.double()).backward()

    assert total.dtype == torch.float32 and count.tolist() == wc.tolist()
    assert total[3].item() == 0 and mean[3].item() == 0 and not torch.isnan(mean).any()
    tol = 1e-4 if dtype == torch.float32 else 0.1
    torch.testing.assert_close(total.double(), wt, atol=tol, rtol=tol)
    torch.testing.assert_close(ha.grad.double(), h64.grad, atol=tol, rtol=tol)
    torch.testing.assert_close(wa.grad.double(), w64.grad, atol=tol, rtol=tol)


def test_sequence_logprobs_per_sequence_gradients():
    torch.manual_seed(1)
    logits = torch.randn(3, 5, 21)
    labels = torch.randint(0, 21, (3, 5))
    labels[2] = -100
    la = logits.clone().requires_grad_()
    total, mean, _ = sequence_logprobs(la, labels)
    _dpo_like_loss(total, mean, torch.tensor([1.0, -1.0, 2.0]), torch.tensor([0.5, 3.0, 1.0])).backward()
    l64 = logits.double().requires_grad_()
    wt, wm, _ = sequence64(l64, labels)
    _dpo_like_loss(wt, wm, torch.tensor([1.0, -1.0, 2.0]).double(), torch.tensor([0.5, 3.0, 1.0]).double()).backward()
    torch.testing.assert_close(la.grad.double(), l64.grad, atol=1e-6, rtol=1e-5)
    assert torch.all(la.grad[2] == 0)


def test_fused_linear_no_valid_tokens_still_differentiable():
    hidden = torch.randn(2, 3, 4, requires_grad=True)
    weight = torch.randn(7, 4, requires_grad=True)
    total, mean, count = fused_linear_sequence_logprobs(hidden, weight, torch.full((2, 3), -100))
    assert total.tolist() == [0.0, 0.0] and mean.tolist() == [0.0, 0.0] and count.tolist() == [0, 0]
    (total.sum() + mean.sum()).backward()
    assert torch.all(hidden.grad == 0) and torch.all(weight.grad == 0)


def test_fused_linear_autocast_recomputes_in_forward_dtype():
    # backward runs outside autocast; it must still recompute the logits in bf16, exactly as forward did
    torch.manual_seed(2)
    hidden = torch.randn(2, 5, 16)
    weight = torch.randn(50, 16) * 0.5
    labels = torch.randint(0, 50, (2, 5))
    up = torch.tensor([1.0, -3.0])
    ha, wa = hidden.clone().requires_grad_(), weight.clone().requires_grad_()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        total, _, _ = fused_linear_sequence_logprobs(ha, wa, labels, chunk_size=4)
    (total * up).sum().backward()
    hb, wb = hidden.bfloat16().requires_grad_(), weight.bfloat16().requires_grad_()
    total_b, _, _ = fused_linear_sequence_logprobs(hb, wb, labels, chunk_size=4)
    (total_b * up).sum().backward()
    assert torch.equal(total, total_b)
    assert torch.equal(ha.grad, hb.grad.float())
    torch.testing.assert_close(wa.grad, wb.grad.float(), atol=1e-2, rtol=1e-2)
