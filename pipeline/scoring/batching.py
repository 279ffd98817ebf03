"""Length bucketing: batches of similar length under a token budget, so padding stays small."""

from __future__ import annotations

from collections.abc import Sequence


def length_batches(lengths: Sequence[int], batch_tokens: int, max_batch: int = 64) -> list[list[int]]:
    """Indices grouped longest first; a batch's padded size (rows x longest row) stays <= batch_tokens.

    A row longer than the budget gets a batch of its own. The order is deterministic (ties by index).
    """
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for i in order:
        longest_if_added = max(longest, lengths[i])
        if current and (longest_if_added * (len(current) + 1) > batch_tokens or len(current) >= max_batch):
            batches.append(current)
            current, longest_if_added = [], lengths[i]
        current.append(i)
        longest = longest_if_added
    if current:
        batches.append(current)
    return batches
