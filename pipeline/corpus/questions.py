"""Decisions + passages -> QA triples whose facts and qualifiers a rule judge can check.

What a QA carries (the judge and the extractive answerers rely on this):
- `facts`: short normalised strings the answer must state, each copied verbatim (up to letter case) from
  the gold passage: amounts "HK$2,400,000", durations "18 months" / "3 years", dates "12 March 2021",
  names "Chan Tai-man", authorities "section 270(1)(a)", "clause 7(b)". For kind "yesno" the first fact is
  the polarity, "Yes" or "No"; it is not in the passage -- the gold sentence states it, with a negation cue
  ("not", "no", "refused") exactly when the answer is "No" (a generic yes/no question instead asks about
  a value: "No" when the value asked differs from the one the passage states, which is then a fact).
- `qualifiers`: short phrases a complete answer must mention, verbatim from the gold passage: conditions,
  exceptions, terms ("within 60 days of the date of this order", "unless the tenant pays the arrears in
  full within 14 days", "without the leave of the Court of First Instance").
- the gold passage states all facts and qualifiers in one or two sentences; the question is worded
  differently: it shares at most `max_shared_ngram` consecutive words with the gold passage.
- kinds: factual (an amount/duration/date), yesno (polarity plus a qualification), rule (the legal rule,
  its authority as a fact and its exception as a qualifier).
Synthetic decisions use the case-type templates of pipeline.synth; other decisions get generic factual,
yes/no and rule questions in their own language (pipeline.corpus.generic).
Checks, each counted in `stats` when it drops a question: a fact must be distinctive (a number, or at
least 3 CJK characters / 3 letters), the facts together must locate exactly one passage of the decision
(synthetic templates keep the first passage holding them and count the ambiguity, see Draft.unique_gold),
the question must not contain any of its facts, and it must not copy the gold passage's wording (longest
shared run: words in English, characters in Chinese, where the limit doubles: a Chinese word averages
about two characters).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from pipeline import language
from pipeline.corpus.generic import Draft, drafts, undeclared
from pipeline.records import QA, Decision, Passage
from pipeline.synth import QUESTIONS
from pipeline.synth.questions import QuestionTemplate
from pipeline.text import stable_hash

_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(f"[{language.CJK}]")
# Characters of Chinese text per English word, for the paraphrase limit.
ZH_CHARS_PER_WORD = 2


def word_tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _units(text: str, lang: str) -> list[str]:
    # Chinese: characters (and whole Latin words / numbers), robust to how a segmenter cuts a phrase.
    return language.ngrams(text, 1, "zh") if lang == "zh" else word_tokens(text)


def longest_shared_ngram(a: str, b: str, lang: str = "en") -> int:
    """Length of the longest run of consecutive units `a` and `b` have in common (en: words; zh:
    characters, a Latin word or number counting as one)."""
    x, y = _units(a, lang), _units(b, lang)
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


def shared_limit(max_shared_words: int, lang: str) -> int:
    return max_shared_words * ZH_CHARS_PER_WORD if lang == "zh" else max_shared_words


def contains(text: str, value: str) -> bool:
    """Verbatim containment after simple normalisation (case and runs of whitespace)."""
    norm = lambda s: " ".join(s.lower().split())  # noqa: E731
    return norm(value) in norm(text)


def distinctive(value: str) -> bool:
    """Specific enough to find one passage: a number, or at least 3 CJK characters or 3 letters."""
    if any(ch.isdigit() for ch in value):
        return True
    return len(_CJK.findall(value)) >= 3 or sum(ch.isalpha() for ch in value) >= 3


def _from_template(decision: Decision, template: QuestionTemplate) -> Draft | None:
    fields = decision.fields
    fact_names = template.fact_fields(fields)
    polarity = fields.get(template.polarity) if template.polarity else None
    answer_tpl = template.answer_no if polarity == "No" and template.answer_no else template.answer
    try:
        answer = answer_tpl.format(**fields)
        wordings = tuple(q.format(**fields) for q in template.questions)
    except (KeyError, IndexError, ValueError):
        return None
    return Draft(
        key=template.key,
        kind=template.kind,
        questions=wordings,
        answer=answer,
        facts=[fields[n] for n in fact_names],
        qualifiers=[fields[n] for n in template.qualifiers],
        polarity=polarity if template.polarity else None,
        unique_gold=False,
    )


def _pool(decision: Decision, passages: Sequence[Passage]) -> list[tuple[str, Draft | None]]:
    """(kind, draft) per candidate question; None where a template could not be filled (kept so that
    the seeded shuffle sees the same pool as before drafts existed)."""
    catalogue = QUESTIONS.get(decision.case_type, []) if decision.source == "synthetic" else []
    usable = [t for t in catalogue if all(f in decision.fields for f in t.needs())]
    if usable:
        return [(t.kind, _from_template(decision, t)) for t in usable]
    return [(d.kind, d) for d in drafts(decision, passages)]


def _build(
    draft: Draft,
    passages: Sequence[Passage],
    rng: random.Random,
    qa_id: str,
    max_shared: int,
    lang: str,
    stats: Counter,
) -> QA | None:
    facts = draft.facts[1:] if draft.polarity else list(draft.facts)
    if not all(distinctive(v) for v in facts + draft.evidence):
        stats["fact_not_distinctive"] += 1
        return None
    checkable = facts + draft.qualifiers + draft.evidence
    holders = [p for p in passages if all(contains(p.text, v) for v in checkable)]
    if not holders:
        stats["no_gold_passage"] += 1
        return None
    if len(holders) > 1:
        if draft.unique_gold:
            stats["gold_not_unique"] += 1
            return None
        stats["gold_ambiguous_kept"] += 1
    gold = holders[0]
    wordings = list(draft.questions)
    if draft.shuffle:
        rng.shuffle(wordings)
    honest = [q for q in wordings if not any(contains(q, v) for v in facts)]
    if not honest:
        stats["answer_in_question"] += 1
        return None
    limit = shared_limit(max_shared, lang)
    question = next((q for q in honest if longest_shared_ngram(q, gold.text, lang) <= limit), None)
    if question is None:
        stats["copies_gold_wording"] += 1
        return None
    return QA(
        id=qa_id,
        question=question,
        answer=draft.answer,
        gold_passage_id=gold.id,
        family=gold.family,
        kind=draft.kind,  # type: ignore[arg-type]
        facts=list(draft.facts),
        qualifiers=list(draft.qualifiers),
    )


def make_questions(
    decisions: Iterable[Decision],
    passages: Sequence[Passage],
    per_decision: int,
    kinds: Sequence[str],
    seed: int,
    max_shared_ngram: int = 4,
    stats: Counter | None = None,
) -> list[QA]:
    """Up to `per_decision` QA per decision, kinds rotating through `kinds` from a seeded offset.

    A wanted kind the decision cannot provide is replaced by another allowed kind. Candidate questions
    that fail a check are dropped and counted in `stats` (when given) by reason; so are decisions whose
    fields neither field_kinds nor field_types declares ("fields_undeclared": they only get rule
    questions from the authorities their sections cite).
    """
    stats = Counter() if stats is None else stats
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
        own = by_decision.get(decision.id, [])
        lang = "zh" if decision.language == "zh" else "en"
        if undeclared(decision):
            stats["fields_undeclared"] += 1
        pool = [entry for entry in _pool(decision, own) if entry[0] in kinds]
        rng.shuffle(pool)
        offset = stable_hash(seed, "kinds", decision.id) % len(kinds)
        wanted = [kinds[(offset + j) % len(kinds)] for j in range(per_decision)]
        made = 0
        for kind in wanted:
            # Prefer the wanted kind; fall back to any remaining template.
            ordered = [e for e in pool if e[0] == kind] + [e for e in pool if e[0] != kind]
            for entry in ordered:
                pool.remove(entry)
                draft = entry[1]
                if draft is None:
                    stats["template_unfilled"] += 1
                    continue
                qa = _build(draft, own, rng, f"{decision.id}/q{made + 1}", max_shared_ngram, lang, stats)
                if qa is not None:
                    out.append(qa)
                    made += 1
                    break
    return out
