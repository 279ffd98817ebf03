"""Stage `corpus`: decisions -> passages (with families) and QA triples."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections import Counter
from pathlib import Path

from pipeline import params as params_mod
from pipeline.corpus import make_questions, split_passages
from pipeline.io import InputError, read_records, write_records
from pipeline.records import QA, Decision, Passage
from pipeline.stages import run, start

log = logging.getLogger("pipeline.corpus")
DECISIONS = Path("data/raw/decisions.jsonl")
PASSAGES = Path("data/interim/passages.jsonl")
QAS = Path("data/interim/qa.jsonl")


def build(decisions: list[Decision], p: params_mod.Params) -> tuple[list[Passage], list[QA]]:
    cfg = p.corpus
    passages = split_passages(decisions, cfg.min_passage_chars, cfg.max_passage_chars)
    ids = Counter(x.id for x in passages)
    clash = sorted(i for i, n in ids.items() if n > 1)
    if clash:
        raise ValueError(f"corpus: passage ids collide (decision id + section id): {clash[:3]}")
    qas = make_questions(
        decisions, passages, cfg.questions_per_decision, cfg.qa_kinds, p.seed, cfg.max_shared_ngram
    )
    return passages, qas


def main(argv: list[str] | None = None) -> None:
    args, p = start(__doc__, argv, _arguments)
    started = time.perf_counter()
    try:
        decisions = read_records(args.decisions, Decision)
        passages, qas = build(decisions, p)
    except (InputError, ValueError) as exc:
        sys.exit(f"corpus: {exc}")
    without = len(decisions) - len({q.id.rsplit("/", 1)[0] for q in qas})
    if without:
        log.warning("%d decisions yielded no question (no annotated fields found in their passages)", without)
    write_records(args.passages_out, passages)
    write_records(args.qa_out, qas)
    kinds = Counter(q.kind for q in qas)
    mix = ", ".join(f"{k} {kinds[k]}" for k in sorted(kinds))
    print(
        f"corpus: {len(decisions)} decisions -> {len(passages)} passages, {len(qas)} questions ({mix}) "
        f"in {time.perf_counter() - started:.1f}s"
    )


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--decisions", default=str(DECISIONS))
    parser.add_argument("--passages-out", default=str(PASSAGES))
    parser.add_argument("--qa-out", default=str(QAS))


if __name__ == "__main__":
    run(main)
