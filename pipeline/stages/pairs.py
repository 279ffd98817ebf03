"""Stage `pairs`: the primary judge's labels -> preference pairs split by question
(data/processed/pairs/{train,val,test}.jsonl)."""

from __future__ import annotations

import logging
import time
from collections import Counter

from pipeline import paths
from pipeline.judges import labels_file
from pipeline.judges.inputs import InterimData, load_interim, load_labels
from pipeline.pairs_io import write_splits
from pipeline.params import Params, ParamsError, to_dict
from pipeline.preferences import assign_splits, decide, make_pairs
from pipeline.records import Pair
from pipeline.reporting import cards
from pipeline.stages import run, start

log = logging.getLogger("pairs")


def build(corpus: InterimData, labels: dict, params: Params) -> tuple[list[Pair], Counter]:
    prefs, stats = decide(corpus.contexts, corpus.candidates, labels, params.pairs.variants)
    splits = assign_splits(corpus.qas, params.seed, (params.pairs.train, params.pairs.val, params.pairs.test))
    by_id = {c.id: c for c in corpus.candidates}
    pairs = make_pairs(
        prefs, corpus.contexts, corpus.qas, corpus.passages, by_id, splits, params.generate.refusal_by_language()
    )
    return pairs, stats


def card_params(params: Params) -> dict:
    """The params dvc.yaml lists for this stage, digested on the dataset card."""
    return {"seed": params.seed, "pairs": to_dict(params.pairs), "judge.judges": list(params.judge.judges),
            "generate.refusal": params.generate.refusal, "generate.refusals": dict(params.generate.refusals)}


def main(argv: list[str] | None = None) -> None:
    args, params = start(__doc__, argv)
    started = time.perf_counter()
    corpus = load_interim()
    primary = params.judge.judges[0]
    labels = load_labels(labels_file(primary), corpus.candidates)
    pairs, stats = build(corpus, labels, params)
    if not pairs:
        # Names are checked with the params (pipeline/params_names.py); valid variants that were never
        # answered would still end in no pairs, and every later stage would fail or report nothing.
        answered = sorted({corpus.contexts[c.context_id].variant for c in corpus.candidates})
        raise ParamsError(f"{args.params}: pairs.variants: {params.pairs.variants} made no pairs from the "
                          f"{len(corpus.candidates)} candidates (they answer the variants {answered} of "
                          "generate.variants; allowed: variants that generate.variants answers and whose answers "
                          "differ)")
    card = cards.render(pairs, paths.PAIRS.name, cards.Provenance("pairs", card_params(params), primary))
    counts = write_splits(paths.PAIRS, pairs, card=card)
    log.info("skipped: %s", dict(sorted(stats.items())))
    print(
        f"pairs: {len(pairs)} pairs from {stats['contexts']} contexts (judge {primary}) "
        + " ".join(f"{k}={v}" for k, v in counts.items())
        + f"; ties {stats['skipped_tie']}, identical {stats['skipped_identical_text']}, "
        f"unparseable candidates {stats['candidates_unparseable']}; {time.perf_counter() - started:.1f}s"
    )


if __name__ == "__main__":
    run(main)
