"""pytest-benchmark for the log-prob kernels (skipped by default; run with --benchmark-only).

    pytest tests/benchmarks/test_bench_kernels.py --benchmark-only --benchmark-group-by=param:shape
"""

from __future__ import annotations

import pytest
import torch

from pipeline.kernels import fused_linear_sequence_logprobs, token_logprobs
from pipeline.kernels.bench import eager

SHAPES = {"512x32000": (512, 32000), "128x128256": (128, 128256)}


def _trl():
    trl_utils = pytest.importorskip("trl.trainer.utils")
    return trl_utils.selective_log_softmax


IMPLS = {"ours": lambda: token_logprobs, "eager": lambda: eager, "trl": _trl}


@pytest.fixture(scope="module", params=list(SHAPES))
def shape(request):
    n, v = SHAPES[request.param]
    g = torch.Generator().manual_seed(0)
    return torch.randn(n, v, generator=g) * 4, torch.randint(0, v, (n,), generator=g)


@pytest.mark.parametrize("impl", list(IMPLS))
def test_forward(benchmark, shape, impl):
    fn = IMPLS[impl]()
    x, t = shape
    out = benchmark(fn, x, t)
    assert out.shape == t.shape


@pytest.mark.parametrize("impl", ["ours", "eager"])
def test_forward_backward(benchmark, shape, impl):
    fn = IMPLS[impl]()
    x, t = shape
    g = torch.randn(t.shape[0])

    def step():
        xr = x.detach().requires_grad_()
        fn(xr, t).backward(g)
        return xr.grad

    assert benchmark(step).shape == x.shape


@pytest.mark.parametrize("impl", ["ours", "eager"])
def test_fused_linear_forward_backward(benchmark, impl):
    g = torch.Generator().manual_seed(1)
    hidden = torch.randn(1, 256, 256, generator=g)
    weight = torch.randn(32000, 256, generator=g) / 16
    labels = torch.randint(0, 32000, (1, 256), generator=g)

    def step():
        h, w = hidden.detach().requires_grad_(), weight.detach().requires_grad_()
        if impl == "ours":
            total = fused_linear_sequence_logprobs(h, w, labels, chunk_size=64)[0]
        else:
            total = eager(h[0] @ w.t(), labels[0]).sum()
        total.sum().backward()
        return h.grad

    assert benchmark(step).shape == hidden.shape
