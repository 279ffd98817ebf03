"""Move the inline passages of the validation set's items into its passage table, each passage once.

    python scripts/compact_validation.py [data/validation]

Run it after appending items (data/validation/README.md); the items read the same before and after.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pipeline.judges.validation_passages import TABLE, compact

if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "data/validation")
    print(f"{compact(folder)} inline passages moved into {folder / TABLE}")
