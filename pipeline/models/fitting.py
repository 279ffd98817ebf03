"""Fitting a pair into max_length without cutting the evidence, the question or the instructions (docs/method.md §9).

Training and scoring both call `fit_pair`, and the reward API (pipeline/reward) calls `fit_item`, which
fit_pair is the two-response case of, so a model is trained, scored and used on the same tokens. An item
fits when its rendered prompt plus its longest response is at most max_length tokens. When it does not:
- policy `drop_distractors` removes whole distractor passages, last slot first, never the gold passage,
  renumbers the passages that stay and renders the prompt again (chat header and rules intact); a pair
  that still does not fit with one passage left is left out;
- policy `drop` leaves the pair out.
A prompt without known passage structure (an outside pair with no spans) can only be left out.
Every outcome is returned, so callers count it per variant; nothing is dropped silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.models.prompting import render_prompt, render_response
from pipeline.prompts import PASSAGE_JOIN

POLICIES = ("drop_distractors", "drop")


@dataclass(frozen=True)
class FittedItem:
    """Token ids of a prompt and its responses as models see them; `prompt` is None when left out."""

    prompt: list[int] | None
    responses: tuple[list[int], ...]
    passages_in: int
    passages_dropped: int = 0
    gold_lost: bool = False

    @property
    def fits(self) -> bool:
        return self.prompt is not None

    @property
    def refit(self) -> bool:
        return self.passages_dropped > 0


@dataclass(frozen=True)
class FittedPair:
    """Token ids of one pair as models see it; `prompt` is None when the pair was left out."""

    prompt: list[int] | None
    chosen: list[int]
    rejected: list[int]
    passages_in: int
    passages_dropped: int = 0
    # The gold passage left out: never by these policies; computed from what was dropped so the report
    # shows a count, not a promise.
    gold_lost: bool = False

    @property
    def fits(self) -> bool:
        return self.prompt is not None

    @property
    def refit(self) -> bool:
        return self.passages_dropped > 0


def token_ids(tokenizer: Any, text: str) -> list[int]:
    # The rendered text already holds BOS/EOS where the model wants them (pipeline.models contract).
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def without_passages(prompt: str, spans: Sequence[Sequence[int]], keep: Sequence[int]) -> str:
    """`prompt` with only the passage blocks at indices `keep` (in order), renumbered from 1."""
    blocks = []
    for new, old in enumerate(keep, start=1):
        start, end = spans[old]
        block = prompt[start:end]
        mark = f"[{old + 1}] "
        if not block.startswith(mark):
            raise ValueError(f"passage span {old} does not start with {mark!r}: the spans do not match the prompt")
        blocks.append(f"[{new}] " + block[len(mark):])
    return prompt[: spans[0][0]] + PASSAGE_JOIN.join(blocks) + prompt[spans[-1][1]:]


def fit_pair(tokenizer: Any, prompt: str, chosen: str, rejected: str, max_length: int, policy: str,
             spans: Sequence[Sequence[int]] = (), gold_slot: int | None = None,
             prompt_ids: list[int] | None = None) -> FittedPair:
    """Render and tokenize one pair, fitting it into max_length under `policy` (see the module doc).

    `prompt_ids` may pass the already-encoded full prompt (callers cache it per prompt string).
    """
    f = fit_item(tokenizer, prompt, (chosen, rejected), max_length, policy, spans, gold_slot, prompt_ids)
    return FittedPair(f.prompt, f.responses[0], f.responses[1], f.passages_in, f.passages_dropped, f.gold_lost)


def fit_item(tokenizer: Any, prompt: str, responses: Sequence[str], max_length: int, policy: str,
             spans: Sequence[Sequence[int]] = (), gold_slot: int | None = None,
             prompt_ids: list[int] | None = None) -> FittedItem:
    """Render and tokenize a prompt and its responses, fitting them into max_length under `policy`: the
    prompt plus the longest response must fit (see the module doc)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown over-long policy {policy!r} (known: {', '.join(POLICIES)})")
    response_ids = tuple(token_ids(tokenizer, render_response(tokenizer, r)) for r in responses)
    budget = max_length - max(len(r) for r in response_ids)
    full = prompt_ids if prompt_ids is not None else token_ids(tokenizer, render_prompt(tokenizer, prompt))
    n = len(spans)
    if len(full) <= budget:
        return FittedItem(full, response_ids, n)
    if policy == "drop" or n <= 1:
        return FittedItem(None, response_ids, n)
    # Distractors in the order they are dropped: last slot first, the gold passage never.
    order = [i for i in reversed(range(n)) if i != gold_slot]
    if gold_slot is None:
        order = order[:-1]  # an unanswerable prompt keeps at least its first passage

    def encoded(dropped: int) -> list[int]:
        gone = set(order[:dropped])
        text = without_passages(prompt, spans, [i for i in range(n) if i not in gone])
        return token_ids(tokenizer, render_prompt(tokenizer, text))

    if not order:
        return FittedItem(None, response_ids, n)
    # Fewest passages dropped that fits: prompts shrink as more are dropped, so bisect.
    low, high = 1, len(order)
    tried = {high: encoded(high)}
    if len(tried[high]) > budget:
        return FittedItem(None, response_ids, n)
    while low < high:
        mid = (low + high) // 2
        tried[mid] = encoded(mid)
        if len(tried[mid]) <= budget:
            high = mid
        else:
            low = mid + 1
    gold_lost = gold_slot is not None and gold_slot in order[:high]  # False by the order above; checked anyway
    return FittedItem(tried[high], response_ids, n, passages_dropped=high, gold_lost=gold_lost)


def fit_counts(fitted: Sequence[FittedPair | FittedItem], variants: Sequence[str]) -> dict[str, dict[str, int]]:
    """Per variant (and "all"): pairs, pairs refit, passages dropped, pairs left out, gold passages lost."""
    counts: dict[str, Counter] = {}
    for f, variant in zip(fitted, variants, strict=True):
        for key in (variant, "all"):
            c = counts.setdefault(key, Counter())
            c["pairs"] += 1
            c["refit"] += f.refit
            c["passages_dropped"] += f.passages_dropped
            c["left_out"] += not f.fits
            c["gold_lost"] += f.gold_lost
    keys = ("pairs", "refit", "passages_dropped", "left_out", "gold_lost")
    return {v: {k: int(c[k]) for k in keys} for v, c in sorted(counts.items())}
