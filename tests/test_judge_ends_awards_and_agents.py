"""Rules the dev halves of the held-out batches showed missing (6 December; docs/method.md §4): asked until
when, the date a period opens names no end; asked on what date, "from <date>" opens another item's period;
asked when, a rate offers no date; a single character shared with a Chinese question (the 人 of 保证人) is
no topic; a Chinese who-question is not answered by the role it names itself or by a figure on another
item; a court refusing the item asked states its amount as none; 无效 answers 是否有效; a Yes/No explained
by a sentence the passage runs on past a semicolon rests on that sentence; another party's agent offered
where the header names the asked party's is contradicted; a reply with no Yes/No is read by its claim on
what was asked whether; 是否支持…请求 is answered by a sentence covering what follows 是否; another named
party's value of the item asked is contradicted; a term is its length (4 years and 6 months is not 6 months
and 4 years); a passage's own sentence on the party asked, quoted, gives another item's figure. Hand-built
records, hand-checked labels (none of them is a validation item)."""

from __future__ import annotations

from judge_cases import label, qa

from pipeline.matching import values
from pipeline.records import Passage

CUSTODY = Passage(
    "cu/p5", "cu", "cu", "邓x2与祁某离婚纠纷一审民事判决书",
    "判决如下：一、准予原告邓x2与被告祁某离婚；二、婚生女祁某某由原告邓x2直接抚养，被告祁某自二〇二三年三月起每月十五日前"
    "支付抚养费人民币二千元，至祁某某年满十八周岁时止。",
)
ORDER = Passage(
    "po/p5", "po", "po", "DCCJ 2210/2023 Fung Siu-wah v Lok Ka-yan",
    "I order that the defendant deliver up vacant possession of the shop within 21 days and pay mesne profits at "
    "$12,000 a month from 1 March 2023 until vacant possession is delivered.",
)
PENALTY = Passage(
    "pe/p3", "pe", "pe", "程x3与许0股权转让纠纷一审民事判决书",
    "本院认为：原告主张被告自2021年7月1日起按日千分之三计付违约金，约定的违约金标准折合年利率109.5%，明显过高，"
    "本院调整为按年利率15.4%计算。",
)
GUARANTEE = Passage(
    "gu/p2", "gu", "gu", "(2021)浙0106民初3318号",
    "经审理查明:2020年5月6日,被告丁x1向原告严0借款100,000元,被告鲁某在借条上以保证人身份签字。",
)
COMPANY = Passage(
    "co/p1", "co", "co", "(2019)苏0508民初2231号",
    "原告:苏州某模具有限公司,住所地江苏省苏州市姑苏区。法定代表人:鲁x1,该公司经理。被告:曹0,男,1980年出生。",
)
PHOTOS = Passage(
    "ph/p2", "ph", "ph", "上海某影视有限公司诉南京某科技有限公司侵害作品信息网络传播权纠纷一审民事判决书",
    "经审理查明:涉案18张城市夜景摄影作品由原告员工在职期间拍摄,著作权归原告所有。原告委托公证处进行证据保全,支付公证费2,000元。",
)
INJURY = Passage(
    "in/p4", "in", "in", "（2022）浙0102刑初511号 任x8故意伤害罪一审刑事附带民事判决书",
    "本院认为：被告人任x8应赔偿附带民事诉讼原告人的物质损失18,400元。精神损害抚慰金不属于刑事附带民事诉讼的赔偿范围，"
    "本院不予支持。",
)
WILL = Passage(
    "wi/p3", "wi", "wi", "柯1、柯x2与柯某遗嘱继承纠纷一审民事判决书",
    "本院认为：涉案遗嘱的签名并非柯x0亲笔书写，不符合自书遗嘱的法定形式要件，应属无效，柯x0的遗产应按法定继承办理。",
)
THEFT = Passage(
    "th/p1", "th", "th", "（2022）桂0102刑初88号 凌0、黎x5盗窃罪一审刑事判决书",
    "本院认为：在共同犯罪中，被告人凌0起主要作用，系主犯；被告人黎x5起次要作用，系从犯，依法应当从轻处罚。",
)
APPEAL_HEADER = Passage(
    "ah/p1", "ah", "ah", "（2024）粤01民终6620号",
    "（2024）粤01民终6620号。上诉人（原审被告）：广州某物业管理有限公司，住所地广东省广州市天河区。委托诉讼代理人：龙x3，"
    "广东某律师事务所律师。被上诉人（原审原告）：洪0，男，1985年4月2日出生，住广东省广州市。委托诉讼代理人：滕某，广东某律师事务所律师。",
)




UNTIL = qa("e-until", "在《邓x2与祁某离婚纠纷一审民事判决书》中，抚养费支付到什么时候为止？", "祁某某年满十八周岁时止", CUSTODY)


def test_a_start_date_names_no_end_to_until_when():
    start = label("被告祁某自二〇二三年三月起每月十五日前支付抚养费人民币二千元。", UNTIL, (CUSTODY,))
    assert start.behaviour == "unusable"
    end = label("至祁某某年满十八周岁时止。", UNTIL, (CUSTODY,))
    assert end.behaviour == "attempted" and end.faithfulness == "fully_supported" and end.correctness == "correct"


DELIVERED = qa("e-delivered", "In DCCJ 2210/2023 Fung Siu-wah v Lok Ka-yan, on what date did the defendant deliver up "
               "vacant possession of the shop?", "", ORDER, facts=[])


def test_a_date_opening_another_item_s_period_answers_no_on_what_date():
    pasted = label(ORDER.text, DELIVERED, (ORDER,), "en")
    assert pasted.behaviour == "unusable"
    dated = label("The defendant delivered up vacant possession on 14 April 2023.", DELIVERED, (ORDER,), "en")
    assert dated.behaviour == "attempted"


SINCE = qa("e-since", "在《程x3与许0股权转让纠纷一审民事判决书》中，原告主张自何时起计付违约金？", "2021年7月1日", PENALTY)


def test_a_rate_offers_no_date_to_from_when():
    rate = label("约定的违约金标准折合年利率109.5%，明显过高。", SINCE, (PENALTY,))
    assert rate.behaviour == "unusable"
    date = label("自2021年7月1日起。", SINCE, (PENALTY,))
    assert date.behaviour == "attempted" and date.correctness == "correct"


GUARANTOR = qa("e-guarantor", "在(2021)浙0106民初3318号案中，本案的保证人是谁?", "鲁某", GUARANTEE)


def test_a_single_shared_character_is_no_topic():
    # 法定代表人 shares only 人 with 保证人: another office of another case, no guarantor named.
    other = label("法定代表人:鲁x1,该公司经理。这类案件在法律实务中通常都是这样处理的。", GUARANTOR, (COMPANY, GUARANTEE))
    assert other.behaviour == "unusable"
    named = label("被告鲁某在借条上以保证人身份签字。", GUARANTOR, (COMPANY, GUARANTEE))
    assert named.behaviour == "attempted" and named.faithfulness == "fully_supported"


EMPLOYEE = qa("e-employee", "在《上海某影视有限公司诉南京某科技有限公司侵害作品信息网络传播权纠纷一审民事判决书》中，拍摄涉案作品的原告员工是谁?",
              "", PHOTOS, facts=[])
FEE_BEARER = qa("e-fee", "在《上海某影视有限公司诉南京某科技有限公司侵害作品信息网络传播权纠纷一审民事判决书》中，公证费由谁支付?",
                "原告", PHOTOS)


def test_the_question_s_own_role_and_another_item_s_figure_name_nobody():
    restated = label(PHOTOS.text, EMPLOYEE, (PHOTOS,))
    assert restated.behaviour == "unusable"
    # A figure on the item asked still offers something ("案件受理费1,800元" for who bears it).
    fee = label("公证费2,000元。", FEE_BEARER, (PHOTOS,))
    assert fee.behaviour == "attempted"


SOLATIUM = qa("e-solatium", "在（2022）浙0102刑初511号案中，法院判决的精神损害抚慰金是多少?", "", INJURY, facts=[])
SOLATIUM_REF = qa("e-solatium-ref", "在（2022）浙0102刑初511号案中，法院判决的精神损害抚慰金是多少?", "0元", INJURY,
                  facts=["0元"])


def test_a_court_refusing_the_item_states_its_amount_as_none():
    refused = label("精神损害抚慰金不属于刑事附带民事诉讼的赔偿范围，本院不予支持。", SOLATIUM_REF, (INJURY,))
    assert refused.behaviour == "attempted"
    # Another item refused says nothing of the one asked.
    other = label("本院对原告主张的律师费不予支持。", SOLATIUM_REF, (INJURY,))
    assert other.behaviour == "unusable"


VALID = qa("e-valid", "在《柯1、柯x2与柯某遗嘱继承纠纷一审民事判决书》中，涉案自书遗嘱是否有效?", "否", WILL, "yesno", ["No"])


def test_invalid_answers_whether_valid():
    bare = label("否。", VALID, (WILL,))
    assert bare.faithfulness == "fully_supported" and bare.correctness == "correct"
    flipped = label("是。", VALID, (WILL,))
    assert flipped.faithfulness == "contradicted"


PRINCIPAL = qa("e-principal", "被告人黎x5在共同犯罪中是否系主犯?", "否", THEFT, "yesno", ["No"])


def test_a_yes_no_explained_by_a_sentence_run_on_past_a_semicolon():
    pasted = label("否。通读上述段落，答案的依据如下。在共同犯罪中，被告人凌0起主要作用，系主犯；被告人黎x5起次要作用，系从犯，"
                   "依法应当从轻处罚。（见第[1]段）", PRINCIPAL, (THEFT,))
    assert pasted.faithfulness == "fully_supported" and pasted.correctness == "correct"


AGENT = qa("e-agent", "在（2024）粤01民终6620号案中，被上诉人的委托诉讼代理人是谁?", "滕某", APPEAL_HEADER)
AGENT_UNSTATED = qa("e-agent-none", "在（2024）粤01民终6620号案中，上诉人的法定代表人是谁?", "", APPEAL_HEADER, facts=[])


def test_another_party_s_agent_where_the_header_names_the_one_asked_is_contradicted():
    other = label("委托诉讼代理人：龙x3，广东某律师事务所律师。", AGENT, (APPEAL_HEADER,))
    assert other.behaviour == "attempted" and other.faithfulness == "contradicted" and other.correctness == "incorrect"
    # Where the header names none for the role asked (no 法定代表人 under the 上诉人), nothing contradicts.
    none = label("委托诉讼代理人：滕某，广东某律师事务所律师。", AGENT_UNSTATED, (APPEAL_HEADER,))
    assert none.faithfulness != "contradicted"


CO_ACCUSED = Passage(
    "ca/p1", "ca", "ca", "HKSAR v Yuen Ka-ho and Mak Wai-lun",
    "In the Magistrates' Court at Sha Tin, the first defendant, Yuen Ka-ho, and the second defendant, Mak Wai-lun, each "
    "pleaded guilty to a joint charge of theft. The first defendant is 29 years old and has two previous convictions "
    "for theft. The second defendant is of clear record.",
)
RECORD = qa("e-record", "In HKSAR v Yuen Ka-ho and Mak Wai-lun, did the second defendant have any previous convictions?",
            "No", CO_ACCUSED, "yesno", ["No"])


def test_a_reply_with_no_yes_no_is_read_by_its_claim_on_what_was_asked():
    # The plea comes first in the paste; the claim on previous convictions is the first defendant's.
    pasted = label("Reading the passages, the answer rests on the following. In the Magistrates' Court at Sha Tin, the "
                   "first defendant, Yuen Ka-ho, and the second defendant, Mak Wai-lun, each pleaded guilty to a joint "
                   "charge of theft. The first defendant is 29 years old and has two previous convictions for theft.",
                   RECORD, (CO_ACCUSED,), "en")
    assert pasted.behaviour == "attempted" and pasted.faithfulness == "contradicted"


REFUND = Passage(
    "rf/p4", "rf", "rf", "韦x3与南宁某汽车销售有限公司买卖合同纠纷一审民事判决书",
    "本院认为:被告故意隐瞒车辆事故情况,构成欺诈,依照消费者权益保护法的规定,被告应按购车款的三倍即270,000元增加赔偿。",
)
TREBLE = qa("e-treble", "在《韦x3与南宁某汽车销售有限公司买卖合同纠纷一审民事判决书》中，法院是否支持了原告按购车款三倍赔偿的请求?",
            "是", REFUND, "yesno", ["Yes"])


def test_a_yes_explained_by_the_court_granting_what_was_asked_whether_is_correct():
    granted = label("是。依照消费者权益保护法的规定,被告应按购车款的三倍即270,000元增加赔偿。", TREBLE, (REFUND,))
    assert granted.faithfulness == "fully_supported" and granted.correctness == "correct"


PARTNERSHIP = Passage(
    "pa/p2", "pa", "pa", "（2023）湘01民终2290号",
    "原审查明:2020年3月,龙x4与蔡1签订《合伙协议》,共同经营一家茶餐厅,龙x4出资260,000元,蔡1出资140,000元。",
)
ESTATE = Passage(
    "es/p4", "es", "es", "祁x5与祁0、祁2法定继承纠纷一审民事判决书",
    "被继承人祁某某名下银行存款180,000元。原告祁x5分得银行存款60,000元。",
)
CONTRIBUTION = qa("e-contrib", "蔡1在合伙中的出资是多少?", "140,000元", PARTNERSHIP)
SHARE = qa("e-share", "在《祁x5与祁0、祁2法定继承纠纷一审民事判决书》中，原告分得银行存款多少?", "60,000元", ESTATE)


def test_another_named_party_s_value_of_the_item_asked_is_contradicted():
    other = label("龙x4出资260,000元。", CONTRIBUTION, (PARTNERSHIP,))
    assert other.faithfulness == "contradicted"
    # The whole of which a share is asked, of the decedent, is another item: nobody takes it.
    whole = label("被继承人祁某某名下银行存款180,000元。", SHARE, (ESTATE,))
    assert whole.faithfulness == "unsupported"


def test_a_term_is_its_length_not_its_numbers():
    assert values.durations("4 years and 6 months", "en") == {"m54"}
    assert values.durations("6 months of the fraud sentence ... reduced to 4 years", "en") == {"m6", "m48"}
    assert values.durations("two weeks", "en") == values.durations("14 days", "en") == {"d14"}
    assert values.durations("有期徒刑一年六个月，缓刑二年", "zh") == {"m18", "m24"}
    assert values.durations("2016年4月12日", "zh") == set()


TRIAL = Passage(
    "tr/p5", "tr", "tr", "CACC 61/2023 HKSAR v Kwok Wai-ming",
    "The appellant, Kwok Wai-ming, was sentenced at trial to 3 years for the fraud and 2 years and 6 months for money "
    "laundering, 1 year of it consecutive, a total of 4 years. We order that 6 months of the money laundering sentence "
    "run consecutively, so that the appellant's total sentence is reduced to 3 years and 6 months.",
)
AT_TRIAL = qa("e-trial", "What total sentence did Kwok Wai-ming receive at trial?", "4 years", TRIAL)


def test_a_passage_s_own_sentence_on_the_party_asked_quotes_another_item():
    # The appeal's total, quoted word for word, is another item than the trial's total asked: unsupported.
    appeal = label("We order that 6 months of the money laundering sentence run consecutively, so that the appellant's "
                   "total sentence is reduced to 3 years and 6 months.", AT_TRIAL, (TRIAL,), "en")
    assert appeal.faithfulness == "unsupported" and appeal.correctness == "incorrect"
    # A term the passage does not give the party asked contradicts the passage that gives it.
    other = label("Kwok Wai-ming's total sentence at trial was 5 years.", AT_TRIAL, (TRIAL,), "en")
    assert other.faithfulness == "contradicted"
