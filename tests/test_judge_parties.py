"""The rule judge read by the labelling conventions of docs/method.md §4: support is about a party, an issue
statement or a submission is no finding, a Yes/No is read against the passage that answers it, filler,
qualifiers against reasons, replies that take no position, Chinese as published (half-width punctuation,
anonymised names, cases named by number). Hand-built English and Chinese records, hand-checked labels."""

from __future__ import annotations

import pytest

from pipeline import matching as m
from pipeline.judges import JudgeItem, RuleJudge
from pipeline.matching import parties, statements, values
from pipeline.params import Params
from pipeline.records import QA, Candidate, Passage

STRICT, LENIENT = RuleJudge("strict"), RuleJudge("lenient")
REFUSALS = Params().generate.refusal_by_language()


def dims(text: str, qa: QA, passages: tuple[Passage, ...], judge: RuleJudge = STRICT, finish: str = "stop"):
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in qa.question) else "en"
    cand = Candidate(f"{qa.id}/ctx/offline:x", f"{qa.id}/ctx", "offline:x", text, finish)
    lab = judge.judge_one(JudgeItem(cand, qa, passages, True, REFUSALS[lang]))
    return lab.behaviour, lab.faithfulness, lab.correctness, lab.completeness


def passage(pid: str, heading: str, text: str) -> Passage:
    return Passage(pid, pid.split("/")[0], pid.split("/")[0], heading, text)


# ------------------------------------------------------------------------------ English: penalties
YEUNG = passage("d1/p1", "Penalty", "The Tribunal orders Yeung Kin-fai to pay to the Government a pecuniary penalty of "
                "HK$2,176,000, two times the profit of HK$1,088,000, within 90 days of the date of this order.")
YIP = passage("d2/p1", "Penalty", "The Tribunal orders Yip Kin-fai to pay to the Government a pecuniary penalty of "
              "HK$6,328,000, two times the profit of HK$3,164,000, within 90 days of the date of this order.")
PENALTY = QA("q-pen", "What pecuniary sanction was Yeung Kin-fai ordered to pay the Government?",
             "Yeung Kin-fai was ordered to pay a pecuniary penalty of HK$2,176,000, two times the profit of "
             "HK$1,088,000, payable within 90 days of the date of this order.", "d1/p1", "d1", "factual",
             ["HK$2,176,000"], ["within 90 days of the date of this order"])
YIP_QUOTE = ("The Tribunal orders Yip Kin-fai to pay to the Government a pecuniary penalty of HK$6,328,000, two "
             "times the profit of HK$3,164,000, within 90 days of the date of this order.")


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_a_near_name_quote_supports_nothing_about_the_party_asked(judge):
    # Word for word from the context, but about Yip Kin-fai: nothing about Yeung Kin-fai is in it.
    assert dims(YIP_QUOTE, PENALTY, (YIP,), judge) == ("attempted", "unsupported", "incorrect", "incomplete")
    # With Yeung Kin-fai's own penalty in the context it is another amount for the same item.
    assert dims(YIP_QUOTE, PENALTY, (YEUNG, YIP), judge)[1] == "contradicted"
    # The right party's sentence is fully supported and complete.
    right = YEUNG.text
    assert dims(right, PENALTY, (YIP, YEUNG), judge) == ("attempted", "fully_supported", "correct", "complete")


def test_another_defendants_sentence_offered_beside_the_answer_is_a_secondary_claim_not_supported():
    qa = QA("q-sen", "What sentence of imprisonment was handed down to Kelvin Hui Ching-yi?",
            "Kelvin Hui Ching-yi was sentenced to 26 months imprisonment for burglary.", "d3/p1", "d3", "factual",
            ["26 months"], [])
    own = passage("d3/p1", "Sentence", "The court sentences Kelvin Hui Ching-yi to 26 months imprisonment.")
    other = passage("d4/p1", "Conclusion", "In conclusion, Peter Lai Ching-yi is sentenced to 40 months imprisonment.")
    text = f"{own.text} {other.text}"
    assert dims(text, qa, (own, other)) == ("attempted", "partially_supported", "correct", "complete")


def test_another_tenants_arrears_support_nothing_about_the_tenant_asked():
    qa = QA("q-arr", "What sum in outstanding rent must Lo Lok-yin pay the owner?",
            "Lo Lok-yin owes rent arrears of HK$114,000.", "d5/p1", "d5", "factual", ["HK$114,000"], [])
    # A passage of another decision: its arrears sentence names no one, its passage names its own tenant.
    other = passage("d6/p1", "The arrears", "Mak Lok-yin stopped paying after losing employment. The tenant owes "
                    "rent arrears of HK$87,500.")
    assert dims("The tenant owes rent arrears of HK$87,500.", qa, (other,))[1:3] == ("unsupported", "incorrect")
    # A passage naming no one, alone in the context, may be the one meant.
    bare = passage("d5/p1", "The arrears", "The tenant owes rent arrears of HK$114,000.")
    assert dims("The tenant owes rent arrears of HK$114,000.", qa, (bare,))[1:3] == ("fully_supported", "correct")


# ------------------------------------------------------------------------------- English: yes/no
SUSPEND = QA("q-sus", "Could Chu Sze-wing avoid going to prison straight away?",
             "No. The court refused to suspend Chu Sze-wing's sentence, since an immediate custodial term is the "
             "only appropriate sentence.", "d7/p1", "d7", "yesno", ["No"],
             ["since an immediate custodial term is the only appropriate sentence"])
REFUSED = passage("d7/p1", "Sentence", "Chu Sze-wing is sentenced to 36 months imprisonment. The court refused to "
                  "suspend the sentence, since an immediate custodial term is the only appropriate sentence.")
ISSUE = passage("d7/p2", "Issue", "The issue for the court is what sentence is appropriate for Chu Sze-wing. The "
                "court must also consider whether the sentence should be suspended.")


def test_a_yes_restating_the_question_is_contradicted_by_the_passage_that_answers_it():
    restated = "Yes. Chu Sze-wing could avoid going to prison straight away."
    assert dims(restated, SUSPEND, (REFUSED,)) == ("attempted", "contradicted", "incorrect", "incomplete")
    # Nothing in the context answers it: unsupported, not contradicted.
    assert dims(restated, SUSPEND, (ISSUE,))[1] == "unsupported"
    # A bare No where the passage answers no: supported; the reason left out does not make it incomplete.
    assert dims("No.", SUSPEND, (REFUSED, ISSUE)) == ("attempted", "fully_supported", "correct", "complete")


def test_an_issue_statement_is_not_the_courts_finding():
    quote = 'Yes. Passage [2] states: "The court must also consider whether the sentence should be suspended."'
    # The finding in the context says the opposite of the Yes: contradicted.
    assert dims(quote, SUSPEND, (REFUSED, ISSUE))[1:3] == ("contradicted", "incorrect")
    # No finding in the context: the issue statement supports nothing.
    assert dims(quote, SUSPEND, (ISSUE,))[1] == "unsupported"
    assert statements.is_issue_or_submission("The Tribunal must decide whether X may recover possession.", "en")
    assert not statements.is_issue_or_submission("The court refused to suspend the sentence.", "en")


def test_a_yes_explained_by_a_wrong_figure_is_incorrect_a_bare_yes_incomplete():
    qa = QA("q-ban", "Is Au Tai-man barred from dealing in Hong Kong stocks after the ruling?",
            "Yes. Au Tai-man is prohibited from dealing in securities in Hong Kong for 5 years, without the leave "
            "of the Court of First Instance.", "d8/p1", "d8", "yesno", ["Yes", "5 years"],
            ["without the leave of the Court of First Instance"])
    ban = passage("d8/p1", "Orders", "For 5 years, Au Tai-man is prohibited from dealing in securities in Hong Kong "
                  "without the leave of the Court of First Instance.")
    assert dims("Yes.", qa, (ban,)) == ("attempted", "fully_supported", "correct", "incomplete")
    assert dims(f"Yes. {ban.text}", qa, (ban,)) == ("attempted", "fully_supported", "correct", "complete")
    wrong = "Yes. Au Tai-man is prohibited from dealing in securities in Hong Kong for 1 year."
    assert dims(wrong, qa, (ban,))[2:] == ("incorrect", "incomplete")


# ------------------------------------------------------------------- filler, qualifiers, positions
def test_filler_makes_a_supported_answer_at_most_partially_supported():
    text = f"{YEUNG.text} This is the approach usually taken in securities regulation cases of this kind."
    assert dims(text, PENALTY, (YEUNG,)) == ("attempted", "partially_supported", "correct", "complete")
    assert statements.split_filler(text, "en")[1] == [
        "This is the approach usually taken in securities regulation cases of this kind."]


def test_qualifiers_limit_the_holding_reasons_do_not():
    qa = QA("q-pos", "Is Lee Ming-fai entitled to possession of the home let to Lo Lok-yin?",
            "Yes. Lee Ming-fai was granted possession of Flat F, unless the tenant pays the arrears within 28 days, "
            "because the tenant stopped paying.", "d9/p1", "d9", "yesno", ["Yes"],
            ["unless the tenant pays the arrears within 28 days", "because the tenant stopped paying"])
    order = passage("d9/p1", "Orders", "Lee Ming-fai is entitled to possession of Flat F, unless the tenant pays the "
                    "arrears within 28 days. The tenant stopped paying after losing employment.")
    # The condition is a limit; the reason is not.
    with_condition = "Yes. Lee Ming-fai is entitled to possession of Flat F, unless the tenant pays the arrears within 28 days."
    assert dims(with_condition, qa, (order,)) == ("attempted", "fully_supported", "correct", "complete")
    assert dims("Yes.", qa, (order,))[3] == "incomplete"
    # An incorrect answer is never complete, whatever it states.
    assert dims("No. " + with_condition[5:], qa, (order,))[2:] == ("incorrect", "incomplete")


def test_a_fact_that_only_situates_need_not_be_stated_but_must_be_right():
    qa = QA("q-gain", "How much did Tam Hoi-yan make by trading in Harbour Point shares?",
            "Tam Hoi-yan dealt in 1,520,000 shares; the loss avoided was HK$2,086,000.", "e1/p1", "e1", "factual",
            ["HK$2,086,000", "1,520,000 shares"], [])
    trade = passage("e1/p1", "Trading", "Tam Hoi-yan sold 1,520,000 shares before the news. By trading early Tam "
                    "Hoi-yan avoided a loss of HK$2,086,000.")
    assert dims("By trading early Tam Hoi-yan avoided a loss of HK$2,086,000.", qa, (trade,))[2] == "correct"
    assert dims("Tam Hoi-yan sold 1,700,000 shares and avoided a loss of HK$2,086,000.", qa, (trade,))[2] == "incorrect"
    # The share volume offered for the gain: attempted (a trade for a gain question), another item.
    assert dims("Tam Hoi-yan sold 1,520,000 shares before the news.", qa, (trade,)) == (
        "attempted", "unsupported", "incorrect", "incomplete")


def test_a_reply_that_takes_no_position_is_unusable():
    rule = QA("q-rule", "Under what condition could the owner end the letting to Lai Ka-ho for unpaid rent?",
              "Under clause 14(c) the landlord may re-enter when rent is 21 days in arrears.", "f1/p1", "f1", "rule",
              ["clause 14(c)", "21 days"], [])
    law = passage("f1/p1", "The law", "Under clause 14(c) of the tenancy agreement, the landlord may re-enter the "
                  "premises if rent remains unpaid 21 days after it falls due.")
    background = ("Lai Man-kit let Flat F to Kwok Ka-ho under a written agreement for two years beginning on "
                  "18 July 2019, at a rent of HK$23,000 a month.")
    # A pasted passage about another matter, and a fragment cut off before the condition.
    assert dims(background, rule, (law,))[0] == "unusable"
    assert dims("Reading the passages, the answer rests on the following. Under clause", rule, (law,),
                finish="length")[0] == "unusable"
    assert dims(law.text, rule, (law,)) == ("attempted", "fully_supported", "correct", "complete")
    assert values.kinds(background, "en") == {"years", "date", "money"}


# --------------------------------------------------------------------------- Chinese as published
LOAN = passage("z1/p1", "曹x0与朱0民间借贷纠纷一审民事判决书",
               "经审理查明:2015年3月1日,原告曹x0向被告朱0出借80,000元;借款到期后,朱0仅归还本金20,000元,余款至今未还。"
               "本院认为:被告朱0应归还剩余借款60,000元.判决如下:被告朱0于本判决生效之日起十日内归还原告曹x0借款60,000元。")
OTHER_LOAN = passage("z2/p1", "曹x1与朱1民间借贷纠纷一审民事判决书",
                     "经审理查明:原告曹x1向被告朱1出借50,000元;借款到期后,朱1仅归还本金10,000元,余款至今未还。")
REPAID = QA("zq-r", "朱0借款到期后归还了多少本金?", "20,000元", "z1/p1", "z1", "factual", ["20,000元"], [])


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_chinese_half_width_clauses_and_anonymised_names(judge):
    # A clause of a judgment written with half-width , : ; and a . between Chinese characters.
    assert dims("借款到期后,朱0仅归还本金20,000元", REPAID, (OTHER_LOAN, LOAN), judge) == (
        "attempted", "fully_supported", "correct", "complete")
    # The same clause of another judgment, about 朱1: supports nothing about 朱0; with 朱0's own passage in
    # the context it is another amount for the same item.
    assert dims("借款到期后,朱1仅归还本金10,000元", REPAID, (OTHER_LOAN,), judge)[1:3] == ("unsupported", "incorrect")
    assert dims("借款到期后,朱1仅归还本金10,000元", REPAID, (OTHER_LOAN, LOAN), judge)[1:3] == (
        "contradicted", "incorrect")
    assert parties.parties("被告朱0于本判决生效之日起十日内归还原告曹x0借款", "zh") == [
        frozenset({"朱", "0"}), frozenset({"曹", "x0"})]


def test_chinese_cut_off_dump_is_unusable_unless_a_finished_clause_answers():
    dump = LOAN.text[:60]
    qa = QA("zq-d", "本案借款约定的月利率是多少?", "1.5%", "z1/p1", "z1", "factual", ["1.5%"], [])
    assert dims(dump, qa, (LOAN,), finish="length")[0] == "unusable"
    # Cut after a finished clause (a half-width ;) that states the loan, not the repayment asked about: a
    # pasted passage with no answer in it, unusable.
    assert dims(LOAN.text[: LOAN.text.index(";") + 1] + "借款", REPAID, (LOAN,), finish="length")[0] == "unusable"
    # Its answer is the clause that states it, wherever it stands in the dump.
    finished = LOAN.text[: LOAN.text.index("本院认为") + 7]
    assert dims(finished, REPAID, (LOAN,), finish="length") == ("attempted", "fully_supported", "correct", "incomplete")


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_any_order_offered_as_the_outcome_of_a_case_is_an_attempt(judge):
    # "How was the case decided?": an order of another kind than the reference's (costs, not the sum) is a
    # position on it, right or wrong; "判决如下" with nothing after it states no order.
    decided = QA("zq-o", "在《曹x0与朱0民间借贷纠纷一审民事判决书》中，本案是如何判决的?",
                 "被告朱0于本判决生效之日起十日内归还原告曹x0借款60,000元", "z1/p1", "z1", "factual",
                 ["被告朱0于本判决生效之日起十日内归还原告曹x0借款60,000元"], [])
    claims = passage("z3/p1", "曹x1与朱1民间借贷纠纷一审民事判决书",
                     "原告曹x1向本院提出诉讼请求:1.判令被告偿还借款本金50,000元;2.本案诉讼费用由被告负担。")
    assert dims("2.本案诉讼费用由被告负担。", decided, (claims,), judge) == (
        "attempted", "unsupported", "incorrect", "incomplete")
    assert dims("判决如下。", decided, (LOAN,), judge)[0] == "unusable"
    assert dims("判决如下:被告朱0于本判决生效之日起十日内归还原告曹x0借款60,000元。", decided, (LOAN,), judge) == (
        "attempted", "fully_supported", "correct", "complete")
    # English, written the same way: an order on costs is a position on "what order did the Tribunal make",
    # an accurate quote of another order than the one asked (so it supports nothing of what was asked).
    order = QA("q-ord", "What order did the Tribunal make against Lai Ka-ho?",
               "Lai Ka-ho must pay arrears of HK$24,000.", "g1/p1", "g1", "factual", ["HK$24,000"], [])
    arrears = passage("g1/p1", "Orders", "The Tribunal orders Lai Ka-ho to pay arrears of HK$24,000. "
                      "Lai Ka-ho shall bear the costs of the claim.")
    assert dims("Lai Ka-ho shall bear the costs of the claim.", order, (arrears,), judge)[:3] == (
        "attempted", "unsupported", "incorrect")


def test_chinese_case_named_by_number_decides_which_passage_is_about_it():
    traffic = passage("z3/p1", "（2016）皖1125刑初219号 曹x0交通肇事罪一审刑事判决书",
                      "案发后,被告人曹x0在现场等候处理,赔偿被害人近亲属经济损失共计人民币460,000元,取得了被害人近亲属的谅解。")
    qa = QA("zq-c", "在（2016）皖1125刑初219号案中,被害人家属是否对被告人表示谅解?", "是", "z3/p1", "z3", "yesno",
            ["Yes"], [])
    assert dims("是。", qa, (LOAN, traffic)) == ("attempted", "fully_supported", "correct", "complete")
    # The other judgment names a 曹x0 too: its passage is not about the case asked.
    fee = QA("zq-f", "在《曹x0与朱0民间借贷纠纷一审民事判决书》中,被告归还了多少本金?", "20,000元", "z1/p1", "z1",
             "factual", ["20,000元"], [])
    other = passage("z4/p1", "朱0、李某离婚纠纷二审民事判决书", "上诉人朱0仅归还本金30,000元。")
    assert dims("上诉人朱0仅归还本金30,000元。", fee, (other,))[1:3] == ("unsupported", "incorrect")
    # The case asked is in the context and gives the item another amount.
    assert dims("上诉人朱0仅归还本金30,000元。", fee, (other, LOAN))[1:3] == ("contradicted", "incorrect")


def test_a_question_bound_to_its_judgment_is_about_no_other_decision():
    # "本案" names no party or case: with its gold passage in the context, the question is about that
    # judgment, and another judgment's 朱0 (same anonymised name) is not this one's.
    fee = passage("z1/p2", "曹x0与朱0民间借贷纠纷一审民事判决书", "案件受理费1,800元,由被告朱0负担。")
    appeal = passage("z4/p2", "朱0、李某离婚纠纷二审民事判决书", "二审案件受理费300元,由上诉人朱0负担。")
    qa = QA("zq-b", "本案的案件受理费由谁负担?", "朱0", "z1/p2", "z1", "factual", ["朱0"], [])
    assert dims("案件受理费1,800元,由被告朱0负担。", qa, (appeal, fee)) == (
        "attempted", "fully_supported", "correct", "complete")
    assert dims("二审案件受理费300元,由上诉人朱0负担。", qa, (appeal, fee))[1] in ("unsupported", "contradicted")
    # Without its gold passage the context cannot say which judgment is meant: names decide, as before.
    assert dims("二审案件受理费300元,由上诉人朱0负担。", qa, (appeal,))[1] == "fully_supported"
    # A question naming its own party is read by its names, whatever decision the passage is from.
    named = QA("zq-n", "朱0负担了多少二审案件受理费?", "300元", "z4/p2", "z4", "factual", ["300元"], [])
    assert dims("二审案件受理费300元,由上诉人朱0负担。", named, (fee, appeal))[1] == "fully_supported"


def test_a_rate_for_another_period_or_a_rise_of_a_rate_is_not_the_rate_asked():
    bank = passage("z8/p1", "某银行股份有限公司滁州分行与陈x2金融借款合同纠纷一审民事判决书",
                   "经审理查明:原告与被告陈x2签订《个人借款合同》,约定借款300,000元,借款期限为36个月,年利率为6.5%,"
                   "逾期后按借款利率上浮50%计收罚息,借款人还应承担律师费等费用;被告自2019年9月起未再按期还款,原告")
    monthly = QA("zq-rate", "本案借款约定的月利率是多少?", "1.5%", "z1/p1", "z1", "factual", ["1.5%"], [])
    # A pasted passage of another loan, cut off: its annual rate and its 50% rise state no monthly rate.
    assert dims(bank.text, monthly, (bank, LOAN), finish="length")[0] == "unusable"
    assert values.rate_periods("本案借款约定的月利率是多少?", "zh") == {"month"}
    assert values.rate_periods("年利率为6.5%,按月息2分计算", "zh") == {"year", "month"}
    assert values.rate_periods("interest at 3 per cent a year", "en") == {"year"}
    assert values.rates("逾期后按借款利率上浮50%计收罚息", "zh") == []
    assert values.rates("约定月利率为1.5%", "zh") == ["1.5%"]
    # A monthly rate stated is an attempt, right or wrong.
    assert dims("约定月利率为2%。", monthly, (LOAN,))[0] == "attempted"


def test_an_amount_stated_as_the_whole_of_the_loss_answers_how_much():
    qa = QA("zq-w", "被告人赔偿了被害人近亲属多少钱?", "人民币460,000元", "z3/p1", "z3", "factual", ["人民币460,000元"], [])
    other = passage("z9/p1", "马某盗窃罪一审刑事判决书", "案发后,被告人马某的亲属代为退赔了被害人全部损失。")
    # Another defendant's restitution of the whole loss: an amount of the kind asked, about another party.
    assert dims("案发后,被告人马某的亲属代为退赔了被害人全部损失。", qa, (other,))[:3] == (
        "attempted", "unsupported", "incorrect")
    # "Pays the arrears in full" says how a tenant pays, not how much a penalty is.
    penalty = QA("q-full", "How much must Choi Tsz-ming hand over as a monetary penalty?",
                 "Choi Tsz-ming was ordered to pay a pecuniary penalty of HK$3,603,000.", "p9/p1", "p9", "factual",
                 ["HK$3,603,000"], [])
    flat = passage("p8/p1", "Order", "Yeung Tsz-ming is entitled to possession of Flat B unless the tenant pays the "
                   "arrears in full within 28 days.")
    assert dims(flat.text, penalty, (flat,))[0] == "unusable"


def test_a_case_number_framing_a_yes_no_question_is_no_figure_it_asks_about():
    traffic = passage("z3/p1", "（2016）皖1125刑初219号 曹x0交通肇事罪一审刑事判决书",
                      "案发后,被告人曹x0在现场等候处理,赔偿被害人近亲属经济损失共计人民币460,000元,取得了被害人近亲属的谅解。")
    reasons = passage("z3/p2", "（2016）皖1125刑初219号 曹x0交通肇事罪一审刑事判决书",
                      "本院认为,被告人曹x0犯罪后自动投案,系自首;其赔偿被害人近亲属经济损失并取得谅解,可以酌情从轻处罚。")
    qa = QA("zq-y", "在（2016）皖1125刑初219号案中，被害人家属是否对被告人表示谅解?", "是", "z3/p1", "z3", "yesno",
            ["Yes"], [])
    # 2016, 1125 and 219 name the case: a quote giving 460,000元 does not answer "no" to a figure asked.
    quote = "是。案发后,被告人曹x0在现场等候处理,赔偿被害人近亲属经济损失共计人民币460,000元,取得了被害人近亲属的谅解。"
    assert dims(quote, qa, (LOAN, traffic)) == ("attempted", "fully_supported", "correct", "complete")
    # With the court's reasons beside the finding, a quote of either answers the question.
    assert dims(quote, qa, (traffic, reasons))[1:3] == ("fully_supported", "correct")


def test_an_anonymised_names_index_is_no_figure():
    assert m.numbers("被告人曹x0负事故的主要责任,黄1负事故的次要责任,共1次", "zh") == {"1"}
    assert m.numbers("黄1负事故的次要责任", "zh") == set()
    qa = QA("zq-t", "在《马某盗窃罪一审刑事判决书》中，被告人共盗窃了几次?", "三次", "z9/p1", "z9", "factual", ["三次"], [])
    other = passage("z3/p3", "（2016）皖1125刑初219号 曹x0交通肇事罪一审刑事判决书",
                    "经定远县公安局交通管理大队认定,被告人曹x0负事故的主要责任,黄1负事故的次要责任。")
    # Another case's liability finding states no count of thefts: no position, whatever 黄1 holds.
    assert dims(other.text + "这类案件在刑事量刑实务中通常都是这样处理的。", qa, (other,))[0] == "unusable"


def test_a_chinese_fact_in_words_is_stated_by_its_whole_words():
    qa = QA("zq-j2", "王x1在工地从事什么工作?", "钢筋工", "z6/p1", "z6", "factual", ["钢筋工"], [])
    own = passage("z6/p1", "", "经审理查明:原告王x1在被告承包的工地从事钢筋工工作,日工资350元。")
    divorce = passage("z4/p3", "朱0、李某离婚纠纷二审民事判决书", "本院认为:李某有稳定工作和住所,由其抚养更有利于子女健康成长。")
    # 工作 holds the 工 of 钢筋工, but says nothing of which work.
    assert dims(divorce.text, qa, (divorce, own))[0] == "unusable"
    assert dims("王x1在工地从事钢筋工工作。", qa, (divorce, own))[:3] == ("attempted", "fully_supported", "correct")


def test_a_figure_where_a_party_is_asked_for_misses_the_point():
    fee = passage("z1/p2", "曹x0与朱0民间借贷纠纷一审民事判决书", "案件受理费1,800元,由被告朱0负担。")
    qa = QA("zq-who", "在《曹x0与朱0民间借贷纠纷一审民事判决书》中，案件受理费由谁负担?", "朱0", "z1/p2", "z1", "factual",
            ["朱0"], [])
    assert dims("案件受理费1,800元。", qa, (fee,))[1:3] == ("unsupported", "incorrect")
    assert dims("案件受理费由被告朱0负担。", qa, (fee,))[1:3] == ("fully_supported", "correct")


def test_chinese_submission_and_filler():
    qa = QA("zq-j", "本案是如何判决的?", "被告朱0于本判决生效之日起十日内归还原告曹x0借款60,000元",
            "z1/p1", "z1", "factual", ["被告朱0于本判决生效之日起十日内归还原告曹x0借款60,000元"], [])
    request = passage("z5/p1", "曹x0与朱0民间借贷纠纷一审民事判决书",
                      "原告曹x0向本院提出诉讼请求:1.判令被告偿还借款本金80,000元及利息;2.本案诉讼费用由被告负担。")
    # The plaintiff's request read as the judgment: not the court's finding.
    assert dims("原告曹x0向本院提出诉讼请求:1.判令被告偿还借款本金80,000元及利息;", qa, (request,))[1] == "unsupported"
    # A supported answer with an appeal to unnamed law: at most partially supported.
    assert dims("根据相关法律规定,借款到期后,朱0仅归还本金20,000元", REPAID, (LOAN,))[1] == "partially_supported"
    assert dims("借款到期后,朱0仅归还本金20,000元。这类案件在司法实务中通常都是这样处理的。", REPAID, (LOAN,))[1:3] == (
        "partially_supported", "correct")


def test_chinese_company_of_another_case_supports_nothing():
    qa = QA("zq-m", "某餐饮管理有限公司的罚款金额是多少？", "某餐饮管理有限公司的罚款金额为20万元。", "z6/p1", "z6",
            "factual", ["20万元"], [])
    other = passage("z7/p1", "处罚决定", "我会决定：对某股份有限公司责令改正，给予警告，并处以60万元罚款。")
    text = "我会决定：对某股份有限公司责令改正，给予警告，并处以60万元罚款。"
    assert dims(text, qa, (other,)) == ("attempted", "unsupported", "incorrect", "incomplete")


def test_a_passage_naming_no_party_supports_only_when_no_other_could_be_the_one_meant():
    qa = QA("q-gd", "What authority fixed the range of sentence for burglary in the case of Sze Ka-ho?",
            "The court followed HKSAR v Lee Kin, which sets a starting point of 4 years to 6 years for burglary.",
            "g1/p1", "g1", "rule", ["HKSAR v Lee Kin", "4 years to 6 years"], [])
    own = passage("g1/p1", "Legal framework", "For burglary, HKSAR v Lee Kin laid down a starting point of 4 years "
                  "to 6 years.")
    rival = passage("g2/p1", "Legal framework", "For burglary, HKSAR v Sze Fat laid down a starting point of 2 "
                    "years to 6 years.")
    named = passage("g3/p1", "Sentence", "Sze Ka-ho is sentenced to 40 months imprisonment for burglary.")
    assert dims(own.text, qa, (own, named)) == ("attempted", "fully_supported", "correct", "complete")
    # Two passages naming no one state different guidelines for the offence: either could be the one meant.
    assert dims(own.text, qa, (own, rival, named))[1:3] == ("unsupported", "correct")
    assert dims(rival.text, qa, (own, rival, named))[1:3] == ("unsupported", "incorrect")


def test_an_english_question_framed_by_its_case_is_about_that_case_only():
    qa = QA("q-fr", "In Chan v Wong, how much did the tenant have to pay?", "HK$24,000.", "h1/p1", "h1", "factual",
            ["HK$24,000"], [])
    own = passage("h1/p1", "Chan v Wong", "The tenant was ordered to pay HK$24,000 in arrears.")
    other = passage("h2/p1", "Lee v Ho", "The tenant was ordered to pay HK$31,000 in arrears.")
    assert dims(other.text, qa, (other,))[1:3] == ("unsupported", "incorrect")
    # Chan v Wong's own passage gives the item another amount.
    assert dims(other.text, qa, (own, other))[1:3] == ("contradicted", "incorrect")
    assert dims(own.text, qa, (own, other))[1:3] == ("fully_supported", "correct")
    assert parties.cases("In Chan v Wong, how much did the tenant have to pay?") == {"chan v wong"}


def test_replies_of_a_small_instruct_model():
    # "The answer to this question is: No." states its No as a leading No does; so does 答案是：否.
    assert m.lead_polarity("这个问题的答案是：否。", "zh") == "no" and m.lead_polarity("答案是否定的。", "zh") is None
    assert dims("The answer to this question is: No.", SUSPEND, (REFUSED,)) == (
        "attempted", "fully_supported", "correct", "complete")
    # A pasted issue statement takes no position on a yes/no question.
    assert dims(ISSUE.text.split(". ")[1], SUSPEND, (ISSUE,))[0] == "unusable"
    # Cut off while restating its own phrases: a loop, unusable.
    loop = ("The court ruled that the sentence was not suspended, but the court ruled that the sentence was "
            "suspended. The court ruled that the sentence was not suspended, but the court ruled that the "
            "sentence was suspended. The court ruled that the sentence was not suspended, but the court")
    assert dims(loop, SUSPEND, (REFUSED,), finish="length")[0] == "unusable"
    # Without a Yes/No, the sentence that answers gives the bottom line, not a later one about another matter.
    qa = QA("q-pos2", "Can Kwan Estates Limited get the premises back from Chow Wing-kei?",
            "Yes. Kwan Estates Limited was granted possession of Flat B.", "k1/p1", "k1", "yesno", ["Yes"], [])
    order = passage("k1/p1", "Orders", "The Tribunal grants Kwan Estates Limited possession of Flat B.")
    text = ("The Tribunal grants Kwan Estates Limited possession of Flat B. "
            "The court refused to suspend the sentence, since an immediate custodial term is the only appropriate sentence.")
    assert dims(text, qa, (order, REFUSED))[2] == "correct"


# ------------------------------------------------------- read on the default run's outputs (lead's reading)
def test_a_quote_of_the_only_passage_is_supported_however_the_question_words_the_item():
    # The reference adds the offence the passage leaves to its heading, and the question says "sent to
    # prison" where the passage says "imprisonment": the sentence still states the item asked.
    qa = QA("q-tse", "For how long was Tse Ka-hei sent to prison?",
            "Tse Ka-hei was sentenced to 38 months imprisonment for assault occasioning actual bodily harm, to run "
            "concurrently with the sentence on the second charge.", "d5/p1", "d5", "factual", ["38 months"],
            ["to run concurrently with the sentence on the second charge"])
    only = passage("d5/p1", "Orders", "The court sentences Tse Ka-hei to 38 months imprisonment, to run concurrently "
                   "with the sentence on the second charge. The exhibits are to be returned to their owners.")
    assert dims("The court sentences Tse Ka-hei to 38 months imprisonment.", qa, (only,)) == (
        "attempted", "fully_supported", "correct", "incomplete")


def test_a_pasted_passage_answers_with_the_sentence_holding_the_figure_asked():
    qa = QA("q-ng", "What gain did Ng Sze-yin obtain from the trades in Silver Star stock?",
            "Ng Sze-yin dealt in 1,470,000 shares of Silver Star Resources Limited between 4 March 2016 and 13 "
            "March 2016; the profit gained was HK$3,027,000.", "d6/p1", "d6", "factual",
            ["HK$3,027,000", "1,470,000 shares"], [])
    gold = passage("d6/p1", "The relevant trading", "Between 4 march 2016 and 13 march 2016, Ng Sze-yin bought "
                   "1,470,000 shares of Silver Star Resources Limited. After the announcement on 25 March 2016, the "
                   "share price rose by 12 per cent, and Ng Sze-yin gained a profit of HK$3,027,000.")
    answer = "Reading the passages, the answer rests on the following. " + gold.text + " (see passage [1])"
    assert dims(answer, qa, (gold,)) == ("attempted", "fully_supported", "correct", "complete")


def test_another_offences_guideline_does_not_rival_the_one_the_question_names():
    qa = QA("q-chan", "Which sentencing guidance governed the penalty for Chan Kin-lan's obtaining property by "
            "deception, and what range does it set?", "The court followed HKSAR v Choi Ming, which sets a starting "
            "point of 3 years to 5 years for obtaining property by deception.", "d7/p1", "d7", "factual",
            ["HKSAR v Choi Ming", "3 years to 5 years"], [])
    own = passage("d7/p1", "The law", "The guideline judgment in HKSAR v Choi Ming sets a starting point of 3 years "
                  "to 5 years for obtaining property by deception.")
    other = passage("d8/p1", "Legal framework", "The guideline judgment in HKSAR v Siu Ming sets a starting point of "
                    "4 years to 7 years for criminal damage.")
    answer = ("The guideline judgment in HKSAR v Choi Ming sets a starting point of 3 years to 5 years for obtaining "
              "property by deception.")
    assert dims(answer, qa, (other, own))[:2] == ("attempted", "fully_supported")


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_a_party_named_to_a_who_question_is_a_position_even_on_an_impossible_question(judge):
    # The reference names no one (the judgment names no lawyer for its defendant): a reply naming another
    # judgment's agent for "the defendant" still answers "who", wrongly.
    lawyer = QA("zq-who", "被告的代理律师是谁?", "", "z7/p2", "z7", "factual", [], [])
    agents = passage("z8/p1", "孙2诉某建材有限公司买卖合同纠纷一审民事判决书",
                     "原告孙2的委托诉讼代理人赵某,被告某建材有限公司的委托诉讼代理人钱某到庭参加诉讼。")
    label = dims(agents.text, lawyer, (agents,), judge)
    assert label[0] == "attempted" and label[2:] == ("incorrect", "incomplete")
    # A sentence naming a party but nothing of what is asked (no agent, no lawyer) answers nothing.
    iou = passage("z8/p2", "孙2诉某建材有限公司买卖合同纠纷一审民事判决书", "被告某建材有限公司向原告孙2出具欠条一份。")
    assert dims(iou.text, lawyer, (iou,), judge)[0] == "unusable"
    # The party the question itself names is no answer to who acted for it.
    own = QA("zq-who2", "孙2的代理律师是谁?", "", "z8/p1", "z8", "factual", [], [])
    assert dims("孙2出具了代理费收据。", own, (iou,), judge)[0] == "unusable"
    # English, the same: a name given for the representative asked, on a paraphrase of the question.
    rep = QA("q-who", "Who was the landlord's legal representative at the trial?", "", "e1/p1", "e1", "factual",
             [], [])
    counsel = passage("e2/p1", "Appearances", "Ho Wing-sze appeared as legal counsel for Lam Siu-fung.")
    label = dims(counsel.text, rep, (counsel,), judge)
    assert label[0] == "attempted" and label[2:] == ("incorrect", "incomplete")
    off = passage("e2/p2", "Background", "Ho Wing-sze signed the tenancy agreement in 2019.")
    assert dims(off.text, rep, (off,), judge)[0] == "unusable"


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_nothing_repaid_states_how_much_of_the_item_asked(judge):
    # "本金至今未还" says the whole principal is owed (none repaid): a position on "how much", which
    # misses the reference's figure.
    owed = QA("zq-nil", "被告王5尚欠原告借款本金多少?", "50,000元", "z9/p1", "z9", "factual", ["50,000元"], [])
    loan = passage("z9/p1", "李3与王5民间借贷纠纷一审民事判决书",
                   "被告王5向原告李3借款50,000元,约定三个月内归还.借款到期后,被告王5本金分文未还。")
    assert dims("被告王5本金分文未还。", owed, (loan,), judge)[::2] == ("attempted", "incorrect")
    assert dims("被告王5的借款本金至今未还。", owed, (loan,), judge)[::2] == ("attempted", "incorrect")
    # Late payment, or payment not in full, states no amount; nor does an unpaid principal say what a
    # medical bill came to.
    late = passage("z9/p2", "李3与王5民间借贷纠纷一审民事判决书", "被告王5借款后未按约定期限还款。欠款未还清。")
    assert dims("被告王5借款后未按约定期限还款。", owed, (late,), judge)[0] == "unusable"
    assert dims("欠款未还清。", owed, (late,), judge)[0] == "unusable"
    medical = QA("zq-med", "原告花了多少医疗费?", "23,000元", "z4/p1", "z4", "factual", ["23,000元"], [])
    assert dims("本金至今未还。", medical, (loan,), judge)[0] == "unusable"
    # English, the same.
    repaid = QA("q-nil", "How much of the loan had Tsang Wai-kit repaid by the date of the writ?",
                "Tsang Wai-kit had repaid HK$20,000 of the loan.", "e3/p1", "e3", "factual", ["HK$20,000"], [])
    writ = passage("e3/p1", "Facts", "Tsang Wai-kit borrowed HK$200,000 and had repaid HK$20,000 of the loan by "
                   "the date of the writ.")
    assert dims("Tsang Wai-kit had repaid nothing of the loan.", repaid, (writ,), judge)[::2] == (
        "attempted", "incorrect")
    assert dims("Tsang Wai-kit did not repay the loan on time.", repaid, (writ,), judge)[0] == "unusable"


# ------------------------------------------------------- English: cited authorities, another item, quotes
# A sentencing decision citing a guideline case, and a decision of no named case citing another one
# (docs/method.md §4: a sentence citing a case speaks of that case).
EC_GUIDE = passage("ec/p3", "Ho Chi-keung v Everwin Construction Company Limited",
                   "As stated in Chan Kwok-wah v Hip Shing Scaffolding Company Limited, the court is not bound by the "
                   "Board's assessment; in that case a scaffolder's assessment was raised from 3% to 6%.")
EC_OWN = passage("ec/p4", "Ho Chi-keung v Everwin Construction Company Limited",
                 "I assess the applicant's loss of earning capacity at 8%, above the Board's 5%.")
FRAMEWORK = passage("fw/p1", "Legal framework",
                    "For obtaining property by deception, HKSAR v Kwan Wai laid down a starting point of 2 years to 4 "
                    "years.")
RACE = passage("rc/p4", "HKSAR v Chan Tsz-ho and Lam Wing-kei",
               "For the first defendant I take a starting point of 4 years and 6 months' imprisonment.")
RAISED = QA("q-raised", "In Chan Kwok-wah v Hip Shing Scaffolding Company Limited, to what percentage was the "
            "assessment raised?", "6%", "ec/p3", "ec", "factual", ["6%"], [])
START = QA("q-start", "In HKSAR v Chan Tsz-ho and Lam Wing-kei, what starting point did the judge adopt for the first "
           "defendant?", "4 years and 6 months' imprisonment", "rc/p4", "rc", "factual",
           ["4 years and 6 months' imprisonment"], [])


def test_a_sentence_citing_a_case_speaks_of_that_case():
    # The cited authority's own figure, given by the citing court, supports a question about that authority.
    quote = ('Passage [1] states: "As stated in Chan Kwok-wah v Hip Shing Scaffolding Company Limited, the court is not '
             "bound by the Board's assessment; in that case a scaffolder's assessment was raised from 3% to 6%.\"")
    assert dims(quote, RAISED, (EC_GUIDE, EC_OWN)) == ("attempted", "fully_supported", "correct", "complete")
    # Another case's range, cited in a passage of no named case, is no starting point of the case asked:
    # offered for it, it is a cited case's figure for the very item asked, which the passage of the case
    # asked contradicts (4 years and 6 months; the range's 4 years is another length, not a shared number).
    other = "HKSAR v Kwan Wai laid down a starting point of 2 years to 4 years."
    assert dims(other, START, (FRAMEWORK, RACE))[:3] == ("attempted", "contradicted", "incorrect")
    assert dims(other, START, (FRAMEWORK,))[:3] == ("attempted", "unsupported", "incorrect")
    assert dims("For the first defendant I take a starting point of 4 years and 6 months' imprisonment.",
                START, (FRAMEWORK, RACE))[:3] == ("attempted", "fully_supported", "correct")


TILES = passage("wk/p2", "HCA 2290/2022 Wah Kee Tiles Limited v Fortune Peak Construction Limited",
                "The first plaintiff's contract was for tiles at a price of $1,248,000, of which the defendant paid a "
                "deposit of $374,400. The balance of $873,600 remains unpaid.")
BALANCE = QA("q-bal", "In HCA 2290/2022 Wah Kee Tiles Limited v Fortune Peak Construction Limited, what balance of the "
             "price does the first plaintiff claim?", "$873,600", "wk/p2", "wk", "factual", ["$873,600"], [])


def test_a_quote_of_another_item_of_the_passage_that_states_the_one_asked_supports_nothing():
    text = "The first plaintiff's contract was for tiles at a price of $1,248,000, of which the defendant paid a deposit of $374,400."
    assert dims(text, BALANCE, (TILES,))[:3] == ("attempted", "unsupported", "incorrect")
    assert dims("The balance of $873,600 remains unpaid.", BALANCE, (TILES,))[:3] == (
        "attempted", "fully_supported", "correct")


LICENCE = passage("lq/p2", "HCAL 1871/2023 Kwan Yee-man v Liquor Licensing Board",
                  "Under regulation 17(3) of the Dutiable Commodities (Liquor) Regulations (Cap 109B), the Board shall "
                  "not renew a licence unless it is satisfied that the renewal would not be contrary to the public interest.")
REGULATION = QA("q-reg", "In HCAL 1871/2023 Kwan Yee-man v Liquor Licensing Board, under which regulation did the Board "
                "refuse renewal?", "regulation 17(3) of the Dutiable Commodities (Liquor) Regulations (Cap 109B)",
                "lq/p2", "lq", "factual", ["regulation 17(3) of the Dutiable Commodities (Liquor) Regulations (Cap 109B)"], [])


def test_a_quoted_paste_cut_off_names_the_regulation_it_pasted_whole():
    assert values.kinds("under regulation 17(3)", "en") == {"section"}
    text = ('Passage [1] states: "Under regulation 17(3) of the Dutiable Commodities (Liquor) Regulations (Cap 109B), '
            "the Board shall not renew a licence unless it is satisfied that the")
    assert dims(text, REGULATION, (LICENCE, FRAMEWORK), finish="length") == (
        "attempted", "fully_supported", "correct", "incomplete")
    # Cut inside the regulation's number: nothing whole is pasted.
    assert dims('Passage [1] states: "Under regulation 1', REGULATION, (LICENCE,), finish="length")[0] == "unusable"


GUIDE_DRUGS = passage("wf/p3", "CACC 204/2024 HKSAR v Wong Siu-fung",
                      "As stated in HKSAR v Tang Ka-chun, the guideline starting points for trafficking in cocaine are "
                      "5 to 8 years' imprisonment for 10 to 50 grammes, and 8 to 13 years for 50 to 300 grammes.")
FOUND = QA("q-found", "In CACC 204/2024 HKSAR v Wong Siu-fung, what quantity of cocaine was found?", "198.2 grammes",
           "wf/p2", "wf", "factual", ["198.2 grammes"], [])


def test_a_cut_paste_citing_another_case_states_nothing_of_the_case_asked():
    text = ("Reading the passages, the answer rests on the following. As stated in HKSAR v Tang Ka-chun, the guideline "
            "starting points for trafficking in cocaine are 5 to 8 years' imprisonment for 10 to 50 grammes, and 8 to")
    assert dims(text, FOUND, (GUIDE_DRUGS,), finish="length")[0] == "unusable"


# ------------------------------------------- English: what is no figure, dates to when, titles, one decision
RACE_ORDERS = passage("rc/p5", "HKSAR v Chan Tsz-ho and Lam Wing-kei",
                      "DCCC 318/2024. The second defendant, Lam Wing-kei, pleaded guilty to dangerous driving, contrary "
                      "to section 37(1) of the Ordinance. He is disqualified from driving for 2 years.")
BAN = QA("q-ban", "In HKSAR v Chan Tsz-ho and Lam Wing-kei, for how long was the second defendant disqualified from "
         "driving?", "2 years", "rc/p5", "rc", "factual", ["2 years"], [])


def test_a_section_or_a_case_number_is_no_figure():
    # A section cited offers no duration, a case number no quantity: no position (docs/method.md §4).
    for text in ("The second defendant, Lam Wing-kei, pleaded guilty to dangerous driving, contrary to section 37(1) "
                 "of the Ordinance.", "DCCC 318/2024. This is the approach usually taken in law cases of this kind."):
        assert dims(text, BAN, (RACE_ORDERS,))[0] == "unusable", text
    assert dims("He is disqualified from driving for 2 years.", BAN, (RACE_ORDERS,))[:3] == (
        "attempted", "fully_supported", "correct")


LEAVE = passage("lq/p1", "HCAL 1871/2023 Kwan Yee-man v Liquor Licensing Board",
                "Leave to apply for judicial review was granted on 20 September 2023.")
DECREE = QA("q-decree", "In CWY v LHM, on what date was the decree absolute granted?", "", "fm/p1", "fm", "factual", [], [])
MONEY_ORDER = passage("mo/p1", "DCCJ 4417/2022 Lau Mei-ling v Kwan Yee-man",
                      "The defendant shall deliver up vacant possession within 28 days; interest runs from 12 October "
                      "2022.")
DELIVERED = QA("q-deliv", "In DCCJ 4417/2022 Lau Mei-ling v Kwan Yee-man, on what date did the defendant deliver up "
               "vacant possession?", "", "mo/p1", "mo", "factual", [], [])


def test_a_date_on_what_was_asked_answers_when_even_without_a_reference():
    assert dims("Leave was granted on 20 September 2023.", DECREE, (LEAVE,))[0] == "attempted"
    # A date situating another item (interest) gives no date of delivery.
    text = "The defendant shall deliver up vacant possession within 28 days; interest runs from 12 October 2022."
    assert dims(text, DELIVERED, (MONEY_ORDER,))[0] == "unusable"


GOLDEN = passage("gc/p3", "Re Golden Crest Engineering Limited",
                 "Mr Wong Siu-fun says that the company is entitled to a credit of $412,000 for defective bars.")
CREDIT = QA("q-credit", "How much credit does Wong Siu-fun say the company is entitled to?", "$412,000", "gc/p3", "gc",
            "factual", ["$412,000"], [])


def test_a_title_is_no_part_of_a_name():
    assert parties.parties("Mr Wong Siu-fun says", "en") == parties.parties("Wong Siu-fun says", "en")
    quote = 'Passage [1] states: "Mr Wong Siu-fun says that the company is entitled to a credit of $412,000 for defective bars."'
    assert dims(quote, CREDIT, (GOLDEN,))[:3] == ("attempted", "fully_supported", "correct")


EC_FACTS = passage("ec/p2", "Ho Chi-keung v Everwin Construction Company Limited",
                   "The respondent made advance payments to the applicant totalling $60,000.")
EC_ORDER = passage("ec/p5", "Ho Chi-keung v Everwin Construction Company Limited",
                   "The compensation before deduction is $282,700, and the respondent shall pay $222,700.")
TOTAL_EC = QA("q-ectotal", "In Ho Chi-keung v Everwin Construction Company Limited, what was the compensation before "
              "deduction?", "$282,700", "ec/p5", "ec", "factual", ["$282,700"], [])


def test_another_item_of_the_decision_that_states_the_one_asked_supports_nothing_and_its_rule_supports_a_secondary():
    text = "The respondent made advance payments to the applicant totalling $60,000."
    assert dims(text, TOTAL_EC, (EC_FACTS, EC_ORDER))[:3] == ("attempted", "unsupported", "incorrect")
    # The rule the citing court states beside the cited authority is of the decision the main claim rests on.
    both = ("As stated in Chan Kwok-wah v Hip Shing Scaffolding Company Limited, the court is not bound by the Board's "
            "assessment; in that case a scaffolder's assessment was raised from 3% to 6%. I assess the applicant's loss "
            "of earning capacity at 8%, above the Board's 5%.")
    assert dims(both, RAISED, (EC_GUIDE, EC_OWN))[:3] == ("attempted", "fully_supported", "correct")
