"""Move the inline passages of the validation set's items into its passage table, each passage once.

    python scripts/compact_validation.py [data/validation]

Run it after appending items (data/validation/README.md); the items read the same before and after.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.judges.validation_passages import TABLE, compact

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", default="data/validation", type=Path, help="the validation set's folder")
    folder = parser.parse_args().folder
    if not folder.is_dir():
        parser.error(f"{folder}: no such folder")
    print(f"{compact(folder)} inline passages moved into {folder / TABLE}")
