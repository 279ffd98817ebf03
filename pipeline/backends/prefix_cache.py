"""Prompt prefixes computed once: the key/value tensors of recent prompts, reused by later prompts that
start with the same tokens (the idea of vLLM's automatic prefix caching, for the transformers backend).

Why: on a CPU, prefill is most of a call's cost, and the stages ask many questions of one long text. The
IRAC fields prompts of the three modes, and the second call of each reasoning mode, repeat one decision of
~1,450 tokens (~4 s of prefill each on two cores) and differ only in their last lines; the LLM judge asks
about every answer of a context with the same passages. A later prompt takes the longest prefix any stored
prompt shares with it and computes only the rest.

Keys and values of a causal decoder at position t depend only on tokens 0..t, so the first n positions of
a stored prompt are exactly what the new prompt's first n positions would compute (up to the rounding of a
different batch shape). Entries are whole prompts in token ids, evicted least recently used past a token
budget (generate.prefix_cache_tokens; SmolLM2-135M in float32 holds ~46 KB per token).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import torch


@dataclass
class Prefix:
    """A stored prompt: its token ids and, per layer, keys and values [heads, tokens, head dim]."""

    ids: tuple[int, ...]
    keys: list[torch.Tensor]
    values: list[torch.Tensor]


class PrefixCache:
    def __init__(self, max_tokens: int, min_shared: int = 32):
        self.max_tokens = max_tokens
        # A shorter match (a chat template's system line) is not worth a batch of its own.
        self.min_shared = min_shared
        self._entries: OrderedDict[tuple[int, ...], Prefix] = OrderedDict()
        self._tokens = 0
        self.hits = 0
        self.reused_tokens = 0

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, ids: Sequence[int]) -> tuple[Prefix | None, int]:
        """The stored prompt sharing the longest prefix with `ids` and that length, always leaving the
        last token to compute (generation starts from its logits); (None, 0) below min_shared."""
        if not self.max_tokens:
            return None, 0
        best, best_n = None, 0
        limit = len(ids) - 1
        for entry in self._entries.values():
            n = _shared(entry.ids, ids, limit)
            if n > best_n:
                best, best_n = entry, n
        if best is None or best_n < self.min_shared:
            return None, 0
        self._entries.move_to_end(best.ids)
        return best, best_n

    def count(self, n: int) -> None:
        self.hits += 1
        self.reused_tokens += n

    def store(self, ids: Sequence[int], keys: list[torch.Tensor], values: list[torch.Tensor]) -> None:
        key = tuple(ids)
        if not self.max_tokens or len(key) > self.max_tokens:
            return
        if key in self._entries:
            self._entries.move_to_end(key)
            return
        self._entries[key] = Prefix(key, keys, values)
        self._tokens += len(key)
        while self._tokens > self.max_tokens:
            _, old = self._entries.popitem(last=False)
            self._tokens -= len(old.ids)


def _shared(a: Sequence[int], b: Sequence[int], limit: int) -> int:
    n = min(len(a), len(b), limit)
    if n <= 0:
        return 0
    ta = torch.as_tensor(a[:n])
    tb = torch.as_tensor(b[:n])
    diff = (ta != tb).nonzero()
    return int(diff[0, 0]) if len(diff) else n
