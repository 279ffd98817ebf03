"""Rules the dev halves of en_heldout_16 and zh_heldout_17 showed missing (7 December, eighth round;
docs/method.md §4, from "Asked who represented a party"): "appeared in person" answers who represented a
party; another party's counsel offered for the one asked, and another numbered defendant's agent named as
such, is that party's answer (contradicted where the case names the one asked); a cited case's figure of the
kind asked, quoted beside the right answer, supports nothing of it; a defence counsel's plea (辩护人……提出) is
a submission, the ruling on it answers, and another accused's own sentence does not; the court declining to
deal with a claim (不予处理) or fixing a sum (本院酌定) rules; the rarer surnames of anonymised names are
names. Hand-built records, hand-checked labels (none of them is a validation item)."""

from __future__ import annotations

from judge_cases import label, qa

from pipeline.matching import counsel
from pipeline.records import Passage

TITLE = "DCCJ 4120/2024 Yim Siu-ting v Brightwave Dental Limited and Kot Wing-sze"
HEADER = Passage(
    "dc/p1", "dc", "dc", TITLE,
    "DCCJ 4120/2024. The plaintiff sues a dental clinic (D1) and its hygienist (D2) for negligent treatment. "
    "Ms Joyce Lam Pui-yan, instructed by Messrs Ip & Wan, appeared for the plaintiff. Mr Alvin Sze Ka-lok, "
    "instructed by Messrs Ho & Fung, appeared for the first defendant. The second defendant, Ms Kot Wing-sze, "
    "appeared in person.",
)
CLINIC = qa("c-d1", "Who appeared for Brightwave Dental Limited in DCCJ 4120/2024?", "Mr Alvin Sze Ka-lok", HEADER)
TRIAL = Passage(
    "cc/p1", "cc", "cc", "DCCC 612/2024 HKSAR v Kot Wing-see",
    "The defendant, Ms Kot Wing-see, is charged with obtaining property by deception. Mr Raymond Fu Chi-hang "
    "appeared for the prosecution. Ms Vivian Lo Sze-man, assigned by the Director of Legal Aid, appeared for the "
    "defendant.",
)
NEAR_NAME = qa("c-near", "Who represented Kot Wing-see at her trial in DCCC 612/2024?", "Ms Vivian Lo Sze-man", TRIAL)


def test_appearing_in_person_answers_who_represented_a_party():
    # The near-name of another case appearing in person still says whom the reply takes to have had no counsel.
    got = label("The second defendant, Ms Kot Wing-sze, appeared in person.", NEAR_NAME, (HEADER, TRIAL), lang="en")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "unsupported", "incorrect")
    # A reply naming only the party asked, with nothing of representation, takes no position.
    assert label("Ms Kot Wing-see.", NEAR_NAME, (HEADER, TRIAL), lang="en").behaviour == "unusable"


def test_another_partys_counsel_offered_for_the_one_asked_is_contradicted_by_the_header():
    got = label("Ms Joyce Lam Pui-yan, instructed by Messrs Ip & Wan, appeared for the plaintiff.", CLINIC, (HEADER,),
                lang="en")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "contradicted", "incorrect")
    # The counsel asked is supported, and the other counsel listed beside it is a claim about another person
    # of the same judgment, resting on its passage.
    both = label("Mr Alvin Sze Ka-lok, instructed by Messrs Ho & Fung, appeared for the first defendant. Ms Joyce "
                 "Lam Pui-yan, instructed by Messrs Ip & Wan, appeared for the plaintiff.", CLINIC, (HEADER,), lang="en")
    assert (both.faithfulness, both.correctness) == ("fully_supported", "correct")


def test_whose_counsel_a_sentence_names():
    titles = [TITLE]
    assert counsel.asked_for("Who appeared for the second defendant?") == "the second defendant"
    assert counsel.for_another_party("the first defendant", "the second defendant", titles)
    assert not counsel.for_another_party("the second defendant", "the second defendant", titles)
    # A role of the other side of the title than the named party asked.
    assert counsel.for_another_party("the plaintiff", "Brightwave Dental Limited in DCCJ 4120/2024", titles)
    assert not counsel.for_another_party("the defendants", "Brightwave Dental Limited", titles)
    # An appellant or a respondent may stand on either side: not read.
    assert not counsel.for_another_party("the respondent", "Brightwave Dental Limited", titles)


REASONS = Passage(
    "dc/p4", "dc", "dc", TITLE,
    "As stated in Lui Chi-fai v Summit Smile Clinic Limited, where a crown was fitted to the wrong tooth, $40,000 "
    "was awarded for pain and suffering. The injury here lasted longer, and I award $65,000.",
)
AWARD = qa("c-award", "How much was Yim Siu-ting awarded for pain and suffering in DCCJ 4120/2024?", "$65,000", REASONS)


def test_a_cited_cases_figure_quoted_beside_the_right_answer_leaves_it_partially_supported():
    got = label("As stated in Lui Chi-fai v Summit Smile Clinic Limited, where a crown was fitted to the wrong tooth, "
                "$40,000 was awarded for pain and suffering. The injury here lasted longer, and I award $65,000.",
                AWARD, (REASONS,), lang="en")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "partially_supported", "correct")
    alone = label("The injury here lasted longer, and I award $65,000.", AWARD, (REASONS,), lang="en")
    assert (alone.faithfulness, alone.correctness) == ("fully_supported", "correct")


MINING = "(2024)皖1523刑初146号 靳x3、詹某、乔1非法采矿罪一审刑事判决书"
PLEAS = Passage(
    "mi/p2", "mi", "mi", MINING,
    "被告人詹某的辩护人凌x5提出,詹某系从犯,到案后主动交代全部事实,应认定为自首。被告人乔1的辩护人盛某提出,乔1系从犯,请求适用缓刑。",
)
RULING = Passage(
    "mi/p4", "mi", "mi", MINING,
    "上述事实,有证人证言及三被告人的供述等证据证实,足以认定。关于凌x5提出詹某系自首的意见,经查,詹某系在作业现场被民警抓获,"
    "不具有自动投案情节,该意见本院不予采纳;乔1主动投案并如实供述,系自首,可以减轻处罚。",
)
SURRENDER = qa("m-sur", "法院是否认定被告人詹某构成自首?", "否", RULING, kind="yesno", facts=["No"])


def test_a_defence_counsels_plea_is_a_submission_and_the_courts_ruling_on_it_answers():
    # The plea quoted as the court's finding is contradicted by the ruling on it; another accused's own 自首
    # (乔1) and a sentence holding only the question's verb (足以认定) answer nothing of 詹某.
    got = label("是，应认定为自首。", SURRENDER, (PLEAS, RULING))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "contradicted", "incorrect")
    right = label("否。关于凌x5提出詹某系自首的意见,该意见本院不予采纳。", SURRENDER, (PLEAS, RULING))
    assert (right.faithfulness, right.correctness) == ("fully_supported", "correct")


CARE = Passage(
    "ca/p4", "ca", "ca", "井x2与某某市某某颐养院养老服务合同纠纷一审民事判决书",
    "本院酌定被告承担70%的责任。交通费,原告主张2,500元,本院酌定1,200元。被告主张抵销的二〇二四年一月护理费，被告未提起反诉，"
    "且原告对数额有异议，本院在本案中不予处理，被告可另行主张。",
)
SET_OFF = qa("ca-off", "在《井x2与某某市某某颐养院养老服务合同纠纷一审民事判决书》中，法院是否在本案中处理了被告主张抵销的护理费？", "否",
             CARE, kind="yesno", facts=["No"])
FARE = qa("ca-fare", "在《井x2与某某市某某颐养院养老服务合同纠纷一审民事判决书》中，本案法院支持的交通费是多少?", "1,200元", CARE)


def test_declining_to_deal_with_a_claim_and_fixing_a_sum_are_the_courts_rulings():
    got = label("否。被告主张抵销的二〇二四年一月护理费，被告未提起反诉，且原告对数额有异议，本院在本案中不予处理，被告可另行主张。",
                SET_OFF, (CARE,))
    assert (got.faithfulness, got.correctness) == ("fully_supported", "correct")
    assert label("是。", SET_OFF, (CARE,)).faithfulness == "contradicted"
    fare = label("交通费,原告主张2,500元,本院酌定1,200元。", FARE, (CARE,))
    assert (fare.faithfulness, fare.correctness) == ("fully_supported", "correct")


GAME = Passage(
    "ga/p1", "ga", "ga", "(2024)赣1124民初1536号 井某与某某软件有限公司、萧1计算机软件开发合同纠纷一审民事判决书",
    "(2024)赣1124民初1536号。原告:井某,男,1985年4月2日出生。委托诉讼代理人:幸x2,江西某某律师事务所律师。"
    "被告一:某某软件有限公司。委托诉讼代理人:晁1,该公司员工。被告二:萧1,男,1990年6月1日出生。委托诉讼代理人:查某,江西某某律师事务所律师。",
)
SECOND = qa("ga-d2", "在(2024)赣1124民初1536号案中，本案被告二的委托诉讼代理人是谁?", "查某", GAME)


def test_another_numbered_defendants_agent_named_as_such_is_contradicted_by_the_one_asked():
    got = label("被告一的委托诉讼代理人晁1。", SECOND, (GAME,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "contradicted", "incorrect")
    own = label("被告二的委托诉讼代理人查某。", SECOND, (GAME,))
    assert (own.faithfulness, own.correctness) == ("fully_supported", "correct")


def test_rarer_surnames_of_published_anonymised_names_are_names():
    from pipeline.matching.parties import parties

    assert parties("萧1主动投案", "zh") == [frozenset({"萧", "1"})]
    assert parties("委托诉讼代理人：井x7，系原告之女", "zh") == [frozenset({"井", "x7"})]
    assert parties("被告乔1到庭", "zh") == [frozenset({"乔", "1"})]
    assert parties("委托诉讼代理人:晁1,该公司员工", "zh") == [frozenset({"晁", "1"})]
