"""docs/method.md §6 length-balanced augmentation: rewrite the short side of a pair, keeping the failure it stands for.

- refusal_answerable: a short rejected refusal becomes a confident answer written without the context;
- refusal_unanswerable: a short chosen refusal becomes a 2-3 sentence refusal that says what is missing;
- completeness: a bare rejected answer ("No.") becomes a one-sentence conclusion without the rule.
Rewrites are re-judged with the primary judge: a rewrite that fails its check (empty, degenerate, wrong
behaviour) or no longer loses (or wins) under the preference hierarchy is not used; the pair keeps its
original side and is counted. The lengths the rewrites aim at are planned so that, per split, the chosen
side is the longer one in half the pairs (length balance in fact, not only in the rewritten pairs).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pipeline import language
from pipeline import matching as m
from pipeline.augment.tasks import (
    BARE_CONCLUSION,
    EXPLAINED_REFUSAL,
    UNGROUNDED_ANSWER,
    RewriteTask,
    rewrite_prompt,
)
from pipeline.backends.base import Request
from pipeline.preferences import refusal_of
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


# A rewrite aims this far past the other side's length in the planned direction (x1.3 longer, x0.75
# shorter): far enough that sampling noise rarely lands it on the wrong side.
LONGER_BY, SHORTER_BY = 1.3, 0.75

Rejudge = Callable[[Sequence[tuple[Pair, str, str]]], list[bool]]


@dataclass(frozen=True)
class Job:
    index: int
    side: str
    task: str
    # Planned outcome: the chosen side ends up longer than the rejected one.
    chosen_longer: bool
    target_tokens: int


def plan_lengths(pairs: Sequence[Pair], steps: dict[int, tuple[str, str]], seed: int,
                 languages: Sequence[str] | None = None) -> dict[int, bool]:
    """For every pair to rewrite: should its chosen side end up the longer one?

    Within each split and language, the pairs that keep both sides already say "longer wins" or "shorter
    wins"; the rewritten pairs are given the direction that brings that group's share of chosen-longer
    pairs to one half (seeded choice of which pairs), so length stops predicting the preference. Each
    language is balanced on its own: Chinese answers run longer in tokens than English ones and their
    rewrites fail differently, so a split balanced as a whole can leave one language far off a half.
    """
    group = [(p.split, languages[i] if languages else "") for i, p in enumerate(pairs)]
    out: dict[int, bool] = {}
    for key in sorted(set(group)):
        members = [i for i in range(len(pairs)) if group[i] == key]
        todo = [i for i in members if i in steps]
        kept_longer = sum(pairs[i].chosen_tokens > pairs[i].rejected_tokens for i in members if i not in steps)
        wanted = min(len(todo), max(0, round(len(members) / 2) - kept_longer))
        order = sorted(todo, key=lambda i: (stable_hash(seed, "augment-length", pairs[i].id), pairs[i].id))
        out |= {i: rank < wanted for rank, i in enumerate(order)}
    return out


def _target(pair: Pair, side: str, chosen_longer: bool) -> int:
    other = pair.rejected_tokens if side == "chosen" else pair.chosen_tokens
    grow = chosen_longer == (side == "chosen")
    return max(1, round(other * (LONGER_BY if grow else SHORTER_BY)))


def _on_plan(pair: Pair, job: Job, tokens: int) -> bool:
    other = pair.rejected_tokens if job.side == "chosen" else pair.chosen_tokens
    chosen, rejected = (tokens, other) if job.side == "chosen" else (other, tokens)
    return (chosen > rejected) == job.chosen_longer


def augment_pairs(
    pairs: Sequence[Pair],
    qas: Mapping[str, QA],
    generator: Any,
    params: Any,
    rejudge: Rejudge | None = None,
) -> tuple[list[Pair], Counter]:
    """The same pairs in the same order, short sides rewritten; counts by task and outcome.

    A pair whose lengths already lie on its planned side of the balance keeps both sides. Each rewrite is
    sampled `augment.samples` times. A sample must pass its behaviour check and, when
    `rejudge` is given (the stage passes the primary judge), keep the pair's direction under the
    preference hierarchy, i.e. keep the failure it stands for. Of the samples that pass, the one on the
    planned side of the length balance and closest to its target length wins. When none passes, the
    pair keeps its original side, counted as "failed_check" or "dropped_by_judge".
    """
    cfg, refusals = params.augment, params.generate.refusal_by_language()
    # The refusal sentence of each pair's language (its question's).
    refusal = [refusal_of(qas[p.qa_id].question, refusals) for p in pairs]
    steps = {}
    for index, pair in enumerate(pairs):
        step = plan(pair, refusal[index], cfg.short_refusal_tokens, cfg.short_answer_tokens)
        if step is not None:
            steps[index] = step
    languages = [language.detect(qas[p.qa_id].question) for p in pairs]
    directions = plan_lengths(pairs, steps, params.seed, languages)
    stats: Counter = Counter()
    jobs = []
    for i, (side, task) in sorted(steps.items()):
        pair = pairs[i]
        if (pair.chosen_tokens > pair.rejected_tokens) == directions[i]:
            # Already on its planned side of the balance: rewriting it would only move it off again.
            stats[f"{task}:kept_for_balance"] += 1
            continue
        jobs.append(Job(i, side, task, directions[i], _target(pair, side, directions[i])))
    requests = []
    for job in jobs:
        pair = pairs[job.index]
        prompt = rewrite_prompt(RewriteTask(job.task, qas[pair.qa_id].question, qas[pair.qa_id].kind,
                                            getattr(pair, job.side), refusal[job.index], job.target_tokens))
        for sample in range(cfg.samples):
            # Sample 0 keeps the seed of a single-sample run, so samples: 1 reproduces earlier outputs.
            seed = stable_hash(params.seed, "augment", pair.id, *([sample] if sample else [])) % (2**31)
            requests.append(Request(prompt, cfg.temperature, cfg.top_p, cfg.max_new_tokens, seed))
    texts = _generate(generator, requests)

    passed: list[tuple[Job, str]] = []
    for j, job in enumerate(jobs):
        samples = texts[j * cfg.samples:(j + 1) * cfg.samples]
        ok = [t for t in samples if acceptable(job.task, t, refusal[job.index])]
        if not ok:
            stats[f"{job.task}:failed_check"] += 1
        passed += [(job, t) for t in dict.fromkeys(ok)]
    verdicts = rejudge([(pairs[job.index], job.side, t) for job, t in passed]) if rejudge else [True] * len(passed)
    checked = {job.index for job, _ in passed}
    survivors: dict[int, list[str]] = {}
    for (job, text), keep in zip(passed, verdicts, strict=True):
        if keep:
            survivors.setdefault(job.index, []).append(text)
    out = list(pairs)
    for job in jobs:
        pair = pairs[job.index]
        options = survivors.get(job.index)
        if not options:
            if job.index in checked:
                stats[f"{job.task}:dropped_by_judge"] += 1
            continue
        best = min(options, key=lambda t: (not _on_plan(pair, job, count_tokens(t)),
                                           abs(count_tokens(t) - job.target_tokens)))
        stats[f"{job.task}:rewritten"] += 1
        stats[f"{job.task}:on_length_plan"] += _on_plan(pair, job, count_tokens(best))
        out[job.index] = dataclasses.replace(
            pair, **{job.side: best, f"{job.side}_tokens": count_tokens(best)}, augmented=True, source="augmented"
        )
    return out, stats


def _generate(generator: Any, requests: Sequence[Request]) -> list[str]:
    batch = max(1, int(getattr(generator, "batch_size", 64)))
    texts: list[str] = []
    for start in range(0, len(requests), batch):
        texts += [r.text.strip() for r in generator.generate(list(requests[start:start + batch]))]
    return texts
