"""Rules the dev halves of zh_heldout_14, zh_heldout_15 and en_heldout_14 showed missing (7 December, sixth
round; docs/method.md §4, from "A defence met by its effect"): a defence "不能免除赔偿责任" is rejected; a case
number opening a header names its judgment's every passage, and an agent's line under another party's entry
of that header is about that party; a sentence of a criminal judgment naming only another accused of its
title is not about the one asked; the principal penalties (拘役, 有期徒刑, ...) exclude each other; 委托代理人 is
an agent; a decision named by what it refused (不予认定工伤决定) holds no negation of what is asked; an
English question closed by its case names it; another accused's figure by place (D1) is that accused's
answer; a quote cut after "and" quotes the clause before it; "How did the court meet the submission" asks
how the court met it; the figure a question names picks the clause of a paste cut off.
Hand-built records, hand-checked labels (none of them is a validation item)."""

from __future__ import annotations

from judge_cases import label, qa

from pipeline.matching import rulings
from pipeline.records import Passage


def test_a_defence_that_cannot_relieve_liability_is_rejected():
    assert rulings.ruling("其关于已尽审查义务的抗辩不能免除赔偿责任。", "zh") == "rejected"
    assert rulings.ruling("被告的辩解不足以对抗原告的请求。", "zh") == "rejected"
    # Not every "不能": a finding of what a party could not do rules on nothing.
    assert rulings.ruling("原告不能证明其损失。", "zh") is None


REASONS = Passage(
    "sh/p4", "sh", "sh", "《邬某与某某文化传播有限公司侵害作品信息网络传播权纠纷一审民事判决书》",
    "本院认为：被告未经许可使用涉案作品，其关于图片来源于网络的抗辩不能免除赔偿责任，本院不予采纳。",
)
DEFENCE = qa("p-def", "在《邬某与某某文化传播有限公司侵害作品信息网络传播权纠纷一审民事判决书》中，法院对被告关于图片来源于网络的抗辩如何处理？",
             "不予采纳", REASONS, facts=["不予采纳"])


def test_the_defence_restated_with_its_effect_answers_how_it_was_met():
    got = label("其关于图片来源于网络的抗辩不能免除赔偿责任。", DEFENCE, (REASONS,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


HEADER = Passage(
    "gu/p1", "gu", "gu", "《某某建材有限公司与卢1、谢x4保证合同纠纷一审民事判决书》",
    "(2023)湘0104民初2231号。原告:某某建材有限公司,住所地长沙市某区。委托诉讼代理人:戴1,湖南某某律师事务所律师。"
    "被告一:卢1,男,1975年2月3日出生,住长沙市某区。委托诉讼代理人:卢x2,系卢1之弟。"
    "被告二:谢x4,女,1981年6月9日出生,住长沙市某区。委托诉讼代理人:龙x6,某某法律服务所法律工作者。",
)
AGENT = qa("p-agent", "在(2023)湘0104民初2231号案中，被告二的委托诉讼代理人是什么身份?", "某某法律服务所法律工作者", HEADER,
           facts=["某某法律服务所法律工作者"])


def test_another_partys_agent_in_the_numbered_header_supports_nothing_of_the_party_asked():
    got = label("委托诉讼代理人:戴1,湖南某某律师事务所律师。", AGENT, (HEADER,))
    assert got.behaviour == "attempted"
    assert got.faithfulness in ("unsupported", "contradicted")
    # The agent of the party asked, under its own entry, is supported.
    own = label("委托诉讼代理人:龙x6,某某法律服务所法律工作者。", AGENT, (HEADER,))
    assert (own.faithfulness, own.correctness) == ("fully_supported", "correct")


ADMIN = Passage(
    "wi/p1", "wi", "wi", "《吕某诉某某市人力资源和社会保障局工伤认定一审行政判决书》",
    "原告：吕某，男，1980年3月2日出生。委托代理人：蒋x1，系原告之兄。被告：某某市人力资源和社会保障局。"
    "法定代表人：邓某，该局局长。第三人：某某运输有限公司。委托代理人：伍2，该公司员工。",
)
THIRD = qa("p-third", "在《吕某诉某某市人力资源和社会保障局工伤认定一审行政判决书》中，第三人的委托代理人是谁？", "伍2", ADMIN,
           facts=["伍2"])


def test_an_administrative_headers_agent_of_another_party_is_contradicted_by_the_one_asked():
    got = label("委托代理人：蒋x1，系原告之兄。", THIRD, (ADMIN,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "contradicted", "incorrect")


ORDERS = Passage(
    "fi/p5", "fi", "fi", "(2023)赣0522刑初77号 葛x1、易某非法狩猎罪一审刑事判决书",
    "判决如下:一、被告人葛x1犯非法狩猎罪,判处有期徒刑十个月。二、被告人易某犯非法狩猎罪,判处拘役五个月,缓刑六个月。",
)
PRISON = qa("p-prison", "在(2023)赣0522刑初77号案中，第二被告人是否被判处有期徒刑?", "否", ORDERS, kind="yesno",
            facts=["No"])


def test_a_yes_from_the_first_accuseds_term_is_contradicted_by_the_seconds_own_penalty():
    got = label("是。判处有期徒刑十个月。二、被告人易某犯非法狩猎罪。", PRISON, (ORDERS,))
    assert (got.faithfulness, got.correctness) == ("contradicted", "incorrect")


def test_a_no_explained_by_the_other_accuseds_order_is_not_contradicted_by_it():
    got = label("否。一、被告人葛x1犯非法狩猎罪,判处有期徒刑十个月。", PRISON, (ORDERS,))
    assert got.faithfulness == "unsupported"
    # The second accused's own order explains it.
    own = label("否。二、被告人易某犯非法狩猎罪,判处拘役五个月,缓刑六个月。", PRISON, (ORDERS,))
    assert (own.faithfulness, own.correctness) == ("fully_supported", "correct")


QUASHED = Passage(
    "wq/p5", "wq", "wq", "《吕某诉某某市人力资源和社会保障局工伤认定一审行政判决书》",
    "判决如下：一、撤销被告某某市人力资源和社会保障局于2024年2月1日作出的不予认定工伤决定；二、责令被告重新作出处理。",
)
UPHELD = qa("p-upheld", "在《吕某诉某某市人力资源和社会保障局工伤认定一审行政判决书》中，本院是否维持被告作出的不予认定工伤决定？",
            "否", QUASHED, kind="yesno", facts=["No"])


def test_quashing_a_refusal_decision_answers_whether_it_was_upheld_no():
    got = label("否。判决如下：一、撤销被告某某市人力资源和社会保障局于2024年2月1日作出的不予认定工伤决定；", UPHELD, (QUASHED,))
    assert (got.faithfulness, got.correctness) == ("fully_supported", "correct")
    wrong = label("是。判决如下：一、撤销被告某某市人力资源和社会保障局于2024年2月1日作出的不予认定工伤决定；", UPHELD, (QUASHED,))
    assert wrong.faithfulness == "contradicted"


APPEAL_LAW = Passage(
    "ma/p3", "ma", "ma", "HCMA 411/2024 HKSAR v Kwok Siu-wa",
    "In HKSAR v Mak Chi-fung the Court of Appeal approved a starting point of 3 years' imprisonment for a clerk who "
    "had stolen $800,000, and said that restitution before trial may reduce the starting point, but that debts are "
    "of little weight.",
)
APPEAL_ORDER = Passage(
    "ma/p5", "ma", "ma", "HCMA 411/2024 HKSAR v Kwok Siu-wa",
    "The appeal is allowed. I take a starting point of 26 months, which after the discount gives 17 months.",
)
START = qa("p-start", "What starting point did the appeal court take in HKSAR v Kwok Siu-wa?", "26 months", APPEAL_ORDER,
           facts=["26 months"])


def test_a_cut_paste_of_a_cited_case_says_nothing_of_the_case_a_question_closes_with():
    text = ('Passage [1] states: "In HKSAR v Mak Chi-fung the Court of Appeal approved a starting point of 3 years\' '
            'imprisonment for a clerk who had stolen $800,000, and said that restitution before trial may')
    got = label(text, START, (APPEAL_LAW, APPEAL_ORDER), lang="en", finish="length")
    assert got.behaviour == "unusable"


DRUGS = Passage(
    "dd/p2", "dd", "dd", "HCCC 402/2024 HKSAR v Yau Chun-kit, Fok Ka-lun and Sit Wing-ho",
    "Police stopped a van in which the three defendants sat. A bag at D1's feet held 91.2 grammes of heroin. "
    "In D2's pocket were 9 packets containing 12.4 grammes of the same drug. D3 carried nothing.",
)
POCKET = qa("p-pocket", "How much heroin was found in Fok Ka-lun's pocket?", "12.4 grammes", DRUGS,
            facts=["12.4 grammes"])


def test_the_first_accuseds_quantity_offered_for_the_second_is_contradicted():
    got = label("A bag at D1's feet held 91.2 grammes of heroin.", POCKET, (DRUGS,), lang="en")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "contradicted", "incorrect")


BANDS = Passage(
    "bd/p3", "bd", "bd", "HCCC 402/2024 HKSAR v Yau Chun-kit, Fok Ka-lun and Sit Wing-ho",
    "As stated in HKSAR v Lui Tak-ming, for heroin the starting point after trial is 6 to 10 years for 10 to 50 "
    "grammes and 10 to 14 years for 50 to 200 grammes; in that case 61.5 grammes carried a starting point of 11 "
    "years, and a courier's role was held to be no ground for going below the band.",
)
CARRIED = qa("p-carried", "In HKSAR v Lui Tak-ming, as cited in HCCC 402/2024, what starting point did 61.5 grammes carry?",
             "11 years", BANDS, facts=["11 years"])


def test_the_bands_before_the_clause_a_question_names_its_figure_in_are_another_item():
    cut = ("As stated in HKSAR v Lui Tak-ming, for heroin the starting point after trial is 6 to 10 years for 10 to 50 "
           "grammes and 10 to 14 years for 50 to 200 grammes; in that case 61.5 grammes carried a starting point of")
    assert label(cut, CARRIED, (BANDS,), lang="en", finish="length").behaviour == "unusable"


def test_a_quote_cut_after_and_is_read_on_the_clause_before_it():
    cut = ("As stated in HKSAR v Lui Tak-ming, for heroin the starting point after trial is 6 to 10 years for 10 to 50 "
           "grammes and 10 to 14 years for 50 to 200 grammes; in that case 61.5 grammes carried a starting point of 11 "
           "years, and")
    got = label(cut, CARRIED, (BANDS,), lang="en", finish="length")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


SEEPAGE = Passage(
    "sp/p3", "sp", "sp", "DCCJ 2210/2023 Lam Pui-ling v Tse Kwok-on",
    "Mr Ho submitted for the defendant that the water came from the building's main drain. That submission is "
    "rejected: the dye test traced the water to the defendant's shower.",
)
MET = qa("p-met", "How did the court meet the submission for Tse Kwok-on that the water came from the building's main drain?",
         "That submission is rejected", SEEPAGE, facts=["That submission is rejected"])


def test_the_submission_restated_without_its_ruling_says_nothing_of_how_it_was_met():
    got = label("Mr Ho submitted for the defendant that the water came from the building's main drain.", MET, (SEEPAGE,),
                lang="en")
    assert got.behaviour == "unusable"
    ruled = label("That submission is rejected: the dye test traced the water to the defendant's shower.", MET, (SEEPAGE,),
                  lang="en")
    assert (ruled.behaviour, ruled.correctness) == ("attempted", "correct")


CLAIM = Passage(
    "dt/p2", "dt", "dt", "《庞x1与蒋某债权转让合同纠纷一审民事判决书》",
    "原告庞x1向本院提出诉讼请求：判令被告支付货款人民币伍万元整（50,000元）。2023年4月2日，被告向第三人支付货款4,000元。",
)
CLAIMED = qa("p-claimed", "在《庞x1与蒋某债权转让合同纠纷一审民事判决书》中，原告起诉请求被告支付的货款是多少？",
             "人民币伍万元整（50,000元）", CLAIM, facts=["人民币伍万元整（50,000元）"])


def test_a_sum_the_question_names_both_sides_of_is_another_item_not_the_other_sides():
    got = label("2023年4月2日，被告向第三人支付货款4,000元。", CLAIMED, (CLAIM,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "unsupported", "incorrect")
