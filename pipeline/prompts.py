"""The answer prompt of SPEC 3, shared by generation (what the panel sees) and pairs (what reward
models score), so both always see the same bytes."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.records import Passage

RULES = (
    "Answer the question using only the numbered passages above.\n"
    "- If the passages do not give enough information to answer, reply with exactly this sentence "
    "and nothing else: {refusal}\n"
    "- If the question can be answered yes or no, begin your answer with Yes or No.\n"
    "- Cite only cases, statutes or rules that appear in the passages.\n"
    "- Be concise."
)


PASSAGES_HEAD = "Passages:\n\n"
PASSAGE_JOIN = "\n\n"


def passage_block(number: int, heading: str, text: str) -> str:
    return f"[{number}] {heading}\n{text}"


def render_passages(passages: Sequence[Passage]) -> str:
    return PASSAGE_JOIN.join(passage_block(i, p.heading, p.text) for i, p in enumerate(passages, start=1))


def answer_prompt_with_spans(
    passages: Sequence[Passage], question: str, refusal: str
) -> tuple[str, list[list[int]]]:
    """The prompt and the [start, end) character span of each passage block in it.

    The spans let training and scoring drop whole distractor passages when a prompt is too long for the
    model (pipeline.models.fitting), without parsing the text, which may itself contain "[3]"-style marks.
    """
    spans, at = [], len(PASSAGES_HEAD)
    for i, p in enumerate(passages, start=1):
        block = passage_block(i, p.heading, p.text)
        spans.append([at, at + len(block)])
        at += len(block) + len(PASSAGE_JOIN)
    prompt = f"{PASSAGES_HEAD}{render_passages(passages)}\n\n{RULES.format(refusal=refusal)}\n\nQuestion: {question}"
    return prompt, spans


def answer_prompt(passages: Sequence[Passage], question: str, refusal: str) -> str:
    return answer_prompt_with_spans(passages, question, refusal)[0]
