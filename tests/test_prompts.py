"""The answer prompt: its English bytes, its Chinese wording, passage spans, and that the offline answerer
reads both languages back."""

from __future__ import annotations

from pipeline.backends.offline import parse_prompt
from pipeline.prompts import answer_prompt_with_spans
from pipeline.records import Passage

EN_REFUSAL = "The provided passages do not contain enough information to answer this question."
ZH_REFUSAL = "提供的段落没有足够的信息来回答这个问题。"
PASSAGES = [Passage("d/p1", "d", "d", "Facts", "The tenant paid [3] months late."),
            Passage("d/p2", "d", "d", "Orders", "The lease ended.")]


def test_english_prompt_bytes():
    prompt, spans = answer_prompt_with_spans(PASSAGES, "Did the lease end?", EN_REFUSAL)
    assert prompt == (
        "Passages:\n\n[1] Facts\nThe tenant paid [3] months late.\n\n[2] Orders\nThe lease ended.\n\n"
        "Answer the question using only the numbered passages above.\n"
        "- If the passages do not give enough information to answer, reply with exactly this sentence and "
        f"nothing else: {EN_REFUSAL}\n"
        "- If the question can be answered yes or no, begin your answer with Yes or No.\n"
        "- Cite only cases, statutes or rules that appear in the passages.\n"
        "- Be concise.\n\nQuestion: Did the lease end?"
    )
    assert [prompt[a:b] for a, b in spans] == ["[1] Facts\nThe tenant paid [3] months late.", "[2] Orders\nThe lease ended."]


def test_chinese_prompt_is_worded_in_chinese_and_parses_back():
    passages = [Passage("z/p1", "z", "z", "事实", "张某于2011年5月3日知悉内幕信息。"),
                Passage("z/p2", "z", "z", "处罚", "没收违法所得4,665,091.79元。")]
    prompt, spans = answer_prompt_with_spans(passages, "张某何时知悉内幕信息？", ZH_REFUSAL)
    assert prompt.startswith("段落：\n\n[1] 事实\n") and prompt.endswith("问题：张某何时知悉内幕信息？")
    rules = prompt[spans[-1][1]:]
    assert "Answer" not in rules and "Question" not in rules and ZH_REFUSAL in rules
    parsed = parse_prompt(prompt)
    assert parsed.question == "张某何时知悉内幕信息？" and parsed.refusal == ZH_REFUSAL
    assert parsed.passages == [("事实", "张某于2011年5月3日知悉内幕信息。"), ("处罚", "没收违法所得4,665,091.79元。")]
    en = parse_prompt(answer_prompt_with_spans(PASSAGES, "Did the lease end?", EN_REFUSAL)[0])
    assert en.question == "Did the lease end?" and en.refusal == EN_REFUSAL and len(en.passages) == 2
