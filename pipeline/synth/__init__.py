"""Seeded synthetic legal decisions (docs/method.md §7): the offline default corpus.

Three case types share one shape -- 6 to 9 sections of 60-140 words with varied headings and phrasings,
plus annotated `fields` (docs/method.md §11 IRAC style), `field_kinds` and declared `field_types` (each module's
FIELD_TYPES: nothing is left to be guessed from a field's name); exact values appear verbatim in the text,
semantic ones (issue, rule, application, benefit, ...) may restate it in other words:
- insider_trading: market misconduct tribunal penalty decisions. Exact fields: decision_date, respondent,
  company, securities, shares_traded, dealing_period, profit_amount, multiplier, penalty_amount,
  cold_shoulder_ordered/_period, costs_ordered, rule_section; semantic: issue, rule, application,
  conclusion and the qualifier phrases (payment_terms, cold_shoulder_qualifier, ...).
- criminal_sentencing: starting point, plea discount, sentence, suspension, compensation.
- residential_tenancy: rent, arrears, deposit deductions, possession.
A decision depends only on (seed, its id, its case type) and the party and company names it takes from
the corpus's seeded name pools (pipeline/synth/names.py: no two decisions share one); the order of case
types is seeded.
`QUESTIONS[case_type]` lists the question templates the corpus stage applies to these fields.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from pipeline.records import Decision
from pipeline.synth import criminal, insider, names, tenancy
from pipeline.synth.names import NamePool, Names
from pipeline.synth.questions import QuestionTemplate
from pipeline.text import stable_hash

BUILDERS: dict[str, Callable[[random.Random, str, Names], Decision]] = {
    insider.CASE_TYPE: insider.build,
    criminal.CASE_TYPE: criminal.build,
    tenancy.CASE_TYPE: tenancy.build,
}
QUESTIONS: dict[str, list[QuestionTemplate]] = {
    insider.CASE_TYPE: insider.QUESTIONS,
    criminal.CASE_TYPE: criminal.QUESTIONS,
    tenancy.CASE_TYPE: tenancy.QUESTIONS,
}
CASE_TYPES = tuple(BUILDERS)


def allocate(n: int, case_mix: Mapping[str, float]) -> dict[str, int]:
    """Counts per case type proportional to `case_mix`, summing to n (largest remainder, ties by name)."""
    unknown = sorted(set(case_mix) - set(BUILDERS))
    if unknown:
        raise ValueError(f"decisions.case_mix: unknown case type(s) {unknown} (known: {list(CASE_TYPES)})")
    if any(w < 0 for w in case_mix.values()):
        raise ValueError("decisions.case_mix: weights must be >= 0")
    total = sum(case_mix.values())
    if n > 0 and total <= 0:
        raise ValueError("decisions.case_mix: weights must not all be zero")
    if n <= 0:
        return {name: 0 for name in sorted(case_mix)}
    exact = {name: n * w / total for name, w in case_mix.items()}
    counts = {name: int(v) for name, v in exact.items()}
    rest = n - sum(counts.values())
    for name in sorted(exact, key=lambda k: (-(exact[k] - counts[k]), k))[:rest]:
        counts[name] += 1
    return dict(sorted(counts.items()))


def generate_decisions(n: int, case_mix: Mapping[str, float], seed: int) -> list[Decision]:
    """n synthetic decisions with ids syn-0001..; case types interleaved in a seeded order."""
    if n < 0:
        raise ValueError(f"decisions.n_decisions must be >= 0, got {n}")
    counts = allocate(n, case_mix)
    if not names.fits(counts):
        raise names.capacity_error(n, counts, max_decisions(case_mix), case_mix)
    order = [name for name, count in counts.items() for _ in range(count)]
    random.Random(stable_hash(seed, "case-order", n)).shuffle(order)
    pool = NamePool(seed)
    decisions = []
    for index, case_type in enumerate(order, start=1):
        decision_id = f"syn-{index:04d}"
        rng = random.Random(stable_hash(seed, "decision", decision_id, case_type))
        decisions.append(BUILDERS[case_type](rng, decision_id, pool.take(case_type)))
    return decisions


def max_decisions(case_mix: Mapping[str, float]) -> int:
    """The most synthetic decisions `case_mix` allows, each with its own names (pipeline/synth/names.py).
    Counted down from a bound: a type's count is within one of its share, so beyond the bound some pool is
    short; below it the counts of `allocate` need not grow with n, so each n is checked."""
    total = sum(case_mix.values())
    bounds = []
    for which, size in enumerate(names.pool_sizes()):
        rate = sum(w * names.NEEDS[t][which] for t, w in case_mix.items()) / total
        if rate > 0:
            bounds.append(int((size + sum(need[which] for need in names.NEEDS.values())) / rate) + 1)
    n = min(bounds)
    while n > 0 and not names.fits(allocate(n, case_mix)):
        n -= 1
    return n
