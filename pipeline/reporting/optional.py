"""Reading what a report may be without: the JSON another stage writes only on some runs (augment meta,
the data report's details, the base model's meta)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def json_or(path: Path, missing: Any) -> Any:
    """The JSON in `path`, or `missing` when the file is not there."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else missing
