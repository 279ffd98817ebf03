"""pytest-benchmark: scoring items of five answers with a reward model (base + an adapter on the top layers, all
four scorings) through the reward engine, against the plain way (each answer a full prompt+answer forward
with full logits, policy and reference each in their own pass).

Skipped by default (--benchmark-skip in pyproject); run with `pytest tests/benchmarks --benchmark-only`. The
model is a random 8-layer Llama with LoRA on its top 2 layers, the items random ids at the real profile's
sizes (a ~330-token prompt, five ~40-token answers). The side-by-side on the real profile's model, with the
server under concurrent clients, is `python -m pipeline.reward.bench` (reports/bench/reward.json).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from pipeline.reward.engine import BASE, score_models
from pipeline.scoring.encode import EncodedItem
from pipeline.scoring.two_pass import score_rows_two_pass

VOCAB = 4096


@pytest.fixture(scope="module")
def setup():
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=128, intermediate_size=384, num_hidden_layers=8,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048)
    lora = LoraConfig(r=8, target_modules=["q_proj", "v_proj"], layers_to_transform=[6, 7])
    model = get_peft_model(LlamaForCausalLM(config).eval(), lora, adapter_name="run")
    with torch.no_grad():
        for name, param in model.named_parameters():
            if "lora_B" in name:
                param.normal_(0, 0.05)
    rng = random.Random(0)

    def ids(n: int) -> list[int]:
        return [rng.randrange(3, VOCAB) for _ in range(rng.randint(int(n * 0.9), int(n * 1.1)))]

    items = [EncodedItem(ids(330), tuple(ids(40) for _ in range(5))) for _ in range(8)]
    return model.eval(), items


def api(model, items):
    rows = score_models(model, ["run"], items, 8192, split=6)
    return rows["run"].sums - rows[BASE].sums


def plain(model, items):
    policy = score_rows_two_pass(model, items, 8192)
    with model.disable_adapter():
        reference = score_rows_two_pass(model, items, 8192)
    return policy.sums - reference.sums


def test_bench_reward_api(benchmark, setup):
    model, items = setup
    benchmark.pedantic(api, args=(model, items), rounds=3, warmup_rounds=1)
    np.testing.assert_allclose(api(model, items), plain(model, items), atol=1e-4, rtol=0)


def test_bench_reward_plain(benchmark, setup):
    model, items = setup
    benchmark.pedantic(plain, args=(model, items), rounds=3, warmup_rounds=1)
