"""Finished answers in shapes other than the offline panel's (docs/method.md §4): a reply that is only a
figure with its marks ("1.5%。") is readable text, and a Yes/No after an answer's label ("答：是。",
"答案如下：1. 否") or a citation of the passages ("根据第[1]段，是。") is the reply's Yes/No: both take a
position, so both are attempted. Hand-built records with hand-checked labels."""

from __future__ import annotations

import pytest

from pipeline import matching as m
from pipeline.judges import JudgeItem, RuleJudge
from pipeline.params import Params
from pipeline.records import QA, Candidate, Passage

STRICT, LENIENT = RuleJudge("strict"), RuleJudge("lenient")
REFUSALS = Params().generate.refusal_by_language()

# A loan finding in the published style (half-width marks): a monthly rate, principal never repaid.
ZH_LOAN = Passage(
    "zl/p1", "zl", "zl", "经审理查明",
    "经审理查明:2017年3月2日,被告韩x7因购置农机向原告邓x6借款50,000元,双方约定月利率为2%,借款期限为一年,"
    "被告出具借条一份;借款到期后,被告未偿还本金,仅支付利息3,000元。",
)
ZH_RATE = QA("zq-rate", "在《邓x6与韩x7民间借贷纠纷一审民事判决书》中，双方约定的月利率是多少?", "2%", "zl/p1", "zl",
             "factual", ["2%"], [])
ZH_REPAID = QA("zq-repaid", "在《邓x6与韩x7民间借贷纠纷一审民事判决书》中，被告是否偿还了本金?", "否", "zl/p1", "zl",
               "yesno", ["否"], [])

EN_LEASE = Passage(
    "el/p1", "el", "el", "Findings",
    "The lease signed by Ho Siu-ming provided for interest on late rent at 2.5% a month.",
)
EN_RATE = QA("eq-rate", "What monthly interest rate did the lease of Ho Siu-ming provide for late rent?", "2.5%",
             "el/p1", "el", "factual", ["2.5%"], [])


def label(text: str, qa: QA, passages: tuple[Passage, ...], judge: RuleJudge = STRICT):
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in qa.question) else "en"
    cand = Candidate(f"{qa.id}/ctx/gen:x", f"{qa.id}/ctx", "gen:x", text, "stop")
    return judge.judge_one(JudgeItem(cand, qa, passages, True, REFUSALS[lang]))


@pytest.mark.parametrize("text", ["2%。", "答：2%。", "月利率2%。"])
def test_a_reply_that_is_only_a_figure_is_an_attempt(text):
    # The point and the percent sign belong to the figure: "2%。" is not "mostly non-word characters".
    for judge in (STRICT, LENIENT):
        lab = label(text, ZH_RATE, (ZH_LOAN,), judge)
        assert lab.behaviour == "attempted", text
        assert lab.correctness == "correct"


def test_an_english_figure_with_its_marks_is_readable():
    assert not m.degenerate("2.5%.")
    assert not m.degenerate("HK$1,250.50.")
    lab = label("2.5%.", EN_RATE, (EN_LEASE,))
    assert (lab.behaviour, lab.correctness) == ("attempted", "correct")


def test_marks_without_a_figure_stay_degenerate():
    for text in ("。。。%", "...,,,", "%%%。", ".5.%"):
        assert m.degenerate(text), text


@pytest.mark.parametrize("text", ["答：否。", "答案:否", "答案如下：\n1. 否", "根据第[1]段,否。", "回答：否，被告未偿还本金。"])
def test_a_yes_no_after_an_answer_label_or_a_citation_is_the_reply_s_yes_no(text):
    for judge in (STRICT, LENIENT):
        lab = label(text, ZH_REPAID, (ZH_LOAN,), judge)
        assert (lab.behaviour, lab.faithfulness, lab.correctness) == ("attempted", "fully_supported", "correct"), text
    assert m.lead_polarity(text, "zh") == "no"


def test_the_wrong_yes_after_a_label_is_contradicted_not_unusable():
    lab = label("答：是。", ZH_REPAID, (ZH_LOAN,))
    assert (lab.behaviour, lab.faithfulness, lab.correctness) == ("attempted", "contradicted", "incorrect")


@pytest.mark.parametrize("text", ["答：是否偿还本金，段落未写明", "答案：不予支持", "根据第[1]段,被告出具借条一份。"])
def test_a_label_opens_no_yes_no_that_is_not_there(text):
    # 是否, 不予 and a citation followed by a statement carry no leading Yes/No.
    assert m.lead_polarity(text, "zh") is None


def test_a_bare_label_states_nothing():
    for text in ("答：", "答案如下："):
        assert label(text, ZH_REPAID, (ZH_LOAN,)).behaviour == "unusable", text


ZH_PRINCIPAL = QA("zq-principal", "在《邓x6与韩x7民间借贷纠纷一审民事判决书》中，被告向原告借款多少?", "50,000元", "zl/p1",
                  "zl", "factual", ["50,000元"], [])
EN_LEASE_RENT = Passage(
    "er/p1", "er", "er", "Findings",
    "Ho Siu-ming agreed to pay a monthly rent of HK$18,500 under the lease.",
)
EN_RENT = QA("eq-rent", "What monthly rent did Ho Siu-ming agree to pay?", "HK$18,500", "er/p1", "er", "factual",
             ["HK$18,500"], [])


@pytest.mark.parametrize("order", ["value_first", "refusal_first"])
def test_a_refusal_beside_a_value_of_the_kind_asked_is_an_attempt(order):
    # "Yes. The passages do not contain enough information" asserts Yes; an amount beside the refusal
    # sentence asserts the amount (docs/method.md §4).
    refusal = REFUSALS["zh"]
    text = "50,000元。" + refusal if order == "value_first" else refusal + "但50,000元。"
    for judge in (STRICT, LENIENT):
        lab = label(text, ZH_PRINCIPAL, (ZH_LOAN,), judge)
        assert (lab.behaviour, lab.correctness) == ("attempted", "correct"), text
    en = label("HK$18,500. " + REFUSALS["en"], EN_RENT, (EN_LEASE_RENT,))
    assert (en.behaviour, en.correctness) == ("attempted", "correct")


def test_a_refusal_beside_the_question_s_words_or_a_value_of_another_kind_is_still_a_refusal():
    refusal = REFUSALS["zh"]
    # No amount: the question's own words beside the refusal take no position (whether such a remainder
    # reads as a refusal or as a reply stating nothing is not this rule's to say).
    assert label(refusal + "但被告借款。", ZH_PRINCIPAL, (ZH_LOAN,)).behaviour != "attempted"
    # A date is no amount of money.
    assert label("2017年3月2日。" + refusal, ZH_PRINCIPAL, (ZH_LOAN,)).behaviour == "abstained"
    assert label(REFUSALS["en"] + " The lease was signed.", EN_RENT, (EN_LEASE_RENT,)).behaviour != "attempted"


# One finding stating the item asked and another item's figure beside it.
ZH_INSURED = Passage(
    "zi/p1", "zi", "zi", "经审理查明",
    "经审理查明:2018年5月9日,原告叶x8的货车在高速公路发生事故,经某价格评估有限公司评估,车辆损失为36,800元,"
    "原告支付评估费1,600元。",
)
ZH_LOSS = QA("zq-loss", "在《叶x8诉某保险公司保险合同纠纷一审民事判决书》中，原告车辆的损失经评估为多少?", "36,800元",
             "zi/p1", "zi", "factual", ["36,800元"], [])
EN_ASSESSED = Passage(
    "ed/p1", "ed", "ed", "Findings",
    "The Tribunal assessed the arrears owed by Lam Wing-kei at HK$56,320 and the deposit held at HK$12,000.",
)
EN_ARREARS = QA("eq-arrears", "At what sum did the Tribunal assess the arrears owed by Lam Wing-kei?", "HK$56,320",
                "ed/p1", "ed", "factual", ["HK$56,320"], [])


def test_another_item_s_figure_quoted_from_the_sentence_stating_the_item_supports_nothing():
    for judge in (STRICT, LENIENT):
        lab = label("原告支付评估费1,600元。", ZH_LOSS, (ZH_INSURED,), judge)
        assert (lab.behaviour, lab.faithfulness, lab.correctness) == ("attempted", "unsupported", "incorrect")
        en = label("The deposit held was HK$12,000.", EN_ARREARS, (EN_ASSESSED,), judge)
        assert (en.behaviour, en.faithfulness, en.correctness) == ("attempted", "unsupported", "incorrect")


def test_the_item_s_own_figure_from_that_sentence_is_supported():
    for text in ("车辆损失为36,800元。", "车辆损失为36,800元,原告支付评估费1,600元。", "36,800元。"):
        lab = label(text, ZH_LOSS, (ZH_INSURED,))
        assert (lab.behaviour, lab.faithfulness, lab.correctness) == ("attempted", "fully_supported", "correct"), text
    en = label("The arrears were assessed at HK$56,320.", EN_ARREARS, (EN_ASSESSED,))
    assert (en.faithfulness, en.correctness) == ("fully_supported", "correct")
