"""Importers: outside data in documented formats -> the pipeline's records (SPEC 1).

Each importer reads one format (documented in data/external/README.md), validates it and raises
`pipeline.io.InputError` naming the file, the line or JSON path, and the key at fault, so a user can fix
the data without reading code. Importers are pure: paths and settings in, records out; the stage that
calls one lists the imported path as a DVC dependency (dvc.yaml interpolates the params).
"""

from __future__ import annotations

import hashlib

from pipeline.records import SAFE_ID


def safe_id(value: str, prefix: str = "") -> str:
    """`prefix + value` when that is a safe record id, else `prefix + "h" + 12 hex digits of its SHA-1`.

    Outside ids are often not safe (Chinese case numbers such as 证监罚字〔2011〕12号, spaces): hashing
    keeps them stable and distinct without asking the user to rewrite their data.
    """
    candidate = f"{prefix}{value}"
    if SAFE_ID.match(candidate) and ".." not in candidate.split("/") and "/" not in value:
        return candidate
    return f"{prefix}h{hashlib.sha1(value.encode('utf-8')).hexdigest()[:12]}"
