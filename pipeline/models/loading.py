"""Loading the base model and adapters: the one way every stage gets a model.

models/base/meta.json says what the base is. For the built-in model and a packaged one (a real model
converted from the GGUF a Python package ships, pipeline/models/packaged.py) the weights and tokenizer sit
in models/base/ (safetensors); otherwise meta.json names a Hugging Face id or path and its revision,
loaded from there (on machines that have it). Weights always load from safetensors; remote code stays off
unless the caller turns it on.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from pipeline import paths

META = "meta.json"


class ModelLoadError(OSError):
    """A model or adapter that cannot be read: missing or unreadable files, a corrupt config or weights."""


@contextlib.contextmanager
def _reading(what: str, where: str | Path):
    """Turn the many ways a model folder fails to load (OSError, a ValueError about the config, a
    SafetensorError) into one ModelLoadError naming the folder, so the stage can say it in one line."""
    from safetensors import SafetensorError

    try:
        yield
    except (OSError, ValueError, SafetensorError) as exc:
        first = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise ModelLoadError(f"{where}: cannot load the {what}: {first.strip()}") from exc


def base_info(path: str | Path = paths.BASE) -> dict[str, Any]:
    """The base model's meta.json (what it is, how it was made)."""
    meta = Path(path) / META
    if not meta.exists():
        raise FileNotFoundError(f"{meta}: not found (run the pretrain stage first)")
    with _reading("base model's meta.json", meta):
        return json.loads(meta.read_text(encoding="utf-8"))


# The hub-style id adapters of the built-in base record (pipeline/models/publish.py makes it resolve).
BUILTIN_ORG = "legal-rm"
WEIGHTS = "model.safetensors"


def weights_digest(path: str | Path = paths.BASE) -> str:
    """sha256 (hex) of the built-in base's weights: names exactly the base an adapter was trained on."""
    import hashlib

    digest = hashlib.sha256()
    with _reading("base model's weights", Path(path) / WEIGHTS), open(Path(path) / WEIGHTS, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def builtin_id(digest: str) -> str:
    """The hub-style id of the built-in base whose weights have this sha256."""
    return f"{BUILTIN_ORG}/builtin-{digest[:12]}"


def portable_base(path: str | Path = paths.BASE) -> tuple[str, str | None]:
    """(base_model_name_or_path, revision) an adapter records so that stock tools find its base from any
    folder: the Hugging Face id and revision of a hub base, `legal-rm/builtin-<digest>` for the built-in
    one, or the packaged model's `legal-rm/<name>-<GGUF digest>` (both resolvable from the local cache once
    `python -m pipeline.models.publish` put them there). Never a path of this machine: the adapter's bytes
    stay the same on every machine."""
    info = base_info(path)
    if info.get("base_model", "builtin") == "builtin":
        return builtin_id(weights_digest(path)), None
    if "portable_id" in info:
        return info["portable_id"], None
    return info["base_model"], info.get("revision")


def holds_weights(path: str | Path = paths.BASE) -> bool:
    """Whether the base folder holds the model itself (built-in or packaged) rather than naming one."""
    info = base_info(path)
    return info.get("base_model", "builtin") == "builtin" or "portable_id" in info


def _source(path: str | Path) -> tuple[str, str | None, bool]:
    """(where to load from, revision, local) for a base folder written by the pretrain stage."""
    info = base_info(path)
    if holds_weights(path):
        return str(path), None, True
    return info["base_model"], info.get("revision"), Path(info["base_model"]).exists()


def load_base(path: str | Path = paths.BASE, dtype: torch.dtype | str | None = None, device: str | None = None,
              trust_remote_code: bool = False) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """(model in eval mode, tokenizer) for the base described by `path`/meta.json.

    dtype defaults to float32 on CPU and bfloat16 on CUDA; device defaults to CUDA when available.
    The tokenizer always has a pad token (EOS when the model ships none).
    """
    source, revision, local = _source(path)
    return load_pretrained(source, revision, local, dtype, device, trust_remote_code)


def load_pretrained(source: str, revision: str | None = None, local: bool = True,
                    dtype: torch.dtype | str | None = None, device: str | None = None,
                    trust_remote_code: bool = False) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """(model in eval mode, tokenizer) from a model folder or a hub id (at `revision`), as load_base loads
    a base: also what the reward API (pipeline/reward) loads an adapter's base by its recorded id with."""
    if local:
        # A local folder never needs the hub; make sure nothing tries to reach it.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if dtype is None:
        dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    common = {"revision": revision, "local_files_only": local, "trust_remote_code": trust_remote_code}
    with _reading("tokenizer", source):
        tokenizer = AutoTokenizer.from_pretrained(source, **common)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    with _reading("model", source):
        model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype, use_safetensors=True, **common)
    model.to(device)
    model.eval()
    return model, tokenizer


def load_with_adapter(base: PreTrainedModel, adapter_dir: str | Path, name: str | None = None,
                      trainable: bool = False):
    """Attach the PEFT adapter in `adapter_dir` to `base` and make it active; returns the PeftModel.

    `base` may already be a PeftModel: the adapter is then added under `name` (default: the folder name)
    and activated, so one model in memory serves many adapters. `with model.disable_adapter():` gives the
    base model back (the DPO reference). Note PEFT injects the LoRA layers into `base` in place.
    """
    from peft import PeftModel

    name = name or Path(adapter_dir).name
    if isinstance(base, PeftModel):
        if name not in base.peft_config:
            with _reading("adapter", adapter_dir):
                base.load_adapter(str(adapter_dir), adapter_name=name, is_trainable=trainable)
        base.set_adapter(name)
        model = base
    else:
        with _reading("adapter", adapter_dir):
            model = PeftModel.from_pretrained(base, str(adapter_dir), adapter_name=name, is_trainable=trainable)
    if not trainable:
        model.eval()
    return model


def unwrap(model: Any) -> Any:
    """The transformers causal LM inside DDP / accelerate wrappers (`.module`) and a PEFT wrapper (its
    LoRA layers stay injected and active)."""
    while hasattr(model, "module"):
        model = model.module
    get_base = getattr(model, "get_base_model", None)
    return get_base() if callable(get_base) else model
