"""Importers: outside data in documented formats -> the pipeline's records (docs/method.md §1).

Each importer reads one format (documented in data/external/README.md), validates it and raises
`pipeline.io.InputError` naming the file, the line or JSON path, and the key at fault, so a user can fix
the data without reading code. Importers are pure: paths and settings in, records out; the stage that
calls one lists the imported path as a DVC dependency (dvc.yaml interpolates the params).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pipeline.io import InputError, write_json
from pipeline.records import SAFE_ID


def is_safe_id(value: str) -> bool:
    """Whether `value` can be a record id as it is: records.SAFE_ID and no `..` segment (ids become parts
    of other ids and of paths, where `..` would climb out)."""
    return bool(SAFE_ID.match(value)) and ".." not in value.split("/")


def safe_id(value: str, prefix: str = "") -> str:
    """`prefix + value` when that is a safe record id, else `prefix + "h" + 12 hex digits of its SHA-1`.

    Outside ids are often not safe (Chinese case numbers such as 证监罚字〔2011〕12号, spaces): hashing
    keeps them stable and distinct without asking the user to rewrite their data.
    """
    candidate = f"{prefix}{value}"
    if is_safe_id(candidate) and "/" not in value:
        return candidate
    return f"{prefix}h{hashlib.sha1(value.encode('utf-8')).hexdigest()[:12]}"


def files_of(path: Path, pattern: str, param: str) -> list[Path]:
    """The file `path`, or the `pattern` files of the folder `path` in name order. A folder without any
    would import nothing without a word, so it is an InputError naming `param`, the key that named it."""
    if not path.is_dir():
        return [path]
    files = sorted(path.glob(pattern))
    if not files:
        raise InputError(path, None, None, f"a folder with no {pattern} files ({param} names one file or a "
                                           f"folder of {pattern} files)")
    return files


def no_records(path: Path, param: str) -> InputError:
    """The error for an import of `path` (named by `param`) that holds no records: raised rather than
    logged, since the run would otherwise go on without the user's data, or on nothing, silently."""
    if path.is_dir():
        what = "a folder whose files hold no records"
    else:
        what = "an empty file" if not path.read_bytes().strip() else "a file that holds no records"
    return InputError(path, None, None, f"no records ({param} names {what})")


# ------------------------------------------------------------------------------------ invalid records
ON_INVALID = ("stop", "skip")
# Locations kept per reason: enough to find the pattern in the data, few enough to read in a report.
FIRST_PER_REASON = 3


class Invalid(InputError):
    """An InputError about one record, with the reason it is counted under when `on_invalid: skip` leaves
    the record out. Under `stop` it is raised as it is: the message is the one a plain InputError has."""

    def __init__(self, reason: str, path: str | Path, line: int | None, field: str | None, message: str):
        super().__init__(path, line, field, message)
        self.reason = reason


class Skips:
    """What an import does with an invalid record: `stop` raises its error, `skip` counts it by reason
    and keeps the first locations (file, line, JSON path), which the stage writes beside its output and
    the data report shows. Real published sets hold a few broken records among thousands; a skip that is
    not counted would hide how many."""

    def __init__(self, param: str, on_invalid: str = "stop"):
        if on_invalid not in ON_INVALID:
            raise ValueError(f"{param}.on_invalid: expected one of {list(ON_INVALID)}, got {on_invalid!r}")
        self.param, self.on_invalid = param, on_invalid
        self.counts: dict[str, int] = {}
        self.first: dict[str, list[dict]] = {}
        # What an importer found about the records it kept (e.g. squad: standalone questions, reference
        # checks), written with the summary under these keys.
        self.notes: dict[str, dict] = {}

    def record(self, exc: InputError, reason: str | None = None, records: int = 1) -> None:
        """Count `exc` (raise it under `stop`); `records` source records are left out by it."""
        if self.on_invalid == "stop":
            raise exc
        reason = reason or getattr(exc, "reason", None) or "invalid"
        self.counts[reason] = self.counts.get(reason, 0) + records
        kept = self.first.setdefault(reason, [])
        if len(kept) < FIRST_PER_REASON:
            kept.append({"file": exc.path, "line": exc.line, "path": exc.field, "message": exc.message})

    def leave_out(self, reason: str, path: str | Path, field: str | None, message: str) -> None:
        """Count a record a param leaves out on purpose (not an invalid one: `stop` does not stop on it)."""
        self.counts[reason] = self.counts.get(reason, 0) + 1
        kept = self.first.setdefault(reason, [])
        if len(kept) < FIRST_PER_REASON:
            kept.append({"file": str(path), "line": None, "path": field, "message": message})

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def summary(self) -> dict:
        """The JSON a stage writes (sorted, so the same data gives the same bytes)."""
        return {
            "import": self.param,
            "on_invalid": self.on_invalid,
            "skipped": self.total,
            "by_reason": dict(sorted(self.counts.items())),
            "first": {reason: self.first[reason] for reason in sorted(self.first)},
        } | {key: self.notes[key] for key in sorted(self.notes)}

    def note(self) -> str:
        """For a no-records error: what skipping left out."""
        if not self.counts:
            return ""
        parts = ", ".join(f"{reason} {n}" for reason, n in sorted(self.counts.items()))
        return f"; {self.total} invalid records skipped ({parts})"


def skipped_path(out: str | Path) -> Path:
    """Where a stage writing `out` keeps its skipped-records summary: beside it, `<stem>_skipped.json`."""
    out = Path(out)
    return out.with_name(f"{out.stem}_skipped.json")


def write_skipped(out: str | Path, *skips: Skips) -> None:
    """The summaries of the imports a stage ran (none when every import is off), beside `out`. Written
    on every run, skipping or not, so the file is a plain DVC output the data report can depend on."""
    write_json(skipped_path(out), {"imports": [s.summary() for s in skips]})
