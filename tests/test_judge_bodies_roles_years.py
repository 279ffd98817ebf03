"""Rules the dev halves of zh_heldout_12 and zh_heldout_13 (the fourth round) showed missing (7 December,
fifth round; docs/method.md §4): a Chinese public body (市场监督管理局, 法律援助中心, 街道办事处) is a party, so
the court's "由……负担" names it; an agent's line in a header entry ("辩护人潘x3,……由……指派。") is about the
party the entry is of; a year alone ("于1979年登记结婚") is a date, never a length of 1979 years; asked what
someone is (什么人员, 什么职务, 什么身份), a reply takes a position by stating someone's standing and not by
pasting sentences that state none; asked a name (叫什么), a reply naming no one gives none.
Hand-built records, hand-checked labels (none of them is a validation item)."""

from __future__ import annotations

from judge_cases import label, qa

from pipeline.matching import values
from pipeline.matching.parties import parties
from pipeline.records import Passage

FINE = Passage(
    "fn/p5", "fn", "fn", "《韦某商行与某市某区市场监督管理局行政处罚一审行政判决书》",
    "判决如下：一、变更被告作出的罚款20,000元为罚款8,000元；二、驳回原告的其他诉讼请求。"
    "案件受理费50元，由某市某区市场监督管理局负担。",
)
FEE = qa("b-fee", "在《韦某商行与某市某区市场监督管理局行政处罚一审行政判决书》中，本案案件受理费由谁负担？",
         "某市某区市场监督管理局", FINE, facts=["某市某区市场监督管理局"])


def test_a_public_body_is_a_party_of_its_suit():
    assert frozenset({"某市某区市场监督管理局"}) in parties("案件受理费50元，由某市某区市场监督管理局负担。", "zh")
    # It starts after the role and the verb before it, not at them.
    assert parties("撤销被告洛阳市人力资源和社会保障局作出的认定。", "zh") == [frozenset({"洛阳市人力资源和社会保障局"})]
    # The court is no party.
    assert parties("本院认为，原告的主张成立。", "zh") == []


def test_the_fee_a_public_body_bears_is_supported_by_the_order_that_says_so():
    got = label("第[1]段写明：“案件受理费50元，由某市某区市场监督管理局负担。”", FEE, (FINE,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "fully_supported", "correct")


HEADER = Passage(
    "hd/p1", "hd", "hd", "《邵某、孟x5职务侵占罪一审刑事判决书》",
    "公诉机关湖南省某市某区人民检察院。被告人邵某,男,一九八二年四月十日出生,住某市某区。辩护人侯某,湖南某湘律师事务所律师。"
    "被告人孟x5,女,一九九一年十一月三日出生,住某市某区。辩护人尹x3,湖南某诚律师事务所律师,由某市某区法律援助中心指派。",
)
ASSIGNED = qa("b-aid", "孟x5的辩护人由哪个机构指派?", "某市某区法律援助中心", HEADER, facts=["某市某区法律援助中心"])


def test_an_agents_line_in_a_header_entry_is_about_the_party_of_the_entry():
    got = label("辩护人尹x3,湖南某诚律师事务所律师,由某市某区法律援助中心指派。", ASSIGNED, (HEADER,))
    assert (got.faithfulness, got.correctness) == ("fully_supported", "correct")


def test_a_year_alone_is_a_date_not_a_length():
    assert values.kinds("段某与熊某于1979年登记结婚。", "zh") == {"date"}
    assert values.kinds("判处有期徒刑三年。", "zh") == {"years"}


DIVORCE = Passage(
    "dv/p3", "dv", "dv", "《龚某与贺x7离婚纠纷一审民事判决书》",
    "经审理查明：原、被告于2014年10月8日登记结婚，婚后育有一女。",
)
OTHER_MARRIAGE = Passage(
    "om/p3", "om", "om", "《段某与熊某离婚纠纷一审民事判决书》", "经审理查明:段某与熊某于1979年登记结婚。",
)
MARRIED = qa("b-wed", "在《龚某与贺x7离婚纠纷一审民事判决书》中，原、被告于何时登记结婚？", "2014年10月8日", DIVORCE,
             facts=["2014年10月8日"])


def test_another_cases_year_offered_for_when_is_an_answer():
    got = label("经审理查明:段某与熊某于1979年登记结婚。", MARRIED, (OTHER_MARRIAGE,))
    assert (got.behaviour, got.correctness) == ("attempted", "incorrect")


AGENTS = Passage(
    "ag/p1", "ag", "ag", "《钟某与某某物业管理有限公司物业服务合同纠纷一审民事判决书》",
    "原告:某某物业管理有限公司。委托诉讼代理人：谭某，该公司工作人员。被告：钟某，男，1970年1月1日出生。",
)
REPAIRS = Passage(
    "rp/p3", "rp", "rp", "《钟某与某某物业管理有限公司物业服务合同纠纷一审民事判决书》",
    "庭审中，原告认可维修期间未安排人员每日巡查。被告自2021年1月起未缴纳物业费。",
)
STANDING = qa("b-role", "谭某是原告的什么人员？", "工作人员", AGENTS, facts=["工作人员"])


def test_asked_what_someone_is_a_paste_stating_no_standing_takes_no_position():
    got = label("通读上述段落，答案的依据如下。庭审中，原告认可维修期间未安排人员每日巡查。被告自2021年1月起未缴纳物业费。（见第[2]段）",
                STANDING, (AGENTS, REPAIRS))
    assert got.behaviour == "unusable"


def test_asked_what_someone_is_a_standing_stated_takes_a_position():
    quoted = label("第[1]段写明：“委托诉讼代理人：谭某，该公司工作人员。”", STANDING, (AGENTS, REPAIRS))
    assert (quoted.behaviour, quoted.faithfulness, quoted.correctness) == ("attempted", "fully_supported", "correct")
    # A bare standing, and another person's standing offered for the one asked, are answers too.
    assert label("该公司工作人员。", STANDING, (AGENTS, REPAIRS)).behaviour == "attempted"
    assert label("系某某鞋店经营者。", STANDING, (AGENTS, REPAIRS)).behaviour == "attempted"


NURSERY = Passage(
    "ns/p3", "ns", "ns", "《邵x1与某某幼儿园教育机构责任纠纷一审民事判决书》",
    "经审理查明:原告系被告幼儿园中班幼儿。事发时该班两名教师在场,其中一名正在组织其他幼儿排队。",
)
TEACHERS = qa("b-name", "在《邵x1与某某幼儿园教育机构责任纠纷一审民事判决书》中，事发时在场的两名教师分别叫什么名字?", "",
              NURSERY, facts=[])


def test_asked_a_name_a_reply_naming_no_one_gives_none():
    got = label("事发时该班两名教师在场,其中一名正在组织其他幼儿排队。", TEACHERS, (NURSERY,))
    assert got.behaviour == "unusable"


SNACKS = Passage(
    "sn/p4", "sn", "sn", "《贺某与某某食品有限公司网络购物合同纠纷一审民事判决书》",
    "本院认为,原告通过网络向被告购买食品,双方形成网络购物合同关系。原告购买12盒饼干未超出合理消费范围,其要求退还货款并支付十倍赔偿金"
    "的请求,本院予以支持。原告主张的取证费用缺乏必要性依据,本院不予支持。",
)
TENFOLD = qa("b-ten", "在《贺某与某某食品有限公司网络购物合同纠纷一审民事判决书》中，法院是否支持原告主张的十倍赔偿?", "是", SNACKS,
             kind="yesno", facts=["Yes"])


def test_a_yes_no_is_read_on_the_ruling_on_the_value_asked_not_on_the_ruling_beside_it():
    wrong = label("否。原告主张的取证费用缺乏必要性依据,本院不予支持。", TENFOLD, (SNACKS,))
    assert (wrong.faithfulness, wrong.correctness) == ("contradicted", "incorrect")
    right = label("是。原告购买12盒饼干未超出合理消费范围,其要求退还货款并支付十倍赔偿金的请求,本院予以支持。", TENFOLD, (SNACKS,))
    assert (right.faithfulness, right.correctness) == ("fully_supported", "correct")


SHOES = Passage(
    "sh/p5", "sh", "sh", "《某某鞋业有限公司与某某贸易有限公司、熊x2侵害商标权纠纷一审民事判决书》",
    "判决如下:一、二被告立即停止销售侵权商品;二、被告某某贸易有限公司于本判决生效之日起十日内赔偿原告经济损失150,000元及合理开支6,000元;"
    "三、被告熊x2于本判决生效之日起十日内赔偿原告经济损失10,000元及合理开支2,000元;四、驳回原告的其他诉讼请求。",
)
PAYS = qa("b-pay", "熊x2是否需要赔偿原告经济损失?", "是", SHOES, kind="yesno", facts=["Yes"])


def test_orders_pasted_out_of_their_order_contradict_nothing():
    got = label("是。三、被告熊x2于本判决生效之日起十日内赔偿原告经济损失10,000元及合理开支2,000元;二、被告某某贸易有限公司于本判决生效之日起"
                "十日内赔偿原告经济损失150,000元及合理开支6,000元;", PAYS, (SHOES,))
    assert (got.faithfulness, got.correctness) == ("fully_supported", "correct")
    # A figure changed in one part is no paste: contradicted.
    wrong = label("是。三、被告熊x2于本判决生效之日起十日内赔偿原告经济损失12,000元及合理开支2,000元;二、被告某某贸易有限公司于本判决生效之日起"
                  "十日内赔偿原告经济损失150,000元及合理开支6,000元;", PAYS, (SHOES,))
    assert wrong.faithfulness == "contradicted"


LOAN = Passage(
    "ln/p5", "ln", "ln", "《某某商贸有限公司与孟1、钟x5保证合同纠纷一审民事判决书》",
    "判决如下:一、被告孟1于本判决生效之日起十日内对某某装饰工程有限公司所欠原告借款本金人民币叁拾贰万元整(320,000元)及利息19,200元"
    "承担连带清偿责任;二、驳回原告对被告钟x5的诉讼请求。",
)
PRINCIPAL = qa("b-loan", "被告孟1对多少借款本金承担连带清偿责任?", "人民币叁拾贰万元整(320,000元)", LOAN,
               facts=["人民币叁拾贰万元整(320,000元)"])


def test_a_paste_cut_before_the_verb_of_the_scope_states_the_value_it_gave_whole():
    got = label("一、被告孟1于本判决生效之日起十日内对某某装饰工程有限公司所欠原告借款本金人民币叁拾贰万元整(320,000元)及利息19,20",
                PRINCIPAL, (LOAN,), finish="length")
    assert (got.behaviour, got.correctness, got.completeness) == ("attempted", "correct", "incomplete")
    # Cut before the value, it states none.
    early = label("一、被告孟1于本判决生效之日起十日内对某某装饰工程有限公司所欠原告借款本金人民币", PRINCIPAL, (LOAN,), finish="length")
    assert early.behaviour == "unusable"
