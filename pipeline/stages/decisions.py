"""Stage `decisions`: seeded synthetic decisions plus validated user decisions -> data/raw/decisions.jsonl."""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

from pipeline import params as params_mod
from pipeline import paths
from pipeline.importers import Skips, write_skipped
from pipeline.importers.registry import OFF, reader
from pipeline.io import InputError, write_records
from pipeline.params import EXTERNAL
from pipeline.records import Decision
from pipeline.stages import path_options, run, start
from pipeline.synth import generate_decisions

log = logging.getLogger("pipeline.decisions")


def load_imported(path: str | Path, taken: set[str]) -> list[Decision]:
    """User decisions (docs/method.md §1 records) from a JSONL file or a folder of them, validated beyond the schema:
    ids unique across `taken` (the synthetic ids), sections present with unique ids, field_kinds only for
    filled fields, the declared language matching the text. The records reader of decisions.documents,
    with messages that name decisions.import_path."""
    return reader("decisions.import_path", "records")(Path(path), taken)


def build(p: params_mod.Params, root: Path = Path("."), skips: Skips | None = None) -> list[Decision]:
    """All decisions of the run: synthetic first (ids syn-NNNN), then `import_path`, then the mapped
    documents of `decisions.documents`, each in file order. `skips` counts the documents that
    `decisions.documents.on_invalid: skip` leaves out."""
    cfg = p.decisions
    decisions = generate_decisions(cfg.n_decisions, cfg.case_mix, p.seed) if cfg.synthetic else []
    if cfg.import_path:
        if not _under(cfg.import_path, EXTERNAL):
            # dvc.yaml lists data/external for import_path; elsewhere, `dvc status` would not see edits.
            log.warning("decisions.import_path %s lies outside %s: use decisions.documents (format records) "
                        "so that DVC tracks it", cfg.import_path, EXTERNAL)
        imported = load_imported(root / cfg.import_path, {d.id for d in decisions})
        log.info("imported %d decisions from %s", len(imported), cfg.import_path)
        decisions += imported
    if cfg.documents.format != OFF:
        mapped = reader("decisions.documents", cfg.documents.format)(cfg.documents, root, {d.id for d in decisions},
                                                                     skips)
        log.info("imported %d decisions (%s) from %s", len(mapped), cfg.documents.format, cfg.documents.path)
        decisions += mapped
    if not decisions:
        # The params loader already refuses a run that makes and imports nothing; here imports came back empty.
        raise ValueError("no decisions: the imported files (decisions.import_path, decisions.documents) hold "
                         "none and no synthetic decisions are made")
    return decisions


def _under(path: str, folder: str) -> bool:
    parts, top = Path(path).parts, Path(folder).parts
    return parts[: len(top)] == top


def main(argv: list[str] | None = None) -> None:
    args, p = start(__doc__, argv, _arguments)
    started = time.perf_counter()
    skips = Skips("decisions.documents", p.decisions.documents.on_invalid)
    try:
        decisions = build(p, skips=skips)
    except (InputError, params_mod.ParamsError, ValueError) as exc:
        # One line naming file, line and field; the previous output stays as it was.
        sys.exit(f"decisions: error: {exc}")
    write_records(args.out, decisions)
    write_skipped(args.out, *([skips] if p.decisions.documents.format != OFF else []))
    by_type: dict[str, int] = {}
    for d in decisions:
        by_type[d.case_type] = by_type.get(d.case_type, 0) + 1
    mix = ", ".join(f"{k} {v}" for k, v in sorted(by_type.items()))
    print(f"decisions: {len(decisions)} decisions ({mix}) -> {args.out} in {time.perf_counter() - started:.1f}s"
          + skips.note())


_arguments = path_options(out=paths.DECISIONS)


if __name__ == "__main__":
    run(main)
