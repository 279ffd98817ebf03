"""Stage `augment`: length-balanced rewrites of the pairs -> data/processed/pairs_aug/{train,val,test}.jsonl."""

from __future__ import annotations

import logging
import time
from pathlib import Path

from pipeline.augment import augment_pairs, make_rewriter
from pipeline.io import InputError, read_records
from pipeline.judges.inputs import INTERIM
from pipeline.preferences import SPLITS
from pipeline.records import QA, Pair
from pipeline.stages import run, start
from pipeline.stages.pairs import write_splits

log = logging.getLogger("augment")
PAIRS = Path("data/processed/pairs")
OUT = Path("data/processed/pairs_aug")


def main(argv: list[str] | None = None) -> None:
    _, params = start(__doc__, argv)
    started = time.perf_counter()
    qas = {q.id: q for q in read_records(INTERIM / "qa.jsonl", QA)}
    pairs = [p for split in SPLITS for p in read_records(PAIRS / f"{split}.jsonl", Pair)]
    for p in pairs:
        if p.qa_id not in qas:
            raise InputError(
                PAIRS / f"{p.split}.jsonl", None, "qa_id", f"pair {p.id!r}: unknown question {p.qa_id!r}"
            )
    generator = make_rewriter(params.augment.rewriter, params)
    augmented, stats = augment_pairs(pairs, qas, generator, params)
    counts = write_splits(OUT, augmented)
    rewritten = sum(p.augmented for p in augmented)
    log.info("rewrites: %s", dict(sorted(stats.items())))
    print(
        f"augment: {rewritten}/{len(pairs)} pairs rewritten with {params.augment.rewriter} "
        + " ".join(f"{k}={v}" for k, v in counts.items())
        + f"; failed rewrites kept original: {sum(v for k, v in stats.items() if k.endswith(':rejected'))}; "
        f"{time.perf_counter() - started:.1f}s"
    )


if __name__ == "__main__":
    run(main)
