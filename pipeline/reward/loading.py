"""Loading a reward model from a folder: an adapter with the base it names, or a base on its own.

An adapter folder (adapter_config.json, as the train stage saves one under models/adapters/<run>) records
its base as a portable id (pipeline.models.loading.portable_base): `legal-rm/builtin-<digest>` for the
built-in base, `legal-rm/<packaged>-<digest>` for a packaged one, or a Hugging Face id. The base is
looked for, in order: the folder given with `base`; the models/base two folders up (the project layout);
the local Hugging Face cache under that id (where `python -m pipeline.models.publish` puts ours). A base
folder whose weights are not the ones the adapter names is refused: scores of an adapter on another base
mean nothing. A base folder (meta.json as the pretrain stage writes it, or any transformers model folder)
loads as a base alone: sum and mean only, it has no reference.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.models import load_base, load_with_adapter
from pipeline.models.loading import META, ModelLoadError, load_pretrained, portable_base

ADAPTER_CONFIG = "adapter_config.json"


@dataclass
class Loaded:
    model: Any  # a PeftModel with the adapter active, or the base model
    tokenizer: Any
    name: str  # the folder's name: the run (dpo-pairs_aug-s0) or the base's folder
    adapter: str | None  # the adapter's name inside `model`; None for a base
    base_id: str  # what the base is: its portable id, or the folder it came from
    folder: Path


def kind_of(folder: Path) -> str:
    """"adapter" or "base"; ModelLoadError for a folder that is neither (or is not there)."""
    if (folder / ADAPTER_CONFIG).is_file():
        return "adapter"
    if (folder / META).is_file() or (folder / "config.json").is_file():
        return "base"
    what = "does not exist" if not folder.exists() else "holds neither adapter_config.json (an adapter) " \
                                                        "nor meta.json or config.json (a base model)"
    raise ModelLoadError(f"{folder}: not a model folder: it {what}")


def _named_base(adapter: Path) -> tuple[str, str | None]:
    try:
        config = json.loads((adapter / ADAPTER_CONFIG).read_text(encoding="utf-8"))
        return str(config["base_model_name_or_path"]), config.get("revision")
    except (OSError, ValueError, KeyError) as exc:
        raise ModelLoadError(f"{adapter / ADAPTER_CONFIG}: cannot read the base it names ({exc})") from None


def _identity(folder: Path) -> str:
    """The id an adapter trained on the base in `folder` records (a folder without meta.json: its path)."""
    return portable_base(folder)[0] if (folder / META).is_file() else str(folder)


def load_base_folder(folder: Path, device: str | None = None) -> tuple[Any, Any]:
    if (folder / META).is_file():
        return load_base(folder, device=device)
    return load_pretrained(str(folder), device=device)


def load_reward_model(folder: str | Path, base: str | Path | None = None, device: str | None = None) -> Loaded:
    folder = Path(folder)
    if kind_of(folder) == "base":
        model, tokenizer = load_base_folder(folder, device)
        return Loaded(model, tokenizer, folder.name, None, _identity(folder), folder)
    named, revision = _named_base(folder)
    tried = [Path(base)] if base is not None else [folder.parent.parent / "base"]
    for candidate in tried:
        if not (candidate / META).is_file() and not (candidate / "config.json").is_file():
            if base is not None:
                raise ModelLoadError(f"{candidate}: not a model folder (--base)")
            continue
        found = _identity(candidate)
        if found != named:
            if base is not None:
                raise ModelLoadError(f"{folder}: the adapter was trained on {named}, but the base {candidate} "
                                     f"is {found}: pass the base it was trained on")
            continue
        model, tokenizer = load_base_folder(candidate, device)
        break
    else:
        try:
            model, tokenizer = load_pretrained(named, revision, local=True, device=device)
        except ModelLoadError:
            raise ModelLoadError(
                f"{folder}: its base {named} is neither {tried[0]} nor in the local Hugging Face cache: pass "
                "--base <the base folder it was trained on>, or publish that base (python -m "
                "pipeline.models.publish)") from None
    name = folder.name
    return Loaded(load_with_adapter(model, folder, name=name), tokenizer, name, name, named, folder)
