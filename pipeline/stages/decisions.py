"""Stage `decisions`: seeded synthetic decisions plus validated user decisions -> data/raw/decisions.jsonl."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from pipeline import params as params_mod
from pipeline.io import InputError, iter_json, read_records, write_records
from pipeline.records import Decision
from pipeline.stages import run, start
from pipeline.synth import generate_decisions

log = logging.getLogger("pipeline.decisions")
OUT = Path("data/raw/decisions.jsonl")
# Passage ids are "<decision id>/<section id>" and must stay valid ids (records.SAFE_ID allows 200 chars).
MAX_PASSAGE_ID = 190


def load_imported(path: str | Path, taken: set[str]) -> list[Decision]:
    """User decisions from `path`, validated beyond the schema: ids unique across `taken` (the synthetic
    ids), at least one section, section ids unique within a decision, field_kinds only for filled fields."""
    decisions = read_records(path, Decision)
    lines = [number for number, _ in iter_json(path)]
    for decision, line in zip(decisions, lines, strict=True):
        if decision.id in taken:
            raise InputError(path, line, "id", f"id {decision.id!r} is already used by a synthetic decision")
        if not decision.sections:
            raise InputError(path, line, "sections", "at least one section is required")
        seen: set[str] = set()
        for i, section in enumerate(decision.sections):
            if section.id in seen:
                raise InputError(path, line, f"sections[{i}].id", f"duplicate section id {section.id!r}")
            if len(decision.id) + 1 + len(section.id) > MAX_PASSAGE_ID:
                raise InputError(path, line, f"sections[{i}].id", "decision id + section id too long for a passage id")
            seen.add(section.id)
        for name in decision.field_kinds:
            if name not in decision.fields:
                raise InputError(path, line, f"field_kinds.{name}", "kind given for a field that is not filled")
        cjk = _cjk_share(decision.text)
        if (decision.language == "en" and cjk > 0.3) or (decision.language == "zh" and cjk < 0.05):
            raise InputError(path, line, "language", f"declared {decision.language!r} but {cjk:.0%} of the text is Chinese")
        for name, value in decision.fields.items():
            if not value.strip():
                raise InputError(path, line, f"fields.{name}", "empty value")
    return decisions


def _cjk_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum("\u3400" <= c <= "\u9fff" for c in letters) / max(1, len(letters))


def build(p: params_mod.Params, root: Path = Path(".")) -> list[Decision]:
    """All decisions of the run: synthetic first (ids syn-NNNN), then imported ones in file order."""
    cfg = p.decisions
    decisions = generate_decisions(cfg.n_decisions, cfg.case_mix, p.seed) if cfg.synthetic else []
    if cfg.import_path:
        imported = load_imported(root / cfg.import_path, {d.id for d in decisions})
        log.info("imported %d decisions from %s", len(imported), cfg.import_path)
        decisions += imported
    if not decisions:
        raise ValueError("decisions: no decisions (synthetic is false and no import_path given)")
    return decisions


def main(argv: list[str] | None = None) -> None:
    args, p = start(__doc__, argv, _arguments)
    started = time.perf_counter()
    try:
        decisions = build(p)
    except (InputError, ValueError) as exc:
        # One line naming file, line and field; the previous output stays as it was.
        sys.exit(f"decisions: {exc}")
    write_records(args.out, decisions)
    by_type: dict[str, int] = {}
    for d in decisions:
        by_type[d.case_type] = by_type.get(d.case_type, 0) + 1
    mix = ", ".join(f"{k} {v}" for k, v in sorted(by_type.items()))
    print(f"decisions: {len(decisions)} decisions ({mix}) -> {args.out} in {time.perf_counter() - started:.1f}s")


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default=str(OUT))


if __name__ == "__main__":
    run(main)
