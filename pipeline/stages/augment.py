"""Stage `augment`: length-balanced rewrites of the pairs -> data/processed/pairs_aug/{train,val,test}.jsonl.

Every rewrite is re-judged by the primary judge against the pair's own context and reference, and used
only when the pair keeps its direction under the preference hierarchy (pipeline.augment.core).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from pipeline import paths
from pipeline.augment import augment_pairs, make_rewriter
from pipeline.backends import make_generator
from pipeline.backends.cache import CachedGenerator, compacting
from pipeline.io import InputError
from pipeline.judges import JudgeItem, labels_file, make_judge
from pipeline.judges.inputs import InterimData, load_interim, load_labels
from pipeline.pairs_io import write_splits
from pipeline.params import Params, to_dict
from pipeline.preferences import compare, refusal_of
from pipeline.records import Candidate, Pair
from pipeline.reporting import cards
from pipeline.stages import run, start

log = logging.getLogger("augment")


def make_rejudge(corpus: InterimData, labels: dict, judge: Any, refusals: dict[str, str], rewriter: str):
    """A function telling, for (pair, side, rewritten text) triples, whether the pair keeps its direction
    when that side is replaced by the text and judged by `judge` (one batched judge call)."""
    by_generator = {(c.context_id, c.generator): c for c in corpus.candidates}

    def original(pair: Pair, side: str) -> Candidate:
        generator = getattr(pair, f"{side}_generator")
        cand = by_generator.get((pair.context_id, generator))
        if cand is None:
            raise InputError(paths.split_file(paths.PAIRS, pair.split), None, f"{side}_generator",
                             f"pair {pair.id!r}: no candidate of {generator!r} in context {pair.context_id!r}")
        return cand

    def rejudge(triples: Sequence[tuple[Pair, str, str]]) -> list[bool]:
        items = []
        for n, (pair, _side, text) in enumerate(triples):
            context = corpus.contexts[pair.context_id]
            cand = Candidate(f"{pair.id}/rewrite/{n}", context.id, rewriter, text, "stop")
            qa = corpus.qas[context.qa_id]
            items.append(JudgeItem(cand, qa, tuple(corpus.passages[p] for p in context.passage_ids),
                                   context.answerable, refusal_of(qa.question, refusals)))
        new_labels = judge.judge(items)
        keep = []
        for (pair, side, _), label in zip(triples, new_labels, strict=True):
            other = labels[original(pair, "rejected" if side == "chosen" else "chosen").id]
            chosen, rejected = (label, other) if side == "chosen" else (other, label)
            verdict = compare(chosen, rejected, pair.answerable) if label.status == "ok" else None
            keep.append(verdict is not None and verdict[0] > 0)
        return keep

    return rejudge


def card_params(params: Params) -> dict:
    """The params dvc.yaml lists for this stage, digested on the dataset card."""
    return {"seed": params.seed, "augment": to_dict(params.augment), "judge": to_dict(params.judge),
            "generate.refusal": params.generate.refusal, "generate.refusals": dict(params.generate.refusals)}


def main(argv: list[str] | None = None) -> None:
    _, params = start(__doc__, argv)
    started = time.perf_counter()
    corpus = load_interim()
    primary = params.judge.judges[0]
    labels = load_labels(labels_file(primary), corpus.candidates)
    pairs = paths.read_pairs(paths.PAIRS)
    for p in pairs:
        if p.qa_id not in corpus.qas or p.context_id not in corpus.contexts:
            raise InputError(paths.split_file(paths.PAIRS, p.split), None, "context_id",
                             f"pair {p.id!r}: unknown question {p.qa_id!r} or context {p.context_id!r}")
    # Rewrites and re-judging calls (a DVC output, persist): on success exactly this run's calls.
    with compacting(paths.AUGMENT_CACHE):
        generator = CachedGenerator(make_rewriter(params.augment.rewriter, params), str(paths.AUGMENT_CACHE))
        judge = make_judge(
            primary, params, lambda spec: CachedGenerator(make_generator(spec, params.generate), str(paths.AUGMENT_CACHE))
        )
        rejudge = make_rejudge(corpus, labels, judge, params.generate.refusal_by_language(), params.augment.rewriter)
        augmented, stats = augment_pairs(pairs, corpus.qas, generator, params, rejudge)
    rewritten = sum(p.augmented for p in augmented)
    longer = sum(p.chosen_tokens > p.rejected_tokens for p in augmented) / max(1, len(augmented))
    meta = {"rewriter": params.augment.rewriter, "judge": primary, "pairs": len(pairs), "rewritten": rewritten,
            "chosen_longer": round(longer, 6), "outcomes": dict(sorted(stats.items()))}
    notes = [f"Made from `{paths.PAIRS.as_posix()}` (the same ids): {rewritten} pairs with a short side rewritten to "
             f"balance length; the chosen answer is longer in {longer:.3f} of pairs."]
    card = cards.render(augmented, paths.PAIRS_AUG.name, cards.Provenance("augment", card_params(params), primary,
                                                              params.augment.rewriter, notes))
    counts = write_splits(paths.PAIRS_AUG, augmented, meta, card)
    log.info("rewrites: %s", dict(sorted(stats.items())))
    print(
        f"augment: {rewritten}/{len(pairs)} pairs rewritten with {params.augment.rewriter} "
        + " ".join(f"{k}={v}" for k, v in counts.items())
        + f"; kept original: {sum(v for k, v in stats.items() if k.endswith(':failed_check'))} failed checks, "
        f"{sum(v for k, v in stats.items() if k.endswith(':dropped_by_judge'))} dropped by re-judging "
        f"({primary}); chosen longer in {longer:.3f} of pairs; {time.perf_counter() - started:.1f}s"
    )


if __name__ == "__main__":
    run(main)
