"""Rules the dev halves of en_heldout_8, _9 and zh_heldout_9, _10 (and their cut-off runs) showed missing
(7 December, second round; docs/method.md §4): a Yes/No explained by the submission asked restated is as
supported as the passages' answer, words a submission quotes negating nothing; "in full" is answered no by
"in part"; "X's submission was that" is a submission; a case a question names is which case, not what it
asks; "what was the name of the ... who" asks who, and a role the passages give a party the question names
is that party; a revenue is a sum; a sum is no rate, and a time limit no sum; a weight or an area is
offered only in its units; a Chinese reply cut right after closing its own sentence is a finished reply,
and a sum in capital numerals is closed by its 元; an x-index name is a name before any character (姜x2股东,
方x4); a party of a Chinese title is its 被告二 by place; another accused's counsel offered for the one asked
is contradicted; a reference with no figure is contradicted by no figure. Hand-built records, hand-checked
labels (none of them is a validation item)."""

from __future__ import annotations

from judge_cases import label, qa

from pipeline.matching import parties as pt
from pipeline.records import Passage

TENANCY = Passage(
    "tn/p4", "tn", "tn", "DCCJ 1902/2023 Cheuk Siu-fan v Lui Hon-ming",
    "Mr Lui's submission was that the plaintiff had agreed to his staying on, relying on a message from Ms Law "
    "saying 'no rush'. That submission is rejected: the message was about returning the keys.",
)
STAYING = qa("s-stay", "Did the court accept Mr Lui Hon-ming's submission that Ms Cheuk Siu-fan had agreed to his "
             "staying on?", "No", TENANCY, kind="yesno", facts=["No"])


def test_a_no_explained_by_the_submission_restated_is_supported_by_the_ruling():
    got = label("No. Mr Lui's submission was that the plaintiff had agreed to his staying on, relying on a message "
                "from Ms Law saying 'no rush'.", STAYING, (TENANCY,), "en")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")
    wrong = label("Yes. Mr Lui's submission was that the plaintiff had agreed to his staying on.", STAYING, (TENANCY,), "en")
    assert (wrong.faithfulness, wrong.correctness) == ("contradicted", "incorrect")


LABOUR = Passage(
    "lb/p5", "lb", "lb", "HCLA 12/2023 Ip Kee Engineering Limited v Law Mei-chu",
    "The award is reduced to $73,360, to be paid to Ms Law within 14 days. The appeal is allowed in part.",
)
IN_FULL = qa("s-full", "Was Ip Kee Engineering Limited's appeal against Ms Law Mei-chu's award allowed in full?", "No",
             LABOUR, kind="yesno", facts=["No"])


def test_asked_whether_in_full_an_allowance_in_part_answers_no():
    got = label("Yes. The appeal is allowed in part.", IN_FULL, (LABOUR,), "en")
    assert (got.faithfulness, got.correctness) == ("contradicted", "incorrect")
    right = label("No. The appeal is allowed in part.", IN_FULL, (LABOUR,), "en")
    assert (right.faithfulness, right.correctness) == ("fully_supported", "correct")


WOUNDING = Passage(
    "wd/p4", "wd", "wd", "HCCC 88/2023 HKSAR v Lok Wing-hei and Tsoi Ka-ming",
    "D1 is convicted as charged. D2's submission was that nothing proves he knew of the knife. I accept that "
    "submission. D2 is acquitted and discharged.",
)
ACQUITTED = qa("s-acq", "Was Mr Tsoi Ka-ming acquitted in HKSAR v Lok Wing-hei and Tsoi Ka-ming?", "Yes", WOUNDING,
               kind="yesno", facts=["Yes"])
KNIFE = qa("s-knife", "How did the court deal with Tsoi Ka-ming's submission that nothing proved he knew of the knife?",
           "I accept that submission", WOUNDING)


def test_the_case_a_question_names_is_no_word_of_what_it_asks():
    got = label('Yes. Passage [1] states: "D2 is acquitted and discharged."', ACQUITTED, (WOUNDING,), "en")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


def test_a_submission_restated_as_it_was_put_takes_no_position_on_how_it_was_met():
    got = label('Passage [1] states: "D2\'s submission was that nothing proves he knew of the knife."', KNIFE,
                (WOUNDING,), "en")
    assert got.behaviour == "unusable"


TILL = Passage(
    "tl/p2", "tl", "tl", "HCMA 301/2023 HKSAR v Tsui Wing-kwan",
    "The appellant, Ms Tsui Wing-kwan, said that her shift supervisor had told her to put any surplus into an "
    "envelope. The monthly revenue of the shop fell from $620,000 to $548,000.",
)
SUPERVISOR = qa("s-sup", "What was the name of the shift supervisor who, according to Ms Tsui Wing-kwan, told her to "
                "keep surpluses in an envelope?", "", TILL, facts=[])
REVENUE = qa("s-rev", "What was the monthly revenue of Ms Tsui Wing-kwan's shop?", "", TILL, facts=[])


def test_asked_a_name_a_reply_naming_only_the_party_asked_by_her_role_names_no_one():
    got = label("The appellant said that her shift supervisor had told her to put any surplus into an envelope.",
                SUPERVISOR, (TILL,), "en")
    assert got.behaviour == "unusable"


def test_a_revenue_is_a_sum_asked():
    got = label("The monthly revenue of the shop fell from $620,000 to $548,000.", REVENUE, (TILL,), "en")
    assert got.behaviour == "attempted"


DAMAGES = Passage(
    "dm/p5", "dm", "dm", "HCA 55/2023 Heung Yuet-ling v Wai Fung Restaurant Group Limited",
    "The defendant shall pay the plaintiffs $141,000 as damages for delay, with interest at 8% per annum.",
)
RATE = qa("s-rate", "At what rate is interest awarded against Wai Fung Restaurant Group Limited?", "8% per annum",
          DAMAGES)
PAID = qa("s-paid", "How much did Wai Fung Restaurant Group Limited have to pay as damages for delay?", "$141,000",
          DAMAGES)


def test_a_sum_is_no_rate_and_a_time_limit_no_sum():
    assert label("The defendant shall pay the plaintiffs $141,000 as damages, with interest at the judgment rate.",
                 RATE, (DAMAGES,), "en").behaviour == "unusable"
    assert label("The damages are to be paid within 14 days.", PAID, (DAMAGES,), "en").behaviour == "unusable"
    assert label("The defendant shall pay the plaintiffs $141,000 as damages for delay.", PAID, (DAMAGES,),
                 "en").behaviour == "attempted"


AWARD = Passage(
    "aw/p6", "aw", "aw", "霍x1、施1与汤x5生命权纠纷一审民事判决书",
    "判决如下:一、被告汤x5于本判决生效之日起十日内赔偿二原告各项损失176,000元、精神损害抚慰金10,000元，扣除已垫付的6,000元，"
    "共计180,000元。二、被告汤x5于本判决生效之日起十日内另付人民币壹拾万零捌仟元整(108,000元)。",
)
TOTAL = qa("s-total", "在《霍x1、施1与汤x5生命权纠纷一审民事判决书》中，法院判决被告扣除垫付款后共计赔偿多少？", "180,000元", AWARD)
MORE = qa("s-more", "在《霍x1、施1与汤x5生命权纠纷一审民事判决书》中，法院判决被告另付多少？", "人民币壹拾万零捌仟元整(108,000元)", AWARD)


def test_a_reply_cut_after_closing_its_own_sentence_is_a_finished_reply():
    # The passage runs on "，扣除……": the 。 is the reply's own, so its sums are offered (for another item).
    got = label("第[1]段写明：“一、被告汤x5于本判决生效之日起十日内赔偿二原告各项损失176,000元、精神损害抚慰金10,000元。", TOTAL, (AWARD,),
                finish="length")
    assert (got.behaviour, got.correctness) == ("attempted", "incorrect")


def test_a_sum_in_capital_numerals_is_closed_by_its_yuan_at_a_cut():
    got = label("第[1]段写明：“二、被告汤x5于本判决生效之日起十日内另付人民币壹拾万零捌仟元整(108,0", MORE, (AWARD,), finish="length")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


def test_an_x_index_name_is_a_name_before_any_character():
    # (The 京某某 of 北京某某科技有限公司 is the company's "a certain", no name.)
    assert pt.parties("北京某某科技有限公司与程某、姜x2股东出资纠纷", "zh")[:2] == [frozenset({"程", "某"}), frozenset({"姜", "x2"})]
    assert pt.parties("辩护人方x4，律师。", "zh") == [frozenset({"方", "x4"})]
    # A bare index before a unit is still a figure, and 方 of 原告方 no surname.
    assert pt.parties("共计2股。原告方2019年起诉。", "zh") == []


SHARES = Passage(
    "sh/p3", "sh", "sh", "北京某某科技有限公司与程某、姜x2股东出资纠纷一审民事判决书",
    "本院认为:被告二提交的两张收据载明袁x1代原告收到被告二投资款20,000元,袁x1对此予以认可。",
)
RECEIPTS = qa("s-receipt", "姜x2交付的投资款中有收据证明的是多少?", "20,000元", SHARES)


def test_a_party_of_a_chinese_title_is_its_numbered_defendant_by_place():
    assert pt.zh_numbered_roles(frozenset({"姜", "x2"}), SHARES.heading, [SHARES.text]) == frozenset({"被告二", "第二被告"})
    got = label("被告二提交的两张收据载明袁x1代原告收到被告二投资款20,000元。", RECEIPTS, (SHARES,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


FRAUD = Passage(
    "fr/p1", "fr", "fr", "（2023）沪0115刑初1428号 吕x3、施2合同诈骗罪一审刑事判决书",
    "公诉机关上海市浦东新区人民检察院。被告人吕x3，男，一九八四年十月二十二日出生。辩护人方x4，上海某某律师事务所律师。被告人施2，男，"
    "一九九二年五月十七日出生。辩护人霍某，上海某律师事务所律师。",
)
DEFENDER = qa("s-defender", "在（2023）沪0115刑初1428号案中，第二被告人的辩护人是谁？", "霍某", FRAUD)


def test_another_accused_s_counsel_offered_for_the_one_asked_is_contradicted():
    got = label("被告人吕x3，男，一九八四年十月二十二日出生。辩护人方x4，上海某某律师事务所律师。", DEFENDER, (FRAUD,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "contradicted", "incorrect")
    own = label("辩护人霍某，上海某律师事务所律师。", DEFENDER, (FRAUD,))
    assert (own.faithfulness, own.correctness) == ("fully_supported", "correct")


STORE = Passage(
    "st/p2", "st", "st", "苏州某某食品贸易有限公司与某市某某冷链物流有限公司仓储合同纠纷一审民事判决书",
    "经审理查明:原告460箱牛肉已变质,每箱进货价380元。上述款项在交货后30日内支付。",
)
WEIGHT = qa("s-weight", "在《苏州某某食品贸易有限公司与某市某某冷链物流有限公司仓储合同纠纷一审民事判决书》中，原告变质牛肉的总重量是多少?", "",
            STORE, facts=[])
PRICE = qa("s-price", "在《苏州某某食品贸易有限公司与某市某某冷链物流有限公司仓储合同纠纷一审民事判决书》中，每箱进货价是多少?", "380元", STORE)


def test_a_weight_is_offered_only_in_its_units_and_a_time_limit_is_no_sum():
    assert label("原告460箱牛肉已变质。", WEIGHT, (STORE,)).behaviour == "unusable"
    assert label("原告变质牛肉共计9.2吨。", WEIGHT, (STORE,)).behaviour == "attempted"
    assert label("上述款项在交货后30日内支付。", PRICE, (STORE,)).behaviour == "unusable"


def test_a_reference_with_no_figure_is_contradicted_by_no_figure():
    company = Passage("cp/p1", "cp", "cp", "（2023）川0105行初213号 某公司诉某区市场监督管理局行政处罚一审行政判决书",
                      "原告某公司。法定代表人:方x6,该公司经理。被告某区市场监督管理局罚款20,000元。")
    bound = qa("s-rep", "在(2023)川0105行初213号案中，原告的法定代表人是谁?", "方x6", company)
    got = label("其已另以现金向原告法定代表人交付出资50,000元。", bound, (company,))
    assert got.faithfulness != "contradicted"
