"""Deterministic top-n selection shared by the BM25 and dense retrievers."""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

import numpy as np


class Retriever(Protocol):
    """Ranks the corpus for one query (a question index) and returns passage indices, best first."""

    def top(self, query: int, n: int, exclude: Collection[int]) -> list[int]: ...


def top_outside(scores: np.ndarray, n: int, exclude: Collection[int]) -> list[int]:
    """Indices of the n highest scores, skipping `exclude`; ties go to the lower index so the order
    never depends on the sort algorithm."""
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
    order = np.lexsort((head, -scores[head]))
    return [int(i) for i in head[order][:n]]
