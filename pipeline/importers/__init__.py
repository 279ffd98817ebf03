"""Importers: outside data in documented formats -> the pipeline's records (SPEC 1).

Each importer reads one format (documented in data/external/README.md), validates it and raises
`pipeline.io.InputError` naming the file, the line or JSON path, and the key at fault, so a user can fix
the data without reading code. Importers are pure: paths and settings in, records out; the stage that
calls one lists the imported path as a DVC dependency (dvc.yaml interpolates the params).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pipeline.io import InputError
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
