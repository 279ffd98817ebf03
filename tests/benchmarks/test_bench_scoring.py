"""pytest-benchmark: shared-prefix vs plain two-pass vs batch-1 naive scoring on one tiny random model.

Skipped by default (--benchmark-skip in pyproject); run with `pytest tests/benchmarks --benchmark-only`.
The full side-by-side at realistic sizes is `python -m pipeline.scoring.bench`.
"""

from __future__ import annotations

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from pipeline.scoring import score_naive, score_shared_prefix, score_two_pass
from pipeline.scoring.bench import synthetic_pairs


@pytest.fixture(scope="module")
def setup():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=4096, hidden_size=128, intermediate_size=384, num_hidden_layers=4,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048)
    model = LlamaForCausalLM(config).eval()
    return model, synthetic_pairs(8, prompt=600, response=80, vocab=4096)


def test_bench_shared_prefix(benchmark, setup):
    model, pairs = setup
    benchmark.pedantic(score_shared_prefix, args=(model, pairs), rounds=3, warmup_rounds=1)


def test_bench_two_pass(benchmark, setup):
    model, pairs = setup
    benchmark.pedantic(score_two_pass, args=(model, pairs), rounds=3, warmup_rounds=1)


def test_bench_naive_batch1(benchmark, setup):
    model, pairs = setup
    benchmark.pedantic(score_naive, args=(model, pairs), rounds=1, warmup_rounds=0)
