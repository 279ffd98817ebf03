"""CUDA kernels against float64 PyTorch; run where a GPU is (scripts/gpu_check.sh)."""

from __future__ import annotations

import pytest
import torch
from kernel_oracle import logprobs64, sequence64

from pipeline.kernels import backend, fused_linear_sequence_logprobs, token_logprobs

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device"),
]


def test_cuda_uses_extension():
    assert backend() == "extension"
    assert torch._C._dispatch_has_kernel_for_dispatch_key("pipeline_kernels::token_logprobs", "CUDA")


@pytest.mark.parametrize("dtype,gtol", [(torch.float32, 2e-5), (torch.bfloat16, 1.6e-2), (torch.float16, 2e-3)])
@pytest.mark.parametrize("v", [1, 7, 8, 33, 1000, 32001, 128256])
@pytest.mark.parametrize("offset", [0, 1])
def test_cuda_forward_backward(dtype, gtol, v, offset):
    torch.manual_seed(v)
    n = 37
    # offset slices one element off the front: rows start unaligned for the 128-bit loads
    base = (torch.randn(n * v + offset, dtype=torch.float64) * 4).to(dtype).cuda()
    x = base[offset:].view(n, v)
    t = torch.randint(0, v, (n,), device="cuda")
    t[::5] = -100
    up = torch.randn(n, device="cuda", dtype=torch.float64)
    for temperature, softcap in [(1.0, None), (0.7, 5.0)]:
        xa = x.clone().requires_grad_() if offset == 0 else x.detach().requires_grad_()
        got = token_logprobs(xa, t, -100, temperature, softcap)
        x64 = x.double().requires_grad_()
        want = logprobs64(x64, t, -100, temperature, softcap)
        torch.testing.assert_close(got.double(), want, atol=1e-4, rtol=1e-5)
        (got.double() * up).sum().backward()
        (want * up).sum().backward()
        torch.testing.assert_close(xa.grad.double(), x64.grad, atol=gtol, rtol=gtol)


def test_cuda_edge_cases():
    x = torch.randn(4, 50, device="cuda")
    x[0, ::3] = float("-inf")
    x[1] = float("nan")
    x[2, 7] = 1e30
    t = torch.tensor([3, -100, 7, 0], device="cuda")
    got = token_logprobs(x, t)
    assert got[1].item() == 0.0
    torch.testing.assert_close(got.double(), logprobs64(x, t), atol=1e-4, rtol=1e-5)
    assert token_logprobs(torch.empty(0, 9, device="cuda"), torch.empty(0, dtype=torch.long, device="cuda")).numel() == 0


def test_cuda_fused_linear_per_sequence_grads():
    torch.manual_seed(0)
    hidden = torch.randn(4, 9, 32, device="cuda")
    weight = torch.randn(1001, 32, device="cuda") * 0.2
    labels = torch.randint(0, 1001, (4, 9), device="cuda")
    labels[:, :3] = -100
    w = torch.tensor([1.0, -2.0, 0.5, 3.0], device="cuda")
    ha, wa = hidden.clone().requires_grad_(), weight.clone().requires_grad_()
    total, _, _ = fused_linear_sequence_logprobs(ha, wa, labels, chunk_size=7)
    (total * w).sum().backward()
    h64, w64 = hidden.double().requires_grad_(), weight.double().requires_grad_()
    wt, _, _ = sequence64(h64 @ w64.t(), labels)
    (wt * w.double()).sum().backward()
    torch.testing.assert_close(total.double(), wt, atol=1e-3, rtol=1e-4)
    torch.testing.assert_close(ha.grad.double(), h64.grad, atol=1e-3, rtol=1e-3)
    torch.testing.assert_close(wa.grad.double(), w64.grad, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("v", [7, 33, 1000])
@pytest.mark.parametrize("nan_at", [0, 1, -1])
def test_cuda_a_nan_logit_gives_nan_like_torch(v, nan_at):
    # fmaxf skips NaN; a thread whose first values are NaN must still carry it to the row result.
    x = torch.randn(3, v, device="cuda")
    x[1, nan_at] = float("nan")
    got = token_logprobs(x, torch.tensor([0, 2, 1], device="cuda"))
    assert got[1].isnan().item()
    assert not got[[0, 2]].isnan().any().item()


def test_cuda_float64_takes_the_reference_and_matches():
    x = torch.randn(5, 301, device="cuda", dtype=torch.float64)
    t = torch.randint(0, 301, (5,), device="cuda")
    torch.testing.assert_close(token_logprobs(x, t).double(), logprobs64(x, t), atol=1e-10, rtol=1e-10)


def test_cuda_backward_op_refuses_host_tensors():
    x = torch.randn(2, 9, device="cuda")
    t = torch.tensor([1, 2], device="cuda")
    _, lse = torch.ops.pipeline_kernels.token_logprobs(x, t, -100, 1.0, 0.0)
    with pytest.raises(RuntimeError, match="must be on"):
        torch.ops.pipeline_kernels.token_logprobs_backward(torch.ones(2), x, t, lse, -100, 1.0, 0.0)
