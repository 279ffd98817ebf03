"""The offline IRAC system: a rule-based field extractor (task 1) and analysis writer (task 2).

It reads only the decision text and the field guide (names, value types, descriptions) — never the
reference values. Each field's description and name give cue words; the sentences of the decision are
ranked by the IDF-weighted cues they (and their section heading) contain; an exact field takes the
value of its type nearest the cues in the best sentence that has one, a semantic field the best clause.
The analysis is the best sentences for issue, rule, application and conclusion, in IRAC order. It is a
real baseline: it finds what the text says near the right words, and misses what needs reasoning.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.irac import llm
from pipeline.irac.schema import FieldSpec, ValueType
from pipeline.records import Decision, IracOutput
from pipeline.retrieval.tokenize import tokenize
from pipeline.text import split_sentences

NAME = "rule"

_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_AMOUNT = r"\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion))?"
# Value patterns per type, tried on one sentence; the span nearest the cues wins.
_PATTERNS: dict[str, re.Pattern[str]] = {
    "date": re.compile(
        rf"\b\d{{1,2}} (?:{_MONTHS}) \d{{4}}\b|\b(?:{_MONTHS}) \d{{1,2}}, \d{{4}}\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b"
        r"|\d{4}年\d{1,2}月\d{1,2}日"
    ),
    "money": re.compile(rf"(?:HK|US|NT|S|A)?\$\s?{_AMOUNT}|\b(?:HKD|USD|RMB|CNY)\s?{_AMOUNT}|(?:人民币)?[\d.,]+万?元"),
    "percent": re.compile(r"\b\d+(?:\.\d+)?\s?(?:per cent|percent)\b|\d+(?:\.\d+)?%|百分之[零一二三四五六七八九十百]+"),
    "times": re.compile(rf"\b(?:\d+|{_NUMBER_WORDS}) times\b|\btwice\b|[两二三四五六七八九十]倍", re.I),
    "duration": re.compile(rf"\b(?:\d+|{_NUMBER_WORDS}) (?:days?|weeks?|months?|years?)\b", re.I),
    "number": re.compile(r"(?<![$\d.,])\b\d{1,3}(?:,\d{3})+\b(?![.,]\d)|(?<![$\d])\b\d{4,}\b"),
    "citation": re.compile(r"\b(?:section|clause|article|rule|regulation|paragraph) \d+[\w()]*", re.I),
    # Title-case words joined by a few lower-case connectors: names of people, companies, courts, cases.
    "name": re.compile(
        r"\b[A-Z][\w'’.-]*(?:\s(?:(?:of|v|and|the|de|van)\s)?[A-Z][\w'’.-]*)+"
    ),
}
_NEGATIVE = re.compile(r"\b(?:no|not|never|nor|declines?|declined|refuses?|refused|without|neither)\b|不|未|没有", re.I)
# Clause breaks: semicolons and colons, and a comma before a word that opens a qualifying clause.
_CLAUSE = re.compile(
    r";\s+|:\s+|,\s+(?=(?:with|because|since|although|save|unless|within|together|provided|subject|given|"
    r"as|to take effect|in view)\b)"
)

# Cue words of the four IRAC parts, for the analysis; field cues come from the field guide.
_PART_CUES = {
    "Issue": "issue question whether decide determine matter dispute",
    "Rule": "law rule section clause ordinance provision principle guideline statutory legal",
    "Application": "facts find found finds established satisfied evidence applying because therefore",
    "Conclusion": "conclusion order ordered orders penalty sentence sentenced granted pay accordingly",
}
_PART_SENTENCES = {"Issue": 1, "Rule": 2, "Application": 3, "Conclusion": 2}


@dataclass(frozen=True)
class _Sentence:
    text: str
    heading: str
    tokens: frozenset[str]
    heading_tokens: frozenset[str]


class _Reader:
    """A decision split into sentences, with IDF weights of their words for cue ranking."""

    def __init__(self, decision: Decision):
        self.sentences = [
            _Sentence(s, sec.heading, frozenset(tokenize(s)), frozenset(tokenize(sec.heading)))
            for sec in decision.sections
            for s in split_sentences(sec.text)
        ]
        df = Counter(t for s in self.sentences for t in s.tokens)
        n = len(self.sentences)
        self._idf = {t: math.log(1 + n / c) for t, c in df.items()}

    def ranked(self, cue_text: str) -> list[tuple[float, int]]:
        """(score, sentence index) best first; a cue in the sentence counts fully, in its heading half."""
        cues = set(tokenize(cue_text))
        scored = []
        for i, s in enumerate(self.sentences):
            score = sum(self._idf.get(c, 0.0) for c in cues & s.tokens)
            score += 0.5 * sum(self._idf.get(c, 1.0) for c in cues & s.heading_tokens)
            if score > 0:
                scored.append((score, i))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return scored


def _cue_text(spec: FieldSpec) -> str:
    return f"{spec.name.replace('_', ' ')} {spec.description}"


def _nearest_span(sentence: str, pattern: re.Pattern[str], cues: set[str]) -> str | None:
    spans = [m for m in pattern.finditer(sentence) if m.group(0).strip()]
    if not spans:
        return None
    # Distance from each span to the nearest cue word in the sentence (characters): values sit next to
    # the words that name them ("a pecuniary penalty of HK$1,224,000").
    cue_positions = [m.start() for m in re.finditer(r"\w+", sentence) if set(tokenize(m.group(0))) & cues]
    if not cue_positions:
        return spans[0].group(0).strip()

    def distance(m: re.Match[str]) -> int:
        return min(min(abs(m.start() - p), abs(m.end() - p)) for p in cue_positions)

    return min(spans, key=distance).group(0).strip(" ,.")


def _best_clause(sentence: str, cues: set[str]) -> str:
    clauses = [c.strip() for c in _CLAUSE.split(sentence) if c.strip()]
    best = max(clauses, key=lambda c: (len(cues & set(tokenize(c))), len(c)))
    return best.rstrip(".")


def extract_fields(decision: Decision, specs: Sequence[FieldSpec]) -> dict[str, str]:
    """The value of each field the rules find in the decision text; fields without cue support are left out."""
    reader = _Reader(decision)
    out: dict[str, str] = {}
    for spec in specs:
        cue_text = _cue_text(spec)
        cues = set(tokenize(cue_text))
        ranked = reader.ranked(cue_text)
        if not ranked:
            continue
        value = _value(spec.type, [reader.sentences[i].text for _, i in ranked], cues)
        if value:
            out[spec.name] = value
    return out


def _value(value_type: ValueType, sentences: list[str], cues: set[str]) -> str | None:
    if value_type == "yesno":
        return "No" if _NEGATIVE.search(sentences[0]) else "Yes"
    if value_type == "text":
        return _best_clause(sentences[0], cues)
    pattern = _PATTERNS[value_type]
    for sentence in sentences:
        span = _nearest_span(sentence, pattern, cues)
        if span:
            return span
    return None


def write_analysis(decision: Decision) -> str:
    """An IRAC analysis made of the decision's best sentences for each part, in IRAC order."""
    reader = _Reader(decision)
    used: set[int] = set()
    lines = []
    for part, cue_text in _PART_CUES.items():
        picked = []
        for _, i in reader.ranked(cue_text):
            if i not in used:
                used.add(i)
                picked.append(reader.sentences[i].text)
            if len(picked) == _PART_SENTENCES[part]:
                break
        if picked:
            lines.append(f"{part}: {' '.join(picked)}")
    return "\n".join(lines)


class RuleSystem:
    """The rule baseline behind the same interface as the model systems (one way of working: standard)."""

    name = NAME

    def run(
        self, decisions: Sequence[Decision], specs: dict[str, list[FieldSpec]], task: str, mode: str
    ) -> list[IracOutput]:
        outputs = []
        for d in decisions:
            output_id = llm.output_id(task, NAME, mode, d.id)
            if task == "fields":
                outputs.append(
                    IracOutput(output_id, d.id, "fields", NAME, mode, extract_fields(d, specs[d.case_type]), None, "ok")
                )
            else:
                outputs.append(IracOutput(output_id, d.id, "analysis", NAME, mode, None, write_analysis(d), "ok"))
        return outputs
