"""docs/method.md §5: the preference hierarchy that turns labels into (chosen, rejected) pairs, and the
question-level split. Pure functions of records and params; the `pairs` stage only reads and writes.

Answerable contexts: behaviour (attempted > abstained > unusable); if both attempted, faithfulness, then
correctness, then completeness -- the first dimension that differs decides. Unanswerable contexts:
behaviour only (abstained > attempted > unusable). Full ties, identical texts and candidates whose label
is unparseable give no pair (all counted).

The hierarchy (params pairs.hierarchy) is "method" above, or "grounded": the same decisions, but a pair
whose chosen side is unsupported, contradicted or incorrect is not made (counted by that reason), so a
wrong or ungrounded attempt is never taught to beat an honest refusal, nor a worse attempt.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pipeline.language import refusal_of
from pipeline.prompts import answer_prompt_with_spans
from pipeline.records import QA, Candidate, Context, Label, Pair, Passage
from pipeline.text import count_tokens, stable_hash

BEHAVIOUR_RANK = {
    True: {"attempted": 2, "abstained": 1, "unusable": 0},
    False: {"abstained": 2, "attempted": 1, "unusable": 0},
}
QUALITY_RANKS = (
    ("faithfulness", {"fully_supported": 3, "partially_supported": 2, "unsupported": 1, "contradicted": 0}),
    ("correctness", {"correct": 1, "incorrect": 0}),
    ("completeness", {"complete": 1, "incomplete": 0}),
)
HIERARCHIES = ("method", "grounded")
# Under "grounded", a chosen side with one of these labels makes no pair; the first that applies names the
# skip (skipped_chosen_<value>).
UNGROUNDED = (("faithfulness", "contradicted"), ("faithfulness", "unsupported"), ("correctness", "incorrect"))


@dataclass(frozen=True)
class Preference:
    """One decided pair of candidates; `index` numbers the unordered pair inside its context."""

    context_id: str
    index: int
    chosen: str
    rejected: str
    dimension: str

    @property
    def id(self) -> str:
        return f"{self.context_id}/{self.index}"


def compare(a: Label, b: Label, answerable: bool) -> tuple[int, str] | None:
    """(+1 if a is preferred, -1 if b is, the deciding dimension), or None for a full tie."""
    ranks = BEHAVIOUR_RANK[answerable]
    ra, rb = ranks.get(a.behaviour or "", -1), ranks.get(b.behaviour or "", -1)
    if ra != rb:
        return (1 if ra > rb else -1), ("refusal_answerable" if answerable else "refusal_unanswerable")
    if not answerable or a.behaviour != "attempted":
        return None
    for dimension, order in QUALITY_RANKS:
        va, vb = order.get(getattr(a, dimension) or "", -1), order.get(getattr(b, dimension) or "", -1)
        if va != vb:
            return (1 if va > vb else -1), dimension
    return None


def ungrounded(label: Label) -> str | None:
    """Why a label may not be a chosen side under the grounded hierarchy (its value), or None."""
    return next((value for dimension, value in UNGROUNDED if getattr(label, dimension) == value), None)


def decide(
    contexts: Mapping[str, Context],
    candidates: Iterable[Candidate],
    labels: Mapping[str, Label],
    variants: Sequence[str],
    hierarchy: str = "method",
) -> tuple[list[Preference], Counter]:
    """Every decided pair of the contexts whose variant is in `variants`, with counts of what was not;
    `hierarchy` is "method" or "grounded" (module doc)."""
    if hierarchy not in HIERARCHIES:
        raise ValueError(f"pairs.hierarchy: unknown hierarchy {hierarchy!r} (known: {', '.join(HIERARCHIES)})")
    stats: Counter = Counter()
    by_context: dict[str, list[Candidate]] = {}
    for cand in candidates:
        by_context.setdefault(cand.context_id, []).append(cand)
    wanted = set(variants)
    out: list[Preference] = []
    for context_id in sorted(by_context):
        context = contexts[context_id]
        group = sorted(by_context[context_id], key=lambda c: c.id)
        if context.variant not in wanted:
            stats["candidates_outside_variants"] += len(group)
            continue
        stats["contexts"] += 1
        for index, (a, b) in enumerate(itertools.combinations(group, 2)):
            stats["compared"] += 1
            la, lb = labels[a.id], labels[b.id]
            if la.status != "ok" or lb.status != "ok":
                stats["skipped_unparseable"] += 1
                continue
            if a.text.strip() == b.text.strip():
                stats["skipped_identical_text"] += 1
                continue
            verdict = compare(la, lb, context.answerable)
            if verdict is None:
                stats["skipped_tie"] += 1
                continue
            sign, dimension = verdict
            chosen, rejected = (a, b) if sign > 0 else (b, a)
            reason = ungrounded(labels[chosen.id]) if hierarchy == "grounded" else None
            if reason:
                stats[f"skipped_chosen_{reason}"] += 1
                continue
            out.append(Preference(context_id, index, chosen.id, rejected.id, dimension))
            stats["pairs"] += 1
        stats["candidates_unparseable"] += sum(labels[c.id].status != "ok" for c in group)
    return out, stats


def assign_splits(qa_ids: Iterable[str], seed: int, fractions: Sequence[float]) -> dict[str, str]:
    """Question -> split. Questions are ordered by a seeded hash and cut at the given fractions, so the
    split depends on params and the question ids only (not on labels or judges)."""
    if len(fractions) != 3 or any(f < 0 for f in fractions) or abs(sum(fractions) - 1.0) > 1e-6:
        raise ValueError(
            f"split fractions must be three non-negative numbers summing to 1, got {list(fractions)}"
        )
    ordered = sorted(set(qa_ids), key=lambda q: (stable_hash(seed, "split", q), q))
    n = len(ordered)
    n_train = round(n * fractions[0])
    n_val = min(n - n_train, round(n * fractions[1]))
    return {
        q: ("train" if i < n_train else "val" if i < n_train + n_val else "test")
        for i, q in enumerate(ordered)
    }


def make_pairs(
    preferences: Sequence[Preference],
    contexts: Mapping[str, Context],
    qas: Mapping[str, QA],
    passages: Mapping[str, Passage],
    candidates: Mapping[str, Candidate],
    splits: Mapping[str, str],
    refusal: str | Mapping[str, str],
) -> list[Pair]:
    """Pair records (docs/method.md §1) for decided preferences, sorted by id."""
    prompts: dict[str, tuple[str, list[list[int]]]] = {}
    pairs = []
    for pref in preferences:
        context = contexts[pref.context_id]
        if context.id not in prompts:
            qa = qas[context.qa_id]
            prompts[context.id] = answer_prompt_with_spans(
                [passages[p] for p in context.passage_ids], qa.question, refusal_of(qa.question, refusal)
            )
        prompt, spans = prompts[context.id]
        chosen, rejected = candidates[pref.chosen], candidates[pref.rejected]
        pairs.append(
            Pair(
                id=pref.id,
                qa_id=context.qa_id,
                context_id=context.id,
                variant=context.variant,
                answerable=context.answerable,
                split=splits[context.qa_id],
                dimension=pref.dimension,
                prompt=prompt,
                chosen=chosen.text,
                rejected=rejected.text,
                chosen_generator=chosen.generator,
                rejected_generator=rejected.generator,
                chosen_tokens=count_tokens(chosen.text),
                rejected_tokens=count_tokens(rejected.text),
                augmented=False,
                source="generated",
                passage_spans=spans,
                gold_slot=context.gold_slot,
            )
        )
    return sorted(pairs, key=lambda p: p.id)


def robustness(primary: Sequence[Preference], other: Sequence[Preference]) -> dict[str, float]:
    """How the primary judge's pair directions survive when the pairs are rebuilt from another judge:
    kept (same chosen), reversed (chosen and rejected swapped) or lost (tie/skip under the other)."""
    directions = {frozenset((p.chosen, p.rejected)): p.chosen for p in other}
    kept = reversed_ = 0
    for p in primary:
        chosen = directions.get(frozenset((p.chosen, p.rejected)))
        if chosen == p.chosen:
            kept += 1
        elif chosen is not None:
            reversed_ += 1
    n = len(primary)
    return {
        "pairs": n,
        "kept": kept / n if n else 0.0,
        "reversed": reversed_ / n if n else 0.0,
        "lost": (n - kept - reversed_) / n if n else 0.0,
    }
