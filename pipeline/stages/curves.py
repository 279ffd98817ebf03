"""Stage `curves`: the dvclive curves of every run of train.runs in one long table per metric, for the
overlay plots of dvc.yaml (one line per run, coloured by run: .dvc/plots/runs_overlay.json).

    reports/training/<run>/plots/metrics/<metric>.tsv   step, <metric>       (pipeline/training/live.py)
    -> reports/plots/curves/<metric>.csv                 step, run, objective, corpus, seed, <metric>

The runs come from params, so a seed added to train.runs is drawn with no edit to dvc.yaml; a folder
under reports/training that train.runs no longer names is left out. Values are copied as dvclive wrote
them (no float reprinting): the same curves give the same bytes.
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path

from pipeline import paths
from pipeline.io import InputError, atomic_dir, csv_text
from pipeline.params import parse_run, run_names
from pipeline.stages import run, start

log = logging.getLogger("curves")
COLUMNS = ("step", "run", "objective", "corpus", "seed")


def read_tsv(path: Path, metric: str) -> list[tuple[str, str]]:
    """(step, value) rows of one dvclive metric file; a missing column or step is an InputError."""
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t")
        for field in ("step", metric):
            if field not in (reader.fieldnames or ()):
                raise InputError(path, 1, field, f"no {field!r} column (columns: {reader.fieldnames})")
        rows = []
        for line, row in enumerate(reader, start=2):
            step, value = row["step"], row[metric]
            if not step or not step.isdigit():
                raise InputError(path, line, "step", f"not a step number: {step!r}")
            rows.append((step, value))
    return rows


def merge(root: Path, runs: list[str]) -> dict[str, list[dict[str, str]]]:
    """{metric: rows} over `runs` (in that order, each by step). Every run must have its dvclive folder;
    a metric only some runs log (DPO's reward margins) covers those runs."""
    merged: dict[str, list[dict[str, str]]] = {}
    for name in runs:
        spec = parse_run(name)
        folder = root / name / "plots" / "metrics"
        files = sorted(folder.glob("*.tsv"))
        if not files:
            raise InputError(folder, None, None, f"no dvclive curves of run {name!r}: train it (dvc repro "
                                                 f"train_{spec.objective}@{spec.corpus}-s{spec.seed})")
        for path in files:
            metric = path.stem
            rows = sorted(read_tsv(path, metric), key=lambda row: int(row[0]))
            merged.setdefault(metric, []).extend(
                {"step": step, "run": name, "objective": spec.objective, "corpus": spec.corpus,
                 "seed": str(spec.seed), metric: value}
                for step, value in rows
            )
    return dict(sorted(merged.items()))


def to_csv(metric: str, rows: list[dict[str, str]]) -> str:
    return csv_text(rows, [*COLUMNS, metric])


def main(argv: list[str] | None = None) -> None:
    _, params = start(__doc__, argv)
    runs = run_names(params.train)
    merged = merge(paths.TRAINING_CURVES, runs)
    with atomic_dir(paths.CURVE_PLOTS) as tmp:
        for metric, rows in merged.items():
            (tmp / f"{metric}.csv").write_text(to_csv(metric, rows), encoding="utf-8", newline="")
    print(f"curves: {len(runs)} runs -> {paths.CURVE_PLOTS}/ " + ", ".join(f"{m} ({len(r)} points)" for m, r in merged.items()))


if __name__ == "__main__":
    run(main)
