"""Rules the dev halves of zh_heldout_14, zh_heldout_15 and en_heldout_14 showed missing (7 December, sixth
round; docs/method.md §4, from "A defence met by its effect"): a defence "不能免除赔偿责任" is rejected; a case
number opening a header names its judgment's every passage, and an agent's line under another party's entry
of that header is about that party; a sentence of a criminal judgment naming only another accused of its
title is not about the one asked; the principal penalties (拘役, 有期徒刑, ...) exclude each other; 委托代理人 is
an agent; a decision named by what it refused (不予认定工伤决定) holds no negation of what is asked; an
English question closed by its case names it; another accused's figure by place (D1) is that accused's
answer; a quote cut after "and" quotes the clause before it; "How did the court meet the submission" asks
how the court met it; the figure a question names picks the clause of a paste cut off.
The seventh round's (zh_heldout_16, below) from "A bracket opened after words". Hand-built records,
hand-checked labels (none of them is a validation item)."""

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


# The seventh round's dev halves (zh_heldout_16): a bracket closes the words before it, a numbered
# defendant's agent is asked for as any party's is, 出庭负责人 is an agent's office, a submission runs on past
# its ；, and a sentence naming only another defendant by place is not about the one asked.
RESOLUTION = Passage(
    "rs/p6", "rs", "rs", "《闵某与某某餐饮管理有限公司公司决议纠纷一审民事判决书》",
    "判决如下：一、撤销被告某某餐饮管理有限公司于2024年5月6日作出的股东会决议中的第二项决议（注册资本增至5,000,000元）；"
    "二、驳回原告闵某的其他诉讼请求。",
)
REVOKED = qa("p-revoked", "在《闵某与某某餐饮管理有限公司公司决议纠纷一审民事判决书》中，本案法院撤销了哪一项决议？",
             "第二项决议（注册资本增至5,000,000元）", RESOLUTION, facts=["第二项决议（注册资本增至5,000,000元）"])


def test_a_paste_cut_inside_a_bracket_states_the_words_before_it():
    cut = "第[1]段写明：“一、撤销被告某某餐饮管理有限公司于2024年5月6日作出的股东会决议中的第二项决议（注册资本增至5,00"
    got = label(cut, REVOKED, (RESOLUTION,), finish="length")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


APPEAL = Passage(
    "ap/p5", "ap", "ap", "(2021)苏01民终1188号 某某公司与汤x2买卖合同纠纷二审民事判决书",
    "判决如下：一、撤销南京市某某区人民法院(2020)苏0115民初4471号民事判决；二、驳回汤x2的诉讼请求。",
)
DISPOSED = qa("p-disposed", "在(2021)苏01民终1188号案中，二审法院如何处理一审判决?",
              "撤销南京市某某区人民法院(2020)苏0115民初4471号民事判决", APPEAL,
              facts=["撤销南京市某某区人民法院(2020)苏0115民初4471号民事判决"])


def test_a_bracket_opening_a_case_number_closes_nothing():
    # (The exception to the rule above: it passed before the rule too.)
    got = label("通读上述段落，答案的依据如下。一、撤销南京市某某区人民法院(2020)苏", DISPOSED, (APPEAL,), finish="length")
    assert got.behaviour == "unusable"


NOTE_HEADER = Passage(
    "nh/p1", "nh", "nh", "《龙某与某某化工有限公司、某某物流有限公司票据追索权纠纷一审民事判决书》",
    "(2024)鲁0203民初512号。原告:龙某。委托诉讼代理人:邹某,律师。被告一:某某化工有限公司。委托诉讼代理人:詹x4,律师。"
    "被告二:某某物流有限公司。委托诉讼代理人:葛1,该公司员工。原告的委托诉讼代理人,被告一的委托诉讼代理人,被告二的委托诉讼代理人到庭参加诉讼。",
)
NOTE_AGENT = qa("p-note-agent", "在(2024)鲁0203民初512号案中，本案被告一的委托诉讼代理人是谁?", "詹x4", NOTE_HEADER,
                facts=["詹x4"])


def test_the_attendance_sentence_names_no_numbered_defendants_agent():
    got = label("原告的委托诉讼代理人,被告一的委托诉讼代理人,被告二的委托诉讼代理人到庭参加诉讼。", NOTE_AGENT, (NOTE_HEADER,))
    assert got.behaviour == "unusable"


BUREAU = Passage(
    "bu/p1", "bu", "bu", "《温某诉某某市某某区生态环境分局不履行法定职责一审行政判决书》",
    "原告：温某。委托代理人：詹某，律师。被告：某某市某某区生态环境分局。法定代表人：冯x1，该分局局长。出庭负责人：焦x2，该分局副局长。"
    "原告及其委托代理人，被告的出庭负责人及委托代理人到庭参加诉讼。",
)
OFFICER = qa("p-officer", "在《温某诉某某市某某区生态环境分局不履行法定职责一审行政判决书》中，本案被告的出庭负责人是谁？", "焦x2",
             BUREAU, facts=["焦x2"])


def test_the_attendance_sentence_names_no_officer_appearing():
    got = label("原告及其委托代理人，被告的出庭负责人及委托代理人到庭参加诉讼。", OFFICER, (BUREAU,))
    assert got.behaviour == "unusable"


SIGN = Passage(
    "sg/p2", "sg", "sg", "《郝x1与庞某、某某物业服务有限公司、某某广告有限公司物件脱落、坠落损害责任纠纷一审民事判决书》",
    "被告一辩称,事发当日风大,招牌脱落属于不可抗力;招牌由被告三制作安装,应由被告三承担责任。"
    "本院认为,被告一作为招牌的所有人,未予加固,应当承担主要责任。原告要求被告三承担责任的请求,本院不予支持。",
)
MAKER = qa("p-maker", "在《郝x1与庞某、某某物业服务有限公司、某某广告有限公司物件脱落、坠落损害责任纠纷一审民事判决书》中，本案被告三是否需要对原告承担赔偿责任?",
           "否", SIGN, kind="yesno", facts=["No"])


def test_what_a_defendant_says_after_its_semicolon_is_still_its_submission():
    got = label("否。", MAKER, (SIGN,))
    assert (got.faithfulness, got.correctness) == ("fully_supported", "correct")


SIGN_REASONS = Passage(
    "sg/p4", "sg", "sg", SIGN.heading,
    "本院认为,被告一作为招牌的所有人和使用人,未予加固,存在过错,应当承担主要责任。"
    "被告三交付的招牌已经被告一验收并使用两年,原告未能举证证明脱落系制作缺陷所致,原告要求被告三承担责任的请求,本院不予支持。",
)


def test_another_defendants_share_named_by_place_does_not_answer_for_the_one_asked():
    got = label("否。", MAKER, (SIGN_REASONS,))
    assert (got.faithfulness, got.correctness) == ("fully_supported", "correct")
    wrong = label("是。被告一作为招牌的所有人,未予加固,应当承担主要责任。", MAKER, (SIGN_REASONS,))
    assert (wrong.faithfulness, wrong.correctness) == ("contradicted", "incorrect")
