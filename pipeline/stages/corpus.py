"""Stage `corpus`: decisions -> passages (with families) and QA triples."""

from __future__ import annotations

import logging
import sys
import time
from collections import Counter
from pathlib import Path

from pipeline import params as params_mod
from pipeline import paths
from pipeline.corpus import make_questions, split_passages
from pipeline.importers import Skips, write_skipped
from pipeline.importers.registry import OFF, reader
from pipeline.io import InputError, read_records, write_records
from pipeline.records import QA, Decision, Passage
from pipeline.stages import path_options, run, start

log = logging.getLogger("pipeline.corpus")


def build(
    decisions: list[Decision], p: params_mod.Params, root: Path = Path("."), dropped: Counter | None = None,
    skips: Skips | None = None, decisions_file: str | Path = paths.DECISIONS,
) -> tuple[list[Passage], list[QA]]:
    """Passages and questions of the decisions, then those of the outside QA set (corpus.qa_import).
    `dropped` receives the counts of candidate questions dropped by the checks, by reason; `skips` the
    invalid records of the QA set that `corpus.qa_import.on_invalid: skip` leaves out."""
    cfg = p.corpus
    passages = split_passages(decisions, cfg.min_passage_chars, cfg.max_passage_chars)
    imported: tuple[list[Passage], list[QA]] = ([], [])
    if cfg.qa_import.format != OFF:
        imported = reader("corpus.qa_import", cfg.qa_import.format)(cfg.qa_import, root, skips)
        log.info("imported %d passages, %d questions from %s", len(imported[0]), len(imported[1]), cfg.qa_import.path)
    ids = Counter(x.id for x in passages + imported[0])
    clash = sorted(i for i, n in ids.items() if n > 1)
    if clash:
        raise ValueError(_collision(clash, passages, imported[0], decisions_file, cfg.qa_import.path))
    qas = make_questions(
        decisions, passages, cfg.questions_per_decision, cfg.qa_kinds, p.seed, cfg.max_shared_ngram, dropped
    )
    passages = passages + imported[0]
    taken = {q.id for q in qas}
    clash = sorted(q.id for q in imported[1] if q.id in taken)
    if clash:
        raise ValueError(f"corpus: imported question ids collide with generated ones: {clash[:3]} (set corpus.qa_import.id_prefix)")
    return passages, qas + imported[1]


def _collision(clash: list[str], passages: list[Passage], imported: list[Passage], decisions_file: str | Path,
               qa_path: str) -> str:
    """Which records make the first colliding passage id, and how passage ids are made, so the user knows
    which decision, section or key to change."""
    pid = clash[0]
    makers = [f"decision {p.decision_id!r} of {decisions_file}" for p in passages if p.id == pid]
    makers += [f"article {p.decision_id!r} of {qa_path} (corpus.qa_import)" for p in imported if p.id == pid]
    return (f"passage id {pid!r} is made twice, by {' and by '.join(makers)}"
            + (f" ({len(clash)} ids collide; the next: {clash[1:3]})" if len(clash) > 1 else "")
            + ": a decision's passage is <decision id>/<section id> (-1, -2, ... when corpus.max_passage_chars cuts "
              "a section), an imported paragraph <corpus.qa_import.id_prefix><article>/p<n>; rename the decision "
              "or section, or change corpus.qa_import.id_prefix")


def main(argv: list[str] | None = None) -> None:
    args, p = start(__doc__, argv, _arguments)
    started = time.perf_counter()
    dropped: Counter = Counter()
    skips = Skips("corpus.qa_import", p.corpus.qa_import.on_invalid)
    try:
        decisions = read_records(args.decisions, Decision)
        passages, qas = build(decisions, p, dropped=dropped, skips=skips, decisions_file=args.decisions)
    except (InputError, ValueError) as exc:
        sys.exit(f"corpus: error: {exc}")
    without = len(decisions) - len({q.id.rsplit("/", 1)[0] for q in qas} & {d.id for d in decisions})
    if without:
        log.warning("%d decisions yielded no question (no annotated fields found in their passages)", without)
    if dropped["fields_undeclared"]:
        log.warning(
            "%d decisions have fields but neither field_kinds nor field_types: their fields give no question "
            "(only rule questions from cited authorities); declare them to get factual and yes/no questions",
            dropped["fields_undeclared"],
        )
    write_records(args.passages_out, passages)
    write_records(args.qa_out, qas)
    write_skipped(args.qa_out, *([skips] if p.corpus.qa_import.format != OFF else []))
    kinds = Counter(q.kind for q in qas)
    mix = ", ".join(f"{k} {kinds[k]}" for k in sorted(kinds))
    notes = {"fields_undeclared", "gold_ambiguous_kept"}
    checks = ", ".join(f"{k} {dropped[k]}" for k in sorted(dropped) if k not in notes) or "none"
    print(
        f"corpus: {len(decisions)} decisions -> {len(passages)} passages, {len(qas)} questions ({mix}) "
        f"in {time.perf_counter() - started:.1f}s; candidate questions dropped: {checks}; "
        f"kept with an ambiguous gold passage (synthetic): {dropped['gold_ambiguous_kept']}{skips.note()}"
    )


_arguments = path_options(decisions=paths.DECISIONS, passages_out=paths.PASSAGES, qa_out=paths.QAS)


if __name__ == "__main__":
    run(main)
