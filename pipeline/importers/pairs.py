"""Outside preference pairs (params `train.external_pairs`): JSON Lines of {"prompt", "chosen",
"rejected"[, "id"]}, read by training and scoring (pipeline/training/data.py) and counted by the data
report. Kept free of the training libraries so the data report can read the same file the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from pipeline.importers import Invalid, Skips
from pipeline.io import InputError, iter_json
from pipeline.records import SAFE_ID

PARAM = "train.external_pairs.path"


class OutsidePairRecord(NamedTuple):
    id: str
    prompt: str
    chosen: str
    rejected: str


def read_outside_pairs(path: str | Path, skips: Skips | None = None) -> list[OutsidePairRecord]:
    """The valid pairs of `path`, in file order: non-empty string prompt, chosen, rejected (chosen !=
    rejected) and an optional unique, safe string id (records.SAFE_ID, no `..` segment: ids name pairs in
    score files and reports). An invalid line stops, or is counted in `skips` and left out; a file with
    no pair left stops."""
    skips = skips if skips is not None else Skips("train.external_pairs")
    path = Path(path)
    if path.is_dir():
        raise InputError(path, None, None, f"is a folder; {PARAM} names one .jsonl file")
    out = []
    seen: dict[str, int] = {}
    for line, obj in iter_json(path):
        try:
            pair = _pair(obj, path, line, seen)
        except InputError as exc:
            skips.record(exc)
            continue
        seen[pair.id] = line
        out.append(pair)
    if not out:  # only blank lines: training or scoring would go on without the outside pairs
        raise InputError(path, None, None, f"no records ({PARAM} names an empty file{skips.note()})")
    return out


def _pair(obj: object, path: Path, line: int, seen: dict[str, int]) -> OutsidePairRecord:
    if not isinstance(obj, dict):
        raise Invalid("not_an_object", path, line, None, "expected a JSON object")
    for key in ("prompt", "chosen", "rejected"):
        value = obj.get(key)
        if not isinstance(value, str) or not value.strip():
            raise Invalid("missing_key" if key not in obj else "empty_value", path, line, key,
                          "missing or empty string")
    if obj["chosen"].strip() == obj["rejected"].strip():
        raise Invalid("same_answers", path, line, "rejected", "the same text as chosen: the pair prefers nothing")
    ident = obj.get("id", f"external/{line}")
    if not isinstance(ident, str):
        raise Invalid("wrong_type", path, line, "id", "expected a string")
    if not SAFE_ID.match(ident) or ".." in ident.split("/"):
        raise Invalid("unsafe_id", path, line, "id", f"unsafe id {ident!r} (letters, digits, . _ : / - only, "
                                                     "starting with a letter or digit, no '..' segment)")
    if ident in seen:
        raise Invalid("duplicate_id", path, line, "id", f"duplicate id {ident!r} (first on line {seen[ident]})")
    return OutsidePairRecord(ident, obj["prompt"], obj["chosen"], obj["rejected"])
