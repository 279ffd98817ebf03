"""Length-balanced augmentation: which side is rewritten, what the offline rewriter writes, and that
failed rewrites keep the original pair."""

from __future__ import annotations

import dataclasses

import pytest

from pipeline.augment import OfflineRewriter, augment_pairs, plan
from pipeline.augment.tasks import (
    BARE_CONCLUSION,
    EXPLAINED_REFUSAL,
    UNGROUNDED_ANSWER,
    RewriteTask,
    parse_prompt,
    rewrite_prompt,
)
from pipeline.backends import make_generator
from pipeline.backends.base import Request, Response
from pipeline.judges import matching as m
from pipeline.judges.rule import RuleJudge
from pipeline.language import declarative
from pipeline.params import Params
from pipeline.records import QA, Pair
from pipeline.text import count_tokens, split_sentences

PARAMS = Params()
REFUSAL = PARAMS.generate.refusal
YESNO = QA(
    "q1",
    "Was the landlord entitled to keep the deposit?",
    "No. The landlord was not entitled to forfeit the deposit unless the premises were damaged.",
    "d1/p1",
    "d1",
    "yesno",
    ["No"],
    ["unless the premises were damaged"],
)
FACTUAL = QA(
    "q2",
    "How much did the tenant have to pay in arrears?",
    "The tenant had to pay HK$24,000 in arrears within 14 days.",
    "d1/p1",
    "d1",
    "factual",
    ["HK$24,000"],
    ["within 14 days"],
)
QAS = {q.id: q for q in (YESNO, FACTUAL)}


def pair(pid, dimension, chosen, rejected, qa="q2", answerable=True) -> Pair:
    return Pair(
        pid,
        qa,
        f"{qa}/v",
        "gold_plus_bm25" if answerable else "random_context",
        answerable,
        "train",
        dimension,
        "PROMPT",
        chosen,
        rejected,
        "offline:a",
        "offline:b",
        count_tokens(chosen),
        count_tokens(rejected),
        False,
        "generated",
    )


ANSWER = "The tribunal ordered the tenant to pay arrears of HK$24,000 within 14 days [1]."


def test_plan_picks_the_short_side_per_dimension():
    assert plan(pair("a", "refusal_answerable", ANSWER, REFUSAL), REFUSAL, 30, 8) == (
        "rejected",
        UNGROUNDED_ANSWER,
    )
    assert plan(pair("b", "refusal_unanswerable", REFUSAL, ANSWER, answerable=False), REFUSAL, 30, 8) == (
        "chosen",
        EXPLAINED_REFUSAL,
    )
    assert plan(pair("c", "completeness", ANSWER, "No.", qa="q1"), REFUSAL, 30, 8) == (
        "rejected",
        BARE_CONCLUSION,
    )
    # Not short enough, or not a refusal, or another dimension: untouched.
    assert (
        plan(
            pair("d", "completeness", ANSWER, "No, the landlord was not entitled to keep it.", "q1"),
            REFUSAL,
            30,
            8,
        )
        is None
    )
    assert plan(pair("e", "refusal_answerable", ANSWER, "zzz zzz zzz zzz zzz"), REFUSAL, 30, 8) is None
    assert plan(pair("f", "refusal_answerable", ANSWER, REFUSAL), REFUSAL, 5, 8) is None
    assert plan(pair("g", "faithfulness", ANSWER, "No."), REFUSAL, 30, 8) is None


def test_prompt_round_trip():
    task = RewriteTask(BARE_CONCLUSION, YESNO.question, "yesno", "No.", REFUSAL)
    assert parse_prompt(rewrite_prompt(task)) == task
    with pytest.raises(ValueError):
        parse_prompt("Rewrite this please")


def _run(task: RewriteTask, seed=0, temperature=0.7, top_p=0.9, max_new_tokens=128) -> Response:
    return OfflineRewriter().generate(
        [Request(rewrite_prompt(task), temperature, top_p, max_new_tokens, seed)]
    )[0]


def test_rewriter_is_seeded_and_varied():
    task = RewriteTask(EXPLAINED_REFUSAL, FACTUAL.question, "factual", REFUSAL, REFUSAL)
    assert _run(task, seed=3) == _run(task, seed=3)
    texts = {_run(task, seed=s).text for s in range(40)}
    assert len(texts) >= 4
    # Greedy (temperature 0) always gives the top phrasing; a tiny top-p keeps only the top phrasing too.
    assert len({_run(task, seed=s, temperature=0).text for s in range(10)}) == 1
    assert {_run(task, seed=s, top_p=0.01).text for s in range(10)} == {_run(task, temperature=0).text}


def test_ungrounded_answer_is_confident_and_not_from_the_reference():
    judge = RuleJudge("strict")
    for qa in (YESNO, FACTUAL):
        for seed in range(10):
            text = _run(
                RewriteTask(UNGROUNDED_ANSWER, qa.question, qa.kind, REFUSAL, REFUSAL), seed=seed
            ).text
            assert judge.behaviour(text, REFUSAL) == "attempted"
            assert not m.has_refusal(text, REFUSAL)
            assert "24,000" not in text and "premises were damaged" not in text
            assert 1 <= len(split_sentences(text)) <= 3


def test_explained_refusal_says_what_is_missing():
    judge = RuleJudge("strict")
    for seed in range(10):
        text = _run(
            RewriteTask(EXPLAINED_REFUSAL, FACTUAL.question, "factual", REFUSAL, REFUSAL), seed=seed
        ).text
        assert 2 <= len(split_sentences(text)) <= 3
        assert judge.behaviour(text, REFUSAL) == "abstained"
        assert "tenant" in text and "arrears" in text
        assert count_tokens(text) > count_tokens(REFUSAL)


def test_bare_conclusion_is_one_sentence_with_the_same_polarity_and_no_rule():
    for seed in range(10):
        text = _run(RewriteTask(BARE_CONCLUSION, YESNO.question, "yesno", "No.", REFUSAL), seed=seed).text
        assert len(split_sentences(text)) == 1
        assert m.lead_polarity(text) == "no" or "answer is no" in text
        assert "not entitled" in text and "damaged" not in text
    text = _run(RewriteTask(BARE_CONCLUSION, FACTUAL.question, "factual", "HK$24,000.", REFUSAL)).text
    assert "HK$24,000" in text and len(split_sentences(text)) == 1


def test_declarative_forms():
    assert declarative(YESNO.question) == "the landlord was entitled to keep the deposit"
    assert declarative(YESNO.question, negate=True) == "the landlord was not entitled to keep the deposit"
    assert declarative("How long was the sentence?") == "how long the sentence was"


def test_max_new_tokens_truncates():
    task = RewriteTask(EXPLAINED_REFUSAL, FACTUAL.question, "factual", REFUSAL, REFUSAL)
    r = _run(task, temperature=0, max_new_tokens=5)
    assert r.finish_reason == "length" and count_tokens(r.text) <= 5


def test_registered_as_an_offline_generator():
    assert isinstance(make_generator("offline:rewriter", PARAMS.generate), OfflineRewriter)


def test_augment_pairs_rewrites_short_sides_only():
    pairs = [
        pair("q2/v/0", "refusal_answerable", ANSWER, REFUSAL),
        pair("q2/v/1", "refusal_unanswerable", REFUSAL, ANSWER, answerable=False),
        pair("q1/v/2", "completeness", ANSWER, "No.", qa="q1"),
        pair("q2/v/3", "faithfulness", ANSWER, "Something else entirely here."),
    ]
    out, stats = augment_pairs(pairs, QAS, OfflineRewriter(), PARAMS)
    assert [p.id for p in out] == [p.id for p in pairs]
    a, b, c, d = out
    assert a.chosen == ANSWER and a.rejected != REFUSAL and a.augmented and a.source == "augmented"
    assert a.rejected_tokens == count_tokens(a.rejected) > pairs[0].rejected_tokens
    assert b.rejected == ANSWER and b.chosen != REFUSAL and b.chosen_tokens == count_tokens(b.chosen)
    assert c.rejected != "No." and c.augmented
    assert d == pairs[3]
    assert stats == {
        f"{UNGROUNDED_ANSWER}:rewritten": 1,
        f"{EXPLAINED_REFUSAL}:rewritten": 1,
        f"{BARE_CONCLUSION}:rewritten": 1,
    }
    again, _ = augment_pairs(pairs, QAS, OfflineRewriter(), PARAMS)
    assert again == out
    other_seed, _ = augment_pairs(pairs, QAS, OfflineRewriter(), dataclasses.replace(PARAMS, seed=99))
    assert [p.id for p in other_seed] == [p.id for p in out]


class JunkGenerator:
    name = "fake:junk"
    batch_size = 2

    def generate(self, requests):
        return [Response(REFUSAL if "ungrounded" in r.prompt else "", "stop") for r in requests]


def test_failed_rewrites_keep_the_original_pair():
    pairs = [
        pair("q2/v/0", "refusal_answerable", ANSWER, REFUSAL),
        pair("q2/v/1", "refusal_unanswerable", REFUSAL, ANSWER, answerable=False),
    ]
    out, stats = augment_pairs(pairs, QAS, JunkGenerator(), PARAMS)
    assert out == pairs
    assert stats == {f"{UNGROUNDED_ANSWER}:rejected": 1, f"{EXPLAINED_REFUSAL}:rejected": 1}


def test_explained_refusal_grows_toward_the_target_length():
    short = RewriteTask(EXPLAINED_REFUSAL, FACTUAL.question, "factual", REFUSAL, REFUSAL, target_tokens=10)
    long = dataclasses.replace(short, target_tokens=80)
    for seed in range(5):
        assert len(split_sentences(_run(short, seed=seed).text)) == 2
        assert len(split_sentences(_run(long, seed=seed).text)) == 3


def test_declarative_keeps_hyphenated_names_whole():
    q = "Was Kelvin Au Ngan-ting made liable for the regulator's legal costs?"
    assert (
        declarative(q, negate=True)
        == "Kelvin Au Ngan-ting was not made liable for the regulator's legal costs"
    )
