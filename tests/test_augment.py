"""Length-balanced augmentation: which side is rewritten, what the offline rewriter writes, and that
failed rewrites keep the original pair."""

from __future__ import annotations

import dataclasses
import re

import pytest

from pipeline import matching as m
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
from pipeline.judges.rule import RuleJudge
from pipeline.language import declarative, zh_forms
from pipeline.language import sentences as zh_sentences
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


@pytest.mark.parametrize(("question", "negated"), [
    # The synthetic yes/no questions that read wrong once: a verb missing from the lexicon let the subject
    # run on ("the ruling stop Choi Wai-yee did from buying"), a participle at the end was split from its
    # subject ("the custodial term given was to ... suspended"), and "can not" is not how English writes it.
    ("Did the ruling stop Kelvin Lee Yuk-lan from buying or selling shares in Hong Kong?",
     "the ruling did not stop Kelvin Lee Yuk-lan from buying or selling shares in Hong Kong"),
    ("Was the custodial term given to Leung Sze-wing suspended?",
     "the custodial term given to Leung Sze-wing was not suspended"),
    ("Can Poon Pui-shan get the premises back from Elaine Yeung Ching-yi?",
     "Poon Pui-shan cannot get the premises back from Elaine Yeung Ching-yi"),
    ("Was the tenant evicted?", "the tenant was not evicted"),
    ("Is Amanda Au Ching-yi barred from dealing in Hong Kong stocks after the ruling?",
     "Amanda Au Ching-yi is not barred from dealing in Hong Kong stocks after the ruling"),
])
def test_declarative_of_the_synthetic_yes_no_questions(question, negated):
    assert declarative(question, negate=True) == negated


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
    assert {k: v for k, v in stats.items() if k.endswith(":rewritten")} == {
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
    assert stats == {f"{UNGROUNDED_ANSWER}:failed_check": 1, f"{EXPLAINED_REFUSAL}:failed_check": 1}


def test_rewrites_that_lose_their_failure_are_dropped_by_the_judge():
    """The re-judge sees every sampled rewrite; one that would flip the pair is never used."""
    pairs = [pair("q2/v/0", "refusal_answerable", ANSWER, REFUSAL),
             pair("q2/v/1", "refusal_unanswerable", REFUSAL, ANSWER, answerable=False)]
    seen = []

    def rejudge(triples):
        seen.extend(triples)
        return [p.id != "q2/v/0" for p, _, _ in triples]

    out, stats = augment_pairs(pairs, QAS, OfflineRewriter(), PARAMS, rejudge)
    assert out[0] == pairs[0] and out[1].augmented
    assert stats[f"{UNGROUNDED_ANSWER}:dropped_by_judge"] == 1 and stats[f"{EXPLAINED_REFUSAL}:rewritten"] == 1
    assert {(p.id, side) for p, side, _ in seen} == {("q2/v/0", "rejected"), ("q2/v/1", "chosen")}


def test_length_plan_balances_each_split():
    """Half the pairs of a split end with the longer chosen side, counting the pairs left as they are."""
    from pipeline.augment.core import plan_lengths

    kept = [dataclasses.replace(pair(f"k{i}", "completeness", ANSWER, "No."), chosen_tokens=20, rejected_tokens=2)
            for i in range(3)]
    todo = [pair(f"t{i}", "refusal_unanswerable", REFUSAL, ANSWER, answerable=False) for i in range(7)]
    pairs = kept + todo
    steps = {i: ("chosen", EXPLAINED_REFUSAL) for i in range(3, 10)}
    directions = plan_lengths(pairs, steps, seed=1)
    assert sorted(directions) == list(range(3, 10))
    assert 3 + sum(directions.values()) == 5  # round(10 / 2): two of the seven rewrites end longer
    assert plan_lengths(pairs, steps, seed=1) == directions


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


# ------------------------------------------------------------------------------------------- Chinese
# A zh pair is rewritten in Chinese only: no English template word around Chinese text, whatever the
# (English) refusal sentence of the params says.
ZH_FACTUAL = "根据《张某某内幕交易案》，违法所得是多少？"
ZH_YESNO = "根据《张某某内幕交易案》，是否没收张某某的违法所得？"
ZH_RULE = "根据《张某某内幕交易案》，“处罚依据”部分援引了哪些法律规定？"
ZH_REFUSAL = "提供的段落没有足够的信息来回答这个问题。"
LATIN = re.compile("[A-Za-z]")


def _zh_texts(task: str, question: str, kind: str, original: str, target: int = 60) -> list[str]:
    return [
        _run(RewriteTask(task, question, kind, original, REFUSAL, target), seed=seed).text
        for seed in range(12)
    ]


def test_chinese_ungrounded_answers_are_chinese_and_confident():
    for question, kind in ((ZH_FACTUAL, "factual"), (ZH_YESNO, "yesno"), (ZH_RULE, "rule")):
        for text in _zh_texts(UNGROUNDED_ANSWER, question, kind, ZH_REFUSAL):
            assert not LATIN.search(text), text
            assert ZH_REFUSAL not in text and "段落" not in text
            assert 2 <= len(zh_sentences(text, "zh")) <= 3, text
    for text in _zh_texts(UNGROUNDED_ANSWER, ZH_YESNO, "yesno", ZH_REFUSAL):
        assert text.startswith(("是", "否", "答案是肯定的", "答案是否定的", "答案显然是")), text
        assert "没收张某某的违法所得" in text
    greedy = _run(RewriteTask(UNGROUNDED_ANSWER, ZH_RULE, "rule", ZH_REFUSAL, REFUSAL), temperature=0).text
    assert greedy == (
        "适用的规则是：任何人在掌握内幕信息期间买卖证券的，一律须缴纳所获利润三倍的罚款。"
        "证券监管机构一贯严格适用这一规则，本案情形不存在任何例外。"
    )


def test_chinese_explained_refusal_says_what_is_missing_in_chinese():
    for text in _zh_texts(EXPLAINED_REFUSAL, ZH_FACTUAL, "factual", ZH_REFUSAL):
        assert not LATIN.search(text), text
        assert "违法所得是多少" in text and "根据《" not in text
        assert 2 <= len(zh_sentences(text, "zh")) <= 3
    task = RewriteTask(EXPLAINED_REFUSAL, ZH_FACTUAL, "factual", ZH_REFUSAL, REFUSAL, 60)
    greedy = _run(task, temperature=0)
    assert greedy.text == (
        "提供的段落没有足够的信息来回答这个问题。这些段落都没有说明违法所得是多少。"
        "需要看到决定的相关部分，才能给出可靠的回答。"
    )
    # A Chinese refusal sentence in the prompt opens the rewrite.
    own = _run(RewriteTask(EXPLAINED_REFUSAL, ZH_FACTUAL, "factual", "无可奉告。", "无法作答。", 10), temperature=0)
    assert own.text == "无法作答。这些段落都没有说明违法所得是多少。"


def test_chinese_bare_conclusion_keeps_the_polarity_and_drops_the_rule():
    for text in _zh_texts(BARE_CONCLUSION, "出租人能否扣留租客押金？", "yesno", "否。"):
        assert len(zh_sentences(text, "zh")) == 1 and not LATIN.search(text)
        assert "出租人不能扣留租客押金" in text and text.startswith(("否", "简单地说，答案是否定的"))
    for text in _zh_texts(BARE_CONCLUSION, ZH_FACTUAL, "factual", "4,665,091.79元。"):
        assert "4,665,091.79元" in text and len(zh_sentences(text, "zh")) == 1
        assert not LATIN.search(text)


def test_chinese_question_forms():
    assert zh_forms.declarative(ZH_YESNO) == "没收张某某的违法所得"
    assert zh_forms.declarative(ZH_YESNO, negate=True) == "不没收张某某的违法所得"
    assert zh_forms.declarative("出租人能否扣留押金？", negate=True) == "出租人不能扣留押金"
    assert zh_forms.declarative("被告构成犯罪吗？") == "被告构成犯罪"
    assert zh_forms.focus(ZH_FACTUAL) == "违法所得是多少"
    assert zh_forms.is_yesno(ZH_YESNO) and zh_forms.is_yesno("被告构成犯罪吗？")
    assert not zh_forms.is_yesno(ZH_FACTUAL)
    assert zh_forms.area(ZH_FACTUAL) == "证券监管" and zh_forms.area("房东能否扣留押金？") == "住宅租赁"


def test_chinese_max_new_tokens_counts_chinese_tokens():
    task = RewriteTask(EXPLAINED_REFUSAL, ZH_FACTUAL, "factual", ZH_REFUSAL, REFUSAL)
    r = _run(task, temperature=0, max_new_tokens=8)
    # 提供 的 段落 没有 足够 的 信息 来回 (jieba reads the cut-off 来回 as one word): 8 tokens
    assert r.finish_reason == "length" and r.text == "提供的段落没有足够的信息来回"


# Captured from the English rewriter before the Chinese templates were added: English stays byte-identical.
ENGLISH_BEFORE_ZH = {
    ("q2", UNGROUNDED_ANSWER): "It was HK$250,000. That is the usual outcome in residential tenancy matters of "
    "this kind, and a tenancy tribunal saw no reason to depart from it.",
    ("q2", EXPLAINED_REFUSAL): "I cannot answer this from the passages provided. None of them states how much the "
    "tenant did have to pay in arrears. I would need the relevant part of the decision to give a reliable answer.",
    ("q2", BARE_CONCLUSION): "As to how much the tenant did have to pay in arrears, it is HK$24,000.",
    ("q1", UNGROUNDED_ANSWER): "The answer is no: the landlord was not entitled to keep the deposit. That follows "
    "from the settled approach in residential tenancy, which a tenancy tribunal applies as a matter of course.",
    ("q1", EXPLAINED_REFUSAL): "The passages do not contain enough information to answer this question. They do "
    "not set out whether the landlord was entitled to keep the deposit. Any answer would be a guess rather than "
    "one grounded in the passages.",
    ("q1", BARE_CONCLUSION): "No, the landlord was not entitled to keep the deposit.",
}


def test_english_rewrites_are_unchanged_by_the_chinese_templates():
    for (qa_id, task), expected in ENGLISH_BEFORE_ZH.items():
        qa = QAS[qa_id]
        original = {UNGROUNDED_ANSWER: REFUSAL, EXPLAINED_REFUSAL: REFUSAL}.get(
            task, "No." if qa.kind == "yesno" else "HK$24,000."
        )
        assert _run(RewriteTask(task, qa.question, qa.kind, original, REFUSAL, 40), seed=5).text == expected


# ---------------------------------------------------------- Chinese: long judgments, checks, balance
# Questions of the long-judgment fixture (tests/fixtures/zh_judgments.json), which made every phrasing of
# the Chinese explained refusal show up.
ZH_JUDGMENT_QUESTIONS = ["周某骗取冯某的钱款是多少？", "李某的诉讼代理人是哪家律师事务所的律师？",
                         "陈某是否取得了被害人近亲属的谅解？", "原告是哪一天向孙某发出解除合同通知书的？"]


@pytest.mark.parametrize("question", ZH_JUDGMENT_QUESTIONS)
def test_every_chinese_explained_refusal_passes_its_check_and_reads_as_an_abstention(question):
    """Before, 195 of 288 sampled rewrites on the fixture's questions failed the check: the rule judge's
    Chinese cues did not know 我无法根据所提供的段落回答, 没有任何内容, 只字未提, 都找不到 or 需要……才能给出
    可靠的回答, so those sentences counted as attempted content."""
    from pipeline.augment.core import acceptable

    judge = RuleJudge("strict")
    texts = {t for target in (12, 40, 90) for t in _zh_texts(EXPLAINED_REFUSAL, question, "factual", ZH_REFUSAL, target)}
    assert len(texts) >= 6
    for text in texts:
        assert acceptable(EXPLAINED_REFUSAL, text, ZH_REFUSAL), text
        assert judge.behaviour(text, ZH_REFUSAL, "zh") == "abstained", text


@pytest.mark.parametrize(("text", "refusal"), [
    ("我无法根据所提供的段落回答这个问题。", True),
    ("所提供的段落中没有任何内容可以让我回答这个问题。", True),
    ("尤其是，它们对孙某的押金只字未提。", True),
    ("回答所需的信息，即押金数额，在这些段落中都找不到。", True),
    ("需要看到决定的相关部分，才能给出可靠的回答。", True),
    # Answers that share words with those cues stay answers.
    ("被告不能根据合同约定解除租赁关系。", False),
    ("法院不能根据现有证据确定被告的责任。", False),
    ("需要进一步鉴定才能判断被告是否存在过错。", False),
    ("孙某至今未腾退房屋。", False),
    ("公诉机关认为其辩解与在案证据不符，不能成立。", False),
])
def test_chinese_refusal_cues(text, refusal):
    assert m.has_refusal(text, "", "zh") is refusal


@pytest.mark.parametrize(("original", "lead"), [
    ("是。", "yes"), ("是的，张某获利。", "yes"), ("对。", "yes"), ("- 否，法院未支持。", "no"),
    ("1、不是。", "no"), ("不。", "no"), ("否——法院驳回了该请求。", "no"),
    ("不得扣留押金。", None), ("对张某处以罚款。", None), ("是否没收尚不明确。", None),
])
def test_one_chinese_lead_pattern_serves_the_judge_and_the_rewriter(original, lead):
    """The rule judge reads an answer's bottom line with matching.cues_zh, and the rewriter reads the
    polarity of the answer it turns into a bare conclusion with the same pattern (it had a copy that
    knew neither list markers nor dashes)."""
    from pipeline.augment import rewriter

    assert m.lead_polarity(original, "zh") == lead
    assert not hasattr(rewriter, "_ZH_LEAD")
    texts = _zh_texts(BARE_CONCLUSION, "出租人能否扣留租客押金？", "yesno", original)
    if lead is None:  # no bottom line to keep: the answer is restated as a fact
        assert all("关于" in t or "答案是" in t for t in texts), texts
    else:
        wanted = "出租人能扣留租客押金" if lead == "yes" else "出租人不能扣留租客押金"
        assert all(wanted in t and m.lead_polarity(t, "zh") in (lead, None) for t in texts), texts


def test_length_plan_balances_each_language_of_a_split():
    """English and Chinese pairs of one split are balanced apart: a Chinese half of all-shorter chosen
    sides is not hidden by an English half of all-longer ones."""
    from pipeline.augment.core import plan_lengths

    en_kept = [dataclasses.replace(pair(f"e{i}", "completeness", ANSWER, "No."), chosen_tokens=20, rejected_tokens=2)
               for i in range(6)]
    zh_todo = [pair(f"z{i}", "refusal_unanswerable", ZH_REFUSAL, "张某获利4,665,091.79元。", answerable=False)
               for i in range(6)]
    pairs = en_kept + zh_todo
    steps = {i: ("chosen", EXPLAINED_REFUSAL) for i in range(6, 12)}
    languages = ["en"] * 6 + ["zh"] * 6
    by_language = plan_lengths(pairs, steps, seed=1, languages=languages)
    assert sum(by_language.values()) == 3  # half of the six Chinese pairs end with the longer chosen side
    # Balanced as one split, the six longer English pairs already make half: no Chinese pair would grow.
    assert sum(plan_lengths(pairs, steps, seed=1).values()) == 0


def test_chinese_ungrounded_answers_grow_toward_the_target_length():
    short = RewriteTask(UNGROUNDED_ANSWER, ZH_FACTUAL, "factual", ZH_REFUSAL, REFUSAL, target_tokens=10)
    long = dataclasses.replace(short, target_tokens=80)
    for seed in range(5):
        grown = _run(long, seed=seed).text
        assert len(zh_sentences(_run(short, seed=seed).text, "zh")) == 2
        assert len(zh_sentences(grown, "zh")) == 3 and not LATIN.search(grown)
        assert count_tokens(grown) <= 85


def test_chinese_rewrite_prompts_give_the_target_in_characters_too():
    task = RewriteTask(EXPLAINED_REFUSAL, ZH_FACTUAL, "factual", ZH_REFUSAL, ZH_REFUSAL, target_tokens=50)
    prompt = rewrite_prompt(task)
    assert "Target length: about 50 tokens (about 70 Chinese characters)" in prompt
    assert parse_prompt(prompt) == task
    english = RewriteTask(EXPLAINED_REFUSAL, FACTUAL.question, "factual", REFUSAL, REFUSAL, target_tokens=50)
    assert "Target length: about 50 words\n" in rewrite_prompt(english)
    assert parse_prompt(rewrite_prompt(english)) == english


def test_a_chinese_ungrounded_answer_to_a_penalty_question_invents_a_penalty():
    texts = _zh_texts(UNGROUNDED_ANSWER, "法院判处陈某什么刑罚？", "factual", ZH_REFUSAL)
    assert all(re.search("有期徒刑[一二三五七十]年", t) for t in texts), texts
