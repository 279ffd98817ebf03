"""Deterministic top-n selection shared by the BM25 and dense retrievers."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Protocol

import numpy as np

# The order to give passages whose score is exactly 0, asked for only when one of them makes the top n.
Ties = Callable[[], Sequence[int]]


class Retriever(Protocol):
    """Ranks the corpus for one query (a question index) and returns passage indices, best first."""

    def top(self, query: int, n: int, exclude: Collection[int], ties: Ties | None = None) -> list[int]: ...


def top_outside(scores: np.ndarray, n: int, exclude: Collection[int], ties: Ties | None = None) -> list[int]:
    """Indices of the n highest scores, skipping `exclude`; ties go to the lower index so the order
    never depends on the sort algorithm. With `ties`, passages scoring exactly 0 (BM25: not one term
    in common with the query, so no evidence for any order) come in the order `ties()` gives instead
    (any it leaves out last, by index); every other score keeps its place and its tie-break."""
    scores = np.asarray(scores, dtype=np.float64).copy()
    if len(exclude):
        scores[np.fromiter(exclude, dtype=np.int64)] = -np.inf
    available = int(np.isfinite(scores).sum())
    n = min(n, available)
    if n <= 0:
        return []
    # argpartition keeps this O(N) per query; the exact order is settled on the small head only.
    head = np.argpartition(-scores, n - 1)[:n] if n < len(scores) else np.arange(len(scores))
    cutoff = scores[head].min()
    head = np.flatnonzero(scores >= cutoff)  # bring in every index tied with the cut-off
    if ties is not None and (scores[head] == 0).any():
        order = _zero_ranks(scores, ties())
        return [int(i) for i in head[np.lexsort((head, order[head], -scores[head]))][:n]]
    order = np.lexsort((head, -scores[head]))
    return [int(i) for i in head[order][:n]]


def _zero_ranks(scores: np.ndarray, ties: Sequence[int]) -> np.ndarray:
    """A secondary sort key: 0 for every nonzero score; for a zero score its place in `ties`, and
    len(ties) (then the index decides) for a zero-score passage `ties` leaves out."""
    key = np.zeros(len(scores), dtype=np.int64)
    place = np.full(len(scores), len(ties), dtype=np.int64)
    place[np.asarray(ties, dtype=np.int64)] = np.arange(len(ties), dtype=np.int64)
    zero = scores == 0
    key[zero] = place[zero]
    return key
