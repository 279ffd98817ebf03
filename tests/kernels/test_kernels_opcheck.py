"""torch.library.opcheck on the extension's ops: the schema matches what the kernels do (no hidden
mutation or aliasing), the fake kernels give the real outputs' shapes, dtypes and devices, autograd is
registered for the forward op, and AOT dispatch (torch.compile's path) traces them, dynamic shapes too.

The inputs are the ones pipeline/kernels/ops.py passes: contiguous logits of every dtype the kernels take,
int64 targets with ignored rows, "no softcap" as 0.0, and the ignore value selective_log_softmax uses.
"""

from __future__ import annotations

import pytest
import torch

from pipeline.kernels import loader, ops

OPCHECKS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")
DEVICES = ["cpu", pytest.param("cuda", marks=[
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device"),
])]
# (dtype, temperature, softcap, ignore_index): fp32 plain, tempered and soft-capped, and with the ignore
# value of selective_log_softmax (TRL's "nothing is ignored"); every other dtype tempered and soft-capped.
CASES = [
    (torch.float32, 1.0, 0.0, -100),
    (torch.float32, 0.7, 5.0, -100),
    (torch.float32, 1.3, 0.0, -(2**62)),
    *((dtype, 0.7, 5.0, -100) for dtype in (torch.bfloat16, torch.float16, torch.float64)),
]


@pytest.fixture(autouse=True)
def extension():
    if not ops.extension_available():
        pytest.skip("the log-prob extension did not build here (the reference has no custom op to check)")


def _device(name: str) -> torch.device:
    if name == "cuda" and not loader.cuda_built():
        pytest.skip("the extension was built without CUDA kernels")
    return torch.device(name)


def _inputs(device: torch.device, dtype: torch.dtype, n: int, v: int, ignore_index: int):
    g = torch.Generator().manual_seed(n * 1000 + v)
    logits = (torch.randn(n, v, generator=g) * 3).to(dtype).to(device)
    targets = torch.randint(0, v, (n,), generator=g)
    if n > 1:
        targets[1] = ignore_index  # an ignored row gives 0 and no gradient
    return logits, targets.to(device)


def _assert_passed(result: dict[str, str]) -> None:
    assert result == dict.fromkeys(OPCHECKS, "SUCCESS"), result


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("dtype", "temperature", "softcap", "ignore_index"), CASES, ids=str)
def test_forward_op(device, dtype, temperature, softcap, ignore_index):
    logits, targets = _inputs(_device(device), dtype, n=7, v=33, ignore_index=ignore_index)
    logits.requires_grad_()  # so opcheck exercises the registered autograd
    _assert_passed(torch.library.opcheck(
        torch.ops.pipeline_kernels.token_logprobs.default,
        (logits, targets, ignore_index, temperature, softcap),
    ))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("dtype", "temperature", "softcap", "ignore_index"), CASES, ids=str)
def test_backward_op(device, dtype, temperature, softcap, ignore_index):
    logits, targets = _inputs(_device(device), dtype, n=7, v=33, ignore_index=ignore_index)
    # The forward's saved log-sum-exp and an upstream gradient of its dtype (fp32, fp64 for fp64).
    _, lse = torch.ops.pipeline_kernels.token_logprobs(logits, targets, ignore_index, temperature, softcap)
    grad = torch.randn(lse.shape, dtype=lse.dtype, generator=torch.Generator().manual_seed(1)).to(lse.device)
    _assert_passed(torch.library.opcheck(
        torch.ops.pipeline_kernels.token_logprobs_backward.default,
        (grad, logits, targets, lse, ignore_index, temperature, softcap),
    ))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("n", "v"), [(0, 33), (3, 1), (4, 70_000)], ids=["no rows", "one class", "large vocab"])
def test_forward_op_at_the_edges(device, n, v):
    logits, targets = _inputs(_device(device), torch.float32, n=n, v=v, ignore_index=-100)
    logits.requires_grad_()
    _assert_passed(torch.library.opcheck(
        torch.ops.pipeline_kernels.token_logprobs.default, (logits, targets, -100, 1.0, 0.0),
    ))
