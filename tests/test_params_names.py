"""The name lists pipeline/params_names.py checks params against agree with what they stand for: TRL's
DPO losses, the offline models make_generator builds, the built-in tokenizer and model."""

from __future__ import annotations

import inspect
import re

import pytest

from pipeline import backends
from pipeline.params_names import BUILTIN_LINEAR_MODULES, BUILTIN_MIN_VOCAB, DPO_LOSS_TYPES, offline_models

pytestmark = pytest.mark.reliability


def test_dpo_loss_types_are_trls():
    from trl import DPOTrainer

    source = inspect.getsource(DPOTrainer)
    assert set(DPO_LOSS_TYPES) == set(re.findall(r'loss_type == "(\w+)"', source))


def test_every_offline_model_name_builds_and_no_other_does():
    for model in offline_models():
        assert backends.make_generator(f"offline:{model}").name == f"offline:{model}"
    with pytest.raises(backends.BackendError, match="unknown"):
        backends.make_generator("offline:not-a-model")


def test_builtin_vocabulary_floor_is_the_bytes_and_special_tokens():
    from pipeline.models.tokenizer import SPECIAL_TOKENS, train_tokenizer

    assert BUILTIN_MIN_VOCAB == 256 + len(SPECIAL_TOKENS)
    assert len(train_tokenizer(["a fine of HK$1,000 was paid"] * 4, BUILTIN_MIN_VOCAB)) == BUILTIN_MIN_VOCAB


def test_builtin_lora_targets_are_the_linear_layers_of_the_builtin_model():
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    model = LlamaForCausalLM(LlamaConfig(vocab_size=300, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                         num_attention_heads=2, num_key_value_heads=1))
    linear = {name.rsplit(".", 1)[-1] for name, module in model.named_modules()
              if isinstance(module, torch.nn.Linear) and name != "lm_head"}
    assert linear == set(BUILTIN_LINEAR_MODULES)
