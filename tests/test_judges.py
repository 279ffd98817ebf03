"""Rule judges (behaviour, faithfulness, correctness, completeness) and the LLM judge's schema, retry and
unparseable path, on hand-built records."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from pipeline import matching as m
from pipeline.backends.base import Response
from pipeline.judges import JudgeItem, RuleJudge, file_name, make_judge
from pipeline.judges.llm import LLMJudge, judge_prompt, parse_reply
from pipeline.matching.parties import cases
from pipeline.params import DecodingParams, Params
from pipeline.records import LABEL_DIMENSIONS, QA, Candidate, Passage

REFUSAL = "The provided passages do not contain enough information to answer this question."
GOLD = Passage(
    "d1/p1",
    "d1",
    "d1",
    "Orders",
    "The tribunal ordered the tenant to pay arrears of HK$24,000 within 14 days. "
    "The landlord was not entitled to forfeit the deposit unless the premises were damaged.",
)
OTHER = Passage(
    "d2/p3",
    "d2",
    "d2",
    "Facts",
    "The tenant paid rent of HK$9,000 each month for two years. The lease ended on 12 March 2021.",
)
FACTUAL = QA(
    "q1",
    "How much did the tenant have to pay in arrears?",
    "The tenant had to pay HK$24,000 in arrears within 14 days.",
    "d1/p1",
    "d1",
    "factual",
    ["HK$24,000"],
    ["within 14 days"],
)
YESNO = QA(
    "q2",
    "Was the landlord entitled to keep the deposit?",
    "No. The landlord was not entitled to forfeit the deposit unless the premises were damaged.",
    "d1/p1",
    "d1",
    "yesno",
    ["No"],
    ["unless the premises were damaged"],
)


def item(text: str, qa: QA = FACTUAL, passages=(GOLD, OTHER), cid: str = "q1/ctx/offline:x") -> JudgeItem:
    return JudgeItem(Candidate(cid, "q1/ctx", "offline:x", text, "stop"), qa, tuple(passages), True, REFUSAL)


def dims(judge: RuleJudge, text: str, qa: QA = FACTUAL, passages=(GOLD, OTHER)) -> tuple:
    lab = judge.judge_one(item(text, qa, passages))
    return lab.behaviour, lab.faithfulness, lab.correctness, lab.completeness


STRICT, LENIENT = RuleJudge("strict"), RuleJudge("lenient")


# ------------------------------------------------------------------------------------ text features
def test_numbers_are_canonical_across_formats():
    assert m.numbers("HK$2,400,000") == m.numbers("2.4 million") == m.numbers("2400000") == {"2400000"}
    assert m.numbers("18 months on 12 March 2021") == {"18", "12", "2021"}
    assert m.numbers("eighteen months") == {"18"}
    # Citation markers are not facts.
    assert m.numbers("The fine was HK$500 [3].") == {"500"}


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "the the the the the the the",
        "penalty penalty penalty penalty",
        "%%%% $$$ ### !!!",
        "a b a b a b a b c",
        # Whole sentences or list items said again and again (real small-model output, shortened).
        "The answer to this question is: 1,110,000.\n\nThe answer to this question is: 1,110,000.\n\n"
        "The answer to this question is: 1,110,000.",
        "- Yes.\n- The answer to the question is Yes.\n- The answer to the question is Yes.\n"
        "- The answer to the question is Yes.",
        "The orders take effect today. Interest runs on any unpaid sum. The orders take effect today. "
        "Interest runs on any unpaid sum.",
        "法院判令被告支付罚款。法院判令被告支付罚款。法院判令被告支付罚款。",
    ],
)
def test_degenerate_text(text):
    assert m.degenerate(text)


@pytest.mark.parametrize("text", [
    "No.", "Yes, the appeal was allowed.", "The tenant paid HK$9,000 a month.",
    # One sentence said twice is clumsy, not a loop; nor are list items that share a pattern.
    "The fine was HK$500. The fine was HK$500.",
    "1. The tenant must pay HK$9,000.\n2. The tenant must leave by 1 May.\n3. The tenant must pay costs.",
])
def test_normal_text_is_not_degenerate(text):
    assert not m.degenerate(text)


def test_refusal_clauses_are_separated_from_an_answer():
    text = "The passages do not say, but the fine was HK$500."
    assert m.has_refusal(text)
    assert m.non_refusal_text(text) == "but the fine was HK$500."
    assert m.has_refusal(REFUSAL, REFUSAL)
    assert not m.has_refusal("The tenant did not pay the rent.")


# ---------------------------------------------------------------------------------------- behaviour
@pytest.mark.parametrize("judge", [STRICT, LENIENT])
@pytest.mark.parametrize(
    "text, expected",
    [
        (REFUSAL, "abstained"),
        ("I cannot answer this from the passages.", "abstained"),
        ("There is insufficient information in the passages.", "abstained"),
        # Says the context is insufficient but still answers: attempted.
        (REFUSAL + " However, the tenant had to pay HK$24,000 in arrears.", "attempted"),
        ("The passages do not say for certain. No.", "attempted"),
        ("The tenant had to pay HK$24,000.", "attempted"),
        ("", "unusable"),
        ("arrears arrears arrears arrears arrears arrears", "unusable"),
        ("\ufffd\ufffd\ufffd garbled \ufffd", "unusable"),
        # A list answer: a bare "Yes" item then a refusal item still takes a side (docs/method.md §4: attempted).
        ("- Yes\n- The passage does not contain enough information to answer the question.", "attempted"),
        ("1. No, the lease did not allow it.", "attempted"),
    ],
)
def test_behaviour(judge, text, expected):
    assert judge.behaviour(text, REFUSAL) == expected


def test_stage_two_only_for_attempted_answers():
    lab = STRICT.judge_one(item(REFUSAL))
    assert (lab.behaviour, lab.faithfulness, lab.correctness, lab.completeness) == (
        "abstained",
        None,
        None,
        None,
    )
    assert lab.status == "ok" and lab.judge == "rule:strict"


# ------------------------------------------------------------------------------------- faithfulness
@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_faithfulness_levels(judge):
    ideal = "The tribunal ordered the tenant to pay arrears of HK$24,000 within 14 days [1]."
    assert dims(judge, ideal) == ("attempted", "fully_supported", "correct", "complete")
    # Main conclusion supported, a secondary claim not in the context.
    partial = ideal + " The tenant also owed HK$5,000 in costs to the Lands Tribunal."
    assert dims(judge, partial)[1] == "partially_supported"
    # Nothing of it is in the context.
    assert dims(judge, "The tenant owed HK$24,000 under a settlement reached at mediation.")[1] == "unsupported"
    # A reply about another matter stating nothing of what was asked takes no position (docs/method.md §4).
    assert dims(judge, "The court sentenced the director to community service.")[0] == "unusable"
    # Aligned with a context sentence but a different amount: contradicted.
    wrong_amount = "The tribunal ordered the tenant to pay arrears of HK$30,000 within 14 days."
    assert dims(judge, wrong_amount)[:3] == ("attempted", "contradicted", "incorrect")


def test_an_accurate_quote_of_another_item_is_contradicted_and_incorrect():
    # Read as the answer, the rent is offered as the arrears; the passage on the arrears gives another
    # amount (docs/method.md §4). Before the conventions were written down: fully_supported.
    text = "The tenant paid rent of HK$9,000 each month for two years."
    assert dims(STRICT, text) == ("attempted", "contradicted", "incorrect", "incomplete")


def test_bare_yes_no_is_checked_against_the_sentence_the_question_points_to():
    assert dims(STRICT, "No.", YESNO) == ("attempted", "fully_supported", "correct", "incomplete")
    assert dims(STRICT, "Yes.", YESNO)[1:3] == ("contradicted", "incorrect")
    full = "No. The landlord was not entitled to forfeit the deposit unless the premises were damaged."
    assert dims(STRICT, full, YESNO) == ("attempted", "fully_supported", "correct", "complete")


def test_strict_checks_polarity_lenient_does_not():
    flipped = "The landlord was entitled to forfeit the deposit."
    assert dims(STRICT, flipped, YESNO)[1] == "contradicted"
    assert dims(LENIENT, flipped, YESNO)[1] == "fully_supported"


def test_strict_wants_numbers_in_the_aligned_sentence():
    # 9,000 is in the context, but not in the sentence about arrears: another amount for the same item
    # contradicts it at either strictness (docs/method.md §4).
    text = "The tribunal ordered the tenant to pay arrears of HK$9,000 within 14 days."
    assert dims(STRICT, text)[1] == "contradicted"
    assert dims(LENIENT, text)[1] == "contradicted"
    # A secondary claim whose figure is only in another sentence of the context: lenient looks anywhere.
    # (Both passages of the question's own decision: "the tenant" of another decision is not the one
    # this question, bound to its decision, asks about; docs/method.md §4.)
    same = (GOLD, replace(OTHER, decision_id="d1"))
    text = ("The tribunal ordered the tenant to pay arrears of HK$24,000 within 14 days. "
            "The tenant paid rent of HK$24,000 each month for two years.")
    assert dims(STRICT, text, passages=same)[1] == "partially_supported"
    assert dims(LENIENT, text, passages=same)[1] == "fully_supported"
    # With the rent sentence in another decision's passage, neither judge takes it as this tenant's.
    assert dims(LENIENT, text)[1] == "partially_supported"


# ---------------------------------------------------------------------- correctness and completeness
def test_correctness_from_facts_and_completeness_from_qualifiers():
    assert dims(STRICT, "HK$24,000.")[2:] == ("correct", "incomplete")
    assert dims(STRICT, "24000 dollars within 14 days.")[2:] == ("correct", "complete")
    # An incorrect answer is never complete (docs/method.md §4).
    assert dims(STRICT, "HK$9,000 within 14 days.")[2:] == ("incorrect", "incomplete")


def test_strictness_on_partial_facts_and_qualifiers():
    qa = QA(
        "q3",
        "What were the orders?",
        "ref",
        "d1/p1",
        "d1",
        "factual",
        ["HK$24,000", "14 days"],
        ["unless the premises were damaged", "the deposit"],
    )
    text = "The tenant paid HK$24,000; the deposit was kept."
    assert dims(STRICT, text, qa)[2:] == ("incorrect", "incomplete")
    assert dims(LENIENT, text, qa)[2:] == ("correct", "complete")


def test_no_facts_falls_back_to_reference_overlap():
    qa = QA(
        "q4",
        "What did the tribunal order?",
        "The tribunal ordered payment of arrears by the tenant.",
        "d1/p1",
        "d1",
        "rule",
        [],
        [],
    )
    assert dims(STRICT, "The tribunal ordered the tenant to pay arrears.", qa)[2:] == ("correct", "complete")
    assert dims(STRICT, "The tribunal ordered the landlord to return the deposit.", qa)[2] == "incorrect"
    # A sentence on another matter takes no position on the question (docs/method.md §4).
    assert dims(STRICT, "The lease ended in March.", qa)[0] == "unusable"


def test_judge_keeps_order_and_is_deterministic():
    items = [item(t, cid=f"q1/ctx/g{i}") for i, t in enumerate(["No.", REFUSAL, "", "HK$24,000."])]
    first = STRICT.judge(items)
    assert [lab.candidate_id for lab in first] == [i.candidate.id for i in items]
    assert first == RuleJudge("strict").judge(items)


def test_make_judge_and_file_names():
    params = Params()
    assert make_judge("rule:strict", params).name == "rule:strict"
    assert make_judge("rule:lenient", params).name == "rule:lenient"
    with pytest.raises(ValueError, match="unknown"):
        make_judge("rule:harsh", params)
    with pytest.raises(ValueError, match="unknown judge"):
        make_judge("oracle:x", params)
    assert file_name("rule:strict") == "rule-strict.jsonl"
    assert "/" not in file_name("llm:openai:http://host:8000/v1|m")


# ---------------------------------------------------------------------------------------- LLM judge
class FakeGenerator:
    """Canned replies keyed by the dimension the prompt asks about; counts every prompt it sees."""

    name = "fake:judge"
    batch_size = 8

    def __init__(self, replies: dict[str, list[str]]):
        self.replies = {k: list(v) for k, v in replies.items()}
        self.prompts: list[str] = []

    def generate(self, requests):
        out = []
        for r in requests:
            self.prompts.append(r.prompt)
            dim = next(
                d for d in ("behaviour", "faithfulness", "correctness", "completeness") if _asks(d, r.prompt)
            )
            queue = self.replies[dim]
            out.append(Response(queue.pop(0) if len(queue) > 1 else queue[0], "stop"))
        return out


def _asks(dimension: str, prompt: str) -> bool:
    heads = {
        "behaviour": "Classify the RESPONSE's behaviour",
        "faithfulness": "only against the PASSAGES",
        "correctness": "correct: same bottom line",
        "completeness": "complete: it states",
    }
    return heads[dimension] in prompt


def ok(label: str) -> str:
    return json.dumps({"label": label, "reason": "because"})


def llm(gen, retries=2) -> LLMJudge:
    return LLMJudge("llm:fake:judge", gen, retries, DecodingParams(max_new_tokens=128))


def test_llm_judge_valid_replies():
    gen = FakeGenerator(
        {
            "behaviour": [ok("attempted")],
            "faithfulness": ["```json\n" + ok("partially_supported") + "\n```"],
            "correctness": [ok("correct")],
            "completeness": ['Sure! {"label": "incomplete"}'],
        }
    )
    [lab] = llm(gen).judge([item("HK$24,000.")])
    assert (lab.behaviour, lab.faithfulness, lab.correctness, lab.completeness, lab.status) == (
        "attempted",
        "partially_supported",
        "correct",
        "incomplete",
        "ok",
    )
    assert len(gen.prompts) == 4
    assert "PASSAGES" in gen.prompts[1] and "REFERENCE" in gen.prompts[2]


def test_llm_judge_abstained_asks_only_behaviour():
    gen = FakeGenerator({"behaviour": [ok("abstained")]})
    [lab] = llm(gen).judge([item(REFUSAL)])
    assert (lab.behaviour, lab.faithfulness, lab.status) == ("abstained", None, "ok")
    assert len(gen.prompts) == 1


def test_llm_judge_retries_invalid_json_then_succeeds():
    gen = FakeGenerator({"behaviour": ["not json", '{"label": "maybe"}', ok("unusable")]})
    [lab] = llm(gen, retries=2).judge([item("")])
    assert (lab.behaviour, lab.status) == ("unusable", "ok")
    assert len(gen.prompts) == 3
    # Each retry tells the model what was wrong, so the prompt (and its cache key) changes.
    assert "previous reply was not" in gen.prompts[1] and "not json" in gen.prompts[1]


def test_identical_failed_replies_still_give_distinct_retry_prompts():
    # Through the response cache an identical retry prompt would be answered with the failed reply again.
    gen = FakeGenerator({"behaviour": ["not json", "not json", ok("abstained")]})
    [lab] = llm(gen, retries=2).judge([item(REFUSAL)])
    assert (lab.behaviour, lab.status) == ("abstained", "ok")
    assert len(set(gen.prompts[:3])) == 3


def test_llm_judge_records_unparseable_after_retries():
    gen = FakeGenerator(
        {
            "behaviour": [ok("attempted")],
            "faithfulness": ["{broken", '{"label": 3}', '{"label": "fully_supported", "extra": 1}'],
        }
    )
    items = [item("HK$24,000.")]
    [lab] = llm(gen, retries=2).judge(items)
    assert lab.status == "unparseable"
    assert lab.candidate_id == items[0].candidate.id and lab.behaviour == "attempted"
    # 1 behaviour call + 3 faithfulness attempts; later dimensions are not asked.
    assert len(gen.prompts) == 4


def test_parse_reply_schema():
    allowed = ("correct", "incorrect")
    assert parse_reply('{"label": "correct"}', allowed) == "correct"
    assert parse_reply('{"label": "correct", "reason": "x"}', allowed) == "correct"
    assert parse_reply('{"label": "right"}', allowed) is None
    assert parse_reply('{"label": "correct", "reason": 5}', allowed) is None
    assert parse_reply('["correct"]', allowed) is None
    assert parse_reply("correct", allowed) is None


def test_judge_prompt_mentions_allowed_labels():
    prompt = judge_prompt("faithfulness", item("HK$24,000."))
    for label in ("fully_supported", "partially_supported", "unsupported", "contradicted"):
        assert label in prompt
    assert GOLD.text in prompt


ZH_GOLD = Passage("z1/p1", "z1", "z1", "处罚决定", "经查明，张某于2010年3月在内幕信息敏感期内买入某公司股票，获利4,665,091.79元。")
ZH_QA = QA("zq1", "张某的违法所得是多少？", "张某的违法所得为4,665,091.79元。", "z1/p1", "z1", "factual",
           ["4,665,091.79元"], [])
# Words a Chinese prompt may still hold in Latin letters: the schema's labels and keys, and "JSON".
_SCHEMA_WORDS = {"label", "reason", "json", "attempted", "abstained", "unusable", "fully_supported",
                 "partially_supported", "unsupported", "contradicted", "correct", "incorrect", "complete",
                 "incomplete"}


@pytest.mark.parametrize("dimension", ["behaviour", "faithfulness", "correctness", "completeness"])
def test_judge_prompt_of_a_chinese_item_is_worded_in_chinese(dimension):
    zh_item = JudgeItem(Candidate("zq1/ctx/x", "zq1/ctx", "offline:x", "张某获利4,665,091.79元。", "stop"),
                        ZH_QA, (ZH_GOLD,), True, "提供的段落没有足够的信息来回答这个问题。")
    prompt = judge_prompt(dimension, zh_item, invalid_reply="oops", attempt=1)
    latin = {w.lower() for w in re.findall(r"[A-Za-z_]+", prompt)} - {"oops"}
    assert latin <= _SCHEMA_WORDS
    for label in LABEL_DIMENSIONS[dimension]:
        assert label in prompt
    assert "张某获利4,665,091.79元。" in prompt and "第 2 次尝试" in prompt
    if dimension == "faithfulness":
        assert ZH_GOLD.text in prompt
    if dimension in ("correctness", "completeness"):
        assert ZH_QA.answer in prompt


def test_yes_no_lead_joins_the_sentence_that_carries_it():
    # The quoted sentence is in the context, but it answers the question "no": the "Yes" contradicts it.
    wrong_lead = "Yes. The landlord was not entitled to forfeit the deposit unless the premises were damaged."
    assert dims(STRICT, wrong_lead, YESNO)[1:3] == ("contradicted", "incorrect")
    # Framing sentences between the lead and the claim are skipped, not judged unsupported.
    framed = (
        "No. Reading the passages, the answer rests on the following. "
        "The landlord was not entitled to forfeit the deposit unless the premises were damaged. (see passage [1])"
    )
    assert dims(STRICT, framed, YESNO) == ("attempted", "fully_supported", "correct", "complete")


def test_right_yes_no_about_another_matter_is_incorrect():
    # Polarity matches the "No" fact, but the sentence is about the rent of another lease: the No read
    # with it rests on nothing about the deposit (docs/method.md §4; before: fully_supported).
    other = "No. The tenant paid rent of HK$9,000 each month for two years."
    assert dims(STRICT, other, YESNO)[1:3] == ("unsupported", "incorrect")


def test_llm_judge_from_params_spec_with_cache(tmp_path):
    from pipeline.backends.cache import CachedGenerator

    replies = {
        "behaviour": [ok("attempted")],
        "faithfulness": [ok("fully_supported")],
        "correctness": [ok("correct")],
        "completeness": [ok("complete")],
    }
    first = FakeGenerator(replies)
    seen = []

    def factory(spec):
        seen.append(spec)
        return CachedGenerator(first, str(tmp_path))

    judge = make_judge("llm:fake:judge", Params(), factory)
    assert judge.name == "llm:fake:judge" and seen == ["fake:judge"]
    labels = judge.judge([item("HK$24,000.")])
    judge.generator.close()
    assert labels[0].status == "ok" and len(first.prompts) == 4
    # A rerun answers every prompt from the cache: the backend sees no call.
    again = FakeGenerator(replies)
    judge2 = make_judge("llm:fake:judge", Params(), lambda spec: CachedGenerator(again, str(tmp_path)))
    assert judge2.judge([item("HK$24,000.")]) == labels
    judge2.generator.close()
    assert again.prompts == []


# ------------------------------------------------------------------------------------------- Chinese
ZH_REFUSAL = Params().generate.refusal_for("zh")
ZH_GOLD = Passage(
    "z1/p2",
    "z1",
    "z1",
    "处罚决定",
    "证监会决定没收张某违法所得4,665,091.79元，并处以100万元罚款。张某的辩解不能成立，证监会不予采纳。",
)
ZH_OTHER = Passage(
    "z2/p1", "z2", "z2", "事实", "李某系乙公司财务总监，于2011年5月3日卖出所持股票，避免损失约120万元。"
)
ZH_FACTUAL = QA(
    "zq1",
    "证监会没收了张某多少违法所得？",
    "证监会没收张某违法所得4,665,091.79元。",
    "z1/p2",
    "z1",
    "factual",
    ["4,665,091.79元"],
    [],
)
ZH_YESNO = QA(
    "zq2",
    "张某的辩解是否被证监会采纳？",
    "否。张某的辩解不能成立，证监会不予采纳。",
    "z1/p2",
    "z1",
    "yesno",
    ["否"],
    [],
)
ZH_RULE = QA(
    "zq3",
    "证监会对张某作出了哪些处罚？",
    "证监会没收张某的违法所得，并处以罚款。",
    "z1/p2",
    "z1",
    "rule",
    ["没收违法所得", "罚款"],
    ["并处以100万元罚款"],
)


def zh_dims(judge: RuleJudge, text: str, qa: QA = ZH_FACTUAL) -> tuple:
    cand = Candidate("zq/ctx/offline:x", "zq/ctx", "offline:x", text, "stop")
    lab = judge.judge_one(JudgeItem(cand, qa, (ZH_GOLD, ZH_OTHER), True, ZH_REFUSAL))
    return lab.behaviour, lab.faithfulness, lab.correctness, lab.completeness


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_chinese_verbatim_gold_quote_is_fully_supported(judge):
    quote = "证监会决定没收张某违法所得4,665,091.79元，并处以100万元罚款。"
    assert zh_dims(judge, quote) == ("attempted", "fully_supported", "correct", "complete")
    assert zh_dims(judge, quote, ZH_RULE) == ("attempted", "fully_supported", "correct", "complete")


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
@pytest.mark.parametrize(
    "text",
    [
        ZH_REFUSAL,
        "所提供的段落没有足够的信息回答这个问题。",  # a close paraphrase of the configured sentence
        "根据所给材料，无法确定没收的金额。",
        "段落中没有提及这一点。",
    ],
)
def test_chinese_refusal_is_abstained(judge, text):
    assert zh_dims(judge, text)[0] == "abstained"


def test_chinese_hedge_then_answer_is_attempted():
    text = "段落没有提及具体细节，但证监会决定没收张某违法所得4,665,091.79元。"
    assert zh_dims(STRICT, text)[:3] == ("attempted", "fully_supported", "correct")
    # The configured refusal followed by an answer is still an attempt.
    text = ZH_REFUSAL + "但是，证监会决定没收张某违法所得4,665,091.79元。"
    assert zh_dims(STRICT, text)[:3] == ("attempted", "fully_supported", "correct")
    # A statement that something was not disclosed is an answer, not a refusal.
    assert not m.has_refusal("公司未披露该信息。")


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_chinese_missing_fact_is_incorrect(judge):
    # To "how much", the confiscation without its amount restates what the question presupposes: no
    # position (docs/method.md §4), below an honest refusal in the hierarchy.
    assert zh_dims(judge, "证监会决定没收张某违法所得。")[0] == "unusable"
    # The rule question's facts: a penalty without the confiscation misses one of them.
    assert zh_dims(STRICT, "证监会对张某处以100万元罚款。", ZH_RULE)[2] == "incorrect"
    # A wrong amount contradicts the passage and is incorrect.
    assert zh_dims(judge, "证监会决定没收张某违法所得5,000,000元。")[2] == "incorrect"


def test_chinese_fact_without_latin_words_is_not_present_by_default():
    assert not STRICT.fact_present("没收违法所得", "证监会对张某处以罚款。", "zh")
    assert STRICT.fact_present("没收违法所得", "证监会决定没收其违法所得。", "zh")


def test_chinese_negation_sets_polarity():
    assert m.is_negative("证监会不予采纳", "zh") and m.is_negative("张某未提出异议", "zh")
    assert m.is_negative("法院驳回了上诉", "zh") and m.is_negative("张某没有买入股票", "zh")
    # 是否 (whether), 没收 (confiscate), 无论 (regardless) negate nothing.
    assert not m.is_negative("张某的辩解是否被采纳？", "zh")
    assert not m.is_negative("证监会没收违法所得", "zh")
    assert not m.is_negative("无论如何", "zh")
    # Strict checks it: the opposite of the gold sentence contradicts it; the right No is correct.
    assert zh_dims(STRICT, "张某的辩解成立，证监会予以采纳。", ZH_YESNO)[1:3] == ("contradicted", "incorrect")
    assert zh_dims(STRICT, "是。证监会采纳了张某的辩解。", ZH_YESNO)[2] == "incorrect"
    assert zh_dims(STRICT, "否。张某的辩解不能成立，证监会不予采纳。", ZH_YESNO)[1:3] == (
        "fully_supported",
        "correct",
    )


def test_chinese_amounts_and_dates_match_across_formats():
    assert m.numbers("4,665,091.79元", "zh") == m.numbers("4665091.79", "zh") == {"4665091.79"}
    assert m.numbers("100万元", "zh") == m.numbers("1,000,000元", "zh") == {"1000000"}
    assert m.numbers("2011年5月3日", "zh") == {"2011-05-03"}
    assert STRICT.fact_present("4,665,091.79元", "没收违法所得人民币4665091.79元", "zh")
    assert zh_dims(STRICT, "证监会决定没收张某违法所得4665091.79元。")[:3] == (
        "attempted",
        "fully_supported",
        "correct",
    )


def test_chinese_yes_no_leads():
    assert m.lead_polarity("是，证监会采纳了。", "zh") == "yes"
    assert m.lead_polarity("否。", "zh") == "no" and m.lead_polarity("不是，", "zh") == "no"
    assert m.lead_polarity("是否采纳尚不清楚。", "zh") is None
    assert m.strip_lead("否。张某的辩解不能成立。", "zh") == "张某的辩解不能成立。"


def test_chinese_fluent_answer_is_not_degenerate():
    assert not m.degenerate("证监会决定没收张某违法所得4,665,091.79元，并处以100万元罚款。")
    assert m.degenerate("罚款罚款罚款罚款罚款罚款罚款罚款")


def test_judge_items_pick_the_refusal_of_the_question_language():
    from pipeline.judges.inputs import InterimData, judge_items
    from pipeline.records import Context

    contexts = {
        "q1/v": Context("q1/v", "q1", "v", True, ["d1/p1"], 0),
        "zq1/v": Context("zq1/v", "zq1", "v", True, ["z1/p2"], 0),
    }
    candidates = [Candidate(f"{c}/g", c, "g", "x", "stop") for c in contexts]
    corpus = InterimData(
        {"d1/p1": GOLD, "z1/p2": ZH_GOLD}, {"q1": FACTUAL, "zq1": ZH_FACTUAL}, contexts, candidates
    )
    refusals = Params().generate.refusal_by_language()
    assert [i.refusal for i in judge_items(corpus, refusals)] == [REFUSAL, ZH_REFUSAL]
    with pytest.raises(ValueError, match="generate.refusals.zh"):
        judge_items(corpus, {"en": REFUSAL})


def test_a_yes_no_question_about_another_figure_is_answered_no():
    """The bilingual run once labelled "否。" to "违法所得是否为2200000？" contradicted and incorrect, though the
    passage gives 1200000: the question's figure decides its bottom line as much as its negation does."""
    passage = Passage("zh/p0", "zh", "zh", "处罚决定",
                      "经查明，李某在内幕信息敏感期内买卖该股票，违法所得为1200000元。")
    qa = QA("zq", "违法所得是否为2200000？", "否。违法所得为1200000，而非2200000。", "zh/p0", "zh", "yesno",
            ["否", "1200000"], [])
    assert dims(STRICT, "否。", qa, (passage,))[1] == "fully_supported"
    assert dims(STRICT, "是。", qa, (passage,))[1:3] == ("contradicted", "incorrect")
    assert dims(STRICT, "否。违法所得为1200000元。", qa, (passage,))[1:3] == ("fully_supported", "correct")
    assert dims(STRICT, "违法所得为1200000元。", qa, (passage,))[2] == "correct"
    en = QA("eq", "Was the tenant ordered to pay arrears of HK$30,000?", "No. The arrears were HK$24,000.",
            "d1/p1", "d1", "yesno", ["No", "HK$24,000"], [])
    assert dims(STRICT, "No.", en)[1] == "fully_supported"
    assert dims(STRICT, "Yes.", en)[1] == "contradicted"


@pytest.mark.parametrize("judge", [STRICT, LENIENT])
def test_chinese_list_answer_takes_a_side(judge):
    # "- 是" then the refusal as list items: the bare 是 is the answer's side, as "- Yes" is in English.
    assert zh_dims(judge, "- 是\n- " + ZH_REFUSAL)[0] == "attempted"
    assert m.lead_polarity("1、否，证监会没有没收。", "zh") == "no"


LOAN = Passage(
    "z3/p1", "z3", "z3", "经审理查明",
    "被告王某未按约定归还借款本息，仅于2017年6月30日归还本金50,000元，余款至今未还。",
)
LOAN_QA = QA("zq4", "王某在2017年6月30日归还了多少本金？", "王某归还本金50,000元。", "z3/p1", "z3", "factual",
             ["50,000元"], [])
LOAN_WHETHER = QA("zq4", "王某是否按约定归还了借款本息？", "否。王某未按约定归还借款本息。", "z3/p1", "z3", "yesno",
                  ["否"], [])


@pytest.mark.parametrize(
    ("text", "faithfulness"),
    [
        # A clause quoted word for word: the 未 of the other clauses is not its polarity.
        ("仅于2017年6月30日归还本金50,000元。", "fully_supported"),
        # The same clause quoted with an attribution: read inside its quotation marks.
        ("第[1]段写明：“仅于2017年6月30日归还本金50,000元。”", "fully_supported"),
        # A quote that drops its own clause's negation (未按约定归还 -> 按约定归还) still contradicts.
        ("按约定归还借款本息。", "contradicted"),
    ],
)
def test_a_clause_quote_is_read_with_its_own_clause_polarity(text, faithfulness):
    cand = Candidate("zq4/ctx/offline:x", "zq4/ctx", "offline:x", text, "stop")
    # Asked how much, a reply with no figure takes no position: the dropped negation is read on whether.
    qa = LOAN_QA if m.numbers(text, "zh") else LOAN_WHETHER
    label = STRICT.judge_one(JudgeItem(cand, qa, (LOAN, ZH_OTHER), True, ZH_REFUSAL))
    assert label.faithfulness == faithfulness


def test_an_english_clause_quote_is_read_with_its_own_clause_polarity():
    passage = Passage("e9/p1", "e9", "e9", "Findings",
                      "Although the tenant did not pay the March rent, the Tribunal granted relief against forfeiture.")
    relief = QA("eq9", "Did the Tribunal grant relief against forfeiture?", "Yes.", "e9/p1", "e9", "yesno", ["Yes"], [])
    paid = QA("eq8", "Did the tenant pay the March rent?", "No.", "e9/p1", "e9", "yesno", ["No"], [])
    for text, qa, faithfulness in [
        ("The Tribunal granted relief against forfeiture.", relief, "fully_supported"),
        ('Passage [1] states: "the Tribunal granted relief against forfeiture."', relief, "fully_supported"),
        # The quote drops its own clause's "did not".
        ("The tenant paid the March rent.", paid, "contradicted"),
    ]:
        cand = Candidate(f"{qa.id}/ctx/offline:x", f"{qa.id}/ctx", "offline:x", text, "stop")
        assert STRICT.judge_one(JudgeItem(cand, qa, (passage,), True, REFUSAL)).faithfulness == faithfulness


def test_a_reply_stating_no_clause_or_guideline_takes_no_position_on_a_rule_question():
    """Asked for a rule whose reference is a clause and its period (or a guideline case and its range), a
    reply offering no value of those kinds states no rule: an issue statement, the question restated, or
    another doctrine. A clause written bare ("14(d)") is a clause."""
    lease = Passage("e7/p1", "e7", "e7", "Forfeiture for non-payment",
                    "Under clause 14(d) of the tenancy agreement, the landlord may re-enter the premises if rent "
                    "remains unpaid 15 days after it falls due.")
    issue = Passage("e7/p2", "e7", "e7", "Matters for determination",
                    "The issue for the Tribunal is whether the landlord may forfeit the lease held by Poon Tai-shan.")
    rule = QA("eq7", "What rule applies to forfeiting the lease held by Poon Tai-shan when rent goes unpaid?",
              "Under clause 14(d) the landlord may re-enter if rent remains unpaid 15 days after it falls due.",
              "e7/p1", "e7", "rule", ["clause 14(d)", "15 days"], [])
    for text, behaviour in [
        ("The issue for the Tribunal is whether the landlord may forfeit the lease held by Poon Tai-shan.", "unusable"),
        ("The law applies to forfeiture of the lease held by Poon Tai-shan when rent goes unpaid.", "unusable"),
        ("A landlord who accepts rent with knowledge of a breach may waive the right to forfeit.", "unusable"),
        ("The landlord may re-enter under 14(d) of the tenancy agreement.", "attempted"),
        ("Under clause 9(a) the landlord may re-enter after 30 days.", "attempted"),
    ]:
        cand = Candidate("eq7/ctx/offline:x", "eq7/ctx", "offline:x", text, "stop")
        assert STRICT.judge_one(JudgeItem(cand, rule, (lease, issue), True, REFUSAL)).behaviour == behaviour, text


def test_a_question_framed_by_a_numbered_case_names_the_case_its_heading_names():
    """"In DCCJ 4417/2022 Lau Mei-ling v Kwan Yee-man, ..." and "In Re Tsang Yuk-lan (deceased), ..." name
    the case of a passage headed "DCCJ 4417/2022 Lau Mei-ling v Kwan Yee-man" or "Re Tsang Yuk-lan
    (deceased)": its sentences are about the case asked (tests/fixtures/en_heldout)."""
    assert cases("In DCCJ 4417/2022 Lau Mei-ling v Kwan Yee-man, what was the rent?") == cases(
        "DCCJ 4417/2022 Lau Mei-ling v Kwan Yee-man", heading=True)
    assert cases("In HKSAR v Lam Wing-kei and Ho Chi-keung, what discount?") == cases(
        "HKSAR v Lam Wing-kei and Ho Chi-keung", heading=True)
    assert cases("In Re Tsang Yuk-lan (deceased), who represented the defendants?") == cases(
        "Re Tsang Yuk-lan (deceased)", heading=True) == {"re tsang yuk-lan"}
    heading = "DCCJ 4417/2022 Lau Mei-ling v Kwan Yee-man"
    amenity = Passage("lk/p5", "lk", "lk", heading,
                      "For the loss of amenity I allow a reduction of 15% of the rent, that is $2,475 a month.")
    other = Passage("ng/p2", "ng", "ng", "CACV 156/2023 Ng Kwok-leung v Sunrise Logistics Limited",
                    "The trial judge reduced the damages by 50% for contributory negligence.")
    qa = QA("e-amenity", f"In {heading}, what percentage of the rent was allowed as a reduction for the loss of amenity?",
            "15%", "lk/p5", "lk", "factual", ["15%"], [])
    cand = Candidate("e-amenity/ctx/offline:x", "e-amenity/ctx", "offline:x",
                     'Passage [1] states: "For the loss of amenity I allow a reduction of 15% of the rent."', "stop")
    label = STRICT.judge_one(JudgeItem(cand, qa, (amenity, other), True, REFUSAL))
    assert (label.faithfulness, label.correctness) == ("fully_supported", "correct")


def test_a_no_running_into_a_noun_is_no_answer():
    assert m.lead_polarity("No rent has been paid since 1 May 2022.", "en") is None
    assert m.lead_polarity("No order as to costs.", "en") is None
    for text in ("No.", "No, the sentence was not suspended.", "No", "- No", "The answer is: No."):
        assert m.lead_polarity(text, "en") == "no", text


def test_asked_when_with_no_reference_a_reply_offering_no_date_takes_no_position():
    orders = Passage("lk/p6", "lk", "lk", "Orders", "The defendant shall deliver up vacant possession within 28 days "
                     "and pay $62,800.")
    when = QA("e-when", "On what date did the defendant deliver up vacant possession?", "", "lk/p6", "lk", "factual",
              [], [])
    for text, behaviour in [("The defendant shall deliver up vacant possession within 28 days and pay $62,800.", "unusable"),
                            ("The defendant delivered up vacant possession on 3 March 2023.", "attempted")]:
        cand = Candidate("e-when/ctx/offline:x", "e-when/ctx", "offline:x", text, "stop")
        assert STRICT.judge_one(JudgeItem(cand, when, (orders,), False, REFUSAL)).behaviour == behaviour, text
