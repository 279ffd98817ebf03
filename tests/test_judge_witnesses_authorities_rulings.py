"""Rules the dev halves of the held-out batches en_heldout_6, _7 and zh_heldout_6 to _8 showed missing
(7 December; docs/method.md §4): an English sentence naming only people its case's title does not (a
witness, a nurse) is about that case; "the authority cited in X" is reported by X's citing sentence; a
reference that is only the court's ruling is given by the same ruling in other words; "Order 11" is a
provision; to an impossible question asking a rate, or a sum of one thing, no sum of another answers;
不当得利 negates nothing; a question on a defence (抗辩) is answered by the party's submission; a bare
one-word answer claims what it names; a Chinese accused asked by place (第二被告人) is the one the criminal
title lists there, and a header entry is about the party it opens with. Hand-built records, hand-checked
labels (none of them is a validation item)."""

from __future__ import annotations

from judge_cases import label, qa

from pipeline.matching import parties as pt
from pipeline.records import Passage

DENTAL = Passage(
    "dn/p2", "dn", "dn", "HCPI 310/2022 Lo Mei-ting v Wan Kin-fung and Gentle Care Dental Limited",
    "On 2 May 2021 Dr Wan removed the tooth under local anaesthetic. The dental nurse, Ms Kan Sau-ying, said "
    "the extraction took over an hour. The first defendant, Dr Wan Kin-fung, charged $4,800 for it.",
)
NURSE = qa("w-nurse", "Who was the dental nurse at Ms Lo Mei-ting's extraction?", "Ms Kan Sau-ying", DENTAL)


def test_a_witness_named_in_the_asked_case_s_passage_supports_the_answer():
    got = label("The dental nurse, Ms Kan Sau-ying, said the extraction took over an hour.", NURSE, (DENTAL,), "en")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


OTHER_DENTAL = Passage(
    "od/p2", "od", "od", "HCPI 99/2021 Chan Siu-ling v Bright Teeth Limited",
    "The dental nurse, Ms Kan Sau-ying, said the extraction took over an hour.",
)


def test_the_same_witness_sentence_in_another_case_s_passage_supports_nothing_of_the_case_asked():
    got = label("The dental nurse, Ms Kan Sau-ying, said the extraction took over an hour.", NURSE, (OTHER_DENTAL,), "en")
    assert (got.behaviour, got.faithfulness) == ("attempted", "unsupported")


CITING = Passage(
    "ct/p3", "ct", "ct", "HCPI 310/2022 Lo Mei-ting v Wan Kin-fung and Gentle Care Dental Limited",
    "The standard is that of a reasonably competent dentist. As stated in Ip Wai-man v Sze Chun-kit, $300,000 "
    "was awarded for permanent numbness, the patient being a 47-year-old teacher.",
)
AGE = qa("w-age", "How old was the patient in the authority cited in Lo Mei-ting v Wan Kin-fung and Gentle Care "
         "Dental Limited?", "47", CITING)
AWARD = qa("w-award", "How much was Ms Lo Mei-ting awarded for pain and suffering?", "", CITING, facts=[])


def test_the_citing_sentence_supports_an_answer_on_the_authority_asked():
    got = label("As stated in Ip Wai-man v Sze Chun-kit, $300,000 was awarded for permanent numbness, the patient "
                "being a 47-year-old teacher.", AGE, (CITING,), "en")
    assert (got.behaviour, got.faithfulness) == ("attempted", "fully_supported")


def test_the_cited_case_s_award_is_no_support_for_the_citing_case_s_own():
    got = label("As stated in Ip Wai-man v Sze Chun-kit, $300,000 was awarded for permanent numbness.", AWARD,
                (CITING,), "en")
    assert (got.behaviour, got.faithfulness) == ("attempted", "unsupported")


DRYER = Passage(
    "dr/p4", "dr", "dr", "HCA 77/2023 Yuen Wo Laundry Limited v Koo Brothers Machinery Limited",
    "The defendant's case that the breakdowns were caused by overloading fails. The loads were within the "
    "maker's limit. That submission is rejected, and the dryer was not of merchantable quality.",
)
OVERLOAD = qa("w-overload", "How did the court in HCA 77/2023 deal with Koo Brothers Machinery Limited's case that "
              "the breakdowns were caused by overloading?", "That submission is rejected", DRYER)


def test_a_ruling_in_other_words_gives_the_ruling_the_reference_is():
    got = label("The defendant's case that the breakdowns were caused by overloading fails.", OVERLOAD, (DRYER,), "en")
    assert (got.behaviour, got.faithfulness, got.correctness, got.completeness) == (
        "attempted", "fully_supported", "correct", "complete")
    # The other ruling is not the one asked.
    upheld = label("The defendant's case that the breakdowns were caused by overloading is accepted.", OVERLOAD,
                   (DRYER,), "en")
    assert upheld.correctness == "incorrect"


SERVICE = Passage(
    "sv/p3", "sv", "sv", "HCA 2350/2023 Fortune Orchid Limited v Lotus Bay (Macau) Limited",
    "Leave to serve out may be given under Order 11, rule 1(1)(d)(iii) of the Rules of the High Court, Cap 4A, "
    "where a claim is made on a contract governed by Hong Kong law.",
)
RULE = qa("w-rule", "Under which rule was leave given to serve Lotus Bay (Macau) Limited out of the jurisdiction?",
          "Order 11, rule 1(1)(d)(iii)", SERVICE)


def test_an_order_of_the_rules_is_a_provision_offered():
    got = label("Leave to serve out may be given under Order 11.", RULE, (SERVICE,), "en")
    assert (got.behaviour, got.correctness) == ("attempted", "incorrect")


CHARGE = Passage(
    "cg/p1", "cg", "cg", "HCA 1288/2022 Grandway Finance Limited v Ngai Wing-hong",
    "The plaintiff, Grandway Finance Limited, obtained judgment against Mr Ngai Wing-hong on 18 October 2023 for "
    "$2,850,000 with interest. Interest runs at 8% per annum on the costs.",
)
RATE = qa("w-rate", "At what rate does interest run on the judgment debt Grandway Finance Limited obtained against "
          "Ngai Wing-hong?", "", CHARGE, facts=[])


def test_to_an_impossible_question_asking_a_rate_a_sum_is_no_position():
    got = label("Grandway Finance Limited obtained judgment against Mr Ngai Wing-hong on 18 October 2023 for "
                "$2,850,000 with interest.", RATE, (CHARGE,), "en")
    assert got.behaviour == "unusable"
    offered = label("Interest on the judgment debt runs at 8% per annum.", RATE, (CHARGE,), "en")
    assert offered.behaviour == "attempted"


UNJUST = Passage(
    "uj/p4", "uj", "uj", "卫x5与段1不当得利纠纷一审民事判决书",
    "本院认为，被告取得该款没有法律根据，构成不当得利。关于利息，原告主张自转账之日起计付利息，本院不予支持，利息应自原告催告之日起计算，"
    "对原告该项请求本院部分予以支持。",
)
INTEREST = qa("w-interest", "在《卫x5与段1不当得利纠纷一审民事判决书》中，法院是否支持原告自转账之日起计付利息的主张？", "否", UNJUST,
              kind="yesno", facts=["No"])


def test_a_cause_of_action_holding_a_negation_character_negates_no_question():
    got = label("否。", INTEREST, (UNJUST,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


LEAK = Passage(
    "lk/p2", "lk", "lk", "谭x7与殷某、邵x9相邻关系纠纷一审民事判决书",
    "谭x7向本院提出诉讼请求:1.判令二被告修复卫生间防水层,停止漏水。殷某辩称,房屋已出租给被告二,漏水应由实际使用人负责。"
    "邵x9辩称,漏水系防水层老化所致。",
)
DEFENCE = qa("w-defence", "殷某对漏水提出了什么抗辩?", "房屋已出租给被告二,漏水应由实际使用人负责", LEAK)


def test_a_party_s_submission_answers_a_question_on_its_defence():
    got = label("殷某辩称,房屋已出租给被告二,漏水应由实际使用人负责。谭x7向本院提出诉讼请求:1.判令二被告修复卫生间防水层,停止漏水;",
                DEFENCE, (LEAK,))
    # The claim pasted after it is the same judgment's other party's, reported as a claim.
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


HEADER = Passage(
    "hd/p1", "hd", "hd", "邹x9与苏州某某精密机械有限公司竞业限制纠纷二审民事判决书",
    "被上诉人(原审原告):苏州某某精密机械有限公司。法定代表人:谭x1,该公司总经理。委托诉讼代理人:孔x2,该公司员工。"
    "双方签订的《竞业限制协议》约定,邹x9离职后两年内不得到与公司有竞争关系的单位任职,公司按月支付竞业限制经济补偿3,000元。",
)
EMPLOYEE = qa("w-employee", "孔x2是被上诉人的什么人?", "该公司员工", HEADER)
WAGE = qa("w-wage", "在《邹x9与苏州某某精密机械有限公司竞业限制纠纷二审民事判决书》中，上诉人在竞争企业任职的月工资是多少?", "",
          HEADER, facts=[])


def test_a_bare_one_word_answer_claims_what_it_names():
    got = label("该公司员工。", EMPLOYEE, (HEADER,))
    assert (got.behaviour, got.faithfulness) == ("attempted", "fully_supported")


def test_to_an_impossible_question_a_sum_of_another_thing_supports_nothing():
    got = label("双方签订的《竞业限制协议》约定,邹x9离职后两年内不得到与公司有竞争关系的单位任职,公司按月支付竞业限制经济补偿3,000元。",
                WAGE, (HEADER,))
    assert (got.behaviour, got.faithfulness) == ("attempted", "unsupported")


LOGGING = Passage(
    "lg/p1", "lg", "lg", "（2022）赣0781刑初217号 谢某、柳x4滥伐林木罪一审刑事判决书",
    "公诉机关江西省瑞金市人民检察院。被告人谢某，男，一九七四年六月二日出生，农民。因涉嫌犯滥伐林木罪，于二〇二二年三月九日被瑞金市公安局"
    "取保候审。辩护人龙x6，江西某某律师事务所律师。被告人柳x4，男，一九八八年九月十七日出生，农民。因涉嫌犯滥伐林木罪，于二〇二二年三月十日被"
    "瑞金市公安局取保候审。辩护人陈某，江西某某律师事务所律师。",
)
BAIL = qa("w-bail", "在（2022）赣0781刑初217号案中，第二被告人于何时被取保候审？", "二〇二二年三月十日", LOGGING)
COUNSEL = qa("w-counsel", "在（2022）赣0781刑初217号案中，第一被告人的辩护人是谁？", "龙x6", LOGGING)


def test_an_accused_asked_by_place_is_the_one_the_criminal_title_lists_there():
    assert pt.zh_ordinal_party(BAIL.question, LOGGING.heading, [LOGGING.text]) == frozenset({"柳", "x4"})
    assert pt.zh_ordinal_party(COUNSEL.question, LOGGING.heading, [LOGGING.text]) == frozenset({"谢", "某"})
    # A defendant asked by its header entry's number; a civil title lists no accused.
    civil = "原告：宁波某某电器有限公司。被告一：苏x2，女，1995年10月12日出生。被告二：沈某，男。"
    assert pt.zh_ordinal_party("被告二的住所地在哪里?", "宁波某某电器有限公司与苏x2、沈某纠纷一审民事判决书", [civil]) == frozenset({"沈", "某"})
    assert pt.zh_ordinal_party("第二被告人是谁?", "宁波某某电器有限公司与苏x2、沈某纠纷一审民事判决书", [civil]) is None


def test_the_other_accused_s_header_entry_quoted_for_the_one_asked_is_contradicted():
    got = label("第[1]段写明：“因涉嫌犯滥伐林木罪，于二〇二二年三月九日被瑞金市公安局取保候审。”", BAIL, (LOGGING,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "contradicted", "incorrect")
    own = label("因涉嫌犯滥伐林木罪，于二〇二二年三月十日被瑞金市公安局取保候审。", BAIL, (LOGGING,))
    assert (own.faithfulness, own.correctness) == ("fully_supported", "correct")


def test_the_accused_offered_as_his_own_counsel_is_contradicted_by_his_entry():
    got = label("被告人谢某。", COUNSEL, (LOGGING,))
    assert (got.behaviour, got.faithfulness) == ("attempted", "contradicted")
