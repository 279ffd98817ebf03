"""Scoring over a shared trunk gives the shared-prefix scorer's numbers for the base model and for every
adapter whose LoRA layers lie above the trunk."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from peft import LoraConfig, get_peft_model
from test_scoring import random_pairs, tiny_model

from pipeline.scoring import score_shared_prefix
from pipeline.scoring.shared_trunk import score_from_trunk, shared_layers, trunk_batches


def adapted(model, layers: list[int], name: str, seed: int):
    config = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "o_proj"], layers_to_transform=layers)
    peft = get_peft_model(model, config, adapter_name=name) if not hasattr(model, "peft_config") else model
    if name not in peft.peft_config:
        peft.add_adapter(name, config)
    torch.manual_seed(seed)
    with torch.no_grad():
        for param_name, p in peft.named_parameters():
            if "lora_B" in param_name and f".{name}." in param_name:
                p.normal_(0, 0.3)
    return peft.eval()


def test_scores_over_the_trunk_equal_the_shared_prefix_scorer():
    pairs = random_pairs(9, seed=3)
    base = tiny_model(seed=1)
    expected_base = score_shared_prefix(base, pairs, batch_tokens=300)
    trunk = trunk_batches(base, pairs, split=1, batch_tokens=300)
    assert len(trunk) > 1  # several length batches
    got_base = score_from_trunk(base, trunk, 1, len(pairs))
    peft = adapted(base, [1], "first", seed=5)
    adapted(peft, [1], "second", seed=6)
    for name in ("first", "second"):
        peft.set_adapter(name)
        want, got = score_shared_prefix(peft, pairs, batch_tokens=300), score_from_trunk(peft, trunk, 1, len(pairs))
        assert not np.allclose(want.chosen_sum, expected_base.chosen_sum, atol=1e-3)  # the adapter matters
        for field in ("chosen_sum", "rejected_sum", "chosen_mean", "rejected_mean"):
            assert getattr(got, field) == pytest.approx(getattr(want, field), abs=1e-4), (name, field)
        assert (got.chosen_tokens == want.chosen_tokens).all()
    for field in ("chosen_sum", "rejected_sum"):
        assert getattr(got_base, field) == pytest.approx(getattr(expected_base, field), abs=1e-4)


def test_shared_layers_is_the_lowest_adapted_layer_of_all_adapters(tmp_path):
    import json

    for name, layers in (("a", [20, 21]), ("b", [24]), ("c", None)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "adapter_config.json").write_text(json.dumps({"layers_to_transform": layers}))
    assert shared_layers([tmp_path / "a", tmp_path / "b"]) == 20
    assert shared_layers([tmp_path / "a", tmp_path / "c"]) == 0
    assert shared_layers([]) == 0


def test_items_of_any_size_over_the_trunk_equal_the_shared_prefix_scorer():
    from test_scoring import random_items

    from pipeline.scoring.shared_prefix import score_responses
    from pipeline.scoring.shared_trunk import score_responses_from_trunk

    items = random_items(10, seed=8)
    sizes = [len(i.responses) for i in items]
    peft = adapted(tiny_model(seed=2), [1], "top", seed=9)
    trunk = trunk_batches(peft, items, split=1, batch_tokens=400)
    assert len(trunk) > 1
    got = score_responses_from_trunk(peft, trunk, 1, sizes)
    want = score_responses(peft, items, batch_tokens=400)
    np.testing.assert_allclose(got.sums, want.sums, atol=1e-4, rtol=0)
    assert got.counts.tolist() == want.counts.tolist()
    with peft.disable_adapter():
        base_got = score_responses_from_trunk(peft, trunk, 1, sizes)
        base_want = score_responses(peft, items, batch_tokens=400)
    np.testing.assert_allclose(base_got.sums, base_want.sums, atol=1e-4, rtol=0)
    assert not np.allclose(base_got.sums, got.sums, atol=1e-3)
