"""Rules the dev halves of the English held-out batches (tests/fixtures/en_heldout*, 5 December) and of the
Chinese held-out runs showed missing (docs/method.md §4): an ordinal role ("the second defendant", "A2")
names one party; another party's or another case's figure offered for the value asked is contradicted by
the passage of the party asked; "In X v Y the court held ..." cites X v Y; a reason clause's negation is
not the holding's; a question under a section is not answered from a passage that never names it; a
question asking who, how old or within what time wants a party or a figure; a date opening another item's
period is no date asked; a passage's own words are no refusal. Hand-built records, hand-checked labels
(none of them is a validation item)."""

from __future__ import annotations

import pytest

from pipeline.judges import JudgeItem, RuleJudge
from pipeline.matching.parties import cited_cases, ordinal_roles
from pipeline.params import Params
from pipeline.records import QA, Candidate, Passage

STRICT, LENIENT = RuleJudge("strict"), RuleJudge("lenient")
REFUSALS = Params().generate.refusal_by_language()

CASE = "HKSAR v Lau Chun-kit and Tse Wai-ming"
# Two accused named by their place in the case; a cited authority with figures of its own.
ACCUSED = Passage(
    "dd/p1", "dd", "dd", CASE,
    "The first defendant is 41 years old and has four previous convictions for burglary. "
    "The second defendant is 19 years old and of clear record.",
)
SENTENCE = Passage(
    "dd/p2", "dd", "dd", CASE,
    "The first defendant is sentenced to 30 months' imprisonment. "
    "The second defendant is sentenced to 10 months' imprisonment, suspended for 2 years.",
)
APPEAL = Passage(
    "ap/p1", "ap", "ap", "CACC 88/2024 HKSAR v Ng Ka-lun and Yuen Tsz-chung",
    "A1's appeal is dismissed and his total sentence of 5 years and 2 months stands. A2's conviction on count 1 is quashed, "
    "so that his total sentence is reduced to 14 months' imprisonment.",
)
ASSESS = Passage(
    "ec/p1", "ec", "ec", "Lee Siu-wah v Goldway Engineering Limited",
    "In Poon Kwok-keung v Tak Fat Builders Limited the court raised a labourer's assessment from 4% to 7%. "
    "Here I assess the loss of earning capacity at 9%.",
)
AWARD = Passage(
    "ar/p1", "ar", "ar", "Kam Hing Shipping Limited v Ocean Crest Repairs Limited",
    "In Silver Bay Dredging Limited v Pearl Harbour Yard Limited the court set aside an award of $9,600,000 "
    "because the tribunal decided the case on a ground that neither party had advanced.",
)
PLOT = Passage(
    "lp/p1", "lp", "lp", "Wong Tai-po v Kwun Lung Land Limited",
    "The plaintiff shall deliver up the part of Lot 884 within 2 months and pay mesne profits of $14,400.",
)


def qa(qid: str, question: str, answer: str, passage: Passage, kind: str = "factual", facts=None) -> QA:
    return QA(qid, question, answer, passage.id, passage.decision_id, kind, [answer] if facts is None else facts, [])


CONVICTIONS = qa("r-conv", f"In {CASE}, did the second defendant have any previous convictions?", "No", ACCUSED, "yesno")
TERM = qa("r-term", f"In {CASE}, what sentence was the second defendant given?",
          "10 months' imprisonment, suspended for 2 years", SENTENCE)
TOTAL_A2 = qa("r-a2", "In CACC 88/2024 HKSAR v Ng Ka-lun and Yuen Tsz-chung, what is the second appellant's total "
              "sentence after the appeal?", "14 months' imprisonment", APPEAL)
RATE = qa("r-rate", "In Lee Siu-wah v Goldway Engineering Limited, at what percentage did the court assess the loss "
          "of earning capacity?", "9%", ASSESS)
AUTHORITY = qa("r-auth", "In Poon Kwok-keung v Tak Fat Builders Limited, to what percentage was the assessment raised?",
               "7%", ASSESS)
SET_ASIDE = qa("r-set", "What was the amount of the award set aside in Silver Bay Dredging Limited v Pearl Harbour "
               "Yard Limited?", "$9,600,000", AWARD)
CAP = qa("r-cap", "What is the most the Tribunal may award as compensation under section 32P?", "$150,000", AWARD)
WITHIN = qa("r-within", "Within what time must Wong Tai-po deliver up the part of Lot 884?", "within 2 months", PLOT)
AGE = qa("r-age", f"In {CASE}, how old was the victim?", "", ACCUSED, facts=[])
COUNSEL = qa("r-counsel", f"In {CASE}, who appeared for the second defendant?", "Mr Ho Kin-yip", ACCUSED)
FIRM = qa("r-firm", "In Re Chan Siu-ling (deceased), which firm of solicitors prepared the 2012 will?", "", ACCUSED,
          facts=[])


def label(text: str, q: QA, passages: tuple[Passage, ...], judge: RuleJudge = STRICT, lang: str = "en"):
    cand = Candidate(f"{q.id}/ctx/gen:x", f"{q.id}/ctx", "gen:x", text, "stop")
    return judge.judge_one(JudgeItem(cand, q, passages, True, REFUSALS[lang]))


def test_ordinal_roles_read_place_and_side():
    assert ordinal_roles("did the second defendant have any") == {"2D"}
    # A2 is the second appellant, or the second accused as trial judgments write it.
    assert ordinal_roles("A2's conviction") == {"2A", "2D"}
    assert ordinal_roles("the first and second defendants") == {"2D"}
    assert ordinal_roles("被告人甲") == frozenset()


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_another_accused_s_finding_contradicts_a_yes_no_on_this_one(judge):
    lab = label("The first defendant is 41 years old and has four previous convictions for burglary.",
                CONVICTIONS, (ACCUSED,), judge)
    assert (lab.behaviour, lab.faithfulness, lab.correctness) == ("attempted", "contradicted", "incorrect")
    # "Of clear record" is "has no previous convictions".
    assert label("No. The second defendant is 19 years old and of clear record.", CONVICTIONS, (ACCUSED,),
                 judge).faithfulness == "fully_supported"


def test_a_secondary_claim_about_the_other_accused_rests_on_its_own_sentence():
    lab = label("The second defendant is sentenced to 10 months' imprisonment, suspended for 2 years. "
                "The first defendant is sentenced to 30 months' imprisonment.", TERM, (SENTENCE,))
    assert lab.faithfulness == "fully_supported"
    wrong = label("The second defendant is sentenced to 10 months' imprisonment, suspended for 2 years. "
                  "The first defendant is sentenced to 20 months' imprisonment.", TERM, (SENTENCE,))
    assert wrong.faithfulness == "partially_supported"


def test_the_other_appellant_s_figure_for_the_one_asked_is_contradicted():
    lab = label("A1's appeal is dismissed and his total sentence of 5 years and 2 months stands.", TOTAL_A2, (APPEAL,))
    assert (lab.behaviour, lab.faithfulness) == ("attempted", "contradicted")
    assert label("His total sentence is reduced to 14 months' imprisonment.", TOTAL_A2,
                 (APPEAL,)).faithfulness == "fully_supported"


def test_a_cited_case_s_figure_for_the_value_asked_is_contradicted_when_the_case_gives_it():
    text = "In Poon Kwok-keung v Tak Fat Builders Limited the court raised a labourer's assessment from 4% to 7%."
    assert label(text, RATE, (ASSESS,)).faithfulness == "contradicted"
    # Without the case's own figure in the context nothing contradicts it.
    alone = Passage("ec/p9", "ec", "ec", "Lee Siu-wah v Goldway Engineering Limited", text)
    assert label(text, RATE, (alone,)).faithfulness == "unsupported"
    # Asked about the authority itself, the same sentence is the answer.
    assert label(text, AUTHORITY, (ASSESS,)).faithfulness == "fully_supported"


def test_in_x_v_y_the_court_cites_x_v_y_and_a_reason_s_negation_is_not_the_holding_s():
    assert cited_cases("In Poon Kwok-keung v Tak Fat Builders Limited the court raised it.") == {
        "poon kwok-keung v tak fat builders limited"}
    lab = label("In Silver Bay Dredging Limited v Pearl Harbour Yard Limited the court set aside an award of "
                "$9,600,000.", SET_ASIDE, (AWARD,))
    assert (lab.faithfulness, lab.correctness) == ("fully_supported", "correct")


def test_a_passage_never_naming_the_section_asked_supports_nothing_of_it():
    lab = label("In Silver Bay Dredging Limited v Pearl Harbour Yard Limited the court set aside an award of "
                "$9,600,000.", CAP, (AWARD,))
    assert lab.faithfulness == "unsupported"


def test_within_what_time_and_how_old_want_a_figure():
    assert label("The plaintiff shall deliver up the part of Lot 884.", WITHIN, (PLOT,)).behaviour == "unusable"
    assert label("The plaintiff shall deliver up the part of Lot 884 within 2 months.", WITHIN,
                 (PLOT,)).behaviour == "attempted"
    assert label("The second defendant was remorseful. This is the usual approach in such cases.", AGE,
                 (ACCUSED,)).behaviour == "unusable"


def test_an_english_who_question_wants_someone_it_does_not_name():
    assert label("The first defendant, Lau Chun-kit, and the second defendant, Tse Wai-ming, pleaded guilty.",
                 COUNSEL, (ACCUSED,)).behaviour == "unusable"
    assert label("Mr Ho Kin-yip.", COUNSEL, (ACCUSED,)).behaviour == "attempted"
    # People named to "which firm": the clerks of the solicitors who prepared a will are no firm.
    assert label("The will was witnessed by Lam Mei-ki and Chow Ka-yan, clerks of the solicitors who prepared it.",
                 FIRM, (ACCUSED,)).behaviour == "unusable"
    assert label("Messrs Chow & Partners prepared it.", FIRM, (ACCUSED,)).behaviour == "attempted"


# Chinese: a date opening another item's period; a figure of the kind asked offered beside the topic
# restated; a passage's own "难以确定".
INJURY = Passage("ij/p1", "ij", "ij", "唐x9与南通某纺织有限公司工伤保险待遇纠纷一审民事判决书",
                 "经审理查明:原告于2018年7月2日入职被告处从事挡车工工作。2020年4月16日,原告在操作织机时右手被卷入机器受伤。")
EQUITY = Passage("eq/p1", "eq", "eq", "谢9与许x8股权转让纠纷一审民事判决书",
                 "原告诉请判令被告支付股权转让款600,000元,并以600,000元为基数,自2020年1月1日起按每日千分之三计付违约金。")
MARK = Passage("tm/p1", "tm", "tm", "广州某日化有限公司诉杨x9侵害商标权纠纷一审民事判决书",
               "鉴于原告的实际损失及被告的侵权获利均难以确定,本院酌定被告赔偿原告经济损失及合理开支共计12,000元。")
DIED = qa("r-died", "在《罗x4与蒋9法定继承纠纷一审民事判决书》中，被继承人是哪一天去世的?", "2020年9月7日", EQUITY)
HURT = qa("r-hurt", "在《唐x9与南通某纺织有限公司工伤保险待遇纠纷一审民事判决书》中，原告是哪一天受伤的?", "2020年4月16日", INJURY)
SOLACE = qa("r-solace", "在《沈9诉无锡市某医院医疗损害责任纠纷一审民事判决书》中，法院酌定被告赔偿精神损害抚慰金多少?", "5,000元", MARK)


def test_a_date_opening_another_item_s_period_is_no_date_asked():
    lab = label(EQUITY.text, DIED, (EQUITY,), lang="zh")
    assert lab.behaviour == "unusable"


def test_asked_for_a_date_the_claim_offering_one_is_the_answer():
    lab = label("原告在操作织机时右手被卷入机器受伤。原告于2018年7月2日入职被告处从事挡车工工作。", HURT, (INJURY,), lang="zh")
    assert (lab.behaviour, lab.faithfulness, lab.correctness) == ("attempted", "unsupported", "incorrect")


def test_a_passage_s_own_words_are_no_refusal():
    lab = label(MARK.text, SOLACE, (MARK,), lang="zh")
    assert (lab.behaviour, lab.correctness) == ("attempted", "incorrect")
    # The answerer's own "无法确定" still refuses.
    assert label("无法确定。", SOLACE, (MARK,), lang="zh").behaviour == "abstained"


HEADER = Passage("hd/p1", "hd", "hd", "冯9与西安某置业有限公司商品房预售合同纠纷二审民事判决书",
                 "(2024)陕01民终9999号。上诉人(原审被告):西安某置业有限公司。被上诉人(原审原告):冯9。委托诉讼代理人:任x8,律师。")
AGENT = qa("r-agent", "在（2024）陕01民终9999号案中，被上诉人的委托诉讼代理人是谁?", "任x8", HEADER)


def test_asked_for_an_agent_a_reply_naming_no_one_names_none():
    assert label("二原告共同委托诉讼代理人。", AGENT, (HEADER,), lang="zh").behaviour == "unusable"
    assert label("委托诉讼代理人:任x8,律师。", AGENT, (HEADER,), lang="zh").behaviour == "attempted"


def test_a_near_anonymised_name_is_not_the_fact():
    guarantor = qa("r-guar", "在（2024）陕01民终9999号案中，本案的保证人是谁?", "钱1", HEADER)
    judge = RuleJudge("strict")
    assert not judge.fact_present("钱1", "法定代表人:钱x1,该公司总经理。", "zh")
    assert judge.fact_present("钱1", "保证人为钱1。", "zh")
    assert label("保证人为钱x1。", guarantor, (HEADER,), lang="zh").correctness == "incorrect"


def test_an_age_is_no_length_and_another_length_is_one():
    prison = qa("r-prison", f"In {CASE}, for how long was the first defendant sent to prison?", "30 months' imprisonment",
                SENTENCE)
    assert label("The second defendant is 19 years old and of clear record.", prison, (ACCUSED,)).behaviour == "unusable"
    # A length of another order offered for the term asked is a position, and supports nothing of it.
    lab = label("For 3 years the first defendant is banned from driving.", prison, (SENTENCE,))
    assert (lab.behaviour, lab.faithfulness) == ("attempted", "unsupported")
