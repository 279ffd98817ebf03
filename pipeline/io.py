"""JSON Lines in and out: validated reads that name file, line and field; atomic writes.

A stage never leaves a half-written output: files are written to a temporary name in the same folder
and renamed into place, and folders are built beside their final name and swapped in whole.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import glob
import io
import json
import math
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pipeline.records import RecordError, parse, to_dict

T = TypeVar("T")
_UMASK = os.umask(0)
os.umask(_UMASK)
# Run facts that are not outputs (write_run_log); ignored by git.
RUN_LOGS = Path("logs")


class InputError(ValueError):
    """Bad input: one message naming file, line and field."""

    def __init__(self, path: str | Path, line: int | None, field: str | None, message: str):
        where = f"{path}" + (f", line {line}" if line is not None else "")
        what = f", field '{field}'" if field else ""
        super().__init__(f"{where}{what}: {message}")
        self.path, self.line, self.field, self.message = str(path), line, field, message


class NonFiniteError(ValueError):
    """A NaN or inf where a result must be a number: a NaN score counts as a wrong answer and a NaN loss
    trains NaN weights, so the stage that made one stops and names it instead of writing it."""


def require_finite(values: Iterable[float], what: str, names: Sequence[str] | None = None, hint: str = "") -> None:
    """Raise NonFiniteError when `values` holds NaN or inf, naming `what`, how many, the first offender
    (its entry of `names`, or its index) and what to do (`hint`)."""
    bad = [i for i, value in enumerate(values) if not math.isfinite(value)]
    if bad:
        first = str(names[bad[0]]) if names is not None else f"index {bad[0]}"
        raise NonFiniteError(f"{what}: {len(bad)} non-finite value(s), first {first}" + (f": {hint}" if hint else ""))


def path_problem(path: str | Path, missing: str = "file not found") -> str | None:
    """Why `path` cannot be opened, or None when it can be reached: `missing` for a path that is not
    there, and a symbolic link that points nowhere or into a loop named as such (Path.exists() calls
    both missing, which sends the user looking for a file that is there)."""
    path = Path(path)
    try:
        path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            return f"a symbolic link to {os.readlink(path)!r}, which does not exist"
        return missing
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link loop (the link leads, directly or through others, back to itself)"
        return exc.strerror or type(exc).__name__
    return None


def require_path(path: str | Path, param: str | None = None, missing: str = "file not found") -> None:
    """InputError naming `path`, what is wrong with it (path_problem) and `param`, the key that named it,
    unless it can be reached."""
    problem = path_problem(path, missing)
    if problem is not None:
        where = str(path) if len(str(path)) <= 300 else f"{str(path)[:150]}...{str(path)[-150:]}"
        raise InputError(where, None, None, problem + (f" ({param})" if param else ""))


def iter_json(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield (line number, decoded object) for each non-blank line; bad UTF-8 or JSON is an InputError."""
    path = Path(path)
    try:
        fh = open(path, "rb")
    except OSError:
        require_path(path)
        raise
    with fh:
        for number, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(path, number, None, f"invalid UTF-8 at byte {exc.start}") from None
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(path, number, None, f"malformed JSON: {exc.msg} (column {exc.colno})") from None


def read_records(path: str | Path, cls: type[T], unique_key: str | None = "id") -> list[T]:
    """Read and validate every record of `path`; duplicate `unique_key` values are an error."""
    records: list[T] = []
    seen: dict[str, int] = {}
    for number, obj in iter_json(path):
        try:
            record = parse(cls, obj)
        except RecordError as exc:
            raise InputError(path, number, exc.field, exc.message) from None
        if unique_key is not None:
            key = getattr(record, unique_key)
            if key in seen:
                raise InputError(path, number, unique_key, f"duplicate {unique_key} {key!r} (first on line {seen[key]})")
            seen[key] = number
        records.append(record)
    return records


def dumps(obj: Any) -> str:
    """One canonical JSON line: same object, same bytes (sorted keys, no ASCII escaping)."""
    if not isinstance(obj, dict):
        obj = to_dict(obj)
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def write_records(path: str | Path, records: Iterable[Any]) -> int:
    """Atomically write records (dataclasses or dicts) as JSON Lines; returns the count."""
    count = 0
    with atomic_file(path) as fh:
        for record in records:
            fh.write(dumps(record))
            fh.write("\n")
            count += 1
    return count


def write_json(path: str | Path, obj: Any) -> None:
    with atomic_file(path) as fh:
        json.dump(obj, fh, ensure_ascii=False, sort_keys=True, indent=2)
        fh.write("\n")


def csv_text(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    """Rows as CSV text with a header of `columns`, "\n" line ends on every platform (same bytes)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def write_text(path: str | Path, text: str) -> None:
    with atomic_file(path) as fh:
        fh.write(text)


@contextlib.contextmanager
def atomic_file(path: str | Path, mode: str = "w"):
    """Open a temporary file beside `path`; rename it into place only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(fd, mode, encoding=encoding, newline=None if "b" in mode else "\n") as fh:
            yield fh
        # mkstemp makes 0600 files; outputs get the usual permissions for the user's umask.
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _usual_modes(root: Path) -> None:
    """mkdtemp makes a 0700 folder and some writers (safetensors) 0600 files; an output folder gets the
    permissions the user's umask gives everything else, whoever wrote its files."""
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o777 & ~_UMASK)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o666 & ~_UMASK)


def write_run_log(name: str, facts: dict[str, Any]) -> Path:
    """Facts of one run on this machine (wall time, threads) under logs/, which is neither an output
    nor in git: outputs then hold only what their inputs determine, byte-identical on every rerun."""
    from pipeline import cpu_pin

    path = RUN_LOGS / f"{name}.json"
    write_json(path, {**facts, "cpu": cpu_pin.facts()})
    return path


@contextlib.contextmanager
def atomic_dir(path: str | Path):
    """Yield a fresh temporary folder beside `path`; on success it replaces `path` whole. On failure
    nothing is left: neither the temporary folder nor a parent folder made for it."""
    path = Path(path)
    made = not path.parent.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    # What a killed writer of `path` left (kill -9 skips the cleanup below): one writer per output at a
    # time (DVC's lock), so any such folder is stale.
    for stale in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        shutil.rmtree(stale, ignore_errors=True) if stale.is_dir() else stale.unlink(missing_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        yield tmp
        _usual_modes(tmp)
        if path.exists():
            old = path.with_name(f".{path.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(path, old)
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if made:
            with contextlib.suppress(OSError):  # only if still empty (os.rmdir refuses otherwise)
                os.rmdir(path.parent)
        raise
