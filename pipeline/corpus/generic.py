"""Questions for decisions the synthetic catalogue does not know (imported corpora), in the decision's
language (en | zh): factual and yes/no questions over the exact fields, rule questions over the
authorities the sections cite.

Why each kind is built this way:
- factual: "According to <title>, what is the <field>?" (zh: "根据《<title>》，<field>是多少？"), with a
  second wording that names the decision by its date, used when the title holds the answer (a party's
  name often is the title).
- yes/no: "was the <field> <value>?" with the true value (answer Yes) or a visibly different one made by
  changing one digit (answer No, and the true value becomes a fact), chosen by a hash of the decision and
  field, so both polarities occur without a script deciding per item.
- rule: "which provisions does the part headed <heading> rely on?" with the cited authorities of one
  passage as facts (《证券法》第二百零二条, section 270(1)(a)); needs no field, so a decision without
  annotated fields still gets questions.
Exact fields are those field_kinds marks exact, or, without a kind, those field_types types as money,
number, date or name; a field neither declares is not used (and counted by the caller).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline.records import Decision, Passage
from pipeline.text import stable_hash

EXACT_TYPES = frozenset({"money", "number", "date", "name"})
_ZH_NUM = "零〇一二两三四五六七八九十百千"
# One article of a Chinese statute, with its optional paragraph (款) and item (项).
_ZH_ARTICLE = rf"第[{_ZH_NUM}\d]+条(?:第[{_ZH_NUM}\d]+款)?(?:第[（(][{_ZH_NUM}\d]+[）)]项)?"
_AUTHORITY = {
    # A statute with a list of its articles (《证券法》第七十三条、第七十六条): each article is cited on its
    # own (_citations), so a rule question's answer names all of them.
    "zh": re.compile(rf"(《[^《》\n]{{2,30}}》)({_ZH_ARTICLE}(?:[、及和]{_ZH_ARTICLE})*)"),
    "en": re.compile(
        r"\b(?:section|article|rule|regulation|clause)\s+\d+[A-Za-z]?(?:\([0-9A-Za-z]{1,4}\))*", re.I
    ),
}
# Most authorities a rule question asks for (more would be a list, not a rule).
MAX_AUTHORITIES = 3
_DIGIT_NEXT = {str(d): str(d % 9 + 1) for d in range(10)} | {"9": "8"}
_ZH_DIGIT_NEXT = dict(zip("一二三四五六七八九", "二三四五六七八九八", strict=True))


@dataclass(frozen=True)
class Draft:
    """A question before its checks: wordings in preference order and the values behind it."""

    key: str
    kind: str
    questions: tuple[str, ...]
    answer: str
    facts: list[str]  # yes/no: "Yes" or "No" first
    qualifiers: list[str] = field(default_factory=list)
    polarity: str | None = None
    # Values that locate the gold passage without being facts (the true value of a Yes question).
    evidence: list[str] = field(default_factory=list)
    shuffle: bool = True
    # The facts must locate exactly one passage (else the question is dropped). The synthetic catalogue
    # keeps its historical rule, the first passage holding them, and the ambiguity is counted instead.
    unique_gold: bool = True


def exact_fields(decision: Decision) -> list[str]:
    types = getattr(decision, "field_types", {}) or {}
    names = set(decision.fields).union(*(p.fields for p in getattr(decision, "parties", [])))
    out = []
    for name in sorted(names):
        kind = decision.field_kinds.get(name)
        if kind == "exact" or (kind is None and types.get(name) in EXACT_TYPES):
            out.append(name)
    return out


def undeclared(decision: Decision) -> bool:
    """Fields are present but neither field_kinds nor field_types says which are exact."""
    return bool(decision.fields) and not decision.field_kinds and not getattr(decision, "field_types", {})


def perturb(value: str, type_: str | None) -> str | None:
    """The value with one digit changed (a date's last number, otherwise the leading digit); None
    when it has no digit to change."""
    positions = [i for i, ch in enumerate(value) if ch in _DIGIT_NEXT or ch in _ZH_DIGIT_NEXT]
    if not positions:
        return None
    at = positions[-1] if type_ == "date" else positions[0]
    ch = value[at]
    return value[:at] + (_DIGIT_NEXT.get(ch) or _ZH_DIGIT_NEXT[ch]) + value[at + 1 :]


def _references(decision: Decision) -> list[tuple[str, dict[str, str]]]:
    refs = getattr(decision, "references", None)
    return refs() if callable(refs) else [("", dict(decision.fields))]


def drafts(decision: Decision, passages: Sequence[Passage]) -> list[Draft]:
    lang = "zh" if decision.language == "zh" else "en"
    types = getattr(decision, "field_types", {}) or {}
    words = _ZH if lang == "zh" else _EN
    out: list[Draft] = []
    exact = exact_fields(decision)
    for party, fields in _references(decision):
        for name in exact:
            if name not in fields:
                continue
            value, type_ = fields[name], types.get(name)
            subject = words.subject(name.replace("_", " "), party)
            frames = words.frames(decision)
            key = f"{party}/{name}" if party else name
            out.append(
                Draft(
                    key=key,
                    kind="factual",
                    questions=tuple(words.factual(f, subject, type_) for f in frames),
                    answer=words.fact_answer(subject, value),
                    facts=[value],
                    shuffle=False,
                )
            )
            shown = perturb(value, type_) if stable_hash("yesno", decision.id, key) % 2 else None
            questions = tuple(words.yesno(f, subject, shown or value) for f in frames)
            if shown is None:
                answer, facts, evidence = words.yes(subject, value), ["Yes"], [value]
            else:
                answer, facts, evidence = words.no(subject, value, shown), ["No", value], []
            out.append(Draft(key, "yesno", questions, answer, facts, [], facts[0], evidence, shuffle=False))
    out.extend(_rule_drafts(decision, passages, lang, words))
    return out


def _citations(text: str, lang: str) -> list[str]:
    """Every authority a passage cites, in order, once each. In a Chinese list of one statute's articles
    (《证券法》第七十三条、第七十六条) each article is a citation of its own, kept as the passage writes it
    (the later ones without the statute's name), since a fact must be found verbatim in its passage."""
    if lang != "zh":
        return list(dict.fromkeys(m.group(0) for m in _AUTHORITY[lang].finditer(text)))
    cited = []
    for match in _AUTHORITY["zh"].finditer(text):
        articles = [a.group(0) for a in re.finditer(_ZH_ARTICLE, match.group(2))]
        cited.extend([match.group(1) + articles[0], *articles[1:]])
    return list(dict.fromkeys(cited))


def _rule_drafts(decision: Decision, passages: Sequence[Passage], lang: str, words) -> list[Draft]:
    out = []
    for passage in passages:
        cited = _citations(passage.text, lang)
        heading = passage.heading.split("; ")[0]
        # A section split from a plain full text has no heading, and a rule question names its passage by
        # the heading: without one it would ask about 'the part headed ""'. Quoting the passage's own
        # words instead would copy the gold wording (the corpus' max_shared_ngram rule), so no question.
        if not cited or len(cited) > MAX_AUTHORITIES or not heading:
            continue
        out.append(
            Draft(
                key=f"rule/{passage.id}",
                kind="rule",
                questions=tuple(words.rule(f, heading) for f in words.frames(decision)),
                answer=words.rule_answer(cited),
                facts=cited,
                shuffle=False,
            )
        )
    return out


class _ZH:
    """Chinese wordings (written for this project; a frame names the decision, then the question)."""

    @staticmethod
    def frames(d: Decision) -> list[str]:
        frames = [f"根据《{d.title}》，"]
        if d.date:
            frames.append(f"在{d.date}作出的这份决定中，")
        return frames

    @staticmethod
    def subject(label: str, party: str) -> str:
        return f"{party}的{label}" if party else label

    @staticmethod
    def factual(frame: str, subject: str, type_: str | None) -> str:
        ask = {"money": "是多少", "number": "是多少", "date": "是哪一天", "name": "是谁"}.get(type_ or "", "是什么")
        return f"{frame}{subject}{ask}？"

    @staticmethod
    def fact_answer(subject: str, value: str) -> str:
        return f"{subject}为{value}。"

    @staticmethod
    def yesno(frame: str, subject: str, shown: str) -> str:
        return f"{frame}{subject}是否为{shown}？"

    @staticmethod
    def yes(subject: str, value: str) -> str:
        return f"是。{subject}为{value}。"

    @staticmethod
    def no(subject: str, value: str, shown: str) -> str:
        return f"否。{subject}为{value}，而非{shown}。"

    @staticmethod
    def rule(frame: str, heading: str) -> str:
        return f"{frame}“{heading}”部分援引了哪些法律规定？"

    @staticmethod
    def rule_answer(cited: list[str]) -> str:
        return f"该部分援引了{'、'.join(cited)}。"


class _EN:
    """English wordings; the first factual wording is the one this project has always used."""

    @staticmethod
    def frames(d: Decision) -> list[str]:
        frames = [f"According to {d.title}, "]
        if d.date:
            frames.append(f"In the decision of {d.date}, ")
        return frames

    @staticmethod
    def subject(label: str, party: str) -> str:
        return f"the {label} of {party}" if party else f"the {label}"

    @staticmethod
    def factual(frame: str, subject: str, type_: str | None) -> str:
        return f"{frame}what is {subject}?"

    @staticmethod
    def fact_answer(subject: str, value: str) -> str:
        return f"{subject[:1].upper()}{subject[1:]} is {value}."

    @staticmethod
    def yesno(frame: str, subject: str, shown: str) -> str:
        return f"{frame}was {subject} {shown}?"

    @staticmethod
    def yes(subject: str, value: str) -> str:
        return f"Yes. {subject[:1].upper()}{subject[1:]} was {value}."

    @staticmethod
    def no(subject: str, value: str, shown: str) -> str:
        return f"No. {subject[:1].upper()}{subject[1:]} was {value}, not {shown}."

    @staticmethod
    def rule(frame: str, heading: str) -> str:
        return f'{frame}which provisions does the part headed "{heading}" rely on?'

    @staticmethod
    def rule_answer(cited: list[str]) -> str:
        return f"That part relies on {', '.join(cited)}."
