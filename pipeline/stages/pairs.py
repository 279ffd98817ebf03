"""Stage `pairs`: the primary judge's labels -> preference pairs split by question
(data/processed/pairs/{train,val,test}.jsonl), under the hierarchy pairs.hierarchy (docs/method.md §5).

Stage `pairs_grounded` runs this module with `--hierarchy grounded --out data/processed/pairs_grounded`: the
same pairs less those whose chosen side is unsupported, contradicted or incorrect, so that a run trained on
them (train.runs entry pairs_grounded-s<seed>) compares with the default's side by side."""

from __future__ import annotations

import argparse
import logging
import time
from collections import Counter
from pathlib import Path

from pipeline import paths
from pipeline.judges import labels_file
from pipeline.judges.inputs import InterimData, load_interim, load_labels
from pipeline.pairs_io import write_splits
from pipeline.params import Params, ParamsError, to_dict
from pipeline.preferences import HIERARCHIES, assign_splits, decide, make_pairs
from pipeline.records import Pair
from pipeline.reporting import cards
from pipeline.stages import path_options, run, start

log = logging.getLogger("pairs")


def build(corpus: InterimData, labels: dict, params: Params, hierarchy: str | None = None) -> tuple[list[Pair], Counter]:
    """The pairs and the counts of what was not paired, under `hierarchy` (default pairs.hierarchy)."""
    prefs, stats = decide(corpus.contexts, corpus.candidates, labels, params.pairs.variants,
                          hierarchy or params.pairs.hierarchy)
    splits = assign_splits(corpus.qas, params.seed, (params.pairs.train, params.pairs.val, params.pairs.test))
    by_id = {c.id: c for c in corpus.candidates}
    pairs = make_pairs(
        prefs, corpus.contexts, corpus.qas, corpus.passages, by_id, splits, params.generate.refusal_by_language()
    )
    return pairs, stats


def card_params(params: Params, hierarchy: str | None = None) -> dict:
    """The params dvc.yaml lists for this stage, digested on the dataset card (with the hierarchy used)."""
    pairs = to_dict(params.pairs) | {"hierarchy": hierarchy or params.pairs.hierarchy}
    return {"seed": params.seed, "pairs": pairs, "judge.judges": list(params.judge.judges),
            "generate.refusal": params.generate.refusal, "generate.refusals": dict(params.generate.refusals)}


def _arguments(parser: argparse.ArgumentParser) -> None:
    path_options(out=paths.PAIRS)(parser)
    parser.add_argument("--hierarchy", choices=HIERARCHIES, default=None,
                        help="the preference hierarchy (default: params pairs.hierarchy)")


def main(argv: list[str] | None = None) -> None:
    args, params = start(__doc__, argv, _arguments)
    started = time.perf_counter()
    corpus = load_interim()
    primary = params.judge.judges[0]
    labels = load_labels(labels_file(primary), corpus.candidates)
    hierarchy = args.hierarchy or params.pairs.hierarchy
    out = Path(args.out)
    pairs, stats = build(corpus, labels, params, hierarchy)
    if not pairs:
        # Names are checked with the params (pipeline/params_names.py); valid variants that were never
        # answered would still end in no pairs, and every later stage would fail or report nothing.
        answered = sorted({corpus.contexts[c.context_id].variant for c in corpus.candidates})
        raise ParamsError(f"{args.params}: pairs.variants: {params.pairs.variants} made no pairs from the "
                          f"{len(corpus.candidates)} candidates (they answer the variants {answered} of "
                          "generate.variants; allowed: variants that generate.variants answers and whose answers "
                          "differ)")
    card = cards.render(pairs, out.name, cards.Provenance(_stage(out), card_params(params, hierarchy), primary,
                                                          notes=[hierarchy_note(hierarchy, stats)]))
    counts = write_splits(out, pairs, card=card)
    log.info("skipped: %s", dict(sorted(stats.items())))
    grounded = ", ".join(f"chosen {k.removeprefix('skipped_chosen_')} {v}" for k, v in sorted(stats.items())
                         if k.startswith("skipped_chosen_"))
    print(
        f"{_stage(out)}: {len(pairs)} pairs from {stats['contexts']} contexts (judge {primary}, hierarchy "
        f"{hierarchy}) " + " ".join(f"{k}={v}" for k, v in counts.items())
        + f"; ties {stats['skipped_tie']}, identical {stats['skipped_identical_text']}, "
        f"unparseable candidates {stats['candidates_unparseable']}" + (f"; not made: {grounded}" if grounded else "")
        + f" -> {out}; {time.perf_counter() - started:.1f}s"
    )


def hierarchy_note(hierarchy: str, stats: Counter) -> str:
    """The dataset card's line on the preference hierarchy (docs/method.md §5)."""
    if hierarchy == "method":
        return ("Preference hierarchy `method` (docs/method.md §5): on answerable contexts any attempt is "
                "chosen over a refusal, whatever its faithfulness and correctness.")
    left_out = {k.removeprefix("skipped_chosen_"): v for k, v in sorted(stats.items()) if k.startswith("skipped_chosen_")}
    return ("Preference hierarchy `grounded` (docs/method.md §5): no pair whose chosen side is unsupported, "
            "contradicted or incorrect; left out: "
            + (", ".join(f"{n} with the chosen side {k}" for k, n in left_out.items()) or "none") + ".")


def _stage(out: Path) -> str:
    """The stage that writes `out`: pairs, or pairs_grounded for its folder."""
    return "pairs_grounded" if out.name == paths.PAIRS_GROUNDED.name else "pairs"


if __name__ == "__main__":
    run(main)
