"""Rules the dev halves of zh_heldout_18 and en_heldout_17 showed missing (7 December, ninth round;
docs/method.md §4, from "An attendance sentence"): an attendance sentence names the parties whose agents came,
not the agents; the rarer surnames of the round's anonymised names are names; a comma between digits splits
no clause, and the court's ruling answers the response a question asks of it whatever negation the words of
what was ruled on hold; asked for a time limit, a paste cut after the limit's 内 states it; a question on
what a party said (被告称) is answered by its submission; the ruling on another numbered ground is another
item's; a company's short name in a question asking for its agent is read. Hand-built records,
hand-checked labels (none of them is a validation item)."""

from __future__ import annotations

from judge_cases import label, qa

from pipeline.matching.parties import asks_agent, parties
from pipeline.records import Passage

LEASE = "宓某与扈x1、阚x2房屋租赁合同纠纷一审民事判决书"
HEADER = Passage(
    "le/p1", "le", "le", LEASE,
    "原告:宓某,女,1961年3月2日出生。委托诉讼代理人:嵇x4,某某律师事务所律师。被告:扈x1,男,1980年5月6日出生。"
    "委托诉讼代理人:庹x5,某某律师事务所律师。被告:阚x2,男,1992年8月9日出生。原告宓某与被告扈x1、阚x2房屋租赁合同纠纷一案,"
    "本院公开开庭进行了审理。原告宓某及其委托诉讼代理人、被告扈x1的委托诉讼代理人、被告阚x2到庭参加诉讼。",
)
AGENT = qa("le-ag", "被告扈x1的委托诉讼代理人是谁?", "庹x5", HEADER)


def test_an_attendance_sentence_names_the_parties_whose_agents_came_not_the_agents():
    got = label("原告宓某及其委托诉讼代理人、被告扈x1的委托诉讼代理人、被告阚x2到庭参加诉讼。", AGENT, (HEADER,))
    assert got.behaviour == "unusable"
    quoted = label("第[1]段写明：“原告宓某及其委托诉讼代理人、被告扈x1的委托诉讼代理人到庭参加诉讼。”", AGENT, (HEADER,))
    assert quoted.behaviour == "unusable"
    # An agent named after the agent word is named, in an attendance sentence too.
    named = label("被告扈x1的委托诉讼代理人庹x5到庭参加诉讼。", AGENT, (HEADER,))
    assert (named.behaviour, named.correctness) == ("attempted", "correct")
    # The header's own agent line names the agent.
    entry = label("委托诉讼代理人:庹x5,某某律师事务所律师。", AGENT, (HEADER,))
    assert (entry.behaviour, entry.correctness) == ("attempted", "correct")


def test_the_rounds_rarer_surnames_are_names():
    for surname in "芮屠鞠宓扈阚嵇庹湛浦荆匡":
        assert parties(f"委托诉讼代理人：{surname}x4，该公司运营总监。", "zh"), surname
        assert parties(f"被告人{surname}1犯盗窃罪。", "zh"), surname


DATA = Passage(
    "da/p4", "da", "da", "(2024)黔0103刑初77号 湛x2、鞠1侵犯公民个人信息罪一审刑事判决书",
    "本院认为,被告人湛x2、鞠1的行为均已构成侵犯公民个人信息罪。被告人鞠1自动投案,系自首,可以从轻处罚;"
    "其辩护人提出应扣除1,300条无效信息的意见,因未提供证据证实,且抽样核验显示信息真实,本院不予采纳。",
)
PLEA = qa("da-plea", "在(2024)黔0103刑初77号案中，法院是否采纳了被告人鞠1的辩护人关于扣除无效信息的意见?", "否", DATA,
          kind="yesno", facts=["No"])


def test_the_ruling_answers_the_response_asked_whatever_the_words_ruled_on_negate():
    # The 无 of 无效信息 is what was ruled on, not the ruling; the comma of 1,300 splits no clause.
    got = label("否。", PLEA, (DATA,))
    assert (got.faithfulness, got.correctness) == ("fully_supported", "correct")
    assert label("是。", PLEA, (DATA,)).faithfulness == "contradicted"


ORDER = Passage(
    "de/p9", "de", "de", "荆某与某某物业服务有限公司物业服务合同纠纷一审民事判决书",
    "判决如下：一、被告某某物业服务有限公司于本判决生效之日起十日内向原告荆某退还装修押金3,000元；二、驳回原告荆某的其他诉讼请求。",
)
LIMIT = qa("de-lim", "在《荆某与某某物业服务有限公司物业服务合同纠纷一审民事判决书》中，被告应在多长期限内退还装修押金？",
           "于本判决生效之日起十日内", ORDER)


def test_asked_for_a_time_limit_a_paste_cut_after_the_limit_states_it():
    got = label("第[1]段写明：“一、被告某某物业服务有限公司于本判决生效之日起十日内向原告荆某退还装修押", LIMIT, (ORDER,),
                finish="length")
    assert (got.behaviour, got.faithfulness, got.correctness, got.completeness) == (
        "attempted", "fully_supported", "correct", "incomplete"
    )
    # Cut before the limit is whole, it states none.
    assert label("第[1]段写明：“一、被告某某物业服务有限公司于本判决生效之日起十", LIMIT, (ORDER,), finish="length").behaviour == "unusable"


DEFENCE = Passage(
    "pe/p3", "pe", "pe", "匡某诉某某县人力资源和社会保障局工伤认定一审行政判决书",
    "被告某某县人力资源和社会保障局辩称：经调查核实，原告受伤时已下班两小时，不属于工作时间，被诉决定认定事实清楚。",
)
SAID = qa("pe-said", "在《匡某诉某某县人力资源和社会保障局工伤认定一审行政判决书》中，被告称原告受伤时已下班多长时间？", "两小时",
          DEFENCE)
FOUND = qa("pe-found", "在《匡某诉某某县人力资源和社会保障局工伤认定一审行政判决书》中，原告受伤时已下班多长时间？", "两小时",
           DEFENCE)


def test_a_question_on_what_a_party_said_is_answered_by_its_submission():
    reply = "被告某某县人力资源和社会保障局辩称：经调查核实，原告受伤时已下班两小时，不属于工作时间。"
    assert label(reply, SAID, (DEFENCE,)).faithfulness == "fully_supported"
    # Asked what happened, the defence stated as fact is no finding.
    assert label("原告受伤时已下班两小时。", FOUND, (DEFENCE,)).faithfulness == "unsupported"


GROUNDS = Passage(
    "al/p6", "al", "al", "HCAL 2210/2024 Lo Ka-yan v Director of Social Welfare",
    "The first ground fails: the applicant was heard before the decision. The second ground fails: a refusal on "
    "these facts is within the range of reasonable decisions. The third ground also fails, as the policy was "
    "published in the circular of 4 March 2024.",
)
IRRATIONAL = qa("al-irr", "How did the court in HCAL 2210/2024 deal with the ground that the refusal was irrational?",
                "The second ground fails", GROUNDS)


def test_the_ruling_on_another_numbered_ground_is_another_items():
    got = label("The third ground also fails, as the policy was published in the circular of 4 March 2024.", IRRATIONAL,
                (GROUNDS,), lang="en")
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "unsupported", "incorrect")
    # Beside the ground asked, it is a true claim of the same judgment.
    both = label("The second ground fails: a refusal on these facts is within the range of reasonable decisions. The "
                 "third ground also fails, as the policy was published in the circular of 4 March 2024.", IRRATIONAL,
                 (GROUNDS,), lang="en")
    assert (both.faithfulness, both.correctness) == ("fully_supported", "correct")


JUDGMENT = Passage(
    "hc/p7", "hc", "hc", "HCA 3051/2023 Kin Wah Plastics Limited v Mok Sai-lun and Everbright Tooling Limited",
    "Judgment for the plaintiff against D1 and D2 jointly and severally for $512,000, with interest at judgment rate "
    "from 1 June 2023. The defendants are to pay the plaintiff's costs of the claim.",
)
JOINT = qa("hc-joint", "Is the judgment for $512,000 in HCA 3051/2023 given against the two defendants jointly and severally?",
           "Yes", JUDGMENT, kind="yesno", facts=["Yes"])


def test_a_comma_between_digits_splits_no_english_clause():
    got = label("No. Judgment for the plaintiff against D1 and D2 jointly and severally for $512,000, with interest at "
                "judgment rate from 1 June 2023.", JOINT, (JUDGMENT,), lang="en")
    assert (got.faithfulness, got.correctness) == ("contradicted", "incorrect")


STREAM = "（2024）沪0106民初8812号 上海某某文化传播有限公司与屠x3、上海某某网络科技有限公司演出经纪合同纠纷一审民事判决书"
PARTIES = Passage(
    "st/p1", "st", "st", STREAM,
    "原告：上海某某文化传播有限公司。委托诉讼代理人：浦x0，上海某某律师事务所律师。委托诉讼代理人：匡x4，该公司运营总监。"
    "被告：屠x3，女，1998年1月2日出生。委托诉讼代理人：鞠某，上海某某律师事务所律师。被告：上海某某网络科技有限公司。"
    "委托诉讼代理人：荆某，上海某某律师事务所律师。原告上海某某文化传播有限公司（以下简称文化公司）与被告屠x3、上海某某网络科技有限公司"
    "（以下简称网络公司）演出经纪合同纠纷一案，本院公开开庭进行了审理。",
)
COMPANY_AGENT = qa("st-ag", "在（2024）沪0106民初8812号案中，被告网络公司的委托诉讼代理人是谁？", "荆某", PARTIES)


def test_a_companys_short_name_in_a_question_asking_its_agent_is_read():
    assert asks_agent(COMPANY_AGENT.question)
    got = label("第[1]段写明：“委托诉讼代理人：匡x4，该公司运营总监。”", COMPANY_AGENT, (PARTIES,))
    assert (got.behaviour, got.faithfulness, got.correctness) == ("attempted", "contradicted", "incorrect")
