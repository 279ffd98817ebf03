"""The scorers that score.scorer names, and the one place their log-probs become the four scorings.

A scorer turns encoded pairs into ResponseScores (sum and mean log-prob of each response, docs/method.md
§9). Beside its function the registry keeps what the score stage must know of a scorer without asking
its name: which pairs it puts in one batch (a rank scores whole batches, so its floats are those of a
one-process run), and whether models that share their bottom layers may score over one pass of them
(pipeline/scoring/shared_trunk.py runs the shared-prefix passes). A new scorer is its module, one entry
in SCORERS and its name in params (ScoreParams.scorer; tests/test_scoring.py holds the two together).

`scorings` and `score_records` compute sum, mean, ref_sum and ref_mean for every scorer, and a pair is
correct by pipeline.stats.correct_from_scores, the comparison the report applies to the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pipeline.records import Score
from pipeline.scoring.batching import length_batches
from pipeline.scoring.common import ResponseScores
from pipeline.scoring.encode import EncodedPair
from pipeline.scoring.shared_prefix import score_shared_prefix
from pipeline.scoring.two_pass import score_two_pass
from pipeline.stats import correct_from_scores

# (model, encoded pairs, batch token budget, progress callback counting pairs) -> scores in pair order
ScoreFn = Callable[[Any, Sequence[EncodedPair], int, Callable[[float], Any] | None], ResponseScores]
# (encoded pairs, batch token budget) -> groups of pair indices, each a union of the scorer's batches
UnitsFn = Callable[[Sequence[EncodedPair], int], list[list[int]]]


@dataclass(frozen=True)
class Scorer:
    name: str
    score: ScoreFn
    units: UnitsFn
    # Whether adapters on the top layers only may be scored over one pass of the layers below them.
    shares_trunk: bool


def _shared_prefix(model: Any, pairs: Sequence[EncodedPair], batch_tokens: int,
                   progress: Callable[[float], Any] | None = None) -> ResponseScores:
    return score_shared_prefix(model, pairs, batch_tokens=batch_tokens, progress=progress)


def _two_pass(model: Any, pairs: Sequence[EncodedPair], batch_tokens: int,
              progress: Callable[[float], Any] | None = None) -> ResponseScores:
    # The two-pass scorer counts rows, two per pair.
    rows = (lambda n: progress(n / 2)) if progress else None
    return score_two_pass(model, pairs, batch_tokens=batch_tokens, progress=rows)


def _pair_batches(pairs: Sequence[EncodedPair], batch_tokens: int) -> list[list[int]]:
    return length_batches([p.shared_length for p in pairs], batch_tokens)


def _row_batches(pairs: Sequence[EncodedPair], batch_tokens: int) -> list[list[int]]:
    """Pairs joined whenever one of the two-pass batches holds a row of each (rows 2i and 2i + 1 are
    pair i's): the scorer forms exactly those batches again over any union of the groups, since it closes
    a batch on the batch's own longest row and size alone. Usually one group for a whole corpus: the
    two-pass scorer, the equality reference, gains nothing from more processes."""
    rows = [len(p.prompt) + len(r) for p in pairs for r in (p.chosen, p.rejected)]
    parent = list(range(len(pairs)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for batch in length_batches(rows, batch_tokens):
        first = root(batch[0] // 2)
        for row in batch[1:]:
            parent[root(row // 2)] = first
    groups: dict[int, list[int]] = {}
    for i in range(len(pairs)):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


SCORERS: dict[str, Scorer] = {
    s.name: s
    for s in (
        Scorer("shared_prefix", _shared_prefix, _pair_batches, shares_trunk=True),
        Scorer("two_pass", _two_pass, _row_batches, shares_trunk=False),
    )
}


def scorer(name: str) -> Scorer:
    if name not in SCORERS:
        raise ValueError(f"score.scorer: expected one of {list(SCORERS)}, got {name!r}")
    return SCORERS[name]


def scorings(scores: ResponseScores,
             reference: ResponseScores | None = None) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(scoring, chosen, rejected) per scoring: mean and sum log-probs, and with the reference model's
    scores of the same pairs ref_mean and ref_sum (policy minus reference: the beta-free DPO reward)."""
    out = [("mean", scores.chosen_mean, scores.rejected_mean), ("sum", scores.chosen_sum, scores.rejected_sum)]
    if reference is not None:
        out += [("ref_mean", scores.chosen_mean - reference.chosen_mean, scores.rejected_mean - reference.rejected_mean),
                ("ref_sum", scores.chosen_sum - reference.chosen_sum, scores.rejected_sum - reference.rejected_sum)]
    return out


def score_records(model_name: str, pairs: Sequence[Any], scores: ResponseScores,
                  reference: ResponseScores | None = None) -> list[Score]:
    """One Score per pair per scoring, ordered by (scoring, pair order); ties count as wrong."""
    out = []
    for scoring, chosen, rejected in scorings(scores, reference):
        correct = correct_from_scores(chosen, rejected)
        for i, pair in enumerate(pairs):
            c, r = float(chosen[i]), float(rejected[i])
            out.append(Score(
                pair_id=pair.id, model=model_name, scoring=scoring, chosen=c, rejected=r, margin=c - r,
                correct=bool(correct[i]), chosen_tokens=int(scores.chosen_tokens[i]),
                rejected_tokens=int(scores.rejected_tokens[i]),
            ))
    return out
