"""The passages of the validation set, stored once (data/validation/shared/passages.jsonl).

Items of one fixture quote the same judgments again and again: inline, the Chinese file held 2.9 MB of
passages, 139 KB of them distinct. So an item's `passages` may name each passage by its key (a hash of the
passage record itself, so two runs that wrote the same id with different text keep both), and the table
holds each passage once. Items appended with their passages inline are read as they are; `compact` (run by
`python scripts/compact_validation.py`) moves them into the table.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pipeline.io import InputError, iter_json

TABLE = Path("shared") / "passages.jsonl"


def passage_key(passage: Mapping[str, Any]) -> str:
    canonical = json.dumps(passage, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def read_table(folder: Path) -> dict[str, dict[str, Any]]:
    """key -> passage record of `folder`'s table ({} when it has none); a line whose key is not its
    passage's stops with file, line and field."""
    path = folder / TABLE
    table: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return table
    for number, obj in iter_json(path):
        passage = obj.get("passage") if isinstance(obj, dict) else None
        if not isinstance(passage, dict) or obj.get("key") != passage_key(passage):
            raise InputError(path, number, "key", "not the key of its passage (passage_key)")
        table[obj["key"]] = passage
    return table


def resolve(obj: Any, table: Mapping[str, dict[str, Any]], path: Path, number: int) -> Any:
    """The item `obj` with every passage key replaced by its passage (inline passages stay as they are)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("passages"), list):
        return obj
    passages = []
    for k, entry in enumerate(obj["passages"]):
        if isinstance(entry, str):
            if entry not in table:
                raise InputError(path, number, f"passages[{k}]", f"unknown passage key {entry!r} (not in {TABLE})")
            entry = table[entry]
        passages.append(entry)
    return {**obj, "passages": passages}


def compact(folder: Path) -> int:
    """Move every inline passage of `folder`'s *.jsonl items into the table, leaving its key; returns how
    many were moved. Items are rewritten line for line, everything else as it was."""
    table = read_table(folder)
    moved = 0
    for path in sorted(folder.glob("*.jsonl")):
        lines = []
        for _number, obj in iter_json(path):
            keys = []
            for entry in obj.get("passages", []):
                if isinstance(entry, dict):
                    key = passage_key(entry)
                    table.setdefault(key, entry)
                    entry, moved = key, moved + 1
                keys.append(entry)
            lines.append(json.dumps({**obj, "passages": keys}, ensure_ascii=False))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / TABLE).parent.mkdir(parents=True, exist_ok=True)
    rows = [json.dumps({"key": k, "passage": table[k]}, ensure_ascii=False) for k in sorted(table)]
    (folder / TABLE).write_text("\n".join(rows) + "\n", encoding="utf-8")
    return moved
