"""token_logprobs / sequence_logprobs against float64 PyTorch, on the active backend and the reference."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_oracle import logprobs64, sequence64

from pipeline.kernels import ops, reference, sequence_logprobs, token_logprobs

DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16]


def _reference_token_logprobs(x, t, ignore_index=-100, temperature=1.0, softcap=None):
    return reference.token_logprobs_and_lse(x, t, ignore_index, temperature, softcap, chunk_size=3)[0]


IMPLS = {"active": token_logprobs, "reference": _reference_token_logprobs}


@pytest.mark.parametrize("impl", IMPLS)
@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 9),
    v=st.integers(1, 300),
    dtype=st.sampled_from(DTYPES),
    scale=st.sampled_from([0.1, 3.0, 30.0]),
    temperature=st.sampled_from([1.0, 0.6, 2.5]),
    softcap=st.sampled_from([None, 4.0, 30.0]),
    seed=st.integers(0, 2**31 - 1),
)
def test_matches_float64(impl, n, v, dtype, scale, temperature, softcap, seed):
    g = torch.Generator().manual_seed(seed)
    x = (torch.randn(n, v, generator=g, dtype=torch.float64) * scale).to(dtype)
    t = torch.randint(0, v, (n,), generator=g)
    t[torch.rand(n, generator=g) < 0.25] = -100
    got = IMPLS[impl](x, t, -100, temperature, softcap)
    assert got.shape == (n,)
    assert got.dtype == (torch.float64 if dtype == torch.float64 else torch.float32)
    want = logprobs64(x, t, -100, temperature, softcap)
    torch.testing.assert_close(got.double(), want, atol=1e-4, rtol=1e-5)


@pytest.mark.parametrize("v", [1, 15, 16, 17, 31, 33, 4095, 4097, 8193])
def test_vocab_not_multiple_of_vector_width(v):
    # rows of odd length also start at odd offsets, exercising tails and unaligned loads
    x = torch.randn(5, v) * 5
    t = torch.tensor([0, v - 1, v // 2, -100, v // 3])
    torch.testing.assert_close(token_logprobs(x, t).double(), logprobs64(x, t), atol=1e-4, rtol=1e-5)


def test_max_abs_error_budget_fp32_realistic_shape():
    x = torch.randn(64, 32000) * 4
    t = torch.randint(0, 32000, (64,))
    err = (token_logprobs(x, t).double() - logprobs64(x, t)).abs().max().item()
    assert err <= 1e-4


def test_neg_inf_logits():
    x = torch.randn(4, 50)
    x[:, ::3] = float("-inf")
    t = torch.tensor([1, 3, 0, 49])  # 3 and 0 point at -inf logits
    got = token_logprobs(x, t)
    want = logprobs64(x, t)
    assert torch.isneginf(got[1]) and torch.isneginf(got[2])
    torch.testing.assert_close(got.double(), want, atol=1e-4, rtol=1e-5)


def test_first_block_all_neg_inf():
    # the running reference must start at the first finite value, wherever it is
    x = torch.full((2, 9000), float("-inf"))
    x[0, 8999] = 1.0
    x[1, 5000:] = torch.randn(4000)
    t = torch.tensor([8999, 6000])
    torch.testing.assert_close(token_logprobs(x, t).double(), logprobs64(x, t), atol=1e-4, rtol=1e-5)


def test_all_neg_inf_row_is_nan_like_log_softmax():
    x = torch.full((1, 10), float("-inf"))
    assert torch.isnan(token_logprobs(x, torch.tensor([2]))).all()


@pytest.mark.parametrize("magnitude", [1e4, 1e6, 1e30])
def test_very_large_magnitudes(magnitude):
    x = torch.randn(6, 3000)
    x[:, 100] = magnitude  # one dominant logit, later rows grow it block after block
    x[3:, 2500] = magnitude + magnitude * 1e-3
    x[4, :] = torch.randn(3000) * magnitude
    t = torch.tensor([100, 5, 2500, 2500, 7, 100])
    got = token_logprobs(x, t)
    want = logprobs64(x, t)
    torch.testing.assert_close(got.double(), want, atol=1e-4, rtol=1e-5)


def test_ignored_rows_are_zero_even_with_garbage():
    x = torch.randn(3, 20)
    x[1] = float("nan")
    got = token_logprobs(x, torch.tensor([4, -100, 7]))
    assert got[1].item() == 0.0
    torch.testing.assert_close(got.double(), logprobs64(x, torch.tensor([4, -100, 7])), atol=1e-5, rtol=0)


def test_single_row_and_empty_input():
    x = torch.randn(1, 77)
    torch.testing.assert_close(token_logprobs(x, torch.tensor([5])).double(), logprobs64(x, torch.tensor([5])))
    empty = token_logprobs(torch.empty(0, 77), torch.empty(0, dtype=torch.long))
    assert empty.shape == (0,) and empty.dtype == torch.float32


def test_bad_target_is_rejected():
    with pytest.raises((RuntimeError, IndexError)):
        token_logprobs(torch.randn(2, 5), torch.tensor([1, 5]))


def test_bad_shapes_and_temperature():
    with pytest.raises(ValueError):
        token_logprobs(torch.randn(2, 5), torch.tensor([1]))
    with pytest.raises(ValueError):
        token_logprobs(torch.randn(2, 5), torch.tensor([1, 2]), temperature=0.0)


def test_non_contiguous_input():
    x = torch.randn(40, 30).t()  # [30, 40] strided view
    t = torch.randint(0, 40, (30,))
    torch.testing.assert_close(token_logprobs(x, t).double(), logprobs64(x, t), atol=1e-5, rtol=1e-5)


@settings(max_examples=25, deadline=None)
@given(b=st.integers(1, 4), t=st.integers(1, 7), v=st.integers(2, 40), seed=st.integers(0, 2**31 - 1))
def test_sequence_logprobs(b, t, v, seed):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(b, t, v, generator=g)
    labels = torch.randint(0, v, (b, t), generator=g)
    labels[torch.rand(b, t, generator=g) < 0.3] = -100
    mask = torch.rand(b, t, generator=g) < 0.8
    mask[0] = False  # one sequence with nothing counted
    total, mean, count = sequence_logprobs(logits, labels, mask)
    wt, wm, wc = sequence64(logits, labels, mask)
    assert total[0].item() == 0.0 and mean[0].item() == 0.0 and count[0].item() == 0
    assert not torch.isnan(mean).any()
    torch.testing.assert_close(total.double(), wt, atol=1e-4, rtol=1e-5)
    torch.testing.assert_close(mean.double(), wm, atol=1e-4, rtol=1e-5)
    assert torch.equal(count, wc)


def test_selective_log_softmax_matches_trl():
    trl_utils = pytest.importorskip("trl.trainer.utils")
    x = torch.randn(2, 5, 33)
    idx = torch.randint(0, 33, (2, 5))
    torch.testing.assert_close(ops.selective_log_softmax(x, idx), trl_utils.selective_log_softmax(x, idx))
    idx_k = torch.randint(0, 33, (2, 5, 3))
    torch.testing.assert_close(ops.selective_log_softmax(x, idx_k), trl_utils.selective_log_softmax(x, idx_k))
    mask = torch.rand(2, 5) < 0.5
    torch.testing.assert_close(
        ops.selective_log_softmax(x, idx, 0.7, mask), trl_utils.selective_log_softmax(x, idx, 0.7, mask)
    )
