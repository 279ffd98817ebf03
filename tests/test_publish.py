"""An adapter of the built-in base loads with stock PEFT (AutoPeftModelForCausalLM) from another folder,
offline, once `pipeline.models.publish` put the base into the Hugging Face cache under the id the adapter
records; the adapter itself names no path of this machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import torch
from conftest import tiny_llama_config

from pipeline.models.loading import load_base, load_with_adapter, portable_base
from pipeline.models.publish import publish
from pipeline.stages.train import portable_config

IDS = [[5, 9, 12, 7, 30, 2, 41, 8]]
LOAD_ELSEWHERE = """
import json, sys, torch
from peft import AutoPeftModelForCausalLM
model = AutoPeftModelForCausalLM.from_pretrained(sys.argv[1]).eval()
with torch.no_grad():
    print(json.dumps(model(torch.tensor(json.loads(sys.argv[2]))).logits[0, -1].tolist()))
"""


def make_adapter(root: Path) -> tuple[Path, Path]:
    """A tiny built-in-layout base (models/base with meta.json) and a LoRA adapter on it whose weights
    are not zero, saved as the train stage saves it."""
    from peft import LoraConfig, get_peft_model
    from transformers import LlamaForCausalLM

    from pipeline.models.tokenizer import train_tokenizer

    tokenizer = train_tokenizer(["the tribunal ordered the tenant to pay the arrears"] * 20, 300)
    torch.manual_seed(0)
    base = root / "models" / "base"
    LlamaForCausalLM(tiny_llama_config(tokenizer)).save_pretrained(base)
    tokenizer.save_pretrained(base)
    (base / "meta.json").write_text(json.dumps({"base_model": "builtin"}))
    model, _ = load_base(base)
    peft_model = get_peft_model(model, LoraConfig(r=2, lora_alpha=4, target_modules=["q_proj", "v_proj"]))
    with torch.no_grad():
        for name, param in peft_model.named_parameters():
            if "lora_B" in name:
                param.normal_(0, 0.5)
    adapter = root / "models" / "adapters" / "dpo-pairs-s0"
    peft_model.save_pretrained(adapter)
    portable_config(adapter / "adapter_config.json", portable_base(base))
    return base, adapter


def test_an_adapter_loads_with_stock_peft_from_another_folder_once_its_base_is_published(tmp_path):
    base, adapter = make_adapter(tmp_path / "repo")
    config = json.loads((adapter / "adapter_config.json").read_text())
    model_id = config["base_model_name_or_path"]
    assert model_id.startswith("legal-rm/builtin-") and str(tmp_path) not in json.dumps(config)
    assert config["target_modules"] == ["q_proj", "v_proj"]

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HUB_OFFLINE": "1"}
    args = [sys.executable, "-c", LOAD_ELSEWHERE, str(adapter), json.dumps(IDS)]
    # Before publishing, the id resolves nowhere (and nothing is fetched: offline).
    assert subprocess.run(args, cwd=elsewhere, env=env, capture_output=True, text=True).returncode != 0

    snapshot = publish(base, tmp_path / "hub")
    assert snapshot.parent.parent.name == f"models--{model_id.replace('/', '--')}"
    done = subprocess.run(args, cwd=elsewhere, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = torch.tensor(json.loads(done.stdout))

    model, _ = load_base(base)
    ours_base = model(torch.tensor(IDS)).logits[0, -1].detach()
    with torch.no_grad():
        ours = load_with_adapter(model, adapter)(torch.tensor(IDS)).logits[0, -1]
    assert torch.allclose(theirs, ours, atol=1e-5)
    assert not torch.allclose(theirs, ours_base, atol=1e-3)  # the adapter is really applied
