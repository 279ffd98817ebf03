"""SPEC 6 length-balanced augmentation: rewrite the short side of a pair, keeping the failure it stands for.

- refusal_answerable: a short rejected refusal becomes a confident answer written without the context;
- refusal_unanswerable: a short chosen refusal becomes a 2-3 sentence refusal that says what is missing;
- completeness: a bare rejected answer ("No.") becomes a one-sentence conclusion without the rule.
A rewrite that fails its check (empty, degenerate, or the wrong behaviour) keeps the original side and is
counted, so no pair is dropped.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.augment.tasks import (
    BARE_CONCLUSION,
    EXPLAINED_REFUSAL,
    UNGROUNDED_ANSWER,
    RewriteTask,
    rewrite_prompt,
)
from pipeline.backends.base import Request
from pipeline.judges import matching as m
from pipeline.records import QA, Pair
from pipeline.text import count_tokens, stable_hash


def is_refusal(text: str, refusal: str) -> bool:
    """A refusal with no answer attached (the rule judge's "abstained")."""
    return (
        m.has_refusal(text, refusal)
        and not m.lead_polarity(m.non_refusal_text(text, refusal))
        and (len(m.content_words(m.non_refusal_text(text, refusal))) < 2)
    )


def plan(
    pair: Pair, refusal: str, short_refusal_tokens: int, short_answer_tokens: int
) -> tuple[str, str] | None:
    """(side, task) to rewrite for this pair, or None when it keeps both sides."""
    if pair.dimension == "refusal_answerable":
        if pair.rejected_tokens <= short_refusal_tokens and is_refusal(pair.rejected, refusal):
            return "rejected", UNGROUNDED_ANSWER
    elif pair.dimension == "refusal_unanswerable":
        if pair.chosen_tokens <= short_refusal_tokens and is_refusal(pair.chosen, refusal):
            return "chosen", EXPLAINED_REFUSAL
    elif pair.dimension == "completeness":
        if pair.rejected_tokens <= short_answer_tokens:
            return "rejected", BARE_CONCLUSION
    return None


def acceptable(task: str, text: str, refusal: str) -> bool:
    if not text.strip() or m.degenerate(text):
        return False
    if task == EXPLAINED_REFUSAL:
        return is_refusal(text, refusal)
    return not m.has_refusal(text, refusal)


def augment_pairs(
    pairs: Sequence[Pair],
    qas: Mapping[str, QA],
    generator: Any,
    params: Any,
) -> tuple[list[Pair], Counter]:
    """The same pairs in the same order, short sides rewritten; counts by task and outcome."""
    cfg, refusal = params.augment, params.generate.refusal
    jobs: list[tuple[int, str, str, Request]] = []
    stats: Counter = Counter()
    for index, pair in enumerate(pairs):
        step = plan(pair, refusal, cfg.short_refusal_tokens, cfg.short_answer_tokens)
        if step is None:
            continue
        side, task = step
        qa = qas[pair.qa_id]
        other = pair.rejected_tokens if side == "chosen" else pair.chosen_tokens
        prompt = rewrite_prompt(RewriteTask(task, qa.question, qa.kind, getattr(pair, side), refusal, other))
        seed = stable_hash(params.seed, "augment", pair.id) % (2**31)
        jobs.append(
            (index, side, task, Request(prompt, cfg.temperature, cfg.top_p, cfg.max_new_tokens, seed))
        )
    out = list(pairs)
    batch = max(1, int(getattr(generator, "batch_size", 64)))
    for start in range(0, len(jobs), batch):
        chunk = jobs[start : start + batch]
        responses = generator.generate([j[3] for j in chunk])
        for (index, side, task, _), response in zip(chunk, responses, strict=True):
            text = response.text.strip()
            if not acceptable(task, text, refusal):
                stats[f"{task}:rejected"] += 1
                continue
            stats[f"{task}:rewritten"] += 1
            out[index] = dataclasses.replace(
                out[index],
                **{side: text, f"{side}_tokens": count_tokens(text)},
                augmented=True,
                source="augmented",
            )
    return out, stats
