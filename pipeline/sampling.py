"""The seeded sample of records: the same records on every machine, run and process (docs/method.md §8, §9).

Training caps its pairs (train.max_pairs) and scoring samples its pairs (score.max_pairs,
score.train_sample) with this one draw. A record's rank is a stable hash of (seed, salt, id), so the
sample does not depend on file order, and the train-split sample that scoring takes with the corpus
name as salt is a subset of the pairs training kept under the same seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pipeline.text import stable_hash

T = TypeVar("T")


def seeded_sample(items: Sequence[T], n: int | None, seed: int, salt: str | Callable[[T], str]) -> list[T]:
    """The `n` items (each with an `id`) of smallest stable_hash(seed, salt, id), ties by id, in input
    order; every item when `n` is None or <= 0 or there are no more than `n`. `salt` is a string, or a
    function of the item when items of several sources share one draw (training's corpus parts)."""
    if not n or n <= 0 or len(items) <= n:
        return list(items)
    keep = set(seeded_order(range(len(items)), items, seed, salt)[:n])
    return [item for i, item in enumerate(items) if i in keep]


def seeded_order(
    positions: Sequence[int], items: Sequence[T], seed: int, salt: str | Callable[[T], str]
) -> list[int]:
    """`positions` (indices into `items`) in the order of seeded_sample's draw: smallest
    stable_hash(seed, salt, id) first, ties by id. A prefix of it is the seeded sample of that size."""
    salt_of: Callable[[Any], str] = salt if callable(salt) else (lambda _item: salt)
    return sorted(positions, key=lambda i: (stable_hash(seed, salt_of(items[i]), items[i].id), items[i].id))
