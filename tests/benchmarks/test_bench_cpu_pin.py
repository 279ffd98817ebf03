"""pytest-benchmark: what the CPU pin costs (pipeline/cpu_pin.py), the pinned AVX2 code paths beside the
machine's own, in one session (group cpu_pin: the table puts them side by side).

Skipped by default (--benchmark-skip in pyproject); run with `pytest tests/benchmarks --benchmark-only`.
The code paths are chosen once per process, so each round runs one child (pipeline/cpu_bench.py: training
steps of the built-in Llama at the default pretraining size, then the fused log-prob kernel) and the
benchmark times the whole child, start-up included; the child's own step times go to extra_info. The
JSON side by side with ratios is `python -m pipeline.cpu_bench`.
"""

from __future__ import annotations

import pytest

from pipeline import cpu_pin
from pipeline.cpu_bench import _measure


@pytest.mark.parametrize("mode", [cpu_pin.NATIVE, cpu_pin.PINNED])
def test_bench_cpu_pin(benchmark, mode):
    benchmark.group = "cpu_pin"
    result = benchmark.pedantic(_measure, args=(mode, 3), rounds=2, warmup_rounds=0)
    benchmark.extra_info.update({k: result[k] for k in ("capability", "threads", "train_step_s", "logprobs_s")})
    assert result["mode"] == mode
