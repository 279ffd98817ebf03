"""Stage `pairs`: the primary judge's labels -> preference pairs split by question
(data/processed/pairs/{train,val,test}.jsonl)."""

from __future__ import annotations

import logging
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pipeline.io import atomic_dir, write_json, write_records
from pipeline.judges import file_name
from pipeline.judges.inputs import INTERIM, Corpus, load_corpus, load_labels
from pipeline.params import Params
from pipeline.preferences import SPLITS, assign_splits, decide, make_pairs
from pipeline.records import Pair
from pipeline.stages import run, start

log = logging.getLogger("pairs")
OUT = Path("data/processed/pairs")


def build(corpus: Corpus, labels: dict, params: Params) -> tuple[list[Pair], Counter]:
    prefs, stats = decide(corpus.contexts, corpus.candidates, labels, params.pairs.variants)
    splits = assign_splits(corpus.qas, params.seed, (params.pairs.train, params.pairs.val, params.pairs.test))
    by_id = {c.id: c for c in corpus.candidates}
    pairs = make_pairs(
        prefs, corpus.contexts, corpus.qas, corpus.passages, by_id, splits, params.generate.refusal_by_language()
    )
    return pairs, stats


def conversational(pair: Pair) -> dict[str, Any]:
    """A pair in TRL's conversational preference format: the prompt as a user message, each response as an
    assistant message, so stock DPOTrainer applies the model's chat template as training and scoring here
    do (pipeline.models.prompting renders the same prompt text)."""
    return {"id": pair.id, "prompt": [{"role": "user", "content": pair.prompt}],
            "chosen": [{"role": "assistant", "content": pair.chosen}],
            "rejected": [{"role": "assistant", "content": pair.rejected}]}


def write_splits(out: Path, pairs: list[Pair], meta: dict | None = None) -> dict[str, int]:
    """Write {train,val,test}.jsonl, the same pairs for stock TRL in trl/{train,val,test}.jsonl, and
    meta.json when given, under `out`, swapped in whole; each split sorted by pair id."""
    counts = {}
    with atomic_dir(out) as tmp:
        for split in SPLITS:
            rows = sorted((p for p in pairs if p.split == split), key=lambda p: p.id)
            counts[split] = write_records(Path(tmp) / f"{split}.jsonl", rows)
            write_records(Path(tmp) / "trl" / f"{split}.jsonl", (conversational(p) for p in rows))
        if meta is not None:
            write_json(Path(tmp) / "meta.json", meta)
    return counts


def main(argv: list[str] | None = None) -> None:
    _, params = start(__doc__, argv)
    started = time.perf_counter()
    corpus = load_corpus()
    primary = params.judge.judges[0]
    labels = load_labels(INTERIM / "labels" / file_name(primary), corpus.candidates)
    pairs, stats = build(corpus, labels, params)
    counts = write_splits(OUT, pairs)
    log.info("skipped: %s", dict(sorted(stats.items())))
    print(
        f"pairs: {len(pairs)} pairs from {stats['contexts']} contexts (judge {primary}) "
        + " ".join(f"{k}={v}" for k, v in counts.items())
        + f"; ties {stats['skipped_tie']}, identical {stats['skipped_identical_text']}, "
        f"unparseable candidates {stats['candidates_unparseable']}; {time.perf_counter() - started:.1f}s"
    )


if __name__ == "__main__":
    run(main)
