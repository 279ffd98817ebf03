"""Writing preference pairs: the split files the pairs and augment stages write, in the project's format
and in TRL's conversational preference format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.io import atomic_dir, write_json, write_records, write_text
from pipeline.records import SPLITS, Pair


def conversational(pair: Pair) -> dict[str, Any]:
    """A pair in TRL's conversational preference format: the prompt as a user message, each response as an
    assistant message, so stock DPOTrainer applies the model's chat template as training and scoring here
    do (pipeline.models.prompting renders the same prompt text)."""
    return {"id": pair.id, "prompt": [{"role": "user", "content": pair.prompt}],
            "chosen": [{"role": "assistant", "content": pair.chosen}],
            "rejected": [{"role": "assistant", "content": pair.rejected}]}


def write_splits(out: Path, pairs: list[Pair], meta: dict | None = None, card: str | None = None) -> dict[str, int]:
    """Write {train,val,test}.jsonl, the same pairs for stock TRL in trl/{train,val,test}.jsonl, and
    meta.json and the dataset card README.md when given, under `out`, swapped in whole; each split sorted
    by pair id."""
    counts = {}
    with atomic_dir(out) as tmp:
        for split in SPLITS:
            rows = sorted((p for p in pairs if p.split == split), key=lambda p: p.id)
            counts[split] = write_records(Path(tmp) / f"{split}.jsonl", rows)
            write_records(Path(tmp) / "trl" / f"{split}.jsonl", (conversational(p) for p in rows))
        if meta is not None:
            write_json(Path(tmp) / "meta.json", meta)
        if card is not None:
            write_text(Path(tmp) / "README.md", card)
    return counts
