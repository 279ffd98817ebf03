"""Rules the held-out published-style judgments (tests/fixtures/zh_heldout) showed missing (docs/method.md
§4): a case number that opens a judgment's first paragraph names every passage of that judgment; a count
or a grade is a value (五人, 九级伤残); a yes/no question is answered only by a sentence holding what it asks
whether; a claim the court cut down (过高, 调整为) was not upheld; a finished Chinese reply naming no one
and offering no figure answers no who-question. Hand-built records, hand-checked labels
(none of them is a validation item)."""

from __future__ import annotations

import pytest

from pipeline.judges import JudgeItem, RuleJudge
from pipeline.matching import values
from pipeline.params import Params
from pipeline.records import QA, Candidate, Passage

STRICT, LENIENT = RuleJudge("strict"), RuleJudge("lenient")
REFUSAL = Params().generate.refusal_by_language()["zh"]

# One traffic judgment in two paragraphs: the number opens the first, the title heads both.
TITLE = "孙x5诉李0机动车交通事故责任纠纷一审民事判决书"
# A header lists each party, then its agent (docs/method.md §4: the agent belongs to the entry before it).
HEAD = Passage("tj/p1", "tj", "tj", TITLE, "(2018)浙0782民初5617号。原告:孙x5,女。委托诉讼代理人:赵0,律师。被告:李0,男。")
FACTS = Passage(
    "tj/p2", "tj", "tj", TITLE,
    "经审理查明:被告李0驾驶小型轿车与原告孙x5相撞,致原告受伤。原告住院治疗21天,经鉴定,原告的伤情构成九级伤残。"
    "原告的各项损失合计187,306.40元。",
)
# Another judgment, with its own number, and a fraud judgment naming its victims by count.
OTHER = Passage("ot/p1", "ot", "ot", "钱1与郑x2房屋租赁合同纠纷一审民事判决书",
                "(2018)皖0104民初1234号。被告郑x2应支付租金19,250元,押金7,000元可抵扣租金。原告各项损失合计12,250元。")
FRAUD = Passage("fr/p1", "fr", "fr", "（2017）豫0105刑初1189号 赵0诈骗罪一审刑事判决书",
                "公诉机关指控:被告人赵0以办理签证为由,先后骗取被害人王某、张某等五人人民币共计136,000元。"
                "判决如下:被告人赵0犯诈骗罪,判处有期徒刑三年六个月,并处罚金人民币20,000元。")
LEASE = Passage("ls/p1", "ls", "ls", "钱1与郑x2房屋租赁合同纠纷一审民事判决书",
                "原告钱1与被告郑x2签订房屋租赁合同,约定月租金3,500元。被告于2018年8月15日搬离。")
SALE = Passage("sl/p1", "sl", "sl", "青岛某建材有限公司与刘x3买卖合同纠纷一审民事判决书",
               "被告刘x3尚欠货款95,800元。原告主张按日万分之五计算逾期付款违约金,过高,本院调整为按年利率6%计算。"
               "判决如下:被告刘x3支付原告货款95,800元及逾期付款违约金。")
LOAN = Passage("ln/p1", "ln", "ln", "郑x2诉韩0、钱1民间借贷纠纷一审民事判决书",
               "被告韩0向原告郑x2借款200,000元,被告钱1在借条上以保证人身份签字,约定承担连带保证责任。")

CASE = "在(2018)浙0782民初5617号案中，"
LOSS = QA("h-loss", CASE + "原告的各项损失合计多少?", "187,306.40元", "tj/p2", "tj", "factual", ["187,306.40元"], [])
AGENT = QA("h-agent", CASE + "原告的委托诉讼代理人是谁?", "赵0", "tj/p1", "tj", "factual", ["赵0"], [])
VICTIMS = QA("h-victims", "在（2017）豫0105刑初1189号案中，被告人骗取了几名被害人的钱财?", "五人", "fr/p1", "fr", "factual",
             ["五人"], [])
GRADE = QA("h-grade", CASE + "原告的伤残等级是几级?", "九级伤残", "tj/p2", "tj", "factual", ["九级伤残"], [])
DAMAGE = QA("h-damage", "在《钱1与郑x2房屋租赁合同纠纷一审民事判决书》中，被告搬离后房屋是否有损坏?", "", "ls/p1", "ls",
            "factual", [], [])
PENALTY = QA("h-penalty", "在《青岛某建材有限公司与刘x3买卖合同纠纷一审民事判决书》中，法院是否支持按日万分之五计算违约金?",
             "否", "sl/p1", "sl", "yesno", ["否"], [])
FINE = QA("h-fine", "在（2017）豫0105刑初1189号案中，被告人被判处多少罚金?", "人民币20,000元", "fr/p1", "fr", "factual",
          ["人民币20,000元"], [])
GUARANTOR = QA("h-guarantor", "在《郑x2诉韩0、钱1民间借贷纠纷一审民事判决书》中，本案的保证人是谁?", "钱1", "ln/p1", "ln",
               "factual", ["钱1"], [])
FEE_WHO = QA("h-fee", CASE + "二审案件受理费由谁负担?", "", "tj/p1", "tj", "factual", [], [])


def label(text: str, qa: QA, passages: tuple[Passage, ...], judge: RuleJudge = STRICT, answerable: bool = True):
    cand = Candidate(f"{qa.id}/ctx/gen:x", f"{qa.id}/ctx", "gen:x", text, "stop")
    return judge.judge_one(JudgeItem(cand, qa, passages, answerable, REFUSAL))


def dims(lab):
    return lab.behaviour, lab.faithfulness, lab.correctness


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_a_case_number_opening_the_first_paragraph_names_the_whole_judgment(judge):
    # The question names its case by the number its first paragraph opens with; the figure is in the
    # second paragraph, headed only by the title. Both are that case's, the other judgment's is not.
    lab = label("第[2]段写明：“原告的各项损失合计187,306.40元。”", LOSS, (OTHER, HEAD, FACTS), judge)
    assert dims(lab) == ("attempted", "fully_supported", "correct")
    lab = label("原告赵0的委托诉讼代理人。", AGENT, (HEAD,), judge)
    quoted = label("委托诉讼代理人:赵0,律师。", AGENT, (OTHER, HEAD), judge)
    assert quoted.faithfulness == "fully_supported"
    wrong = label("原告各项损失合计12,250元。", LOSS, (OTHER, HEAD, FACTS), judge)
    assert wrong.faithfulness in ("unsupported", "contradicted")
    assert wrong.correctness == "incorrect"


def test_a_number_further_in_names_no_case():
    # A first-instance number cited inside an appeal's text is another court's: the passage stays unnamed.
    appeal = Passage("ap/p1", "ap", "ap", "某物流有限公司与马x6运输合同纠纷二审民事判决书",
                     "上诉人某物流有限公司不服(2018)浙0782民初5617号民事判决,提起上诉。原告的各项损失合计86,000元。")
    lab = label("原告的各项损失合计86,000元。", LOSS, (appeal, HEAD, FACTS))
    assert lab.faithfulness in ("unsupported", "contradicted")


@pytest.mark.parametrize("text, qa", [
    ("先后骗取被害人王某、张某等五人人民币共计136,000元。", VICTIMS),
    ("经鉴定,原告的伤情构成九级伤残。", GRADE),
])
def test_a_count_or_a_grade_is_the_value_asked(text, qa):
    passages = (FRAUD,) if qa is VICTIMS else (HEAD, FACTS)
    for judge in (STRICT, LENIENT):
        assert dims(label(text, qa, passages, judge)) == ("attempted", "fully_supported", "correct"), text


def test_a_wrong_count_is_not_the_right_one():
    lab = label("先后骗取被害人王某、张某等三人。", VICTIMS, (FRAUD,))
    assert lab.correctness == "incorrect"
    assert lab.faithfulness in ("unsupported", "contradicted")


@pytest.mark.parametrize("text", ["是。", "否。", "否。第[1]段写明：“被告于2018年8月15日搬离。”"])
def test_a_yes_no_nothing_in_the_context_speaks_of_is_unsupported(text):
    # The sentence on the move-out says nothing of damage: no sentence answers, so neither 是 nor 否 rests
    # on one, and neither is contradicted.
    lab = label(text, DAMAGE, (LEASE, SALE), answerable=False)
    assert dims(lab) == ("attempted", "unsupported", "incorrect"), text


@pytest.mark.parametrize("text, faithfulness, correctness", [
    ("是。", "contradicted", "incorrect"),
    ("是。原告主张按日万分之五计算逾期付款违约金,过高,本院调整为按年利率6%计算。", "contradicted", "incorrect"),
    ("否。", "fully_supported", "correct"),
    ("否。原告主张按日万分之五计算逾期付款违约金,过高,本院调整为按年利率6%计算。", "fully_supported", "correct"),
])
def test_a_claim_the_court_found_excessive_and_replaced_was_not_upheld(text, faithfulness, correctness):
    for judge in (STRICT, LENIENT):
        lab = label(text, PENALTY, (LEASE, SALE), judge)
        assert (lab.behaviour, lab.faithfulness, lab.correctness) == ("attempted", faithfulness, correctness), text


@pytest.mark.parametrize("text, behaviour", [
    # To who: no party, no role, no figure.
    ("约定承担连带保证责任。", "unusable"),
    ("被告钱1在借条上以保证人身份签字。", "attempted"),
])
def test_a_finished_chinese_reply_naming_no_one_answers_no_who_question(text, behaviour):
    for judge in (STRICT, LENIENT):
        assert label(text, GUARANTOR, (LOAN,), judge).behaviour == behaviour, text


@pytest.mark.parametrize("text, behaviour", [
    # The order on the item asked, its amount missing: what the question presupposes, no position.
    ("被告人赵0犯诈骗罪,并处罚金。", "unusable"),
    # A date only situates ("since when"), it answers no "how much".
    ("被告人赵0于2016年3月起骗取被害人钱财。", "unusable"),
    # A figure of another kind is offered as the answer: attempted, and wrong.
    ("被告人赵0犯诈骗罪,判处有期徒刑三年六个月。", "attempted"),
    # The figure asked.
    ("并处罚金人民币20,000元。", "attempted"),
])
def test_a_reply_offering_no_figure_takes_no_position_on_how_much(text, behaviour):
    for judge in (STRICT, LENIENT):
        lab = label(text, FINE, (FRAUD,), judge)
        assert lab.behaviour == behaviour, text
        if behaviour == "attempted" and "20,000" not in text:
            assert lab.correctness == "incorrect"


def test_an_english_reply_offering_no_figure_takes_no_position_on_how_much():
    fined = QA("e-fine", "How much was Chan Tai-man fined?", "HK$50,000", "e/p1", "e", "factual", ["HK$50,000"], [])
    passage = Passage("e/p1", "e", "e", "Sentence", "Chan Tai-man was convicted and fined HK$50,000 on 3 May 2019.")
    assert label("Chan Tai-man was convicted and fined.", fined, (passage,)).behaviour == "unusable"
    assert label("Chan Tai-man was fined on 3 May 2019.", fined, (passage,)).behaviour == "unusable"
    assert dims(label("Chan Tai-man was fined HK$50,000.", fined, (passage,))) == (
        "attempted", "fully_supported", "correct")
    # Asked what the fines were, with a reference that is a figure and nothing more, the question asks for
    # the figure whatever its form (blind readers of tests/fixtures/en_heldout read it so; the older
    # convention here, a claim about the fines without one is a position, is given up).
    what = QA("e-what", "What were the fines of Chan Tai-man?", "HK$50,000", "e/p1", "e",
              "factual", ["HK$50,000"], [])
    assert label("Chan Tai-man's fines were paid by his employer.", what, (passage,)).behaviour == "unusable"
    assert label("Chan Tai-man's fines came to HK$80,000.", what, (passage,)).behaviour == "attempted"
    # A reference that says more than a figure ("15% of the rent") keeps the question's own form.
    share = QA("e-share", "What reduction of the rent was allowed?", "15% of the rent", "e/p1", "e", "factual",
               ["15% of the rent"], [])
    assert label("A reduction of the rent was allowed for the loss of amenity.", share, (passage,)).behaviour == "attempted"


def test_a_figure_for_who_bears_the_fee_supports_nothing_even_without_a_reference():
    # The set marks the question impossible (no reference): the fee's amount is still another item.
    lab = label("二审案件受理费1,950元。", FEE_WHO, (HEAD, FACTS), answerable=False)
    assert (lab.behaviour, lab.faithfulness) == ("attempted", "unsupported")
    # Named by its role, the bearer is a position on who.
    lab = label("二审案件受理费1,950元,由上诉人负担。", FEE_WHO, (HEAD, FACTS), answerable=False)
    assert lab.behaviour == "attempted"


BORROWED = QA("h-borrowed", "被告韩0向原告借了多少钱?", "200,000元", "ln/p1", "ln", "factual", ["200,000元"], [])
RENT_ORDER = Passage("ro/p1", "ro", "ro", "钱1与郑x2房屋租赁合同纠纷一审民事判决书",
                     "原告钱1与被告郑x2签订房屋租赁合同,约定月租金3,500元。判决如下:被告郑x2支付原告钱1租金12,250元。")


def cut(text: str, qa: QA, passages: tuple[Passage, ...]):
    cand = Candidate(f"{qa.id}/ctx/gen:x", f"{qa.id}/ctx", "gen:x", text, "length")
    return STRICT.judge_one(JudgeItem(cand, qa, passages, False, REFUSAL))


def test_a_paste_running_on_in_a_passage_s_own_words_takes_no_position_by_another_item_s_figure():
    # A question of single characters (借, 钱: "借了多少钱") still has a topic, and the rent order is not on
    # it; the tail 原告钱1与 is the passage's own words, though not those after the quoted sentence.
    text = "通读上述段落，答案的依据如下。判决如下:被告郑x2支付原告钱1租金12,250元。原告钱1与"
    assert cut(text, BORROWED, (RENT_ORDER, SALE)).behaviour == "unusable"
    # Cut in filler instead, the one finished sentence is offered as the answer: an attempt, unsupported.
    lab = cut("判决如下:被告郑x2支付原告钱1租金12,250元。这类案件在法律实务中", BORROWED, (RENT_ORDER, SALE))
    assert (lab.behaviour, lab.faithfulness, lab.correctness) == ("attempted", "unsupported", "incorrect")
    # A formula every judgment holds (判决如下) is no passage's own words.
    assert cut("被告郑x2支付原告钱1租金12,250元。判决如下", BORROWED, (RENT_ORDER, SALE)).behaviour == "attempted"


def test_a_party_calling_the_claim_excessive_decides_nothing():
    # The defendant's "过高" is a submission; the court upheld the rate: 是 stands.
    upheld = Passage("up/p1", "up", "up", "青岛某建材有限公司与刘x3买卖合同纠纷一审民事判决书",
                     "被告刘x3辩称按日万分之五计算违约金过高。原告主张按日万分之五计算逾期付款违约金,符合约定,予以支持。")
    lab = label("是。", PENALTY, (upheld, LEASE))
    assert lab.faithfulness != "contradicted"


# Rules the second held-out batch (tests/fixtures/zh_heldout_2) showed missing on its dev half.
TRADEMARK = Passage("tm/p1", "tm", "tm", "广州某日化有限公司诉杨x8侵害商标权纠纷一审民事判决书",
                    "原告的委托代理人在被告处购买洗发液两瓶,支付价款56元。"
                    "被告辩称其所售商品系从他人处进货,但未能提供供货方的名称、进货凭证等证据。")
HOW_MANY = QA("h-bottles", "在《广州某日化有限公司诉杨x8侵害商标权纠纷一审民事判决书》中，原告的委托代理人购买了几瓶洗发液?",
              "两瓶", "tm/p1", "tm", "factual", ["两瓶"], [])
RECEIPTS = QA("h-receipts", "在《广州某日化有限公司诉杨x8侵害商标权纠纷一审民事判决书》中，被告是否提供了进货凭证?",
              "否", "tm/p1", "tm", "yesno", ["No"], [])


@pytest.mark.parametrize("text, behaviour", [
    ("原告的委托代理人在被告处购买洗发液两瓶。", "attempted"),
    # A count of things (瓶, 盒, 辆) is a figure; a reply with none answers no 几瓶.
    ("原告的委托代理人在被告处购买洗发液。", "unusable"),
])
def test_a_count_of_things_answers_how_many(text, behaviour):
    for judge in (STRICT, LENIENT):
        assert label(text, HOW_MANY, (TRADEMARK,), judge).behaviour == behaviour, text


def test_a_submission_the_party_failed_to_prove_is_the_court_s_finding():
    from pipeline.matching import statements
    assert not statements.is_issue_or_submission(TRADEMARK.text.split("。")[1], "zh")
    # A 但 inside the party's own words is still its submission.
    assert statements.is_issue_or_submission("被告辩称借款属实,但利息约定过高", "zh")
    lab = label("否。被告辩称其所售商品系从他人处进货,但未能提供供货方的名称、进货凭证等证据。", RECEIPTS, (TRADEMARK,))
    assert dims(lab) == ("attempted", "fully_supported", "correct")


def test_a_certain_institution_after_a_place_and_a_court_code_are_no_names():
    from pipeline import matching as m
    from pipeline.matching.parties import parties
    assert [name for _, _, name in m.zh_name_spans("委托诉讼代理人:谢0,江苏某律师事务所律师。")] == [frozenset({"谢", "0"})]
    assert parties("均由南京某建设工程有限公司负担", "zh") == [frozenset({"某建设工程有限公司"})]
    assert parties("李某向某公司借款", "zh") == [frozenset({"李", "某"}), frozenset({"某公司"})]
    # "(2021)苏01民终6732号": 苏01 is the court's code, not an anonymised 苏.
    assert parties("在(2021)苏01民终6732号案中，二审案件受理费由谁负担?", "zh") == []


MEDICAL = Passage("md/p1", "md", "md", "沈1诉无锡市某医院医疗损害责任纠纷一审民事判决书",
                  "(2020)苏0211民初4127号。原告:沈1,女,汉族。委托诉讼代理人:谢0,江苏某律师事务所律师。")
INJURY = Passage("wi/p1", "wi", "wi", "唐x6与南通某纺织有限公司工伤保险待遇纠纷一审民事判决书",
                 "(2021)苏0602民初2286号。原告:唐x6,男,汉族。委托诉讼代理人:冯x4,江苏某律师事务所律师。")
AGENT_4127 = QA("h-agent2", "在(2020)苏0211民初4127号案中，原告的委托诉讼代理人是谁?", "谢0", "md/p1", "md", "factual",
                ["谢0"], [])


def test_a_claim_naming_its_own_party_rests_only_on_sentences_naming_it():
    # The other case's agent, quoted beside the right one, is the same sentence with the name swapped.
    text = "委托诉讼代理人:谢0,江苏某律师事务所律师。委托诉讼代理人:冯x4,江苏某律师事务所律师。"
    assert dims(label(text, AGENT_4127, (MEDICAL, INJURY))) == ("attempted", "partially_supported", "correct")
    assert dims(label("委托诉讼代理人:谢0,江苏某律师事务所律师。", AGENT_4127, (MEDICAL, INJURY))) == (
        "attempted", "fully_supported", "correct")


DRUNK = Passage("dd/p1", "dd", "dd", "（2020）浙0106刑初512号 蒋0危险驾驶罪一审刑事判决书",
                "经审理查明：被告人蒋0醉酒驾驶小型轿车，证人沈1系同车乘客。被告人蒋0到案后如实供述了上述事实。")
WITNESS = QA("h-witness", "证人沈1与被告人是什么关系?", "同车乘客", "dd/p1", "dd", "factual", ["同车乘客"], [])


def test_a_secondary_claim_about_another_person_of_the_same_judgment_is_supported():
    text = "证人沈1系同车乘客。被告人蒋0到案后如实供述了上述事实。"
    assert dims(label(text, WITNESS, (DRUNK, MEDICAL))) == ("attempted", "fully_supported", "correct")
    # About a person of another judgment it is not.
    text = "证人沈1系同车乘客。委托诉讼代理人:冯x4,江苏某律师事务所律师。"
    assert label(text, WITNESS, (DRUNK, INJURY)).faithfulness == "partially_supported"


ESTATE = Passage("es/p1", "es", "es", "罗x3与蒋0、罗2法定继承纠纷一审民事判决书",
                 "经审理查明：被继承人罗某某于2020年9月7日因病去世，生前未立遗嘱，其父母均先于其死亡。")
WILL = QA("h-will", "在《罗x3与蒋0、罗2法定继承纠纷一审民事判决书》中，被继承人生前是否立有遗嘱?", "否", "es/p1", "es",
          "yesno", ["No"], [])


def test_a_person_of_the_case_a_question_names_is_no_other_party():
    # The decedent 罗某某 is named in the case's own passage, not in its title.
    lab = label("否。罗某某于2020年9月7日因病去世，生前未立遗嘱，其父母均先于其死亡。", WILL, (ESTATE, MEDICAL))
    assert dims(lab) == ("attempted", "fully_supported", "correct")


APPEAL = Passage("ap/p1", "ap", "ap", "(2021)苏01民终6732号 杨x8与南京某建设工程有限公司建设工程施工合同纠纷二审民事判决书",
                 "一审法院以质量保证金返还期限未届满为由,判决某建设公司支付工程款1,002,000元。")
HANDLED = QA("h-handled", "在(2021)苏01民终6732号案中，二审法院如何处理一审判决?", "撤销一审判决", "ap/p1", "ap",
             "factual", ["撤销一审判决"], [])
LEGAL_REP = QA("h-rep", "在(2021)苏01民终6732号案中，原告的法定代表人是谁?", "董x9", "ap/p1", "ap", "factual", ["董x9"], [])


def test_a_ground_framing_and_the_question_s_own_roles_state_nothing():
    # The ground the first court gave is no order to "how was it decided".
    assert label("一审法院以质量保证金返还期限未届满为由。", HANDLED, (APPEAL,)).behaviour == "unusable"
    # Framing and the question's own words: nothing of who the representative is.
    assert label("通读上述段落，答案的依据如下。法定代表人。原告。（见第[1]段）", LEGAL_REP, (APPEAL,)).behaviour == "unusable"


def test_a_bare_number_is_a_figure_a_citation_or_a_name_index_is_not():
    fined = QA("e-fine2", "What amount did the court direct Chan Tai-man to pay to the victim?", "HK$50,000", "e/p1",
               "e", "factual", ["HK$50,000"], [])
    passage = Passage("e/p1", "e", "e", "Sentence", "The court directed Chan Tai-man to pay HK$50,000 to the victim.")
    # A sum written without its currency is still the amount offered (wrong here).
    assert label("The court directed Chan Tai-man to pay a sum of 160,000 to the victim.", fined,
                 (passage,)).behaviour == "attempted"
    assert label('Passage [1] states: "The court directs that these reasons be sent to the victim."', fined,
                 (passage,)).behaviour == "unusable"
    assert label("被告人赵0犯诈骗罪,并处罚金。", FINE, (FRAUD,)).behaviour == "unusable"


def test_a_value_of_another_kind_is_no_number_for_a_number():
    """A fact that is a bare number ("第3类") is stated by a number, not by a sum of money or a date."""
    goods = Passage("tm/p2", "tm", "tm", "广州某日化有限公司诉杨x8侵害商标权纠纷一审民事判决书",
                    "原告系第1234567号注册商标的权利人,该商标核定使用在第3类洗发液等商品上。")
    which_class = QA("h-class", "在《广州某日化有限公司诉杨x8侵害商标权纠纷一审民事判决书》中，原告的注册商标核定使用在第几类商品上?",
                     "第3类", "tm/p2", "tm", "factual", ["第3类"], [])
    assert label("原告的各项损失合计256,300元。", which_class, (goods, TRADEMARK)).behaviour == "unusable"
    assert label("2019年3月5日。", which_class, (goods, TRADEMARK)).behaviour == "unusable"
    # Another class is still a position on the class, right or wrong.
    assert label("核定使用在第5类商品上。", which_class, (goods, TRADEMARK)).behaviour == "attempted"
    assert label("核定使用在第3类洗发液等商品上。", which_class, (goods, TRADEMARK)).correctness == "correct"


def test_the_right_role_held_by_another_case_s_person_is_incorrect():
    """A reference that is a role ("被告") is given by a reply naming the asked case's holder or no one,
    not by one naming another judgment's defendant."""
    title = "沈1诉无锡市某医院医疗损害责任纠纷一审民事判决书"
    fees = Passage("md/p4", "md", "md", title, "判决如下:案件受理费4,272元,由原告负担1,959元,被告负担2,313元;鉴定费12,000元,由被告负担。")
    equity = Passage("eq/p3", "eq", "eq", "谢0与许x7股权转让纠纷一审民事判决书", "案件受理费8,800元,由被告许x7负担。")
    who_pays = QA("h-appraisal", f"在《{title}》中，本案鉴定费由谁负担?", "被告", "md/p4", "md", "factual", ["被告"], [])
    for text, correctness in [("由被告许x7负担。", "incorrect"), ("由被告负担。", "correct"),
                              ("由被告无锡市某医院负担。", "correct")]:
        got = label(text, who_pays, (equity, fees))
        assert (got.behaviour, got.correctness) == ("attempted", correctness), text


# Rules the third held-out batch (tests/fixtures/zh_heldout_3) showed missing on its dev half.
LOAN3 = Passage("ln3/p2", "ln3", "ln3", "(2022)桂0202民初5120号 陆x8与覃1、柳州市某贸易有限公司民间借贷纠纷一审民事判决书",
                "经审理查明:二〇二一年三月五日,被告覃1向原告出具借条一份,载明借到人民币叁拾万元整(300,000元)。"
                "被告柳州市某贸易有限公司承诺在人民币壹拾万元整的范围内承担连带保证责任。")
DIVORCE = "梁x6与廖某离婚纠纷一审民事判决书"
DIVORCE_HEAD = Passage("dv/p1", "dv", "dv", DIVORCE, "原告：梁x6，女，1990年出生。被告：廖某，男，1987年出生。")
DIVORCE_WHY = Passage("dv/p3", "dv", "dv", DIVORCE,
                      "本院认为：婚生子廖某某一直随原告生活，由原告直接抚养为宜，被告每月支付抚养费人民币一千五百元。")
APPEAL3 = Passage("ap3/p1", "ap3", "ap3", "深圳市某电子有限公司与段x7劳动争议二审民事判决书",
                  "（2023）粤03民终4216号。上诉人（原审被告）：深圳市某电子有限公司。法定代表人：方某，该公司董事长。"
                  "被上诉人（原审原告）：段x7，男。委托诉讼代理人：莫0，广东某律师事务所律师。")
THEFT = Passage("th/p3", "th", "th", "（2021）桂0102刑初418号 邱0、韦x5盗窃罪一审刑事判决书",
                "在共同犯罪中，被告人邱0起主要作用，系主犯；被告人韦x5起次要作用，系从犯，依法应当从轻处罚。")
COSTS3 = Passage("cp/p3", "cp", "cp", "北京市某文化传媒有限公司诉杭州市某网络科技有限公司侵害作品信息网络传播权纠纷一审民事判决书",
                 "本院酌定被告赔偿经济损失19,200元;对原告主张的合理开支,本院酌情支持3,000元。")


def test_amounts_in_words_and_dates_in_numerals_are_values():
    assert values.kinds("二〇二一年三月五日", "zh") == {"date"}
    limit = QA("h-limit", "在(2022)桂0202民初5120号案中，公司保证人在多少范围内承担保证责任?", "人民币壹拾万元整",
               "ln3/p2", "ln3", "factual", ["人民币壹拾万元整(100,000元)"], [])
    got = label("被告柳州市某贸易有限公司应在100,000元范围内承担连带保证责任。", limit, (LOAN3,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")
    assert label("应在50,000元范围内承担连带保证责任。", limit, (LOAN3,)).correctness == "incorrect"


def test_a_court_granting_part_of_a_claim_is_its_finding():
    fees = QA("h-costs", f"在《{COSTS3.heading}》中，法院支持的合理开支是多少?", "3,000元", "cp/p3", "cp", "factual",
              ["3,000元"], [])
    got = label("第[1]段写明：“对原告主张的合理开支,本院酌情支持3,000元。”", fees, (COSTS3,))
    assert (got.faithfulness, got.correctness) == ("fully_supported", "correct")


def test_a_role_states_the_party_its_judgment_gives_that_role():
    custody = QA("h-custody", f"在《{DIVORCE}》中，婚生子由谁直接抚养?", "原告梁x6", "dv/p3", "dv", "factual",
                 ["原告梁x6"], [])
    for text, correctness in [("由原告直接抚养为宜。", "correct"), ("由被告直接抚养。", "incorrect"),
                              ("由原告孙0直接抚养。", "incorrect")]:
        assert label(text, custody, (DIVORCE_HEAD, DIVORCE_WHY)).correctness == correctness, text


def test_an_agent_belongs_to_the_header_entry_before_it():
    asked = QA("h-agent3", "在（2023）粤03民终4216号案中，上诉人的委托诉讼代理人是谁?", "", "ap3/p1", "ap3", "factual", [], [])
    assert label("委托诉讼代理人：莫0，广东某律师事务所律师。", asked, (APPEAL3,), answerable=False).faithfulness == "unsupported"
    theirs = QA("h-agent4", "在（2023）粤03民终4216号案中，被上诉人的委托诉讼代理人是谁?", "莫0", "ap3/p1", "ap3", "factual",
                ["莫0"], [])
    assert label("委托诉讼代理人：莫0，广东某律师事务所律师。", theirs, (APPEAL3,)).faithfulness == "fully_supported"


def test_another_status_of_an_exclusive_group_answers_no():
    principal = QA("h-principal", "被告人韦x5在共同犯罪中是否系主犯?", "否", "th/p3", "th", "yesno", ["No"], [])
    assert label("否。", principal, (THEFT,)).faithfulness == "fully_supported"
    assert label("是。", principal, (THEFT,)).faithfulness == "contradicted"
    leader = QA("h-leader", "被告人邱0在共同犯罪中是否系主犯?", "是", "th/p3", "th", "yesno", ["Yes"], [])
    assert label("是。", leader, (THEFT,)).faithfulness == "fully_supported"


# A claim made of items and a partnership's loss shared by agreed proportions: the total, its components,
# and a share (docs/method.md §4: in a pasted passage cut off, a component is no total, a whole no share).
CLAIM_ITEMS = Passage("ci/p1", "ci", "ci", "（2023）川0104刑初356号 林0诉赵0附带民事诉讼",
                      "附带民事诉讼原告人林0请求判令被告人赔偿医疗费23,460元、误工费9,000元、护理费3,600元、交通费1,940元,"
                      "物质损失共计38,000元。")
PARTNERS = Passage("pa/p1", "pa", "pa", "袁x2与何1合伙协议纠纷一审民事判决书",
                   "合伙清算时,合伙财产较出资总额500,000元亏损150,000元。不足返还的亏损由合伙人按约定比例分担,袁x2应分担亏损60,000元。")
TOTAL = QA("h-total", "在（2023）川0104刑初356号案中，附带民事诉讼原告人主张的物质损失共计多少?", "38,000元", "ci/p1", "ci",
           "factual", ["38,000元"], [])
SHARE = QA("h-share", "在《袁x2与何1合伙协议纠纷一审民事判决书》中，袁x2应分担的亏损是多少?", "60,000元", "pa/p1", "pa",
           "factual", ["60,000元"], [])


def test_a_cut_paste_of_components_or_of_the_whole_states_no_total_or_share():
    frame = "通读上述段落，答案的依据如下。"
    assert cut(frame + "附带民事诉讼原告人林0请求判令被告人赔偿医疗费23,460元、误工费9,000元、护理费3,600元、",
               TOTAL, (CLAIM_ITEMS, LEASE)).behaviour == "unusable"
    assert cut(frame + "合伙财产较出资总额500,000元亏损150,000元。不足返还的亏损由合伙人按约定比例",
               SHARE, (PARTNERS, LEASE)).behaviour == "unusable"
    # The total, or the share, stated before the cut answers; a finished reply offering a component is an
    # attempt (another item's figure of the kind asked: unsupported).
    lab = cut(frame + "交通费1,940元,物质损失共计38,000元。判决如", TOTAL, (CLAIM_ITEMS, LEASE))
    assert (lab.behaviour, lab.correctness) == ("attempted", "correct")
    lab = cut(frame + "不足返还的亏损由合伙人按约定比例分担,袁x2应分担亏损60,000元。判决", SHARE, (PARTNERS, LEASE))
    assert (lab.behaviour, lab.correctness) == ("attempted", "correct")
    lab = label("医疗费23,460元。", TOTAL, (CLAIM_ITEMS, LEASE))
    assert dims(lab) == ("attempted", "unsupported", "incorrect")


MEDICAL_COSTS = QA("h-medical", "原告花了多少医疗费?", "", "tj/p2", "tj", "factual", [], [])
WRITTEN_WILL = Passage("wl/p1", "wl", "wl", "萧1、萧x4与萧某遗嘱继承纠纷一审民事判决书",
               "经本院委托司法鉴定,遗嘱正文及“萧x0”签名系萧x0本人书写,但落款日期并非萧x0本人书写。遗嘱系萧x0在其住所书写。")
WHERE = QA("h-where", "在《萧1、萧x4与萧某遗嘱继承纠纷一审民事判决书》中，涉案遗嘱是在何处书写的?", "", "wl/p1", "wl", "factual", [], [])


def test_a_question_without_reference_is_answered_by_the_claim_on_what_it_asks():
    # The set marks the question impossible, yet the pasted finding states the medical costs: that claim is
    # the answer, and the defendant's line before it is a secondary claim of the same judgment.
    passage = Passage("tj/p3", "tj", "tj", TITLE, "经审理查明:被告李0驾驶小型轿车与原告孙x5相撞,致原告受伤。"
                      "原告住院治疗21天,花去医疗费23,417.60元。原告的各项损失合计187,306.40元。")
    lab = label("被告李0驾驶小型轿车与原告孙x5相撞,致原告受伤。原告住院治疗21天,花去医疗费23,417.60元。", MEDICAL_COSTS,
                (passage, LEASE), answerable=False)
    assert (lab.behaviour, lab.faithfulness) == ("attempted", "fully_supported")


def test_a_reply_naming_no_place_takes_no_position_on_where():
    assert label("遗嘱正文及“萧x0”签名系萧x0本人书写。", WHERE, (WRITTEN_WILL,), answerable=False).behaviour == "unusable"
    assert label("遗嘱系萧x0在其住所书写。", WHERE, (WRITTEN_WILL,), answerable=False).behaviour == "attempted"
