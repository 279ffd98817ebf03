"""Rules the dev halves of zh_heldout_19 and en_heldout_18 showed missing (7 December, tenth round;
docs/method.md §4, from "A party's submission runs on over every limb"): a submission runs on over every limb
after its ；; the court telling the parties how to appeal is the court's own words; asked a rate per unit of
time, a reply with no figure per that unit takes no position; a bare ruling (本院亦不予支持) is stated only by the
ruling on the claim asked; rarer surnames of the classic list are names. And one found writing these: "a
certain" institution after a place (江苏某某律师事务所) is no name. Hand-built records, hand-checked labels (none of
them is a validation item)."""

from __future__ import annotations

from judge_cases import label, qa

from pipeline.matching.parties import parties
from pipeline.records import Passage

REGISTRY = "隗x2诉某某市某某区市场监督管理局撤销公司登记一审行政判决书"
CLAIMS = Passage(
    "rg/p3", "rg", "rg", REGISTRY,
    "原告向本院提出诉讼请求：1．撤销被诉登记行为；2．判令被告赔偿原告误工费、交通费等损失9,000元。被告辩称：被告已尽审慎审查义务；"
    "原告的起诉已超过起诉期限；原告的损失与被告的登记行为之间没有因果关系，请求驳回原告的诉讼请求。",
)
LOSS = qa("rg-loss", f"在《{REGISTRY}》中，原告请求被告赔偿的损失是多少？", "9,000元", CLAIMS)


def test_a_defence_runs_on_over_every_limb_after_its_semicolon():
    got = label("2．判令被告赔偿原告误工费、交通费等损失9,000元。原告的损失与被告的登记行为之间没有因果关系。", LOSS, (CLAIMS,))
    assert (got.faithfulness, got.correctness) == ("partially_supported", "correct")


ORDERS = Passage(
    "ex/p6", "ex", "ex", "(2024)赣0781刑初33号 蒯1、戎某组织考试作弊罪一审刑事判决书",
    "判决如下:一、被告人蒯1犯组织考试作弊罪,判处有期徒刑一年。二、被告人戎某犯组织考试作弊罪,判处拘役六个月,缓刑十个月。"
    "三、禁止被告人戎某在缓刑考验期限内从事与考试培训有关的经营活动。如不服本判决,可在接到判决书的第二日起十日内,"
    "通过本院或者直接向江西省某某市中级人民法院提出上诉。",
)
BAN = qa("ex-ban", "在(2024)赣0781刑初33号案中，本院对第二被告人宣告了什么禁止令?", "禁止被告人戎某在缓刑考验期限内从事与考试培训有关的经营活动",
         ORDERS)


def test_the_courts_notice_of_appeal_is_its_own_words():
    got = label("三、禁止被告人戎某在缓刑考验期限内从事与考试培训有关的经营活动。通过本院或者直接向江西省某某市中级人民法院提出上诉。", BAN,
                (ORDERS,))
    assert (got.faithfulness, got.correctness) == ("fully_supported", "correct")


HIRE = Passage(
    "ch/p3", "ch", "ch", "DCCJ 5120/2023 Kam Fat Transport Limited v Yau Chi-keung",
    "The plaintiff hired a replacement lorry for 18 days at $1,100 a day, $19,800 in all. For the defendant, Mr Lee "
    "accepted liability but submitted that the hire was unreasonable, since a smaller lorry was available at $800 "
    "a day, and that the claim should be capped at $14,400.",
)
RATE = qa("ch-rate", "At what daily rate did Kam Fat Transport Limited recover its hire in DCCJ 5120/2023?", "$1,100 a day",
          HIRE)


def test_asked_a_rate_per_day_a_reply_with_no_figure_per_day_takes_no_position():
    assert label("The claim should be capped at $14,400, being $19,800 in all.", RATE, (HIRE,), lang="en").behaviour == "unusable"
    got = label("The plaintiff hired a replacement lorry for 18 days at $1,100 a day, $19,800 in all.", RATE, (HIRE,), lang="en")
    assert (got.behaviour, got.correctness) == ("attempted", "correct")


VILLAGE = "栗某、乌x1与某某村民委员会、某某村第二村民小组侵害集体经济组织成员权益纠纷一审民事判决书"
REASONS = Passage(
    "vi/p4", "vi", "vi", VILLAGE,
    "本院认为,原告乌x1的户籍迁入晚于分配基准日,其尚不具有成员资格,故乌x1要求参与本次分配的请求,本院不予支持。"
    "补偿款由第二村民小组收取和分配,村委会并未收取该款项,原告要求村委会承担连带责任,缺乏事实和法律依据,本院亦不予支持。",
)
JOINT = qa("vi-joint", f"在《{VILLAGE}》中，本院对原告要求被告村委会承担连带责任的请求如何处理?", "本院亦不予支持", REASONS)


def test_a_bare_ruling_is_stated_only_by_the_ruling_on_the_claim_asked():
    other = label("故乌x1要求参与本次分配的请求,本院不予支持。", JOINT, (REASONS,))
    assert (other.behaviour, other.faithfulness) == ("attempted", "unsupported")
    own = label("原告要求村委会承担连带责任,缺乏事实和法律依据,本院亦不予支持。", JOINT, (REASONS,))
    assert (own.faithfulness, own.correctness) == ("fully_supported", "correct")


def test_rarer_surnames_of_the_classic_list_are_names():
    for name in ("乌x1", "蒯1", "檀x9", "訾x2", "阙1", "鄢x1", "昝x5", "逯x3"):
        assert parties(f"委托诉讼代理人：{name}，律师。", "zh"), name


def test_a_certain_institution_after_a_place_or_a_verb_is_no_name():
    # "江苏某某律师事务所", "吉林某某律师事务所": the 苏某某 and 林某某 of a place and "a certain" firm are no names,
    # nor is the 盖某某 of 加盖某某公司印章.
    assert parties("委托诉讼代理人：王x1，江苏某某律师事务所律师。", "zh") == [frozenset({"王", "x1"})]
    assert parties("委托诉讼代理人：甄1，吉林某某律师事务所律师。", "zh") == [frozenset({"甄", "1"})]
    assert all("盖" not in p for p in parties("合同落款处加盖某某公司印章。", "zh"))
