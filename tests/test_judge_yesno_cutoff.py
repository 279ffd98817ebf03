"""The rule judge on Yes/No answers that explain themselves (a quoted clause, an appended sentence, a
citation) and every judge on answers cut off at max_new_tokens (docs/method.md §4), in English and
Chinese, on hand-built records with hand-checked labels."""

from __future__ import annotations

import pytest
from test_judges import FakeGenerator, llm, ok

from pipeline import matching as m
from pipeline.judges import JudgeItem, RuleJudge
from pipeline.params import Params
from pipeline.records import QA, Candidate, Passage

STRICT, LENIENT = RuleJudge("strict"), RuleJudge("lenient")
REFUSALS = Params().generate.refusal_by_language()

# A tenancy finding as Chinese judgments write it: one sentence of clauses, two of them negative.
ZH_LEASE = Passage(
    "zl/p1", "zl", "zl", "经审理查明",
    "原告某置业有限公司作为出租人与被告孙某作为承租人签订《房屋租赁合同》，月租金为18,000元。"
    "合同履行过程中，孙某自2021年10月起未再支付租金，原告于2022年1月15日向孙某发出《解除合同通知书》，"
    "孙某于次日签收，但至今未腾退房屋；"
    "庭审中，孙某辩称因疫情影响停业，但未提交相关证明，本院对其抗辩意见不予采纳。",
)
ZH_OTHER = Passage("zo/p1", "zo", "zo", "事实", "李某系乙公司财务总监，于2011年5月3日卖出所持股票。")
# An imported SQuAD-style yes/no question: the reference is the bare polarity.
ZH_VACATED = QA("zq-v", "孙某是否已经腾退了房屋？", "否", "zl/p1", "zl", "yesno", ["No"], [])
ZH_PAY = Passage(
    "zp/p1", "zp", "zp", "本院认为",
    "关于原告主张的加班费，原告提交的考勤记录系其单方制作，被告不予认可，原告亦未提供其他证据证明其存在加班事实，"
    "故本院对该项诉讼请求不予支持。原告赵某自2018年3月1日起在被告某物流有限公司从事仓储管理工作。",
)
ZH_OVERTIME = QA("zq-o", "法院是否支持了赵某的加班费请求？", "否", "zp/p1", "zp", "yesno", ["No"], [])

EN_LEASE = Passage(
    "el/p1", "el", "el", "Findings",
    "The landlord served a notice to quit on 3 May 2021. Despite the notice, the tenant has not vacated the "
    "premises and remains in occupation, paying no rent since June 2021. Although the tenant did not pay the "
    "March rent, the Tribunal granted relief against forfeiture.",
)
EN_OTHER = Passage(
    "eo/p1", "eo", "eo", "Orders",
    "Au Hiu-tung is entitled to possession of Flat E, 7/F, 199 Sai Yeung Choi Street, to take effect 30 days "
    "after the date of this order.",
)
EN_VACATED = QA("eq-v", "Has the tenant vacated the premises?", "No.", "el/p1", "el", "yesno", ["No"], [])
EN_RELIEF = QA("eq-r", "Did the Tribunal grant relief against forfeiture?", "Yes.", "el/p1", "el", "yesno",
               ["Yes"], [])
EN_POSSESSION = QA(
    "eq-p", "Is Chow Ming-fai entitled to possession of the home let to Yeung Hiu-tung?",
    "Yes. Chow Ming-fai was granted possession of Flat A, with the tenant to deliver vacant possession.",
    "ep/p1", "ep", "yesno", ["Yes"], [],
)


def label(text: str, qa: QA, passages: tuple[Passage, ...], judge: RuleJudge = STRICT, finish: str = "stop"):
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in qa.question) else "en"
    cand = Candidate(f"{qa.id}/ctx/offline:x", f"{qa.id}/ctx", "offline:x", text, finish)
    return judge.judge_one(JudgeItem(cand, qa, passages, True, REFUSALS[lang]))


def dims(text: str, qa: QA, passages: tuple[Passage, ...], judge: RuleJudge = STRICT, finish: str = "stop"):
    lab = label(text, qa, passages, judge, finish)
    return lab.behaviour, lab.faithfulness, lab.correctness, lab.completeness


# ------------------------------------------------------------- Yes/No with a quoted negative clause
ZH_QUOTE = "合同履行过程中，孙某自2021年10月起未再支付租金，原告于2022年1月15日向孙某发出《解除合同通知书》，孙某于次日签收，但至今未腾退房屋；"


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
@pytest.mark.parametrize(
    "text",
    [
        "否。",
        f"否。{ZH_QUOTE}",  # the confident style: the whole sentence, its 未 agreeing with the 否
        f"否。第[1]段写明：“{ZH_QUOTE}”",  # the cautious style: an attributed quote
        "否。至今未腾退房屋。",  # the clause alone
    ],
)
def test_chinese_no_with_its_negative_clause_quoted_is_correct(judge, text):
    # Before: only the bare 否 was correct; the quoted sentence's words mostly came from outside the
    # question (4 of 21), which read as "a sentence about another matter".
    assert dims(text, ZH_VACATED, (ZH_LEASE, ZH_OTHER), judge) == (
        "attempted", "fully_supported", "correct", "complete")


def test_chinese_wrong_bottom_line_or_dropped_negation_stays_wrong():
    assert dims(f"是。{ZH_QUOTE}", ZH_VACATED, (ZH_LEASE,))[1:3] == ("contradicted", "incorrect")
    # The quote drops its own clause's 未: it contradicts the passage, whatever its Yes/No.
    assert dims("否。孙某于次日签收，但至今腾退房屋；", ZH_VACATED, (ZH_LEASE,))[1] == "contradicted"


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_chinese_no_with_an_appended_sentence_and_a_citation(judge):
    # The verbose style: framing, the court's own sentence, a second sentence of the passage, a pointer.
    # Before: correctness incorrect (topic share 0.19), and 见/段 of "（见第[1]段）" read as a claim
    # the passage contradicts, so partially_supported.
    text = ("否。通读上述段落，答案的依据如下。关于原告主张的加班费，原告提交的考勤记录系其单方制作，被告不予认可，"
            "原告亦未提供其他证据证明其存在加班事实，故本院对该项诉讼请求不予支持。"
            "原告赵某自2018年3月1日起在被告某物流有限公司从事仓储管理工作。（见第[1]段）")
    assert dims(text, ZH_OVERTIME, (ZH_PAY, ZH_OTHER), judge) == (
        "attempted", "fully_supported", "correct", "complete")
    # The confident style: the court's sentence alone (before: incorrect beside a correct bare 否).
    confident = text.replace("通读上述段落，答案的依据如下。", "").split("原告赵某")[0]
    assert dims(confident, ZH_OVERTIME, (ZH_PAY,), judge)[1:3] == ("fully_supported", "correct")


def test_chinese_paragraph_pointers_are_citations():
    assert m.strip_citations("（见第[1]段和第[2]段）").strip() == ""
    assert m.strip_citations("否。（第3段）").strip() == "否。"
    assert m.content_words("（见第[1]段）", "zh") == set()
    # A statute's article is no pointer to a passage.
    assert "第5条" in m.strip_citations("依据第5条（见下文）")


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
@pytest.mark.parametrize(
    "text",
    [
        "No.",
        "No. The tenant has not vacated the premises.",
        # The whole sentence quoted: most of its words are not the question's, all of the question's are in it.
        "No. Despite the notice, the tenant has not vacated the premises and remains in occupation, paying no "
        "rent since June 2021.",
        # Appended: a second sentence of the passage and a pointer.
        "No. Reading the passages, the answer rests on the following. Despite the notice, the tenant has not "
        "vacated the premises and remains in occupation, paying no rent since June 2021. The landlord served "
        "a notice to quit on 3 May 2021. (see passage [1])",
    ],
)
def test_english_no_with_its_negative_clause_quoted_is_correct(judge, text):
    assert dims(text, EN_VACATED, (EN_LEASE, EN_OTHER), judge) == (
        "attempted", "fully_supported", "correct", "complete")


def test_english_wrong_bottom_line_stays_incorrect():
    assert dims("Yes. The tenant has vacated the premises.", EN_VACATED, (EN_LEASE,))[1:3] == (
        "contradicted", "incorrect")
    assert dims("Yes. Despite the notice, the tenant has not vacated the premises.", EN_VACATED,
                (EN_LEASE,))[1:3] == ("contradicted", "incorrect")


@pytest.mark.parametrize(
    ("text", "qa", "passage"),
    [
        ("Yes. The Tribunal granted relief against forfeiture.", EN_RELIEF, EN_LEASE),
        ("是。仅于2017年6月30日归还本金50,000元。",
         QA("zq-r", "王某是否归还了部分本金？", "是", "zr/p1", "zr", "yesno", ["Yes"], []),
         Passage("zr/p1", "zr", "zr", "经审理查明",
                 "被告王某未按约定归还借款本息，仅于2017年6月30日归还本金50,000元，余款至今未还。")),
    ],
)
def test_a_yes_resting_on_a_positive_clause_of_a_negative_sentence_is_supported(text, qa, passage):
    # The Yes is checked against the clause it quotes when that clause is about the question; before,
    # the other clause's "did not"/未 made the sentence answer "no" and the Yes contradicted it.
    assert dims(text, qa, (passage,))[1:3] == ("fully_supported", "correct")


def test_a_right_yes_about_another_party_stays_incorrect():
    # The sentence shares the matter (entitled to possession) and a given name, but names another party.
    # (The default run's syn-0025/q2 on a BM25 distractor: its first sentence alone restates 0.42 of the
    # reference's words, over the strict 0.4.)
    text = ("Yes. Au Hiu-tung is entitled to possession of Flat E, 7/F, 199 Sai Yeung Choi Street, to take "
            "effect 30 days after the date of this order. The premises are a small flat in an older building.")
    assert dims(text, EN_POSSESSION, (EN_OTHER,))[2] == "incorrect"
    assert dims("Yes. Chow Ming-fai is entitled to possession of the home.", EN_POSSESSION, (EN_OTHER,))[2] == "correct"
    zh_other = "是。李某于2011年5月3日卖出所持股票，至今已腾退房屋。"
    assert dims(zh_other.replace("是", "否", 1), ZH_VACATED, (ZH_LEASE,))[2] == "incorrect"


def test_party_names():
    assert m.names("Is Chow Ming-fai entitled to the home let to Yeung Hiu-tung?", "en", skip_first=True) == [
        frozenset({"chow", "ming", "fai"}), frozenset({"yeung", "hiu", "tung"})]
    # 某 after a role is "a certain", not a surname.
    assert m.names("原告赵某在被告某物流有限公司工作，孙某某作证。", "zh") == [
        frozenset({"赵", "某"}), frozenset(m.content_words("孙某某", "zh"))]


# ------------------------------------------------------------------------------------- cut-off answers
@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_a_cut_off_answer_is_never_complete_and_is_judged_on_its_finished_sentences(judge):
    qa = QA("eq-d", "Was the landlord entitled to keep the deposit?",
            "No. The landlord was not entitled to forfeit the deposit unless the premises were damaged.",
            "d1/p1", "d1", "yesno", ["No"], ["unless the premises were damaged"])
    passage = Passage("d1/p1", "d1", "d1", "Orders",
                      "The landlord was not entitled to forfeit the deposit unless the premises were damaged.")
    full = "No. The landlord was not entitled to forfeit the deposit unless the premises were damaged."
    assert dims(full, qa, (passage,), judge) == ("attempted", "fully_supported", "correct", "complete")
    # The same answer cut after its first sentence: the finished "No." is judged, completeness capped.
    # Its tail ("The landlord was", the negation never written) is no claim: not contradicted.
    assert dims("No. The landlord was", qa, (passage,), judge, "length") == (
        "attempted", "fully_supported", "correct", "incomplete")
    # Cut exactly at a sentence end: nothing dropped, still not complete (what came next is unknown).
    assert dims(full, qa, (passage,), judge, "length") == ("attempted", "fully_supported", "correct", "incomplete")
    # No finished sentence at all: unusable, nothing else judged.
    assert dims("The landlord was not entitled to", qa, (passage,), judge, "length") == (
        "unusable", None, None, None)


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_a_cut_off_chinese_answer(judge):
    # A 否 and the clause ending in ； are finished; the tail after them is not.
    assert dims(f"否。{ZH_QUOTE}原告某置业有限公司作为出", ZH_VACATED, (ZH_LEASE,), judge, "length") == (
        "attempted", "fully_supported", "correct", "incomplete")
    # Cut before any stop: unusable, as is a refusal that never finished.
    assert dims("合同履行过程中，孙某自2021年10月起未再", ZH_VACATED, (ZH_LEASE,), judge, "length")[0] == "unusable"
    assert dims("提供的段落没有足够的", ZH_VACATED, (ZH_LEASE,), judge, "length")[0] == "unusable"
    # Finished, the same texts are judged as they stand.
    assert dims("否。", ZH_VACATED, (ZH_LEASE,), judge, "stop")[3] == "complete"


def test_the_llm_judge_follows_the_same_cut_off_rule():
    gen = FakeGenerator({"behaviour": [ok("attempted")], "faithfulness": [ok("fully_supported")],
                         "correctness": [ok("correct")], "completeness": [ok("complete")]})
    cut = Candidate("eq-v/ctx/a", "eq-v/ctx", "a", "No. The tenant has not vac", "length")
    nothing = Candidate("eq-v/ctx/b", "eq-v/ctx", "b", "The tenant has not vac", "length")
    items = [JudgeItem(c, EN_VACATED, (EN_LEASE,), True, REFUSALS["en"]) for c in (cut, nothing)]
    first, second = llm(gen).judge(items)
    assert (first.candidate_id, first.behaviour, first.completeness) == ("eq-v/ctx/a", "attempted", "incomplete")
    assert (second.candidate_id, second.behaviour, second.faithfulness, second.status) == (
        "eq-v/ctx/b", "unusable", None, "ok")
    # Only the cut answer was asked about (four dimensions), and it was shown its finished sentence only.
    assert len(gen.prompts) == 4
    assert all("RESPONSE: No.\n" in p and "vac" not in p.split("RESPONSE: ")[1] for p in gen.prompts)
