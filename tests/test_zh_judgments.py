"""Long Chinese judgment paragraphs (tests/fixtures/zh_judgments.json) through the offline panel, the rule
judge, the preference hierarchy and augmentation, in process.

The fixture is written in the manner of Chinese court judgments: each paragraph chains a whole finding
into one or two sentences with ， and ；, the way the real judgment QA sets do that made the panel quote
whole paragraphs (answers cut at max_new_tokens, explained refusals failing their check, chosen answers
longer in under a third of the pairs after length balancing)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from pipeline import language
from pipeline.augment import OfflineRewriter, augment_pairs
from pipeline.backends import Request, make_generator
from pipeline.importers.squad import load_squad
from pipeline.judges import JudgeItem
from pipeline.judges.rule import RuleJudge
from pipeline.params import Params, QaImportParams
from pipeline.preferences import assign_splits, compare, decide, make_pairs
from pipeline.prompts import answer_prompt
from pipeline.records import Candidate, Context

FIXTURE = Path(__file__).parent / "fixtures" / "zh_judgments.json"
REFUSAL = "提供的段落没有足够的信息来回答这个问题。"
STYLES = ("cautious", "confident", "terse", "verbose")
PARAMS = Params()
# Stands for the params' refusal sentences: English default plus the Chinese one of the bilingual profile.
REFUSALS = {"en": PARAMS.generate.refusal, "zh": REFUSAL}


@pytest.fixture(scope="module")
def corpus():
    passages, qas = load_squad(QaImportParams(format="squad", path=str(FIXTURE), language="zh"))
    return {p.id: p for p in passages}, {q.id: q for q in qas}


def contexts_of(passages, qas) -> dict[str, Context]:
    """Per question: its paragraph alone, and its paragraph third among the other four (the gold is the
    paragraph of the question, answerable unless the question is impossible); the other four alone."""
    out = {}
    for q in qas.values():
        others = [p for p in passages if p != q.gold_passage_id]
        answerable = bool(q.answer)
        for variant, ids, gold in (("gold_only", [q.gold_passage_id], 0),
                                   ("gold_plus_random", others[:2] + [q.gold_passage_id] + others[2:], 2),
                                   ("random_context", others, None)):
            out[f"{q.id}/{variant}"] = Context(f"{q.id}/{variant}", q.id, variant,
                                               answerable and gold is not None, ids,
                                               gold if answerable and gold is not None else None)
    return out


def panel_answers(passages, qas, contexts, max_new_tokens=256) -> list[Candidate]:
    out = []
    for style in STYLES:
        gen = make_generator(f"offline:{style}")
        for c in contexts.values():
            prompt = answer_prompt([passages[p] for p in c.passage_ids], qas[c.qa_id].question, REFUSAL)
            r = gen.generate([Request(prompt, 0.0, 1.0, max_new_tokens, 1)])[0]
            out.append(Candidate(f"{c.id}/{gen.name}", c.id, gen.name, r.text, r.finish_reason, dict(r.meta)))
    return out


def clause_of(text: str, span: str) -> str:
    """The clause of `text` (between ，；：。 marks) that holds `span`."""
    return next(c for c in re.split(r"[，；：。]", text) if span in c)


@pytest.mark.parametrize("max_new_tokens", [256, 96])
def test_no_panel_answer_reaches_the_length_cap(corpus, max_new_tokens):
    """256 is the default and bilingual profiles' cap, 96 the real profile's: a long sentence is answered
    from its clauses, so no answer is cut (before: 14 of 168 at 256, quoting the 350-character sentence)."""
    passages, qas = corpus
    candidates = panel_answers(passages, qas, contexts_of(passages, qas), max_new_tokens)
    assert len(candidates) == 4 * 3 * len(qas) == 252
    assert [c.id for c in candidates if c.finish_reason != "stop"] == []
    assert max(language.count_tokens(c.text, "zh") for c in candidates) <= max_new_tokens


def test_factual_answers_contain_the_clause_of_the_gold_span(corpus):
    """On the gold paragraph alone, every attempt at a factual question quotes the clause holding the
    gold span, never only a neighbouring clause of the same long sentence."""
    passages, qas = corpus
    contexts = {k: c for k, c in contexts_of(passages, qas).items() if c.variant == "gold_only"}
    checked = 0
    for cand in panel_answers(passages, qas, contexts):
        qa = qas[contexts[cand.context_id].qa_id]
        if qa.kind != "factual" or not qa.answer or cand.text == REFUSAL:
            continue
        assert clause_of(passages[qa.gold_passage_id].text, qa.answer) in cand.text, (cand.id, cand.text)
        checked += 1
    assert checked >= 40  # 11 factual questions x 4 styles, the cautious refusals left out


def test_yes_no_answers_read_the_clause_that_answers(corpus):
    """"周某到案后是否对基本事实予以供认？" sits in a 350-character sentence whose later clauses say 不符 and
    不能成立 about something else: the bottom line is read on the clause quoted (before: 否)."""
    passages, qas = corpus
    contexts = {k: c for k, c in contexts_of(passages, qas).items() if c.variant == "gold_only"}
    for cand in panel_answers(passages, qas, contexts):
        qa = qas[contexts[cand.context_id].qa_id]
        if qa.kind == "yesno" and cand.text != REFUSAL:
            assert cand.text.startswith(f"{qa.answer}。"), (cand.id, cand.text)


def test_chinese_pairs_are_length_balanced_after_augmentation(corpus):
    """Panel answers -> rule judge -> preference pairs -> augmentation with re-judging, all in Chinese.
    Before augmentation the chosen answer is longer in a third of the pairs or fewer (refusals are short
    and win every unanswerable pair); after it, near one half, and no explained refusal fails its check."""
    passages, qas = corpus
    contexts = contexts_of(passages, qas)
    candidates = {c.id: c for c in panel_answers(passages, qas, contexts)}
    judge = RuleJudge("strict")

    def item(cand):
        ctx = contexts[cand.context_id]
        return JudgeItem(cand, qas[ctx.qa_id], tuple(passages[p] for p in ctx.passage_ids), ctx.answerable, REFUSAL)

    labels = {lab.candidate_id: lab for lab in judge.judge([item(c) for c in candidates.values()])}
    prefs, _ = decide(contexts, candidates.values(), labels, ["gold_only", "gold_plus_random", "random_context"])
    # One split: the fixture's 21 questions are too few to balance three splits each on its own.
    splits = assign_splits(qas, 13, (1.0, 0.0, 0.0))
    pairs = make_pairs(prefs, contexts, qas, passages, candidates, splits, REFUSALS)
    by_generator = {(c.context_id, c.generator): c for c in candidates.values()}

    def rejudge(triples):
        keep = []
        for n, (pair, side, text) in enumerate(triples):
            new = judge.judge([item(Candidate(f"{pair.id}/r{n}", pair.context_id, "offline:rewriter", text, "stop"))])[0]
            other_side = "rejected" if side == "chosen" else "chosen"
            other = labels[by_generator[(pair.context_id, getattr(pair, f"{other_side}_generator"))].id]
            chosen, rejected = (new, other) if side == "chosen" else (other, new)
            verdict = compare(chosen, rejected, pair.answerable)
            keep.append(verdict is not None and verdict[0] > 0)
        return keep

    params = dataclasses.replace(PARAMS, generate=dataclasses.replace(PARAMS.generate, refusals={"zh": REFUSAL}))
    augmented, stats = augment_pairs(pairs, qas, OfflineRewriter(), params, rejudge)

    def longer(ps):
        return sum(p.chosen_tokens > p.rejected_tokens for p in ps) / len(ps)

    # 75 pairs when measured. There were 168 while the judge marked down every verbose answer for its
    # "（见第[1]段）" pointer (86 faithfulness pairs against it) and every explained 否 against a bare one
    # (14 correctness pairs): those were ties misjudged, not preferences.
    assert len(pairs) >= 60
    assert longer(pairs) <= 0.34
    # Augmentation rewrites refusal and ungrounded-answer pairs only (docs/method.md §6); the faithfulness
    # and correctness pairs, most of these (their chosen side usually the shorter quote), keep their
    # lengths, so the fixture ends below one half (0.10 -> 0.38 when measured) though far from 0.10.
    assert longer(augmented) - longer(pairs) >= 0.25 and longer(augmented) <= 0.6, (
        longer(pairs), longer(augmented), stats)
    assert stats["explained_refusal:failed_check"] == 0 and stats["explained_refusal:rewritten"] >= 10
