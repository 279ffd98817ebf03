"""Put the built-in base model into the local Hugging Face cache under the id its adapters record, so stock
tools load an adapter from any folder, offline:

    python -m pipeline.models.publish                  # models/base -> the cache, as legal-rm/builtin-<digest>
    python -c "from peft import AutoPeftModelForCausalLM as M; M.from_pretrained('/path/to/models/adapters/dpo-pairs-s0')"

An adapter of the built-in base names it `legal-rm/builtin-<digest>` (pipeline.models.loading.portable_base:
the first 12 hex digits of the sha256 of its weights), never a path of this machine, so the adapter is the
same bytes everywhere. This command writes the base into the cache's layout for that id
(<cache>/models--legal-rm--builtin-<digest>/snapshots/<sha>/ and refs/main), which is where
transformers looks for an id with HF_HUB_OFFLINE=1. Nothing is uploaded: the id exists in this machine's
cache only; run it again on every machine (after `dvc pull`). A packaged base (a real model converted
from the GGUF a Python package ships) is published the same way under the id it records,
`legal-rm/<name>-<first 12 hex of the GGUF's sha256>`. The cache is HF_HUB_CACHE (or HF_HOME/hub),
as huggingface_hub resolves it. Adapters of a hub base record its own id and revision and need no
publishing.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from pipeline import paths
from pipeline.io import atomic_dir, write_text
from pipeline.models.loading import holds_weights, portable_base, weights_digest

# Files of models/base that make a loadable model and tokenizer (meta.json is ours, not the hub's).
_SKIP = {"meta.json"}


def publish(base: str | Path = paths.BASE, cache_dir: str | Path | None = None) -> Path:
    """Copy the built-in or packaged base into the Hugging Face cache under its portable id; the snapshot
    folder."""
    from huggingface_hub import constants

    base = Path(base)
    if not holds_weights(base):
        raise ValueError(f"{base}: names a hub model; its adapters already name its hub id")
    model_id, _ = portable_base(base)
    commit = weights_digest(base)[:40]  # the cache wants a commit-like name for the snapshot
    repo = Path(cache_dir or constants.HF_HUB_CACHE) / f"models--{model_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / commit
    with atomic_dir(snapshot) as tmp:
        for path in sorted(base.iterdir()):
            if path.is_file() and path.name not in _SKIP:
                shutil.copy2(path, tmp / path.name)
    write_text(repo / "refs" / "main", commit)
    return snapshot


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default=str(paths.BASE))
    parser.add_argument("--cache-dir", default=None, help="the hub cache (default: HF_HUB_CACHE)")
    args = parser.parse_args(argv)
    snapshot = publish(args.base, args.cache_dir)
    print(f"publish: {args.base} -> {portable_base(args.base)[0]} at {snapshot}")


if __name__ == "__main__":
    main()
