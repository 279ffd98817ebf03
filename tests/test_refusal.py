"""One rule for the refusal sentence a record is held to: its question's language, in every stage."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from pipeline import matching as m
from pipeline.language import question_of_prompt, refusal_of
from pipeline.prompts import answer_prompt_with_spans
from pipeline.records import Passage
from pipeline.stages.report import pair_info

EN = "The provided passages do not contain enough information to answer this question."
ZH = "提供的段落没有足够的信息来回答这个问题。"
REFUSALS = {"en": EN, "zh": ZH}
# Sentences no refusal cue knows, so only the configured sentence can make them refusals: the language
# picked decides the verdict.
EN_ODD, ZH_ODD = "Nothing here settles it.", "请另寻资料。"
ODD = {"en": EN_ODD, "zh": ZH_ODD}
PASSAGE = Passage("d/p1", "d", "d", "Facts", "The tenant paid three months late.")


@pytest.mark.parametrize(("question", "expected"), [
    ("Did the lease end?", EN),
    ("张某的违法所得是多少？", ZH),
    # 10 CJK characters to 2 Latin letters: Chinese.
    ("ST公司的违法所得是多少？", ZH),
    # 2 CJK characters to 9 Latin letters (2 / 11 < 0.2): English.
    ("Did 张某 profit twice?", EN),
])
def test_the_question_alone_decides(question, expected):
    assert refusal_of(question, REFUSALS) == expected


def test_one_sentence_serves_every_record_and_a_missing_language_names_its_param():
    assert refusal_of("张某的违法所得是多少？", EN) == EN
    with pytest.raises(ValueError, match=r"no refusal sentence for language 'zh': set generate\.refusals\.zh"):
        refusal_of("张某的违法所得是多少？", {"en": EN})


@pytest.mark.parametrize("question", ["Did the lease end?", "张某的违法所得是多少？", "ST公司的违法所得是多少？",
                                      "Did 张某 profit twice?"])
def test_a_pairs_prompt_gives_back_its_questions_language(question):
    prompt, _ = answer_prompt_with_spans([PASSAGE], question, refusal_of(question, REFUSALS))
    tail = question_of_prompt(prompt)
    assert tail in (f"Question: {question}", f"问题：{question}")
    assert refusal_of(tail, REFUSALS) == refusal_of(question, REFUSALS)


def _pair(question: str, chosen: str, rejected: str) -> SimpleNamespace:
    prompt, _ = answer_prompt_with_spans([PASSAGE], question, refusal_of(question, ODD))
    return SimpleNamespace(id=question, split="test", dimension="refusal_unanswerable", variant="random_context",
                           prompt=prompt, chosen=chosen, rejected=rejected)


def test_the_report_holds_each_pairs_answers_to_its_questions_sentence():
    assert not any(m.has_refusal(s) for s in (EN_ODD, ZH_ODD))  # only the configured sentence can match
    pairs = [
        # Chinese question, its own sentence chosen (3 tokens) over a long answer: the refusal wins.
        _pair("张某的违法所得是多少？", ZH_ODD, "张某的违法所得为四百六十六万元，证监会予以没收并处罚款。"),
        # English question, the refusal rejected: the refusal still wins, so the rule picks rejected.
        _pair("Did the lease end?", "Yes, the lease ended when the tenant paid three months late.", EN_ODD),
        # Chinese question answered with the English sentence: not the sentence its prompt asked for, so
        # two answers, and the longer (rejected) wins.
        _pair("张某的违法所得是多少？", EN_ODD, "违法所得为四百六十六万元。"),
    ]
    base = SimpleNamespace(chosen_tokens=np.array([3, 12, 4]), rejected_tokens=np.array([20, 4, 9]))
    assert pair_info(pairs, base, ODD).blind_correct.tolist() == [True, False, False]
