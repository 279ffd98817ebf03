"""The rule judge of docs/method.md §7: behaviour from refusal cues and degenerate text; faithfulness by aligning
each answer sentence with its best-matching context sentence (content words, numbers, polarity);
correctness and completeness from the QA's facts and qualifiers.

The language of an item is the language of its question and reference answer (language.detect); word
matching, numbers, polarity and sentences follow it, so Chinese answers are judged on Chinese units.

Two strictness settings share the same rules with different thresholds, so their disagreement measures
how much the pairs depend on judging choices rather than on the answers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline import language
from pipeline import matching as m
from pipeline.judges.base import JudgeItem, as_judged, cap_cut_off, item_language, unusable
from pipeline.records import Label


@dataclass(frozen=True)
class Strictness:
    # Content words of a claim left after removing refusal clauses for the answer to count as attempted.
    attempt_min_words: int
    # Share of a claim's content words its aligned context sentence must contain.
    support_recall: float
    # Numbers of a claim must appear in the aligned sentence (True) or anywhere in the context (False).
    numbers_in_sentence: bool
    # A claim whose negation differs from its aligned sentence is not supported (and may contradict it).
    check_polarity: bool
    # Share of a fact's words (all of its numbers always) the answer must contain.
    fact_recall: float
    # Share of facts that must be present for "correct" (a yes/no polarity fact is always required).
    facts_required: float
    # Share of a qualifier's content words that must appear, and share of qualifiers required.
    qualifier_recall: float
    qualifiers_required: float
    # Share of the reference answer's content words needed when a QA lists no facts.
    reference_recall: float
    # A sentence explaining a Yes/No answer is about the question when this share of its own words comes
    # from the question or the reference, or when it holds topic_coverage of the question's content
    # words other than names (and it names no other party).
    topic_overlap: float
    topic_coverage: float


STRICTNESS = {
    "strict": Strictness(
        attempt_min_words=2,
        support_recall=0.8,
        numbers_in_sentence=True,
        check_polarity=True,
        fact_recall=1.0,
        facts_required=1.0,
        qualifier_recall=0.75,
        qualifiers_required=1.0,
        reference_recall=0.5,
        topic_overlap=0.4,
        topic_coverage=0.6,
    ),
    "lenient": Strictness(
        attempt_min_words=4,
        support_recall=0.6,
        numbers_in_sentence=False,
        check_polarity=False,
        fact_recall=0.6,
        facts_required=0.5,
        qualifier_recall=0.5,
        qualifiers_required=0.5,
        reference_recall=0.3,
        topic_overlap=0.25,
        topic_coverage=0.4,
    ),
}
# A claim this close to a context sentence but with other numbers or the opposite polarity contradicts it.
CONTRADICTION_RECALL = 0.5
# A polarity fact ("Yes"/"No", "是"/"否") as the yes/no bottom line it requires.
POLARITY_FACTS = {"yes": "yes", "no": "no", "是": "yes", "是的": "yes", "否": "no", "不是": "no"}


def _polarity_fact(fact: str) -> str | None:
    return POLARITY_FACTS.get(fact.strip().lower().rstrip(".。"))


@dataclass
class _Sentence:
    text: str
    # m.haystack(): the units a claim's content words are looked for in (in English, its content words).
    words: set[str]
    numbers: set[str]
    negative: bool


# Where a clause ends inside a sentence (a quote's negation is read on its own clause).
# An attributed quote (第[1]段写明：“…”, Passage [1] states: "…"): a short attribution ending in a colon,
# then one quotation. The claim is what stands inside the quotation marks.
_ATTRIBUTED = re.compile(r"^[^“”\"]{1,24}[:：]\s*[“\"]([^“”\"]{4,})[”\"]\W*$")
_CLAUSE_END = {"zh": "，；：", "en": ",;:"}


def _quoted_part(body: str, source: _Sentence, lang: str) -> str | None:
    """The clause(s) of the source sentence that a claim quotes word for word (lower-cased), or None when
    the claim is not a verbatim quote of it."""
    # Lower case: an answer capitalises the clause it starts with.
    quote, text = body.strip().rstrip("。.!！?？;；,，").lower(), source.text.lower()
    at = text.find(quote) if quote else -1
    if at < 0:
        return None
    ends = _CLAUSE_END.get(lang, _CLAUSE_END["en"])
    start = max(text.rfind(c, 0, at) for c in ends) + 1
    after = [i for i in (text.find(c, at + len(quote)) for c in ends) if i >= 0]
    return text[start : min(after, default=len(text))]


def _source_negative(body: str, source: _Sentence, lang: str) -> bool:
    """Whether the part of the source sentence a claim rests on is negative: the clause(s) holding the
    claim when it quotes the sentence word for word, else the whole sentence. A clause-level quote from a
    long sentence ("王某仅于2017年6月30日归还本金50,000元" out of a sentence whose other clause says 未归还)
    is not contradicted by a negation that belongs to another clause; a quote that drops a negation of
    its own clause still is."""
    part = _quoted_part(body, source, lang)
    return source.negative if part is None else m.is_negative(part, lang)


def _answering_part(body: str, source: _Sentence, question: str, lang: str) -> _Sentence:
    """What a Yes/No with a quote is checked against: the quoted clause(s) when they are about the
    question ("Yes. The Tribunal granted relief against forfeiture." out of "Although the tenant did not
    pay, the Tribunal granted relief against forfeiture."), else the whole source sentence (a quote of a
    side clause does not show what the sentence answers)."""
    part = _quoted_part(body, source, lang)
    if part is None or part == source.text.lower():
        return source
    clause = _Sentence(part, m.haystack(part, lang), m.numbers(part, lang), m.is_negative(part, lang))
    return clause if _on_topic(question, clause, lang) else source


class RuleJudge:
    def __init__(self, strictness: str):
        if strictness not in STRICTNESS:
            raise ValueError(f"unknown rule judge {strictness!r} (known: {', '.join(STRICTNESS)})")
        self.name = f"rule:{strictness}"
        self.cfg = STRICTNESS[strictness]
        self._passages: dict[tuple[str, str], list[_Sentence]] = {}

    def judge(self, items: Sequence[JudgeItem]) -> list[Label]:
        return [self.judge_one(item) for item in items]

    def judge_one(self, item: JudgeItem) -> Label:
        judged = as_judged(item)
        if judged is None:
            return unusable(item, self.name)
        return cap_cut_off(item, self._judge_finished(judged))

    def _judge_finished(self, item: JudgeItem) -> Label:
        text, lang = item.candidate.text, item_language(item.qa)
        behaviour = self.behaviour(text, item.refusal, lang)
        label = Label(item.candidate.id, self.name, behaviour, None, None, None, "ok")
        if behaviour != "attempted":
            return label
        answer = m.non_refusal_text(text, item.refusal, lang)
        label.faithfulness = self.faithfulness(answer, item)
        label.correctness = self.correctness(answer, item)
        label.completeness = self.completeness(answer, item)
        return label

    # ----------------------------------------------------------------------------------- stage one
    def behaviour(self, text: str, refusal: str, lang: str | None = None) -> str:
        # Unreadable or looping text is judged in the answer's own script.
        if m.degenerate(text):
            return "unusable"
        if not m.has_refusal(text, refusal, lang):
            return "attempted"
        rest = m.non_refusal_text(text, refusal, lang)
        # A hedge followed by an answer is still an attempt; a bare Yes/No after a hedge counts too.
        if m.lead_polarity(rest, lang) or len(m.content_words(rest, lang)) >= self.cfg.attempt_min_words:
            return "attempted"
        return "abstained"

    # ------------------------------------------------------------------------------- faithfulness
    def faithfulness(self, answer: str, item: JudgeItem) -> str:
        lang = item_language(item.qa)
        context = self._sentences(item, lang)
        claims = [c for c in (m.strip_citations(s).strip() for s in language.sentences(answer, lang)) if c]
        # "No. <sentence>" is one main claim: the bottom line and the sentence that carries it.
        # Framing sentences in between ("Reading the passages, ...") are skipped.
        if (
            len(claims) > 1
            and m.lead_polarity(claims[0], lang)
            and not m.content_words(m.strip_lead(claims[0], lang), lang)
        ):
            k = next((i for i in range(1, len(claims)) if not m.is_framing(claims[i], lang)), None)
            if k is not None:
                joined = (
                    f"{claims[0].rstrip('。！.!')}，{claims[k]}"
                    if lang == "zh"
                    else f"{claims[0].rstrip('.!')}, {claims[k]}"
                )
                claims = [joined, *claims[1:k], *claims[k + 1 :]]
        verdicts = [v for v in (self._claim(c, context, item, lang) for c in claims) if v is not None]
        if not verdicts:
            return "unsupported"
        main, rest = verdicts[0], verdicts[1:]
        if main != "supported":
            return main
        return "fully_supported" if all(v == "supported" for v in rest) else "partially_supported"

    def _claim(self, claim: str, context: list[_Sentence], item: JudgeItem, lang: str) -> str | None:
        """supported | unsupported | contradicted for one answer sentence; None for pure framing."""
        lead = m.lead_polarity(claim, lang)
        body = m.strip_lead(claim, lang) if lead else claim
        attributed = _ATTRIBUTED.match(body.strip())
        if attributed:
            body = attributed.group(1)
        words, nums = m.content_words(body, lang), m.numbers(body, lang)
        question = item.qa.question
        if m.is_framing(body, lang):
            if lead is None:
                return None
            # A bare "Yes."/"No." claims the question's bottom line: check it where the question points.
            best, _ = _align(m.content_words(question, lang), context)
            if best is None:
                return "unsupported"
            return "supported" if lead == _bottom_line(question, best, lang) else "contradicted"
        best, recall = _align(words, context, frozenset(nums))
        if best is None:
            return "unsupported"
        polarity_ok = not self.cfg.check_polarity or (
            m.is_negative(body, lang) == _source_negative(body, best, lang)
            # The Yes/No must be the answer the supporting sentence (or the clause quoted from it) gives
            # to the question, when that sentence is about the question at all.
            and (lead is None or _gives(lead, question, _answering_part(body, best, question, lang), lang))
        )
        in_sentence = nums <= best.numbers
        numbers_ok = in_sentence if self.cfg.numbers_in_sentence else nums <= _all_numbers(context)
        if recall >= self.cfg.support_recall and numbers_ok and polarity_ok:
            return "supported"
        if recall >= CONTRADICTION_RECALL and (
            (nums and best.numbers and not in_sentence) or not polarity_ok
        ):
            return "contradicted"
        return "unsupported"

    def _sentences(self, item: JudgeItem, lang: str) -> list[_Sentence]:
        # The same passages recur across many contexts: their sentences are analysed once per text.
        out: list[_Sentence] = []
        for p in item.passages:
            key = (p.id, p.text, lang)
            if key not in self._passages:
                self._passages[key] = [
                    _Sentence(s, m.haystack(s, lang), m.numbers(s, lang), m.is_negative(s, lang))
                    for s in language.sentences(p.text, lang)
                ]
            out.extend(self._passages[key])
        return out

    # ------------------------------------------------------------------- correctness, completeness
    def correctness(self, answer: str, item: JudgeItem) -> str:
        lang, qa = item_language(item.qa), item.qa
        facts = [f for f in qa.facts if f.strip()]
        if not facts:
            reference = m.content_words(qa.answer, lang)
            recall = len(reference & m.haystack(answer, lang)) / max(1, len(reference))
            return "correct" if recall >= self.cfg.reference_recall else "incorrect"
        polarity_facts = [f for f in facts if _polarity_fact(f)]
        bottom_line = m.lead_polarity(answer, lang) or _bottom_line(
            qa.question, _Sentence(answer, set(), m.numbers(answer, lang), m.is_negative(answer, lang)), lang
        )
        if any(bottom_line != _polarity_fact(f) for f in polarity_facts):
            return "incorrect"
        if polarity_facts and not self._about_question(answer, item, lang):
            # A right Yes/No attached to a sentence about another matter (another party, another order)
            # does not give the reference's bottom line.
            return "incorrect"
        others = [f for f in facts if f not in polarity_facts]
        if not others:
            return "correct"
        present = sum(self.fact_present(f, answer, lang) for f in others)
        needed = math.ceil(self.cfg.facts_required * len(others) - 1e-9)
        return "correct" if present >= max(1, needed) else "incorrect"

    def _about_question(self, answer: str, item: JudgeItem, lang: str) -> bool:
        """Whether a Yes/No answer's explanation is about what was asked, so that its Yes/No is the
        bottom line of the question and not of another matter. Either the explanation as a whole
        restates the question or the reference, or the sentence that carries the bottom line (the first
        after the Yes/No that is not framing) does so on its own or covers what the question asks about,
        naming no other party. What follows that sentence (a quoted finding brings the rest of its
        sentence along; a verbose answer appends another) is faithfulness's to judge, not correctness's."""
        question = item.qa.question
        about = m.haystack(item.qa.answer, lang) | m.haystack(question, lang)
        body = m.strip_lead(answer, lang)
        words = m.content_words(body, lang)
        if not words or _share(words, about) >= self.cfg.topic_overlap:
            return True
        claim = next((s for s in language.sentences(body, lang) if not m.is_framing(s, lang)), "")
        words = m.content_words(claim, lang)
        if not words:
            return False
        asked_names = m.names(question, lang, skip_first=True)
        # What the question asks about, names aside: a finding about the same person on another matter
        # shares the names and little else.
        asked = m.content_words(question, lang) - set().union(*asked_names)
        covers = bool(asked) and _share(asked, m.haystack(claim, lang)) >= self.cfg.topic_coverage - 1e-9
        restates = _share(words, about) >= self.cfg.topic_overlap
        return (restates or covers) and _same_parties(claim, asked_names, lang)

    def fact_present(self, fact: str, answer: str, lang: str | None = None) -> bool:
        fact_numbers = m.numbers(fact, lang)
        if not fact_numbers <= m.numbers(answer, lang):
            return False
        fact_words = m.fact_words(fact, lang)
        if not fact_words:
            # Only numbers (and currency): they matched. Nothing comparable at all: the fact's text
            # itself must appear (a fact is never present just because it has no word we can read).
            return bool(fact_numbers) or m.squashed(fact) in m.squashed(answer)
        answer_words = m.answer_words(answer, lang)
        return len(fact_words & answer_words) / len(fact_words) >= self.cfg.fact_recall - 1e-9

    def completeness(self, answer: str, item: JudgeItem) -> str:
        lang = item_language(item.qa)
        qualifiers = [q for q in item.qa.qualifiers if m.content_words(q, lang)]
        if not qualifiers:
            return "complete"
        answer_words = m.haystack(answer, lang)
        present = 0
        for qualifier in qualifiers:
            wanted = m.content_words(qualifier, lang)
            if len(wanted & answer_words) / len(wanted) >= self.cfg.qualifier_recall - 1e-9:
                present += 1
        needed = max(1, math.ceil(self.cfg.qualifiers_required * len(qualifiers) - 1e-9))
        return "complete" if present >= needed else "incomplete"


def _align(
    words: set[str], context: list[_Sentence], nums: frozenset[str] = frozenset()
) -> tuple[_Sentence | None, float]:
    """The context sentence sharing most of the claim's words and numbers (ties: the higher Jaccard of
    words), with the share of the claim's words it contains. Numbers only rank: among near-identical
    sentences of different cases, the one with the claim's figures is the one it was taken from."""
    if not words or not context:
        return None, 0.0
    best, best_key, best_recall = None, (-1.0, -1.0), 0.0
    for sentence in context:
        shared = len(words & sentence.words)
        if not shared:
            continue
        recall = shared / len(words)
        key = (recall + len(nums & sentence.numbers) / (len(nums) or 1), shared / len(words | sentence.words))
        if key > best_key:
            best, best_key, best_recall = sentence, key, recall
    return best, best_recall


def _share(words: set[str], other: set[str]) -> float:
    return len(words & other) / len(words)


def _same_parties(sentence: str, asked: list[frozenset[str]], lang: str) -> bool:
    """False when the sentence is about another party than the question names: it names someone who
    shares a name word with a party of the question (Au Hiu-tung for Yeung Hiu-tung; in Chinese any
    X某 for 孙某) but names none of the question's parties in full."""
    if not asked:
        return True
    named = m.names(sentence, lang)
    shared = set().union(*asked)
    if not any(n & shared for n in named):
        return True
    return any(a <= n for a in asked for n in named)


def _gives(lead: str, question: str, statement: _Sentence, lang: str) -> bool:
    """Whether `statement` answers `question` with `lead`, or is not about the question at all."""
    return not _on_topic(question, statement, lang) or lead == _bottom_line(question, statement, lang)


def _on_topic(question: str, sentence: _Sentence, lang: str) -> bool:
    words = m.content_words(question, lang)
    return len(words & sentence.words) >= max(1, round(0.3 * len(words)))


def _bottom_line(question: str, statement: _Sentence, lang: str) -> str:
    """The yes/no answer a statement gives to a question: yes when both are negated or neither is, and the
    reverse when the question asks about a figure the statement does not give but gives others instead
    ("违法所得是否为2200000？" against "违法所得为1200000": no; "Was the fine HK$5,000?" against "a fine of
    HK$8,000": no)."""
    same = m.is_negative(question, lang) == statement.negative
    asked = m.numbers(question, lang)
    if asked and statement.numbers and asked.isdisjoint(statement.numbers):
        same = not same
    return "yes" if same else "no"


def _all_numbers(context: list[_Sentence]) -> set[str]:
    return set().union(*(s.numbers for s in context)) if context else set()
