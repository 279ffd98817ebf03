"""The offline IRAC system: a rule-based field extractor (task 1) and analysis writer (task 2).

It reads only the decision text and the field guide (names, value types, descriptions) — never the
reference values. Each field's description and name give cue words; the sentences of the decision are
ranked by the IDF-weighted cues they (and their section heading) contain; an exact field takes the
value of its type nearest the cues in the best sentence that has one, a semantic field the best clause.
The analysis is the best sentences for issue, rule, application and conclusion, in IRAC order. It is a
real baseline: it finds what the text says near the right words, and misses what needs reasoning.

Cue words, sentence splitting and value patterns follow the decision's language (cues.py): a Chinese
decision is split at 。！？；, ranked by character-bigram cues, and its values are found by the same
scanner that normalises them (so 466.5万元 and 2011年5月3日 are found as money and a date). A Chinese
analysis also carries the sentences its extracted values came from, so it states the facts it found.
Which values a Chinese field may take at all (a fine is not a confiscation, one party's order is not
another's, an appellant is not a respondent) is zh_scope.py's reading of the clause around the value.
An analysis with nothing in it is reported "unparseable", never an empty "ok".
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.irac import cues as cue_words
from pipeline.irac import llm, zh_scope
from pipeline.irac.normalize import fold, scan
from pipeline.irac.schema import FieldSpec, ValueType, schema_key
from pipeline.language import sentences as language_sentences
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

# Chinese: clause breaks, citations of a law and its article, and the canonical prefixes the value
# scanner gives each value type.
# Clause breaks of a Chinese sentence; an ASCII comma or colon between digits is part of a number
# ("4,665,091.79", "10:30"), not a break.
_ZH_CLAUSE = re.compile(r"[，；;：]|(?<!\d)[,:]|[,:](?!\d)")
_ZH_NUMERAL = r"[零一二三四五六七八九十百千\d]+"
_ZH_CITATION = re.compile(rf"《[^》]{{1,40}}》(?:第{_ZH_NUMERAL}条(?:第{_ZH_NUMERAL}款)?)?|第{_ZH_NUMERAL}条(?:第{_ZH_NUMERAL}款)?")
# A text field whose cues speak of provisions takes a citation when its sentences have one.
_ZH_CITING = ("条款", "法条", "依据", "法律", "规定")
_SCANNED: dict[str, tuple[str, ...]] = {
    "money": ("money:",),
    "number": ("number:",),
    "date": ("date:",),
    "percent": ("percent:",),
    "times": ("times:",),
    "duration": ("duration:",),
}


@dataclass(frozen=True)
class _Scope:
    """What a Chinese field's value must be (zh_scope.py): the kind of amount its name asks for, a name
    under its role's label, and, on a decision with several parties, a value of `party`'s clauses."""

    amount: str | None = None
    role: str | None = None
    party: str = ""
    parties: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Sentence:
    text: str
    heading: str
    tokens: frozenset[str]
    heading_tokens: frozenset[str]


class _Reader:
    """A decision split into sentences, with IDF weights of their words for cue ranking."""

    def __init__(self, decision: Decision):
        self.language = decision.language
        self.parties = tuple(p.name for p in decision.parties)
        split = split_sentences if decision.language == "en" else lambda t: language_sentences(t, "zh")
        self.sentences = [
            _Sentence(s, sec.heading, frozenset(tokenize(s)), frozenset(tokenize(sec.heading)))
            for sec in decision.sections
            for s in split(sec.text)
        ]
        df = Counter(t for s in self.sentences for t in s.tokens)
        n = len(self.sentences)
        self._idf = {t: math.log(1 + n / c) for t, c in df.items()}

    def ranked(self, cue_text: str) -> list[tuple[float, int]]:
        """(score, sentence index) best first; a cue in the sentence counts fully, in its heading half."""
        # Cues in text order, not set order: string hashing differs between processes, and a float sum in
        # another order can differ in its last bit, enough to flip a tie between two sentences.
        cues = list(dict.fromkeys(tokenize(cue_text)))
        scored = []
        for i, s in enumerate(self.sentences):
            score = sum(self._idf.get(c, 0.0) for c in cues if c in s.tokens)
            score += 0.5 * sum(self._idf.get(c, 1.0) for c in cues if c in s.heading_tokens)
            if score > 0:
                scored.append((score, i))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return scored


def _cue_text(spec: FieldSpec, language: str = "en", party: str = "") -> str:
    if language == "zh":
        return f"{cue_words.zh_field_cues(spec.name, spec.description)} {party}".strip()
    return f"{spec.name.replace('_', ' ')} {spec.description} {party}".strip()


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


def extract_fields(decision: Decision, specs: Sequence[FieldSpec], party: str = "") -> dict[str, str]:
    """The value of each field the rules find in the decision text; fields without cue support are left out.
    `party` (a party's name, for a decision with several) is one more cue, so its sentences rank first."""
    return {name: value for name, (value, _) in _extract(_Reader(decision), specs, party).items()}


def _extract(reader: _Reader, specs: Sequence[FieldSpec], party: str) -> dict[str, tuple[str, int]]:
    """field -> (value, index of the sentence it came from)."""
    out: dict[str, tuple[str, int]] = {}
    for spec in specs:
        cue_text = _cue_text(spec, reader.language, party)
        cues = set(tokenize(cue_text))
        ranked = reader.ranked(cue_text)
        if not ranked:
            continue
        sentences = [reader.sentences[i].text for _, i in ranked]
        if reader.language == "zh":
            scope = _Scope(zh_scope.field_amount_kind(spec.name), zh_scope.field_role(spec.name), party, reader.parties)
            found = _zh_value(spec.type, sentences, cue_text.split(), cues, scope)
        else:
            found = _value(spec.type, sentences, cues)
        if found:
            value, k = found
            out[spec.name] = (value, ranked[k][1])
    return out


def _value(value_type: ValueType, sentences: list[str], cues: set[str]) -> tuple[str, int] | None:
    if value_type == "yesno":
        return ("No" if _NEGATIVE.search(sentences[0]) else "Yes"), 0
    if value_type == "text":
        return _best_clause(sentences[0], cues), 0
    pattern = _PATTERNS[value_type]
    for k, sentence in enumerate(sentences):
        span = _nearest_span(sentence, pattern, cues)
        if span:
            return span, k
    return None


def _zh_value(
    value_type: ValueType, sentences: list[str], words: list[str], cues: set[str], scope: _Scope
) -> tuple[str, int] | None:
    """A Chinese sentence's value of the type nearest the cue words (the best-ranked sentence that has one
    within the field's scope)."""
    if value_type == "yesno":
        return cue_words.YES_NO["zh"][1 if _NEGATIVE.search(sentences[0]) else 0], 0
    if value_type == "text" and any(w in "".join(words) for w in _ZH_CITING):
        cited = _zh_value("citation", sentences, words, cues, scope)
        if cited:
            return cited
    if value_type == "text":
        clauses = [c.strip() for c in _ZH_CLAUSE.split(sentences[0]) if c.strip()]
        best = max(clauses, key=lambda c: (len(cues & set(tokenize(c))), len(c)))
        return best.rstrip("。！？"), 0
    for k, sentence in enumerate(sentences):
        folded = fold(sentence)
        positions = [m.start() for w in words if w for m in re.finditer(re.escape(fold(w)), folded)]
        spans = _zh_spans(value_type, folded, scope)
        if spans:
            if not positions:
                return folded[spans[0][0] : spans[0][1]], k
            start, end = min(spans, key=lambda sp: min(min(abs(sp[0] - p), abs(sp[1] - p)) for p in positions))
            return folded[start:end].strip(" ，,。"), k
    return None


def _zh_spans(value_type: ValueType, folded: str, scope: _Scope) -> list[tuple[int, int]]:
    """(start, end) of every value of the type in a folded Chinese sentence that the field's scope admits."""
    if value_type == "name":
        # A name is who, not what belongs to whom: only its role label narrows it.
        return [(n.start, n.end) for n in zh_scope.names(folded) if scope.role in (None, n.role, n.former)]
    if value_type in _SCANNED:
        spans = [(f.start, f.end) for f in scan(folded) if f.value.startswith(_SCANNED[value_type])]
        if value_type in ("money", "number"):
            spans = [sp for sp in spans if zh_scope.fits(scope.amount, zh_scope.amount_kind(folded, *sp))]
    elif value_type == "citation":
        spans = [m.span() for m in _ZH_CITATION.finditer(folded)]
    else:
        return []
    if scope.party and any(p != scope.party for p in scope.parties):
        owner = zh_scope.owners(folded, scope.parties)
        spans = [sp for sp in spans if scope.party in (owner(sp[0]) or {scope.party})]
    return spans


def write_analysis(decision: Decision, specs: Sequence[FieldSpec] = ()) -> str:
    """An IRAC analysis made of the decision's best sentences for each part, in IRAC order.

    For a Chinese decision the application also carries the sentences the field values were found in
    (given `specs`), so the analysis states the facts the system found; English keeps its original form.
    """
    reader = _Reader(decision)
    language = reader.language if reader.language in cue_words.PART_CUES else "en"
    used: set[int] = set()
    lines = []
    facts = []
    if language == "zh" and specs:
        facts = sorted({i for _, i in _extract(reader, specs, "").values()})
    for part, cue_text in cue_words.PART_CUES[language].items():
        picked = []
        for _, i in reader.ranked(cue_text):
            if i not in used:
                used.add(i)
                picked.append(i)
            if len(picked) == cue_words.PART_SENTENCES[part]:
                break
        if part == "Application":
            picked += [i for i in facts if i not in used]
            used.update(picked)
        if picked:
            heading = cue_words.PART_HEADINGS[language][part]
            if language == "zh":
                lines.append(f"{heading}：{''.join(reader.sentences[i].text for i in picked)}")
            else:
                lines.append(f"{heading}: {' '.join(reader.sentences[i].text for i in picked)}")
    return "\n".join(lines)


class RuleSystem:
    """The rule baseline behind the same interface as the model systems (one way of working: standard).

    Task "fields" gives one output per party of a decision with several parties (one per decision
    otherwise); an analysis in which no sentence was found is "unparseable", so the report counts it.
    """

    name = NAME

    def run(
        self, decisions: Sequence[Decision], specs: dict[str, list[FieldSpec]], task: str, mode: str
    ) -> list[IracOutput]:
        outputs = []
        for d in decisions:
            if task == "fields":
                units = [(None, "")] if not d.parties else list(enumerate(p.name for p in d.parties))
                for index, party in units:
                    output_id = llm.output_id(task, NAME, mode, d.id, index)
                    fields = extract_fields(d, specs[schema_key(d)], party)
                    outputs.append(IracOutput(output_id, d.id, "fields", NAME, mode, fields, None, "ok", party=party))
                continue
            output_id = llm.output_id(task, NAME, mode, d.id)
            analysis = write_analysis(d, specs.get(schema_key(d), ()))
            if analysis.strip():
                outputs.append(IracOutput(output_id, d.id, "analysis", NAME, mode, None, analysis, "ok"))
            else:
                meta = {"problem": f"no sentence of the decision matched the {d.language} cue words"}
                outputs.append(IracOutput(output_id, d.id, "analysis", NAME, mode, None, None, "unparseable", meta))
        return outputs
