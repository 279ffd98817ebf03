"""The rule judge of docs/method.md §7: behaviour from refusal cues, degenerate text and whether the reply
states anything of the kind asked; faithfulness by aligning each answer sentence with its best-matching
context sentence about the party asked (content words, numbers, polarity); correctness and completeness
from the QA's facts and qualifiers, read by the conventions of docs/method.md §4.

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
from functools import lru_cache

from pipeline import language
from pipeline import matching as m
from pipeline.judges import evidence as ev
from pipeline.judges import position
from pipeline.judges.base import JudgeItem, as_judged, cap_cut_off, cut_off, item_language, unusable
from pipeline.judges.evidence import ContextView, PassageView, Sentence
from pipeline.judges.position import is_yesno, polarity_fact
from pipeline.language import zh_forms
from pipeline.matching import counsel, cues_zh, rulings, statements, values
from pipeline.matching.anchors import has_anchor
from pipeline.matching.parties import (
    Party,
    agent_of_another_party,
    agent_of_another_role,
    agent_of_asked_party,
    asks_agent,
    cases,
    cited_cases,
    first_role,
    has_role,
    names_any,
    ordinal_roles,
    parties,
    role_holder,
    roles_given,
    roles_in_title,
    roles_of,
    topic_words,
    without_cases,
    without_parties,
    without_titles,
    zh_entry,
    zh_entry_agents,
    zh_numbered_in,
    zh_numbered_roles,
    zh_ordinal_party,
    zh_roles,
    zh_title_role,
)
from pipeline.records import QA, Label


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
    # The context sentence that states the item asked is the one holding this share of the reference's
    # holding words (its names, figures, qualifiers and reasons aside).
    evidence_recall: float
    # The sentence a factual answer rests on must hold this share of those words (or be that sentence)
    # to be about the item asked: an accurate quote of another item (the share volume for the profit)
    # supports nothing of what was asked.
    item_recall: float
    # A Yes/No explained by the question restated ("Yes. X will have to give up the home.") claims only
    # the bottom line: this share of its words comes from the question.
    restate_share: float
    # With no statement of its own in the reference (a bare "是"), the sentence answering a yes/no
    # question is the one holding this share of what the question asks about (names and roles aside).
    question_recall: float


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
        evidence_recall=0.5,
        item_recall=0.4,
        restate_share=0.8,
        question_recall=0.3,
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
        evidence_recall=0.4,
        item_recall=0.3,
        restate_share=0.7,
        question_recall=0.25,
    ),
}
# A claim this close to a context sentence but with other numbers or the opposite polarity contradicts it.
CONTRADICTION_RECALL = 0.5
# Share of repeated word 4-grams above which a cut-off reply is a loop (matching.repeats_itself).
LOOPING = 0.5
# An attributed quote (第[1]段写明：“…”, Passage [1] states: "…"): a short attribution ending in a colon,
# then one quotation. The claim is what stands inside the quotation marks; a quotation cut off at
# max_new_tokens after its stop lost only its closing mark to the unfinished tail (第[6]段写明：“并处罚金…。).
_ATTRIBUTED = re.compile(r"^[^“”\"]{1,24}[:：]\s*[“\"]([^“”\"]{4,}?)(?:[”\"]\W*)?$")
# A qualifier that gives a reason or a purpose does not limit the holding (docs/method.md §4): leaving
# it out leaves an answer complete. ("as taxed by the Registrar" sets the extent of a costs order: kept.)
_REASON_QUALIFIER = {
    "en": re.compile(
        r"^\W*(?:and\s+)?(?:because|since|given|in\s+view\s+of|on\s+the\s+grounds?\s+that|owing\s+to|due\s+to"
        r"|for\s+the\s+(?:cost|costs|purpose|reason)s?\s+of|before\s+the\s+discount)\b",
        re.I,
    ),
    "zh": re.compile(r"^\W*(?:因为|由于|鉴于|因其|考虑到|基于|因)"),
}


class RuleJudge:
    def __init__(self, strictness: str):
        if strictness not in STRICTNESS:
            raise ValueError(f"unknown rule judge {strictness!r} (known: {', '.join(STRICTNESS)})")
        self.name = f"rule:{strictness}"
        self.cfg = STRICTNESS[strictness]
        self._passages: dict[tuple[str, str, str], PassageView] = {}

    def judge(self, items: Sequence[JudgeItem]) -> list[Label]:
        return [self.judge_one(item) for item in items]

    def judge_one(self, item: JudgeItem) -> Label:
        judged = as_judged(item)
        # A reply cut off while restating its own phrases is a generator caught in a loop.
        if judged is None or (cut_off(item) and m.repeats_itself(item.candidate.text) >= LOOPING):
            return unusable(item, self.name)
        return cap_cut_off(item, self._judge_finished(judged))

    def _judge_finished(self, item: JudgeItem) -> Label:
        text, lang = item.candidate.text, item_language(item.qa)
        behaviour = self.behaviour(text, item.refusal, lang)
        answer = m.non_refusal_text(text, item.refusal, lang)
        if behaviour != "unusable" and m.has_refusal(text, item.refusal, lang) and _only_pasted_refusals(text, item, lang):
            # A passage's own words are no refusal of the reply's: "鉴于原告的实际损失……均难以确定,……酌定被告
            # 赔偿……12,000元" is the court fixing a sum, pasted.
            behaviour, answer = "attempted", text
        # A refusal beside a value of the kind asked ("63,500元。" and the refusal sentence) still answers.
        if behaviour == "abstained" and answer.strip() and position.states_value(answer, item, lang):
            behaviour = "attempted"
        if behaviour == "attempted" and not self.takes_position(answer, item):
            behaviour = "unusable"
        label = Label(item.candidate.id, self.name, behaviour, None, None, None, "ok")
        if behaviour != "attempted":
            return label
        label.faithfulness = self.faithfulness(answer, item)
        label.correctness = self.correctness(answer, item)
        # An answer with the wrong bottom line is never complete.
        label.completeness = self.completeness(answer, item) if label.correctness == "correct" else "incomplete"
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

    def takes_position(self, answer: str, item: JudgeItem) -> bool:
        return position.takes_position(answer, item, item_language(item.qa))

    # ------------------------------------------------------------------------------- faithfulness
    def faithfulness(self, answer: str, item: JudgeItem) -> str:
        lang = item_language(item.qa)
        view = self._view(item, lang)
        verdicts: list[str] = []
        filler = 0
        decision: str | None = None
        for claim in position.answer_first(self._claims(answer, lang), item, lang):
            body, pieces = statements.split_filler(claim, lang)
            filler += len(pieces)
            main = not verdicts
            verdict = self._claim(body, view, item, lang, main=main) if body.strip() else None
            if verdict in ("unsupported", "contradicted") and not main and decision is not None:
                verdict = self._of_same_decision(body, view, decision, item, lang) or verdict
            if verdict == "supported" and main and lang != "zh" and counsel.asks_representation(item.qa.question):
                # Another party's counsel ("..., appeared for the plaintiff" to who appeared for the defendant)
                # offered for the one asked is that party's answer, not the one asked's. (Listed beside the
                # counsel asked, it is a claim about another person of the judgment, and rests on its passage.)
                verdict = self._counsel_of_another(body, view, item) or verdict
            if (verdict == "supported" and main and lang == "zh" and agent_of_another_role(item.qa.question, body)
                    and not _names_reference(body, item)):
                # Another role's agent, named as such, offered for the one asked: that role's answer.
                verdict = self._given_in_asked_case(view, item)
            if verdict == "supported" and not main and self._agent_of_another(body, view, item, lang):
                # Another party's agent listed beside the agent asked is offered for the same item ("委托诉讼
                # 代理人:董x6" of the defendant beside the plaintiff's 田某): it supports nothing of it.
                verdict = "unsupported"
            if verdict is not None:
                if main and verdict == "supported":
                    decision = self._decision_of(body, view, lang)
                verdicts.append(verdict)
        # Filler asserts what no passage says: a secondary claim that is not supported.
        verdicts += ["unsupported"] * filler
        if not verdicts:
            return "unsupported"
        main, rest = verdicts[0], verdicts[1:]
        if main != "supported":
            return main
        return "fully_supported" if all(v == "supported" for v in rest) else "partially_supported"

    def _counsel_of_another(self, body: str, view: ContextView, item: JudgeItem) -> str | None:
        """An English claim naming the counsel of another party than the one whose counsel is asked:
        contradicted where a passage of the case asked names the reference's counsel, unsupported where
        none does; None when the claim names no counsel of another party."""
        whom = counsel.counsel_for(body)
        asked = counsel.asked_for(item.qa.question)
        if whom is None or asked is None or _names_reference(body, item):
            return None
        if not counsel.for_another_party(whom, asked, [p.heading for p in item.passages]):
            return None
        return self._given_in_asked_case(view, item)

    def _given_in_asked_case(self, view: ContextView, item: JudgeItem) -> str:
        """The verdict on another party's answer offered for the one asked: contradicted where a passage that
        may be of the case asked states the reference word for word, else unsupported."""
        given = any(
            m.squashed(fact) in m.squashed(p.text)
            for fact in item.qa.facts
            for i, p in enumerate(item.passages)
            if view.of_asked_case(i) is not False
        )
        return "contradicted" if given else "unsupported"

    def _agent_of_another(self, body: str, view: ContextView, item: JudgeItem, lang: str) -> bool:
        """Whether a Chinese claim is a header's agent entry under another party than the one whose agent
        the question asks for."""
        if lang != "zh" or not asks_agent(item.qa.question):
            return False
        best, _ = ev.align(m.content_words(body, lang), view.sentences)
        return best is not None and agent_of_another_party(item.qa.question, best.text, item.passages[best.passage].text)

    def _decision_of(self, body: str, view: ContextView, lang: str) -> str | None:
        """The decision whose passage a supported main claim rests on."""
        words = m.content_words(m.strip_lead(body, lang), lang)
        best, _ = ev.align(words, view.pool(view.asked or parties(body, lang)))
        if best is None:
            return None
        return view.passages[best.passage].decision or None

    def _of_same_decision(
        self, body: str, view: ContextView, decision: str, item: JudgeItem, lang: str
    ) -> str | None:
        """A secondary claim about someone the question does not ask about ("被告人蒋0到案后如实供述" beside
        what the witness 沈1 was) is about that person: "supported" when a sentence naming them in the
        decision the main claim rests on supports it, and a claim naming no one when a sentence of that
        decision naming no one does; None otherwise (the claim is read as before)."""
        # A sentence of another case giving a value of the kind asked ("As stated in Fei Oi-lam v ..., $50,000
        # was awarded" beside the $70,000 asked) is that case's figure offered as evidence, not a person of
        # the judgment: it supports nothing of what was asked.
        if self._cites_another(body, view) and values.kinds(body, lang) & _key_kinds(item.qa, lang):
            return None
        named = parties(body, lang)
        # (A party the case title names is asked about, but "The first respondent, Mr Ho Ka-lun, ... appeared
        # in person" beside the second respondent's solicitors asked is about the other one.)
        if named and names_any(named, view.asked) and not self._of_another(body, view):
            return None
        # The other accused of the same case ("The first defendant is sentenced to 3 years' imprisonment"
        # beside the second's disqualification asked) is named by role.
        roles = ordinal_roles(body) - view.asked_roles if view.asked_roles else frozenset()
        # A claim naming no one (the rule the citing court states beside the authority asked about) rests
        # on any sentence of that decision naming no one.
        pool = [s for s in view.sentences
                if view.passages[s.passage].decision == decision
                and (bool(ordinal_roles(s.text) & roles) if roles
                     else names_any(s.parties, named) if named else not s.parties)]
        verdict, _ = self._support(body, pool, lang, None, "", statements.reports_submission(body, lang))
        return "supported" if verdict == "supported" else None

    def _claims(self, answer: str, lang: str) -> list[str]:
        """The answer's sentences; "No. <sentence>" is one main claim: the bottom line and the sentence
        that carries it. Framing sentences in between ("Reading the passages, ...") are skipped."""
        claims = [c for c in (m.strip_citations(s).strip() for s in ev.sentences(answer, lang)) if c]
        if (
            len(claims) > 1
            and m.lead_polarity(claims[0], lang)
            and not m.content_words(m.strip_lead(claims[0], lang), lang)
        ):
            k = next((i for i in range(1, len(claims)) if not m.is_framing(claims[i], lang)), None)
            if k is not None:
                # A sentence the passage runs on past a semicolon ("邱0……系主犯；被告人韦x5……系从犯。") explains
                # the Yes/No whole.
                end = k + 1
                while end < len(claims) and claims[end - 1].rstrip().endswith(("；", ";")):
                    end += 1
                explained = "".join(claims[k:end])
                joined = (
                    f"{claims[0].rstrip('。！.!')}，{explained}"
                    if lang == "zh"
                    else f"{claims[0].rstrip('.!')}, {explained}"
                )
                claims = [joined, *claims[1:k], *claims[end:]]
        return claims

    def _claim(self, claim: str, view: ContextView, item: JudgeItem, lang: str, main: bool) -> str | None:
        """supported | unsupported | contradicted for one answer sentence; None for pure framing. Every
        claim is read as about the parties the question asks about (docs/method.md §4), so only sentences
        about them can support it."""
        lead = m.lead_polarity(claim, lang)
        body = m.strip_lead(claim, lang) if lead else claim
        attributed = _ATTRIBUTED.match(body.strip())
        if attributed:
            body = attributed.group(1)
        subjects = view.asked or parties(body, lang)
        pool = view.pool(subjects)
        if subjects and not view.asked:
            # A question naming no one: a claim naming its own party rests only on sentences naming that
            # party or no one ("委托诉讼代理人:冯x4" is not the case's "委托诉讼代理人:谢0" with a name swapped).
            pool = [s for s in pool if not s.parties or names_any(s.parties, subjects)]
        # A submission answers a question about submissions; read as the answer to any other question it
        # is not the court's finding. A secondary sentence may report one as such.
        reported = statements.reports_submission(item.qa.question if main else body, lang)
        if lead is not None and main:
            return self._yes_no(lead, body, view, pool, item, lang, reported)
        if m.is_framing(body, lang) and not (main and _one_word_answer(body, lang)):
            return None
        about = None
        if main and not is_yesno(item.qa) and not m.content_words(body, lang) and m.numbers(body, lang):
            # A bare value ("36,800元。") is read as the answer to the question: it claims what is asked.
            question = zh_forms.focus(item.qa.question) if lang == "zh" else item.qa.question
            about = frozenset(topic_words(question, lang))
        verdict, best = self._support(body, pool, lang, lead, item.qa.question, reported, about)
        if main and not is_yesno(item.qa):
            verdict = self._as_answer(verdict, body, best, view, pool, item, lang)
        elif main and self._of_another(body, view) and (verdict != "supported" or self._cites_another(body, view)):
            # Another accused's finding offered to a yes/no question on this one ("The first defendant ... has
            # three previous convictions" to whether the second had any) gives its bottom line for the party
            # asked: contradicted when the sentence about that party answers the other way.
            _, line = self._answer_in_context(item, view, pool, lang)
            if line is not None and line != ev.bottom_line(item.qa.question, ev.sentence(body, lang), lang):
                return "contradicted"
            # A cited case's holding, quoted from the citing judgment ("In Shek Yuen-ting v Director of
            # Immigration the court quashed a refusal"), says nothing of the case asked.
            if verdict == "supported":
                return "unsupported"
        return verdict

    def _support(
        self,
        body: str,
        pool: list[Sentence],
        lang: str,
        lead: str | None,
        question: str,
        reported: bool,
        about: frozenset[str] | None = None,
    ) -> tuple[str, Sentence | None]:
        """The verdict of the sentence of `pool` a claim aligns with, and that sentence. Issue statements
        and submissions count only where `reported` (the claim reports one); `about`: the words of what a
        bare value claims (the question's)."""
        statements_ok = pool if reported else [s for s in pool if not s.statement]
        return self._support_in(body, statements_ok, lang, lead, question, about)

    def _support_in(
        self,
        body: str,
        pool: list[Sentence],
        lang: str,
        lead: str | None,
        question: str,
        about: frozenset[str] | None = None,
    ) -> tuple[str, Sentence | None]:
        words, nums = m.content_words(body, lang) | (about or set()), m.numbers(body, lang)
        best, recall = ev.align(words, pool, frozenset(nums))
        if best is None:
            return "unsupported", None
        polarity_ok = not self.cfg.check_polarity or (
            m.is_negative(ev.holding(body, lang), lang) == ev.source_negative(body, best, lang)
            # The Yes/No must be the answer the supporting sentence (or the clause quoted from it) gives
            # to the question, when that sentence is about the question at all.
            and (lead is None or _gives(lead, question, ev.answering_part(body, best, question, lang), lang))
        )
        in_sentence = nums <= best.numbers
        numbers_ok = in_sentence if self.cfg.numbers_in_sentence else nums <= _all_numbers(pool)
        if recall >= self.cfg.support_recall and numbers_ok and polarity_ok:
            return "supported", best
        if recall >= CONTRADICTION_RECALL and ((nums and best.numbers and not in_sentence) or not polarity_ok):
            return "contradicted", best
        return "unsupported", best

    def _as_answer(
        self,
        verdict: str,
        body: str,
        best: Sentence | None,
        view: ContextView,
        pool: list[Sentence],
        item: JudgeItem,
        lang: str,
    ) -> str:
        """The main claim of a factual answer read as its answer to the question: the figure it offers is
        the item asked. The passage about the party asked that states the item with another value
        contradicts it; a quote of another item (the share volume for the profit, the rent for the
        arrears) supports nothing of what was asked."""
        named = parties(body, lang)
        if lang == "zh" and named and view.asked and asks_agent(item.qa.question) and position.asks_who(item.qa.question, lang):
            own = [a for p in item.passages for party in view.asked for a in zh_entry_agents(p.text, party)]
            others = [a for p in item.passages for party in parties(p.text, lang) if not names_any([party], view.asked)
                      for a in zh_entry_agents(p.text, party)]
            # What the whole reply names (the 辩护人 sentence after the entry's "被告人吕x3，男，……").
            offered = [n for n in parties(item.candidate.text, lang) if not names_any([n], view.asked)]
            if own and (not offered or not names_any(offered, own) and names_any(offered, others)):
                # The party asked offered as its own agent ("被告人樊某。" for the 第一被告人's 辩护人), or another
                # party's agent offered for it (辩护人方x4 of 吕x3 for 施2's), where its own header entry names
                # the agent (辩护人龙x6): another value of the item asked.
                return "contradicted"
        stating = self._stating(item, view, pool, lang)
        key = _key_kinds(item.qa, lang)
        if key and values.kinds(body, lang) and not values.kinds(body, lang) & key:
            # It offers a value, of another kind than asked (a prison term for a fine): another item.
            return "unsupported"
        if not key and values.kinds(body, lang) and not parties(body, lang) and (
            any(parties(f, lang) for f in item.qa.facts)
            or position.asks_who(item.qa.question, lang) and not has_role(body, lang)
        ):
            # A figure where a party is asked for (the fee for "who bears the fee", a question the set marks
            # impossible included): another item.
            return "unsupported"
        claimed = values.values(body, key, lang) if key else m.numbers(body, lang)
        # A reference with no figure (a name: 方x6) is contradicted by no figure.
        if claimed and stating is not None and (key or m.numbers(" ".join(item.qa.facts), lang)):
            given = values.values(stating.text, key, lang) if key else stating.numbers
            if given and claimed.isdisjoint(given):
                # A passage's own sentence about the party asked, quoted word for word, says what that
                # passage says: its figure is another item's ("reduced to 4 years" on appeal beside the
                # trial's total of 4 years and 6 months asked), which supports nothing of what was asked.
                if self._quotes_own_party(body, view, item, lang):
                    return "unsupported"
                return "contradicted"
        wanted = values.values(" ".join(item.qa.facts), key, lang) if key else set()
        if wanted and claimed and claimed.isdisjoint(wanted) and (
            self._of_another(body, view) or self._names_another_on_item(body, view, item, lang)
        ):
            # Another accused's or another case's figure offered for the value asked (the cited KYC v LMF's
            # pool of $7,000,000, the second plaintiff's $418,750, A1's total for A2's) is that item's
            # answer, contradicted by a sentence of the party asked giving the reference's value, where
            # no sentence states the item in the reference's words or that one holds both accused's figures.
            if any(wanted <= values.values(s.text, key, lang) for s in pool
                   if not s.statement and view.named(s, view.asked) and not self._of_another(s.text, view)):
                return "contradicted"
        if wanted and claimed and claimed.isdisjoint(wanted) and self._of_another_entry(claimed, wanted, key, view, item, lang):
            # Another accused's header entry quoted for the one asked ("于二〇二二年三月九日被……取保候审" of 樊某 for
            # the 第二被告人 柏x4, whose own entry says 三月十日): that item's answer, contradicted by its own.
            return "contradicted"
        other = self._other_role_on_item(body, claimed, view, item, lang)
        if other is not None:
            return other
        if verdict == "supported" and lang != "zh" and _another_ground(body, item.candidate.text + item.tail, item.qa):
            # The ruling on another numbered ground ("The third ground also fails" to how the court dealt with
            # the irrationality ground, whose reference is "The second ground fails"), in a reply naming
            # not the ground asked: another item's.
            return "unsupported"
        if verdict == "supported" and best is not None and not self._on_item(best, stating, item, lang):
            return "unsupported"
        # The decision a claim rests on gives the reference's value and another item's beside it
        # ("车辆损失为42,600元,原告支付评估费2,000元", "a penalty of HK$4,648,000, twice the profit of
        # HK$2,324,000"; the price and the deposit before "The balance of $873,600 remains unpaid"): a claim
        # offering only the other quotes another item, which supports nothing of what was asked.
        if verdict == "supported" and best is not None and wanted and claimed and claimed.isdisjoint(wanted):
            decision = view.passages[best.passage].decision
            told = " ".join(p.text for p in item.passages if p.decision_id == decision) if decision else ""
            if wanted <= values.values(told or item.passages[best.passage].text, key, lang):
                return "unsupported"
        if (verdict == "supported" and best is not None and not item.qa.facts and claimed
                and position.sum_of_another_item(item.qa.question, best.text, lang)):
            # A question the set marks impossible asks a sum of something (月工资): a sentence giving sums of
            # other things only (竞业限制经济补偿3,000元) supports no answer to it.
            return "unsupported"
        if verdict == "supported" and best is not None and claimed and self._rivalled(best, claimed, key, view, pool, item, lang):
            return "unsupported"
        # A header's agent of another party than the role asked ("委托诉讼代理人：莫0" under the 被上诉人):
        # contradicted where the same header names the agent of the role asked, as another party's figure
        # for the very item asked is.
        if (verdict == "supported" and best is not None and lang == "zh"
                and agent_of_another_party(item.qa.question, best.text, item.passages[best.passage].text)):
            header = item.passages[best.passage].text
            own = [t.text for t in view.passages[best.passage].sentences]
            return "contradicted" if agent_of_asked_party(item.qa.question, own, header) else "unsupported"
        copied = _copied_from(body, item)
        asked_case = [view.of_asked_case(i) for i in range(len(item.passages))]
        if verdict == "contradicted" and copied is not None and (
            not item.qa.facts or asked_case[copied] or not any(asked_case)
        ):
            # A sentence of the case asked copied whole states what its passage states: offered for the item
            # asked it gives another item's value (the claim's 280,000元 for the whole compensation), which
            # supports nothing of what was asked; so does any passage's sentence to a question the set marks
            # impossible, or where no passage is of the case asked. (Another case's figure for the very item
            # asked, beside that case's own, is contradicted.)
            return "unsupported"
        return verdict

    def _of_another_entry(
        self, claimed: set[str], wanted: set[str], key: set[str], view: ContextView, item: JudgeItem, lang: str
    ) -> bool:
        """Whether a Chinese header states the claimed values outside the entry of the party asked and the
        wanted ones inside it (a header entry is about the party it opens with)."""
        if lang != "zh" or not view.asked:
            return False
        def found(text: str) -> set[str]:
            return values.values(text, key, lang) if key else m.numbers(text, lang)

        for passage in item.passages:
            for party in view.asked:
                span = zh_entry(passage.text, party)
                if span is None:
                    continue
                inside = found(passage.text[span[0] : span[1]])
                outside = found(passage.text[: span[0]] + "。" + passage.text[span[1] :])
                if wanted <= inside and not claimed & inside and claimed <= outside:
                    return True
        return False

    def _quotes_own_party(self, body: str, view: ContextView, item: JudgeItem, lang: str) -> bool:
        """Whether a claim is a passage's words, copied whole, naming a party asked (by name or by an ordinal
        role, "the first appellant"; a "him" may be anyone), from a passage the question's parties are named
        in."""
        own, named = m.squashed(body), parties(body, lang)
        if len(own) < 12 or (named and not names_any(named, view.asked)) or not (named or ordinal_roles(body)):
            return False
        if self._of_another(body, view):
            return False
        return any(own in m.squashed(p.text) and view.passages[i].parties and names_any(view.passages[i].parties, view.asked)
                   for i, p in enumerate(item.passages))

    def _names_another_on_item(self, body: str, view: ContextView, item: JudgeItem, lang: str) -> bool:
        """Whether a Chinese claim gives another named party's value of the item asked, in words of the
        question and at its scope ("潘x6出资300,000元" to 袁x2's contribution; not the estate "被继承人罗某某名下银行
        存款240,000元" for what an heir takes of it, which says nobody takes anything)."""
        named = parties(body, lang)
        return (lang == "zh" and bool(view.asked) and bool(named) and not names_any(named, view.asked)
                and position.speaks_of(body, item.qa.question, lang) and position.within_scope(body, item.qa, lang))

    def _other_role_on_item(
        self, body: str, claimed: set[str], view: ContextView, item: JudgeItem, lang: str
    ) -> str | None:
        """A Chinese claim giving the other side's figure for the item asked of a named party ("原告系1202室的
        所有权人" to which flat 龚某 owns, 龚某 the 被告 of "卢x9与龚某……纠纷"): the answer for that item,
        contradicted where the judgment gives the reference's figure, else unsupported; None when the claim
        is not of that shape."""
        if lang != "zh":
            return self._other_ordinal_on_item(body, claimed, view, item, lang)
        if not view.asked or parties(body, lang) or not claimed:
            return None
        said = zh_roles(body) & {"原告", "被告"}
        # A question naming that role itself ("原告起诉请求被告支付的货款") asks of both sides.
        if len(said) != 1 or said & zh_roles(item.qa.question):
            return None
        homes = [p for p in item.passages if zh_title_role(view.asked, p.heading)]
        role = zh_title_role(view.asked, homes[0].heading) if homes else None
        if role is None or role in said:
            return None
        wanted = m.numbers(" ".join(item.qa.facts), lang)
        if not wanted or claimed & wanted:
            return None
        told = " ".join(p.text for p in item.passages if p.decision_id == homes[0].decision_id)
        return "contradicted" if wanted <= m.numbers(told, lang) else "unsupported"

    def _other_ordinal_on_item(
        self, body: str, claimed: set[str], view: ContextView, item: JudgeItem, lang: str
    ) -> str | None:
        """An English claim naming only another accused by place ("A rucksack on D1's lap held ... 142.8
        grammes" to how much was in Liu Ka-ming's jacket, Liu the second of the title's three) gives that
        one's figure for the item asked: contradicted where a sentence on the accused asked (D2) gives the
        reference's figure; None otherwise."""
        said = ordinal_roles(body)
        if not said or not view.asked_roles or said & view.asked_roles or parties(body, lang) or not claimed:
            return None
        key = _key_kinds(item.qa, lang)
        wanted = values.values(" ".join(item.qa.facts), key, lang) if key else m.numbers(" ".join(item.qa.facts), lang)
        if not wanted or not claimed.isdisjoint(wanted):
            return None
        # The asked accused's place is read from their own case's title: only that case's passages use it.
        own = [t for t in view.sentences if ordinal_roles(t.text) & view.asked_roles and not t.statement
               and names_any(view.passages[t.passage].titled, view.asked)]
        given = (values.values(t.text, key, lang) if key else t.numbers for t in own)
        return "contradicted" if any(wanted <= g for g in given) else None

    def _cites_another(self, text: str, view: ContextView) -> bool:
        """Whether an English sentence reports another case than the one asked ("In X v Y the court held",
        "As stated in X v Y"; not "Applying X v Y, I adopt ...", the court asked applying it)."""
        cited = cited_cases(text)
        return bool(cited) and not cited & view.asked_cases and bool(_REPORTS_CASE.match(text))

    def _of_another(self, text: str, view: ContextView) -> bool:
        """Whether a text speaks of another party of the same standing than the question asks about: it
        cites another case than the one asked, or names another ordinal role ("the second plaintiff" to a
        question on the first). (A name is not enough: "被继承人罗某某名下银行存款240,000元" gives the estate, the
        whole of the share asked, not another heir's share.)"""
        cited = cited_cases(text)
        if cited and not cited & view.asked_cases:
            return True
        roles = ordinal_roles(text) if view.asked_roles else frozenset()
        return bool(roles) and not roles & view.asked_roles

    def _rivalled(
        self,
        best: Sentence,
        claimed: set[str],
        key: set[str],
        view: ContextView,
        pool: list[Sentence],
        item: JudgeItem,
        lang: str,
    ) -> bool:
        """Whether the passage a claim rests on names no party while another passage naming no one
        states the item asked with other values of the same kinds (another guideline case and range):
        then nothing says which of them is about the party asked (docs/method.md §4)."""
        if not view.asked or view.passages[best.passage].parties or view.named(best, view.asked):
            return False
        kinds = values.kinds(best.text, lang) & key if key else set()
        # A rival must fit the question as well as the passage the claim rests on: another offence's
        # guideline (criminal damage for a deception question) could not be the one meant.
        topic = topic_words(item.qa.question, lang)
        fit = ev.share(topic, best.words) if topic else 0.0
        for s in pool:
            if s.passage == best.passage or s.statement or view.passages[s.passage].parties:
                continue
            if topic and ev.share(topic, s.words) < fit - 1e-9:
                continue
            if not self._on_item(s, None, item, lang) or not kinds <= values.kinds(s.text, lang):
                continue
            given = values.values(s.text, key, lang) if key else s.numbers
            if given and given != claimed:
                return True
        return False

    def _yes_no(
        self,
        lead: str,
        body: str,
        view: ContextView,
        pool: list[Sentence],
        item: JudgeItem,
        lang: str,
        reported: bool,
    ) -> str:
        """A Yes/No read with the sentence that explains it. A passage about the party asked that answers
        the question the other way contradicts it; a bare Yes/No, or one explained by the question
        restated, is as supported as the answer the passages give; an explanation that does not answer
        the question (a true quote of another matter) does not support it."""
        question = item.qa.question
        stating, line = self._answer_in_context(item, view, pool, lang)
        if lang == "zh" and view.coaccused_only(parties(body, lang)):
            # Explained by another accused's order ("否。一、被告人严x4……判处有期徒刑八个月。" to whether the second
            # accused 薛某 was): that one's bottom line, contradicted where the one asked is answered the other
            # way, else no support for the one asked.
            other = ev.bottom_line(question, ev.sentence(body, lang), lang)
            return "contradicted" if line is not None and other != line and lead == other else "unsupported"
        words = m.content_words(body, lang)
        # A Yes/No explained by the submission asked restated ("No. Mr Lui's submission was that the plaintiff had
        # agreed ...") says no more than the question: as supported as the answer the passages give.
        restated = statements.is_issue_or_submission(body, lang) and position.speaks_of(body, question, lang)
        if m.is_framing(body, lang) or restated or ev.share(words, m.haystack(question, lang)) >= self.cfg.restate_share:
            if line is None:
                return "unsupported"
            return "supported" if lead == line else "contradicted"
        # The claim the court cut down is quoted with the court's answer to it: it supports that answer.
        cut = stating is not None and _cut_down(question, stating.text, lang)
        verdict, best = self._support(body, pool, lang, lead, question, reported or cut)
        if line is not None and line != lead:
            return "contradicted"
        if verdict == "contradicted" and best is not None and _pasted_parts(body, item.passages[best.passage].text):
            # The orders pasted out of their order, each word for word, with the passage's own answer: their
            # figures are the passage's, split over its sentences, which contradict nothing.
            verdict = "supported"
        if verdict != "supported" and stating is not None and _pastes_answer(body, stating, item):
            # The passage's answering sentence pasted with the words around it ("邱0……系主犯；被告人韦x5……
            # 系从犯" to whether 韦x5 was a principal): the words about another party of that judgment rest
            # on its passage too.
            return "supported"
        if verdict == "supported" and best is not None and not self._on_item(best, stating, item, lang):
            # The court's reason for its answer is on the item too: the sentence the answering one draws
            # its conclusion from ("……应先行清偿。故二公司对……承担连带清偿责任").
            if stating is None or not _reason_for(best, stating, view):
                return "unsupported"
        return verdict

    def _answer_in_context(
        self, item: JudgeItem, view: ContextView, pool: list[Sentence], lang: str
    ) -> tuple[Sentence | None, str | None]:
        """The sentence about the party asked that answers a yes/no question, and the Yes/No it gives:
        the one stating what the reference states, its Yes/No the reference's when it states the
        reference's figures or shares its negation (else the other); for a reference with no statement
        of its own, or a question about a figure, the sentence holding what the question asks about.
        (None, None) when the context holds no such sentence."""
        qa, question = item.qa, item.qa.question
        ref_line = next((polarity_fact(f) for f in qa.facts if polarity_fact(f)), None) or m.lead_polarity(
            qa.answer, lang
        )
        holding = _holding(qa, lang)
        if ref_line and len(_item_words(holding, lang)) >= 2 and not m.numbers(without_cases(question), lang):
            stating = self._stating(item, view, pool, lang)
            if stating is None:
                return None, None
            figures = m.numbers(holding, lang)
            same = (bool(figures) and figures <= stating.numbers) or m.is_negative(
                ev.holding(stating.text, lang), lang
            ) == m.is_negative(holding, lang)
            return stating, ref_line if same else _flip(ref_line)
        status = _status_answer(question, [s for s in pool if not s.statement and view.named(s, view.asked)], lang)
        if status is not None:
            return status
        # The court a Chinese question asks of (法院是否认定) is the 本院 of every finding: no topic.
        topic = topic_words(question, lang) - _THE_COURT
        # Asked whether the court upheld a claim, the sentence reporting the claim with the court's answer
        # to it ("原告主张按日万分之五计算违约金,过高,本院调整为按年利率6%计算") is the answer, submission or not.
        # A sentence naming only another accused of the title ("乔1主动投案并如实供述,系自首") answers nothing
        # of the one asked (詹某).
        candidates = [
            s for s in pool
            if (not s.statement or _cut_down(question, s.text, lang)) and not view.coaccused_only(s.parties)
        ]
        # A value the question names ranks the sentences sharing its words: the 十倍赔偿金 ruling, not the
        # 取证费用 one beside it, answers whether the 十倍赔偿 was upheld (a lot's number is no value).
        bare_question = without_cases(question)
        asked_values = values.values(bare_question, values.kinds(bare_question, lang), lang)
        # What is asked whether (the 自首 of 法院是否认定詹某构成自首) ranks first: a sentence holding only the
        # question's verb ("……足以认定") answers nothing of it.
        asked = _whether_words(question, lang)
        focus = [s for s in candidates if asked & s.words] if asked else []
        best, recall = ev.align(topic, focus or candidates, frozenset(asked_values))
        if best is None or recall < self.cfg.question_recall - 1e-9:
            return None, None
        if _cut_down(question, best.text, lang):
            return best, "no"
        # A sentence on the question's setting is no answer to what it asks whether: "被告于同年8月15日搬离"
        # says nothing of 是否有损坏, nor an accident's finding of 是否饮酒 (an impossible question stays so).
        if asked and not (asked | _negated(asked)) & best.words:
            return None, None
        return best, ev.bottom_line(question, ev.answering_clause(topic, best, lang), lang)

    def _stating(self, item: JudgeItem, view: ContextView, pool: list[Sentence], lang: str) -> Sentence | None:
        """The sentence of `pool` about the party asked that states what the reference states (its
        figures decide among sentences of one template), or None."""
        holding = _holding(item.qa, lang)
        words = _item_words(holding, lang)
        if len(words) < 2:
            return None
        named = [s for s in pool if view.named(s, view.asked) and not s.statement]
        if any(rulings.is_ruling_reference(f, lang) for f in item.qa.facts):
            # A bare ruling ("本院亦不予支持") is stated by the ruling on the submission asked: a sentence naming
            # what that submission is about, not another claim's ruling in the same words.
            claim = _claim_words(item.qa.question, lang)
            named = [s for s in named if claim & s.words]
        figures = m.numbers(holding, lang)
        best, _ = ev.align(words, named, frozenset(figures))
        if best is None or view.weighted_share(ev.roots(words, figures, lang), best) < self.cfg.evidence_recall - 1e-9:
            return None
        return best

    def _on_item(self, best: Sentence, stating: Sentence | None, item: JudgeItem, lang: str) -> bool:
        """Whether the sentence an answer rests on is about the item asked: the sentence stating what the
        reference states, or one holding enough of the reference's words (of the question's, names and
        roles aside, when the reference is only a value such as "50,000元")."""
        if stating is not None and best.text == stating.text:
            return True
        claim = _claim_words(item.qa.question, lang)
        if any(rulings.is_ruling_reference(f, lang) for f in item.qa.facts) and not claim & best.words:
            # A bare ruling ("本院亦不予支持") is on the item only where the sentence names what the submission
            # asked is about: the same words of another claim's ruling are another item's.
            return False
        if any(_same_ruling(f, best.text, lang) for f in item.qa.facts) and claim & best.words:
            # The court's ruling on the submission asked, in its other words ("The defendant's case that the
            # breakdowns were caused by overloading fails" for "That submission is rejected"): it names what
            # the submission asked is about, not only that a party asked something ("乌x1要求参与本次分配的请求,
            # 本院不予支持" is no ruling on 原告要求村委会承担连带责任).
            return True
        if not _names_provision(item.qa.question, item.passages[best.passage].text):
            # Asked what a provision provides ("under section 32P"), a passage that never names it speaks of
            # another (an award set aside under section 81 is no cap of section 32P).
            return False
        # A sentence about the party asked that gives the reference's own key figures (its 35 months, its
        # HK$50,000) is about the item, however differently the question words it ("sent to prison").
        key = _key_kinds(item.qa, lang)
        wanted = values.values(" ".join(item.qa.facts), key, lang) if key else set()
        if wanted and wanted <= values.values(best.text, key, lang):
            return True
        # So does one holding the bare number a reference is and nothing more (the 19 of "How old is Ng
        # Chun-hin?" in "now aged 19"), or every fact of the reference word for word ("appeared in person" to
        # how the first respondent was represented).
        bare = [f for f in item.qa.facts if not key and not m.fact_words(values.without_values(f, lang), lang)]
        if bare and all(m.numbers(f, lang) and m.numbers(f, lang) <= best.numbers for f in bare):
            return True
        facts = [m.squashed(f) for f in item.qa.facts if f.strip() and not polarity_fact(f)]
        if facts and all(len(f) >= 4 and f in m.squashed(best.text) for f in facts):
            return True
        words = _item_words(_holding(item.qa, lang), lang)
        # The case a question names is which case, not what it asks of it ("acquitted in HKSAR v Lok Wing-hei").
        topic = topic_words(without_titles(item.qa.question), lang)
        if len(words) < 2:
            words = topic
        # The reference may add what the passage leaves to its heading (the offence a sentence is for):
        # a sentence that covers what the question itself asks about is on the item too.
        if not words or ev.share(words, best.words) >= self.cfg.item_recall - 1e-9:
            return True
        if not topic:
            return False
        # Two sentences about the party asked may state the item (the finding and the court's reasons:
        # "取得了被害人近亲属的谅解", "其……取得谅解"): one holding every word of the question that the
        # sentence answering it holds is on the item too.
        answering = topic & stating.words if stating is not None else set()
        return ev.share(topic, best.words) >= self.cfg.item_recall - 1e-9 or bool(answering) and answering <= best.words

    def _view(self, item: JudgeItem, lang: str) -> ContextView:
        # The same passages recur across many contexts: their sentences are analysed once per text.
        views = []
        for p in item.passages:
            key = (p.id, p.decision_id, p.text, lang)
            if key not in self._passages:
                self._passages[key] = ev.passage_view(p, lang)
            views.append(self._passages[key])
        asked = _asked(item.qa.question, lang) or _asked_by_place(item, lang)
        # A question naming a party by name asks about the role the passages give that name.
        roles = ordinal_roles(item.qa.question) or frozenset().union(
            *(roles_given(asked, p.text) | roles_in_title(asked, p.heading) for p in item.passages))
        numbered = frozenset().union(*(
            zh_numbered_roles(a, p.heading, [q.text for q in item.passages if q.decision_id == p.decision_id])
            for a in asked for p in item.passages if lang == "zh" and names_any(parties(p.heading, lang), [a])
        ))
        places = zh_numbered_in(item.qa.question) if lang == "zh" else frozenset()
        return ContextView(views, asked, cases(item.qa.question), _home(item, lang), roles,
                           bool(_ASKS_AUTHORITY.search(item.qa.question)) and lang != "zh", numbered, places)

    # ------------------------------------------------------------------- correctness, completeness
    def correctness(self, answer: str, item: JudgeItem) -> str:
        lang, qa = item_language(item.qa), item.qa
        facts = [f for f in qa.facts if f.strip()]
        if not facts:
            reference = m.content_words(qa.answer, lang)
            recall = len(reference & m.haystack(answer, lang)) / max(1, len(reference))
            return "correct" if recall >= self.cfg.reference_recall else "incorrect"
        polarity_facts = [f for f in facts if polarity_fact(f)]
        others = [f for f in facts if f not in polarity_facts]
        if polarity_facts:
            # Without a Yes/No, the sentence that answers gives the bottom line (not a later one about
            # something else).
            first = next((c for c in ev.sentences(answer, lang) if not m.is_framing(c, lang)), answer)
            bottom_line = m.lead_polarity(answer, lang) or ev.bottom_line(qa.question, ev.sentence(first, lang), lang)
            if any(bottom_line != polarity_fact(f) for f in polarity_facts):
                return "incorrect"
            if not self._about_question(answer, item, lang):
                # A right Yes/No attached to a sentence about another matter (another party, another order)
                # does not give the reference's bottom line.
                return "incorrect"
            # The bottom line is what a Yes/No answer must get right; a figure it adds must be the right one:
            # a figure on the fact's item (a suspension "for 18 months"), not one on another item of the same
            # sentence (its term of 11 months, "credit for the 9 months already spent in custody").
            return "incorrect" if any(
                _wrong_value(f, _on_fact(answer, f, qa.answer, lang), lang, qa.answer) for f in others
            ) else "correct"
        # The facts that answer the question are needed; those that only situate it (a date, a share
        # count) need not be stated, but when stated must be right.
        key = [f for f in others if not values.situating(f, lang)] or others
        present = sum(
            self.fact_present(f, answer, lang) or _by_role(f, answer, item, lang) or _value_before_cut(f, answer, item, lang)
            or _same_ruling(f, answer, lang)
            for f in key
        )
        needed = math.ceil(self.cfg.facts_required * len(key) - 1e-9)
        if present < max(1, needed):
            return "incorrect"
        if all(_role_only(f, lang) for f in key) and not _same_parties(
            answer, _asked(qa.question, lang) + self._case_parties(item, lang), lang
        ):
            # The right role held by another case's person ("由被告许x7负担" to who bears a fee of
            # 《沈1诉无锡市某医院……》) names someone the asked case does not.
            return "incorrect"
        return "incorrect" if any(_wrong_value(f, answer, lang, qa.answer) for f in others if f not in key) else "correct"

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
        asked = _asked(question, lang)
        claim = _carrying_sentence(body, asked, lang)
        # A bare Yes/No, or one followed by framing only ("是。通读上述段落，答案的依据如下。"), answers the question.
        if not words or not claim:
            return True
        # A question naming its case asks about everyone in it: the decedent 罗某某 of a passage of
        # 《罗x3与蒋0、罗2法定继承纠纷……》 is no other party than the title's.
        if not _same_parties(claim, asked + self._case_parties(item, lang), lang):
            return False
        if ev.share(words, about) >= self.cfg.topic_overlap:
            return True
        words = m.content_words(claim, lang)
        if not words:
            return False
        asked_names = m.names(question, lang, skip_first=True)
        # What the question asks about, names aside: a finding about the same person on another matter
        # shares the names and little else.
        topic = m.content_words(without_titles(question), lang) - set().union(*asked_names)
        covers = bool(topic) and ev.share(topic, m.haystack(claim, lang)) >= self.cfg.topic_coverage - 1e-9
        # In Chinese, what the question asks whether (the words after 是否, the court's response verbs
        # aside: 按购车款三倍赔偿 of 是否支持了原告按购车款三倍赔偿的请求) is what the sentence must cover.
        whether = _whether_words(question, lang)
        covers = covers or bool(whether) and ev.share(whether, m.haystack(claim, lang)) >= self.cfg.topic_coverage - 1e-9
        # A status excluding the one asked (判处拘役 to whether 有期徒刑) answers it.
        covers = covers or _status_answer(question, [ev.sentence(claim, lang)], lang) is not None
        return ev.share(words, about) >= self.cfg.topic_overlap or covers

    def _case_parties(self, item: JudgeItem, lang: str) -> list[Party]:
        """The parties named in the context's passages of the case the question names (none when it
        names no case)."""
        view = self._view(item, lang)
        if not view.asked_cases:
            return []
        return [p for i, pv in enumerate(view.passages) if view.cases[i] & view.asked_cases for p in pv.parties]

    def fact_present(self, fact: str, answer: str, lang: str | None = None) -> bool:
        aside = _ZH_ASIDE.match(fact) if lang == "zh" else None
        if aside and self.fact_present(aside.group(1), answer, lang):
            # A Chinese fact closed by its aside ("第一项决议（注册资本增至3,000,000元）") is stated by what stands
            # before the aside: the aside describes it.
            return True
        fact_numbers = m.numbers(fact, lang)
        if not fact_numbers <= m.numbers(answer, lang):
            return False
        named = parties(fact, lang or language.detect(fact))
        if named and not names_any(parties(answer, lang or language.detect(answer)), named):
            # A name is present only as itself: 钱x1 holds the 钱 and the 1 of 钱1 and is another person.
            return False
        fact_words = m.fact_words(fact, lang)
        if not fact_words:
            # Only numbers (and currency): they matched. Nothing comparable at all: the fact's text
            # itself must appear (a fact is never present just because it has no word we can read).
            return bool(fact_numbers) or m.squashed(fact) in m.squashed(answer)
        answer_words = m.answer_words(answer, lang)
        return len(fact_words & answer_words) / len(fact_words) >= self.cfg.fact_recall - 1e-9

    def completeness(self, answer: str, item: JudgeItem) -> str:
        """complete when the answer states the qualifiers that limit the holding (docs/method.md §4): a
        duration, a deadline, a condition, an exception, a leave requirement, the basis of an order.
        Reasons and purposes are not limits; for a Yes/No the length of what it answers ("Yes" to a ban
        of 3 years) is one."""
        lang, qa = item_language(item.qa), item.qa
        qualifiers = [q for q in qa.qualifiers if m.content_words(q, lang) and _limits(q, lang)]
        durations = [f for f in qa.facts if is_yesno(qa) and values.duration(f, lang)]
        if not qualifiers and not durations:
            return "complete"
        answer_words = m.haystack(answer, lang)
        present = sum(self.fact_present(f, answer, lang) for f in durations)
        for qualifier in qualifiers:
            wanted = m.content_words(qualifier, lang)
            if len(wanted & answer_words) / len(wanted) >= self.cfg.qualifier_recall - 1e-9:
                present += 1
        total = len(qualifiers) + len(durations)
        needed = max(1, math.ceil(self.cfg.qualifiers_required * total - 1e-9))
        return "complete" if present >= needed else "incomplete"


# What a Chinese yes/no question asks whether: the words after 是否 (有没有, 有无, 是不是, 能否), names and
# roles aside, without the verbs of a court's response that a finding rarely repeats (支持, 采信, ...).
_WHETHER_ZH = re.compile(r"(?:是否|有没有|有无|是不是|能否)(.+)$")
_RESPONSE_VERBS = frozenset("支持 采信 采纳 认可 认定 准许 同意 表示 存在 进行 构成 属于".split())


# A question on the court's answer to a claim, and a court's answer that cuts the claim down (an excessive
# penalty rate "过高" and "调整为" another): not upheld, though no negation is written. The court must be
# the one speaking: a party's "过高" in its submission decides nothing.
_RESPONSE_ZH = re.compile(r"是否(?:支持|采纳|采信|准许|认可|同意)")
_ADJUSTED_ZH = re.compile(r"过高|过低|调整为|调整至|酌定为|予以调整|酌情调整")
_COURT_ZH = re.compile(r"本院|法院")


def _cut_down(question: str, sentence: str, lang: str) -> bool:
    """Whether, asked if the court upheld a claim, the sentence has the court cut it down: not upheld."""
    return (lang == "zh" and bool(_RESPONSE_ZH.search(question)) and bool(_ADJUSTED_ZH.search(sentence))
            and bool(_COURT_ZH.search(sentence)))


# A sentence drawing its conclusion from the one before it.
_CONCLUDES = re.compile(
    r"^\s*(?:故(?!意)|因此|所以|据此|综上|由此|因而"
    r"|(?:Accordingly|Therefore|Thus|It\s+follows\s+that|For\s+th(?:ese|is|ose)\s+reasons?)\b)",
    re.I,
)


def _reason_for(reason: Sentence, answer: Sentence, view: ContextView) -> bool:
    """Whether `reason` is the sentence right before `answer` in its passage, and `answer` concludes from it."""
    if reason.passage != answer.passage or not _CONCLUDES.search(answer.text):
        return False
    texts = [s.text for s in view.sentences if s.passage == answer.passage]
    at = texts.index(answer.text) if answer.text in texts else -1
    return at > 0 and texts[at - 1] == reason.text


def _whether_words(question: str, lang: str) -> set[str]:
    found = _WHETHER_ZH.search(without_cases(question)) if lang == "zh" else None
    if not found:
        return set()
    return topic_words(found.group(1), lang) - _RESPONSE_VERBS


def _pastes_answer(body: str, stating: Sentence, item: JudgeItem) -> bool:
    """Whether a reply pastes, word for word from one passage, a stretch holding the sentence that answers
    the question."""
    pasted, answering = m.squashed(body), m.squashed(stating.text)
    source = m.squashed(item.passages[stating.passage].text)
    return len(answering) >= 8 and answering in pasted and pasted in source


def _carrying_sentence(body: str, asked: list[Party], lang: str) -> str:
    """The sentence that carries a Yes/No's bottom line: the first that is not framing, or, where it runs on
    past a semicolon to one naming the party asked ("凌0……系主犯；被告人黎x5……系从犯" to whether 黎x5 was a
    principal), that one."""
    said = [s for s in language.sentences(body, lang) if not m.is_framing(s, lang)]
    if not said:
        return ""
    k = 0
    while asked and not names_any(parties(said[k], lang), asked) and k + 1 < len(said) and said[k].rstrip().endswith(("；", ";")):
        k += 1
    return said[k] if asked and names_any(parties(said[k], lang), asked) else said[0]


def _negated(words: set[str]) -> set[str]:
    """The Chinese words that deny what a 有-word asks whether: 无效 of 有效, 无权 of 有权."""
    return {"无" + w[1:] for w in words if len(w) > 1 and w.startswith("有")}


def _flip(line: str) -> str:
    return "no" if line == "yes" else "yes"


# The provision an English question asks under ("under section 32P", "section 36(1)"): its number and letters.
_ASKED_PROVISION = re.compile(
    r"(?:\b(?:section|regulation|reg\.|rule|article)|(?<![\w'’])s\.?)\s+(\d+[A-Za-z]*)", re.I
)


def _only_pasted_refusals(text: str, item: JudgeItem, lang: str) -> bool:
    """Whether every clause of the reply with a refusal cue is a passage's own words (eight characters or
    more, copied word for word)."""
    passages = [m.squashed(p.text) for p in item.passages]
    for clause in m.clauses(text, lang):
        if m.is_refusal_clause(clause, item.refusal):
            own = m.squashed(clause)
            if len(own) < 8 or not any(own in p for p in passages):
                return False
    return True


def _names_provision(question: str, passage: str) -> bool:
    """Whether the passage names the provision an English question names (True when it names none)."""
    asked = _ASKED_PROVISION.findall(question)
    return not asked or any(re.search(rf"(?<![\w.]){re.escape(a)}(?![A-Za-z0-9])", passage) for a in asked)


def _asked(question: str, lang: str) -> list[Party]:
    return parties(question, lang)


# A sentence reporting a cited case, as docs/method.md §4 reads it: "In X v Y ...", "As stated in X v Y ...".
_REPORTS_CASE = re.compile(r"^\s*(?:In|As\s+(?:stated|held|explained|decided|observed|noted)\s+in)\s+[^,;]*?\sv\s")
# A question about the authority a case cites, not naming it ("How old was the patient in the authority cited
# in Kwong Wai-yan v Chiu Kin-sang ...?", "in the authority the court relied on").
_ASKS_AUTHORITY = re.compile(
    r"\b(?:authority|case|decision|precedent)\b(?:\s+\w+){0,4}?\s+(?:is\s+|was\s+)?"
    r"(?:cited|relied\s+(?:on|upon)|followed|applied|referred\s+to)\b|\bas\s+cited\s+in\b",
    re.I,
)
_EN_COURT = re.compile(
    r"\bthe\s+(?:(?:Court\s+of\s+(?:Appeal|First\s+Instance|Final\s+Appeal))|(?:District|High|Magistrates'?|Family|Lands"
    r"|Labour)\s+Court|(?:Labour|Lands|Small\s+Claims|Market\s+Misconduct)?\s*Tribunal|Court|Board|Council|Commission)\b"
)


def _asked_by_place(item: JudgeItem, lang: str) -> list[Party]:
    """The party a Chinese question naming none asks about by its place (第二被告人, 被告一), in the judgment
    the question is bound to or names."""
    if lang != "zh":
        return []
    home = _home(item, lang)
    named = cases(item.qa.question)
    # A case number names its judgment's every passage: the heading that carries it, or the header it
    # opens ("(2023)鄂0106民初7742号。原告:……" under a title heading).
    numbered = {p.decision_id for p in item.passages if named & ev.own_cases(p)}
    own = [p for p in item.passages
           if (p.decision_id == home if home is not None else p.decision_id in numbered)]
    if not own:
        return []
    party = zh_ordinal_party(item.qa.question, own[0].heading, [p.text for p in own])
    return [party] if party is not None else []


def _home(item: JudgeItem, lang: str) -> str | None:
    """The decision a question bound to its document was written on (docs/method.md §1, "Standalone
    questions"), when its gold passage is in the context; None for a question that names its own party,
    case or document, which party-aware reading covers."""
    # A court is no party of the question's own ("What starting point did the Court of Appeal consider
    # proper?" names none).
    question = _EN_COURT.sub(" ", item.qa.question) if lang != "zh" else item.qa.question
    if has_anchor(question, lang):
        return None
    home = [p.decision_id for p in item.passages if p.id == item.qa.gold_passage_id]
    return home[0] if home else None


def _holding(qa, lang: str) -> str:
    """The reference answer's statement of the holding: without its Yes/No, its qualifiers and reasons."""
    return _holding_of(qa.answer, tuple(qa.qualifiers), lang)


@lru_cache(maxsize=1 << 14)
def _holding_of(answer: str, qualifiers: tuple[str, ...], lang: str) -> str:
    text = m.strip_lead(answer, lang)
    for qualifier in qualifiers:
        if qualifier.strip():
            text = text.replace(qualifier, " ")
    return ev.holding(text, lang)


def _item_words(text: str, lang: str) -> set[str]:
    """A text's content words, its party names aside: what it says, not of whom."""
    return set(_item_words_of(text, lang))


@lru_cache(maxsize=1 << 14)
def _item_words_of(text: str, lang: str) -> frozenset[str]:
    named = set().union(*parties(text, lang)) if text else set()
    return frozenset(w for w in m.content_words(text, lang) if w not in named)


def _key_kinds(qa, lang: str) -> set[str]:
    """The kinds of value the facts that answer the question are (a date or share count only situates)."""
    facts = position.answer_facts(qa)
    key = [f for f in facts if not values.situating(f, lang)] or facts
    return set().union(*(values.kinds(f, lang) for f in key)) if key else set()


def _value_before_cut(fact: str, answer: str, item: JudgeItem, lang: str) -> bool:
    """Of an answer cut off at max_new_tokens, a fact whose values it names whole before the cut: the words
    the cut took are not missing from it ("contrary to section 9" cut before "of the Theft Ordinance (Cap
    210)" names the section asked; "within 14 days of" the period)."""
    asked = values.kinds(fact, lang) - values.SITUATING
    if not cut_off(item) or not asked:
        return False
    stated = values.values(fact, asked, lang)
    return bool(stated) and stated <= values.values(answer, asked, lang)


def _on_fact(answer: str, fact: str, reference: str, lang: str) -> str:
    """The clauses of the answer on the item a fact of the reference is: those holding the word the
    reference writes right before it ("suspended" of "was suspended for 3 years"); the whole answer when the
    reference gives no such word."""
    at = reference.find(fact)
    before = m.clauses(reference[:at], lang)[-1:] if at > 0 else []
    words = [w for w in m.words(before[0], lang) if w in m.content_words(before[0], lang)] if before else []
    if not words:
        return answer
    cue = ev.roots({words[-1]}, set(), lang)
    return " ".join(c for c in m.clauses(answer, lang) if cue & ev.roots(m.content_words(c, lang), set(), lang))


def _wrong_value(fact: str, answer: str, lang: str, reference: str = "") -> bool:
    """The answer states a value of the fact's kind, and not the fact's own, nor only values the reference
    gives another item ("sentenced to 18 months" beside the suspension for 3 years asked: the reference's own
    term, no wrong suspension; since a term is its length, 18 months and 3 years are of one kind)."""
    kinds = values.kinds(fact, lang)
    if not kinds:
        return False
    stated = values.values(answer, kinds, lang)
    foreign = stated - values.values(reference, kinds, lang)
    return bool(foreign) and not values.values(fact, kinds, lang) <= stated


def _limits(qualifier: str, lang: str) -> bool:
    """A qualifier that limits the holding: not a reason or purpose, not only the dates of the events."""
    if _REASON_QUALIFIER["zh" if lang == "zh" else "en"].search(qualifier):
        return False
    return not (values.kinds(qualifier, lang) == {"date"})


# Statuses of which a party holds exactly one: asked whether it holds one, a sentence giving it another
# answers no ("被告人韦x5……系从犯" to 是否系主犯; "负事故的次要责任" to 是否负主要责任). Longer names first.
_ZH_ASIDE = re.compile(r"^(.*[\u4e00-\u9fff]{2})[（(][^）)]+[）)]$")
_EXCLUSIVE_ZH = (
    ("胁从犯", "主犯", "从犯"),
    ("全部责任", "主要责任", "同等责任", "次要责任", "无责任"),
    # The principal penalties (主刑): an accused sentenced to 拘役 was not sentenced to 有期徒刑.
    ("死刑", "无期徒刑", "有期徒刑", "拘役", "管制"),
)


def _statuses(text: str, group: tuple[str, ...]) -> list[str]:
    found = []
    for status in group:
        if status in text:
            found.append(status)
            text = text.replace(status, " ")
    return found


def _status_answer(question: str, named: list[Sentence], lang: str) -> tuple[Sentence, str] | None:
    """The sentence about the party asked giving it one of a group of exclusive statuses the question
    asks whether it holds, with the Yes/No it gives; None when the question asks of no such status or no
    sentence gives one."""
    if lang != "zh" or "是否" not in question:
        return None
    for group in _EXCLUSIVE_ZH:
        asked = _statuses(question, group)
        if len(asked) != 1:
            continue
        for s in named:
            given = _statuses(s.text, group)
            if len(given) == 1:
                return s, "yes" if given == asked else "no"
    return None


_THE_COURT = frozenset({"法院", "本院"})


# The words any submission and any ruling on one share: no sign of which submission it is.
_SUBMISSION_WORDS = frozenset(
    "原告 被告 上诉人 被上诉人 要求 请求 主张 诉请 意见 抗辩 本院 法院 处理 如何 对待 支持 采纳 驳回".split()
)


def _claim_words(question: str, lang: str) -> set[str]:
    """The words of a question naming which submission it asks about (连带责任 of 原告要求村委会承担连带责任的请求)."""
    return topic_words(question, lang) - _SUBMISSION_WORDS


_NUMBERED_GROUND = re.compile(
    r"\b(first|second|third|fourth|fifth|sixth)\s+(?:ground|issue|limb|complaint|argument|submission|question)\b", re.I
)


def _another_ground(body: str, reply: str, qa: QA) -> bool:
    """Whether an English claim names other numbered grounds (issues, limbs) than the reference and the
    question name, and the whole reply names none of theirs."""
    said = {g.lower() for g in _NUMBERED_GROUND.findall(body)}
    wanted = {g.lower() for g in _NUMBERED_GROUND.findall(" ".join([qa.question, qa.answer, *qa.facts]))}
    named = {g.lower() for g in _NUMBERED_GROUND.findall(reply)}
    return bool(said) and bool(wanted) and said.isdisjoint(wanted) and named.isdisjoint(wanted)


def _names_reference(body: str, item: JudgeItem) -> bool:
    """Whether a claim holds a fact of the reference word for word (the counsel or agent asked, listed
    beside another party's)."""
    return any(f.strip() and m.squashed(f) in m.squashed(body) for f in item.qa.facts)


def _copied_from(body: str, item: JudgeItem) -> int | None:
    """The passage a claim is a stretch of, copied whole (citations aside), or None."""
    own = m.squashed(m.strip_citations(body))
    if len(own) < 12:
        return None
    return next((i for i, p in enumerate(item.passages) if own in m.squashed(p.text)), None)


def _one_word_answer(body: str, lang: str) -> bool:
    """Whether a claim too short to be more than framing is a bare answer of one word ("该公司员工。" to whose
    employee 孔x2 is): it claims what it names."""
    text = m.strip_lead(body, lang).strip()
    # A phrase, not a sentence of framing ("通读上述段落，答案的依据如下。" holds one content word too).
    if re.search(r"[，,；;：:]", text) or len(text) > (16 if lang == "zh" else 60):
        return False
    # The words is_framing counts (whole Chinese words, not the character pairs matching compares).
    words = {w for w in language.content_words(text, lang) if not language.is_numeral(w)}
    framing = cues_zh.FRAMING if lang == "zh" else m.FRAMING
    return len(words) == 1 and not words <= framing


def _same_ruling(fact: str, answer: str, lang: str) -> bool:
    """Whether a reference that is only the court's ruling on a submission ("That submission is rejected")
    is given, in other words, by the answer's first sentence ("The defendant's case ... fails")."""
    if not rulings.is_ruling_reference(fact, lang):
        return False
    first = next((c for c in ev.sentences(answer, lang) if not m.is_framing(c, lang)), answer)
    wanted = rulings.ruling(fact, lang)
    return wanted is not None and rulings.ruling(first, lang) == wanted


def _by_role(fact: str, answer: str, item: JudgeItem, lang: str) -> bool:
    """A fact naming one party (原告梁x6) stated by the role the reference's judgment gives that party: the
    first role the answer names is one the judgment's passages in the context write before that party's
    name ("原告：梁x6" for "由原告直接抚养为宜"), and it names no one else ("由原告孙0直接抚养" does)."""
    named = parties(fact, lang)
    only_a_party = len(named) == 1 and not m.content_words(without_parties(fact, lang), lang)
    said = first_role(answer, lang) if only_a_party else None
    if said is None:
        return False
    holder = role_holder(answer, said, lang)
    if holder is not None:
        return names_any([holder], named)
    home = next((p.decision_id for p in item.passages if p.id == item.qa.gold_passage_id), None)
    return any(said in roles_of(named[0], p.text, lang) for p in item.passages if home and p.decision_id == home)


def _role_only(fact: str, lang: str) -> bool:
    """A fact that is a role and nothing more ("被告"): who holds it is the asked case's business."""
    return has_role(fact, lang) and not parties(fact, lang) and not m.content_words(without_parties(fact, lang), lang)


def _same_parties(sentence: str, asked: list[Party], lang: str) -> bool:
    """False when the sentence is about another party than the question names: it names someone, and
    none of the question's parties."""
    if not asked or not sentence:
        return True
    named = parties(sentence, lang)
    return not named or names_any(named, asked)


def _gives(lead: str, question: str, statement: Sentence, lang: str) -> bool:
    """Whether `statement` answers `question` with `lead`, or is not about the question at all."""
    if not ev.on_topic(question, statement, lang):
        return True
    return lead == ("no" if _cut_down(question, statement.text, lang) else ev.bottom_line(question, statement, lang))


def _pasted_parts(body: str, passage: str) -> bool:
    """Whether a claim is a passage's orders pasted part by part ("三、被告姚x2……;二、被告东莞市某某贸易有限公司
    ……;"): each part word for word in that passage, so its figures are the passage's own, whatever
    sentences they fall in."""
    parts = [p.strip(" 。.，,") for p in re.split(r"[；;]", body) if p.strip(" 。.，,")]
    # Numbered orders only: a finding pasted with the sum worked out after it ("……24天……本院予以支持；休息日加班
    # 工资为……＝19,200元") is read as one claim, its figures where the passage puts them.
    return len(parts) > 1 and all(re.match(r"[一二三四五六七八九十]+、", p) and p in passage for p in parts)


def _all_numbers(pool: list[Sentence]) -> set[str]:
    return set().union(*(s.numbers for s in pool)) if pool else set()
