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


@pytest.fixture(scope="module")
def top_adapters():
    """A random 8-layer Llama with three LoRA adapters on its top 2 layers (train.lora.top_layers 2)."""
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=4096, hidden_size=128, intermediate_size=384, num_hidden_layers=8,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048)
    lora = LoraConfig(r=8, target_modules=["q_proj", "v_proj"], layers_to_transform=[6, 7])
    model = get_peft_model(LlamaForCausalLM(config).eval(), lora, adapter_name="one")
    for name in ("two", "three"):
        model.add_adapter(name, lora)
    return model.eval(), synthetic_pairs(8, prompt=600, response=80, vocab=4096)


def _every_model(model, score):
    with model.disable_adapter():
        score()
    for name in ("one", "two", "three"):
        model.set_adapter(name)
        score()


def test_bench_four_models_whole_decoder(benchmark, top_adapters):
    model, pairs = top_adapters
    benchmark.pedantic(_every_model, args=(model, lambda: score_shared_prefix(model, pairs)), rounds=3,
                       warmup_rounds=1)


def test_bench_four_models_shared_trunk(benchmark, top_adapters):
    from pipeline.scoring.shared_trunk import score_from_trunk, trunk_batches

    model, pairs = top_adapters

    def shared():
        trunk = trunk_batches(model.get_base_model(), pairs, 6)
        _every_model(model, lambda: score_from_trunk(model, trunk, 6, len(pairs)))

    benchmark.pedantic(shared, rounds=3, warmup_rounds=1)
