"""Chinese answers cut off at max_new_tokens (docs/method.md §4): read on their finished clauses, a figure
cut in two is no claim, and a short answer cut in the filler after it is read as a finished answer, not as
a pasted passage. Hand-built records with hand-checked labels (English keeps its sentence reading)."""

from __future__ import annotations

from pipeline.judges import JudgeItem, RuleJudge
from pipeline.judges.base import as_judged
from pipeline.params import Params
from pipeline.records import QA, Candidate, Passage

STRICT, LENIENT = RuleJudge("strict"), RuleJudge("lenient")
REFUSALS = Params().generate.refusal_by_language()

# A sales-contract finding in the published style (half-width marks), and another judgment's.
ZH_SALE = Passage(
    "zs/p1", "zs", "zs", "经审理查明",
    "经审理查明:2020年4月,原告某建材有限公司向被告王x4供应钢材,双方签订《钢材购销合同》一份;"
    "截至2021年3月31日,被告王x4尚欠货款56,320.50元、违约金4,100元,原告为本案支付保全费1,500元。",
)
ZH_WORKS = Passage(
    "zw/p1", "zw", "zw", "本院查明",
    "本院查明:刘某承建某村道路工程,工程竣工后,刘某尚欠工程款88,000元未付。",
)
ZH_CLAIM = Passage(
    "zc/p1", "zc", "zc", "诉讼请求",
    "原告张x5向本院提出诉讼请求:1.判令被告返还借款30,000元;2.本案诉讼费用由被告负担。",
)
ZH_OWED = QA("zq-owed", "在《某建材有限公司与王x4买卖合同纠纷一审民事判决书》中，被告尚欠原告货款多少?",
             "56,320.50元", "zs/p1", "zs", "factual", ["56,320.50元"], [])
ZH_DECIDED = QA("zq-decided", "在《某建材有限公司与王x4买卖合同纠纷一审民事判决书》中，本案是如何判决的?",
                "被告王x4于本判决生效之日起十日内支付原告货款56,320.50元", "zs/p1", "zs", "factual",
                ["被告王x4于本判决生效之日起十日内支付原告货款56,320.50元"], [])

EN_ARREARS = Passage(
    "ea/p1", "ea", "ea", "Findings",
    "The tenant Chan Tai-man owes HK$56,320 in arrears of rent, and the landlord claims interest on that sum.",
)
EN_OWED = QA("eq-owed", "How much rent does Chan Tai-man owe?", "HK$56,320", "ea/p1", "ea", "factual",
             ["HK$56,320"], [])


def label(text: str, qa: QA, passages: tuple[Passage, ...], judge: RuleJudge = STRICT, finish: str = "length"):
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in qa.question) else "en"
    cand = Candidate(f"{qa.id}/ctx/offline:x", f"{qa.id}/ctx", "offline:x", text, finish)
    return judge.judge_one(JudgeItem(cand, qa, passages, True, REFUSALS[lang]))


def dims(lab) -> tuple:
    return lab.behaviour, lab.faithfulness, lab.correctness, lab.completeness


def kept(text: str) -> str | None:
    """What a judge reads of a reply cut off at the token cap (None: nothing finished, unusable)."""
    cand = Candidate("zq-owed/ctx/offline:x", "zq-owed/ctx", "offline:x", text, "length")
    judged = as_judged(JudgeItem(cand, ZH_OWED, (ZH_SALE,), True, REFUSALS["zh"]))
    return judged.candidate.text if judged else None


def test_a_chinese_clause_closed_before_the_cut_is_read():
    # The principal is stated in a clause closed by 、; the interest figure after it is the unfinished tail.
    for judge in (STRICT, LENIENT):
        lab = label("被告王x4尚欠货款56,320.50元、违约金4", ZH_OWED, (ZH_SALE, ZH_WORKS), judge)
        assert dims(lab) == ("attempted", "fully_supported", "correct", "incomplete")


def test_a_figure_cut_in_two_is_no_claim():
    # "56,320." is the point of a figure the cut split, not a full stop; a thousands comma closes no clause.
    for text in ("被告王x4尚欠货款56,320.", "第[1]段写明：“被告王x4尚欠货款56,320.", "被告王x4尚欠货款56,3",
                 "第[1]段写明：“被告王x4尚欠货款56,320"):
        assert label(text, ZH_OWED, (ZH_SALE, ZH_WORKS)).behaviour == "unusable", text


def test_only_a_framing_clause_before_the_cut_is_unusable():
    lab = label("通读上述段落，答案的依据如下。并判令被告王x4支付货款56,320", ZH_OWED, (ZH_SALE,))
    assert lab.behaviour == "unusable"


def test_english_reads_finished_sentences_and_what_a_paste_pasted_whole():
    # A comma ends no English sentence: a reply in its own words cut there leaves nothing finished.
    lab = label("Chan Tai-man owes the landlord HK$56,320, and the", EN_OWED, (EN_ARREARS,))
    assert lab.behaviour == "unusable"
    lab = label("Chan Tai-man owes HK$56,320 in arrears of rent. The landlord", EN_OWED, (EN_ARREARS,))
    assert dims(lab) == ("attempted", "fully_supported", "correct", "incomplete")
    # A passage pasted word for word states what it pasted whole before the cut, as the passage does.
    lab = label("Chan Tai-man owes HK$56,320 in arrears of rent, and the", EN_OWED, (EN_ARREARS,))
    assert dims(lab) == ("attempted", "fully_supported", "correct", "incomplete")


EN_CHARGE = Passage(
    "ec/p1", "ec", "ec", "Charge",
    "The first defendant, Lam Wing-kei, pleaded guilty to theft, contrary to section 9 of the Theft Ordinance "
    "(Cap 210), and was sentenced to 4 years and 6 months' imprisonment, with $29,410 to be paid within 14 days "
    "of this order.",
)
EN_PROVISION = QA("eq-prov", "Under which provision was Lam Wing-kei charged?", "section 9 of the Theft Ordinance (Cap 210)",
                  "ec/p1", "ec", "factual", ["section 9 of the Theft Ordinance (Cap 210)"], [])


def english_kept(text: str) -> str | None:
    cand = Candidate("eq-prov/ctx/offline:x", "eq-prov/ctx", "offline:x", text, "length")
    judged = as_judged(JudgeItem(cand, EN_PROVISION, (EN_CHARGE,), True, REFUSALS["en"]))
    return judged.candidate.text if judged else None


def test_an_english_paste_is_read_through_its_last_whole_word_and_value():
    frame = "Reading the passages, the answer rests on the following. "
    assert english_kept(frame + "The first defendant, Lam Wing-kei, pleaded guilty to theft, contrary to section 9") == (
        frame + "The first defendant, Lam Wing-kei, pleaded guilty to theft, contrary to section 9")
    # A word the cut split, or a value the passage goes on with, is not pasted whole.
    assert english_kept(frame + "and was sentenced to 4 years and 6 months' imprisonment, with $29,4").endswith(
        "imprisonment, with")
    assert english_kept(frame + "and was sentenced to 4 years and 6 mo") == frame.strip()
    assert english_kept(frame + "and was sentenced to 4 years") == frame.strip()
    # A paste naming no value whole states nothing: its negation's object never came.
    assert english_kept(frame + "The first defendant, Lam Wing-kei, pleaded guilty to") == frame.strip()
    assert english_kept(frame + "with $29,4") == frame.strip()
    # Words of its own, or fewer than three words, are no paste.
    assert english_kept(frame + "The defendant was charged under section 9") == frame.strip()
    for judge in (STRICT, LENIENT):
        lab = label(frame + "The first defendant, Lam Wing-kei, pleaded guilty to theft, contrary to section 9",
                    EN_PROVISION, (EN_CHARGE,), judge)
        # The section is named whole before the cut: the provision asked, correct; cut off, so incomplete.
        assert dims(lab) == ("attempted", "fully_supported", "correct", "incomplete")


def test_a_short_answer_cut_in_its_filler_is_read_as_an_answer():
    # One finished sentence offering another party's debt as the amount asked: an attempt (docs/method.md §4:
    # a value of the kind asked, even another party's), unsupported and incorrect; 王x4's passage is absent.
    lab = label("刘某尚欠工程款88,000元。这类案件在法律实务中通常", ZH_OWED, (ZH_WORKS,))
    assert dims(lab) == ("attempted", "unsupported", "incorrect", "incomplete")


def test_a_pasted_passage_cut_off_still_needs_a_clause_on_what_was_asked():
    # Two finished sentences of a pasted finding, none on the 货款 owed: the figures are no answer.
    text = "本院查明:刘某承建某村道路工程。工程竣工验收合格,结算价款为350,000元。刘某尚欠"
    assert label(text, ZH_OWED, (ZH_WORKS,)).behaviour == "unusable"


def test_an_order_before_the_cut_answers_how_the_case_was_decided():
    # "2.本案诉讼费用由被告负担。" is an order (another judgment's claim here): attempted, unsupported.
    lab = label("通读上述段落，答案的依据如下。2.本案诉讼费用由被告负担。判决如下", ZH_DECIDED, (ZH_CLAIM, ZH_WORKS))
    assert lab.behaviour == "attempted"
    assert lab.correctness == "incorrect"
    # The question's own words restated state nothing, cut off or not.
    lab = label("通读上述段落，答案的依据如下。判决如下。本院认为。（见第[1", ZH_DECIDED, (ZH_CLAIM, ZH_SALE))
    assert lab.behaviour == "unusable"


def test_what_a_cut_chinese_answer_is_read_on():
    assert kept("被告王x4尚欠货款56,320.50元、违约金4") == "被告王x4尚欠货款56,320.50元"
    assert kept("原告为本案支付保全费1,500元,被告王x4尚欠") == "原告为本案支付保全费1,500元"
    # The point of a figure cut in two, a thousands comma and a colon close nothing.
    assert kept("被告王x4尚欠货款56,320.") is None
    assert kept("被告王x4尚欠货款56,3") is None
    assert kept("第[1]段写明：“被告王x4尚欠") is None
    # A finished sentence still ends where its stop is; the clause after it is kept when closed.
    assert kept("是。第[1]段写明：“被告王x4尚欠货款") == "是。"


def test_an_attributed_quote_cut_before_its_closing_mark_is_still_the_quote():
    # The cut took only the closing ” of 第[1]段写明：“…。: the claim is the quoted finding, supported.
    for judge in (STRICT, LENIENT):
        lab = label("第[7]段写明：“被告王x4尚欠货款56,320.50元。", ZH_OWED, (ZH_WORKS, ZH_SALE), judge)
        assert dims(lab) == ("attempted", "fully_supported", "correct", "incomplete")
        closed = label("第[7]段写明：“被告王x4尚欠货款56,320.50元。”", ZH_OWED, (ZH_WORKS, ZH_SALE),
                       judge, finish="stop")
        assert dims(closed) == ("attempted", "fully_supported", "correct", "complete")


def test_a_finding_of_what_a_party_paid_is_no_order():
    # "How was the case decided?": the court's order answers it; a finding that the plaintiff paid a fee for
    # the suit (原告为本案支付保全费) makes no order, finished or cut off after 判决如下.
    for judge in (STRICT, LENIENT):
        assert label("原告为本案支付保全费1,500元。", ZH_DECIDED, (ZH_SALE,), judge, "stop").behaviour == "unusable"
        cut = "通读上述段落，答案的依据如下。原告为本案支付保全费1,500元。判决如下。（见第"
        assert label(cut, ZH_DECIDED, (ZH_SALE,), judge).behaviour == "unusable"
        order = "判决如下:被告王x4于本判决生效之日起十日内支付原告货款56,320.50元。"
        assert dims(label(order, ZH_DECIDED, (ZH_SALE, ZH_ORDER), judge, "stop")) == (
            "attempted", "fully_supported", "correct", "complete")


ZH_ORDER = Passage(
    "zs/p2", "zs", "zs", "判决如下",
    "判决如下:被告王x4于本判决生效之日起十日内支付原告货款56,320.50元。",
)
ZH_APPEAL = Passage(
    "za/p1", "za", "za", "本院经审理查明",
    "本院经审理查明:一审法院判决被告赵x7支付货款12,000元,赵x7不服,向本院提起上诉。"
    "上诉人赵x7因与被上诉人某建材有限公司买卖合同纠纷一案,不服江苏省某县人民法院(2020)苏0101民初77号民事判决。",
)
ZH_WHICH_COURT = QA("zq-court", "本案一审由哪个法院审理?", "", "za/p1", "za", "factual", [], [])


def test_a_court_asked_for_is_named_not_its_role():
    # "Which court?": 一审法院 is the question's own role, no court named; a court named by its place is one.
    for judge in (STRICT, LENIENT):
        lab = label("本院经审理查明:一审法院判决被告赵x7支付货款12,000元,赵x7不服", ZH_WHICH_COURT, (ZH_APPEAL,), judge)
        assert lab.behaviour == "unusable"
        named = "上诉人赵x7不服江苏省某县人民法院(2020)苏0101民初77号民事判决。"
        assert label(named, ZH_WHICH_COURT, (ZH_APPEAL,), judge, "stop").behaviour == "attempted"


ZH_BANK = Passage(
    "zb/p1", "zb", "zb", "经审理查明",
    "经审理查明:2019年5月,原告某银行与被告陈x6签订借款合同;截至2021年1月31日,被告陈x6尚欠本金120,000元、"
    "利息8,500元,原告为本案支付律师费6,000元。",
)


def test_a_cut_paste_stating_another_debt_owed_takes_a_position():
    # "尚欠多少货款": a cut-off paste of another judgment's debt owed (尚欠本金) states what is owed, a value of
    # the kind asked, resting on nothing about the party asked.
    for judge in (STRICT, LENIENT):
        lab = label("被告陈x6尚欠本金120,000元、利息8,5", ZH_OWED, (ZH_BANK,), judge)
        assert dims(lab) == ("attempted", "unsupported", "incorrect", "incomplete")


def test_a_figure_closed_by_its_unit_at_the_cut_is_a_finished_claim():
    # 元 (or %) closes a figure: whatever the cut took after it cannot change it, so the clause up to the unit
    # is read; a figure without its unit, a bare 万, a duration or a date may still go on and close nothing.
    for judge in (STRICT, LENIENT):
        lab = label("第[1]段写明：“被告王x4尚欠货款56,320.50元", ZH_OWED, (ZH_SALE, ZH_WORKS), judge)
        assert dims(lab) == ("attempted", "fully_supported", "correct", "incomplete")
        lab = label("通读上述段落，答案的依据如下。被告王x4尚欠货款56,320.50元及违约", ZH_OWED, (ZH_SALE,), judge)
        assert dims(lab) == ("attempted", "fully_supported", "correct", "incomplete")

    assert kept("被告王x4尚欠货款56,320.50元及违约") == "被告王x4尚欠货款56,320.50元"
    assert kept("并处罚金人民币三千元") == "并处罚金人民币三千元"
    assert kept("按借款利率上浮50%计") == "按借款利率上浮50%"
    assert kept("被告王x4尚欠货款5万") is None
    assert kept("被告王x4尚欠货款56,320") is None
    assert kept("被告人犯盗窃罪,判处有期徒刑三年") == "被告人犯盗窃罪"
    assert kept("合同于2020年4月") is None
