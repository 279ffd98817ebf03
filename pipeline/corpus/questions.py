"""Decisions + passages -> QA triples whose facts and qualifiers a rule judge can check.

What a QA carries (the judge and the extractive answerers rely on this):
- `facts`: short normalised strings the answer must state, each copied verbatim (up to letter case) from
  the gold passage: amounts "HK$2,400,000", durations "18 months" / "3 years", dates "12 March 2021",
  names "Chan Tai-man", authorities "section 270(1)(a)", "clause 7(b)". For kind "yesno" the first fact is
  the polarity, "Yes" or "No"; it is not in the passage -- the gold sentence states it, with a negation cue
  ("not", "no", "refused") exactly when the answer is "No".
- `qualifiers`: short phrases a complete answer must mention, verbatim from the gold passage: conditions,
  exceptions, terms ("within 60 days of the date of this order", "unless the tenant pays the arrears in
  full within 14 days", "without the leave of the Court of First Instance").
- the gold passage states all facts and qualifiers in one or two sentences; the question is worded
  differently: it shares at most `max_shared_ngram` consecutive words with the gold passage.
- kinds: factual (an amount/duration/date), yesno (polarity plus a qualification), rule (the legal rule,
  its authority as a fact and its exception as a qualifier).
Synthetic decisions use the case-type templates of pipeline.synth; other decisions with annotated
exact fields get generic factual questions ("According to <title>, what is the <field>?").
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence

from pipeline.records import QA, Decision, Passage
from pipeline.synth import QUESTIONS
from pipeline.synth.questions import QuestionTemplate
from pipeline.text import stable_hash

_WORD = re.compile(r"\w+", re.UNICODE)


def word_tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def longest_shared_ngram(a: str, b: str) -> int:
    """Length in words of the longest run of consecutive words that `a` and `b` have in common."""
    x, y = word_tokens(a), word_tokens(b)
    best = 0
    previous = [0] * (len(y) + 1)
    for i in range(1, len(x) + 1):
        current = [0] * (len(y) + 1)
        for j in range(1, len(y) + 1):
            if x[i - 1] == y[j - 1]:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def contains(text: str, value: str) -> bool:
    """Verbatim containment after simple normalisation (case and runs of whitespace)."""
    norm = lambda s: " ".join(s.lower().split())  # noqa: E731
    return norm(value) in norm(text)


def generic_templates(decision: Decision) -> list[QuestionTemplate]:
    """Factual questions over the exact fields of a decision the synthetic catalogue does not know."""
    templates = []
    for name, kind in sorted(decision.field_kinds.items()):
        if kind != "exact" or name not in decision.fields:
            continue
        label = name.replace("_", " ")
        if decision.language == "zh":
            question = f"根据《{decision.title}》，{label}是什么？"
            answer = f"{label}：{{{name}}}。"
        else:
            question = f"According to {decision.title}, what is the {label}?"
            answer = f"The {label} is {{{name}}}."
        templates.append(QuestionTemplate(key=name, kind="factual", questions=(question,), answer=answer, facts=(name,)))
    return templates


def _templates(decision: Decision) -> list[QuestionTemplate]:
    catalogue = QUESTIONS.get(decision.case_type, []) if decision.source == "synthetic" else []
    usable = [t for t in catalogue if all(f in decision.fields for f in t.needs())]
    return usable or generic_templates(decision)


def _build(
    decision: Decision,
    passages: Sequence[Passage],
    template: QuestionTemplate,
    rng: random.Random,
    qa_id: str,
    max_shared: int,
) -> QA | None:
    fields = decision.fields
    fact_names = template.fact_fields(fields)
    facts = [fields[n] for n in fact_names]
    qualifiers = [fields[n] for n in template.qualifiers]
    checkable = [fields[n] for n in fact_names if n != template.polarity] + qualifiers
    gold = next((p for p in passages if all(contains(p.text, v) for v in checkable)), None)
    if gold is None:
        return None
    polarity = fields.get(template.polarity) if template.polarity else None
    answer_tpl = template.answer_no if polarity == "No" and template.answer_no else template.answer
    try:
        answer = answer_tpl.format(**fields)
        wordings = [q.format(**fields) for q in template.questions]
    except (KeyError, IndexError, ValueError):
        return None
    rng.shuffle(wordings)
    question = next((q for q in wordings if longest_shared_ngram(q, gold.text) <= max_shared), None)
    if question is None:
        return None
    return QA(
        id=qa_id,
        question=question,
        answer=answer,
        gold_passage_id=gold.id,
        family=gold.family,
        kind=template.kind,
        facts=facts,
        qualifiers=qualifiers,
    )


def make_questions(
    decisions: Iterable[Decision],
    passages: Sequence[Passage],
    per_decision: int,
    kinds: Sequence[str],
    seed: int,
    max_shared_ngram: int = 4,
) -> list[QA]:
    """Up to `per_decision` QA per decision, kinds rotating through `kinds` from a seeded offset.

    A wanted kind the decision cannot provide is replaced by another allowed kind; a decision with no
    usable template (no annotated fields found in its passages) gets no questions.
    """
    if per_decision < 0:
        raise ValueError("corpus.questions_per_decision must be >= 0")
    unknown = sorted(set(kinds) - {"factual", "yesno", "rule"})
    if unknown or not kinds:
        raise ValueError(f"corpus.qa_kinds: expected a non-empty subset of factual, yesno, rule; got {list(kinds)}")
    by_decision: dict[str, list[Passage]] = {}
    for p in passages:
        by_decision.setdefault(p.decision_id, []).append(p)
    out: list[QA] = []
    for decision in decisions:
        rng = random.Random(stable_hash(seed, "questions", decision.id))
        pool = [t for t in _templates(decision) if t.kind in kinds]
        rng.shuffle(pool)
        offset = stable_hash(seed, "kinds", decision.id) % len(kinds)
        wanted = [kinds[(offset + j) % len(kinds)] for j in range(per_decision)]
        own = by_decision.get(decision.id, [])
        made = 0
        for kind in wanted:
            # Prefer the wanted kind; fall back to any remaining template.
            ordered = [t for t in pool if t.kind == kind] + [t for t in pool if t.kind != kind]
            for template in ordered:
                pool.remove(template)
                qa = _build(decision, own, template, rng, f"{decision.id}/q{made + 1}", max_shared_ngram)
                if qa is not None:
                    out.append(qa)
                    made += 1
                    break
    return out
