"""The answer prompt of docs/method.md §3, shared by generation (what the panel sees) and pairs (what reward
models score), so both always see the same bytes. The wording follows the question's language (docs/method.md §1:
templates and refusals are per language); the layout (numbered passage blocks, rules, question) is the
same in every language, so pipeline.models.fitting and the offline answerer read both alike."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline import language
from pipeline.records import Passage


@dataclass(frozen=True)
class Wording:
    passages_head: str
    rules: str  # holds {refusal}
    question_mark: str


WORDINGS = {
    "en": Wording(
        "Passages:\n\n",
        "Answer the question using only the numbered passages above.\n"
        "- If the passages do not give enough information to answer, reply with exactly this sentence "
        "and nothing else: {refusal}\n"
        "- If the question can be answered yes or no, begin your answer with Yes or No.\n"
        "- Cite only cases, statutes or rules that appear in the passages.\n"
        "- Be concise.",
        "Question: ",
    ),
    "zh": Wording(
        "段落：\n\n",
        "请仅根据上面编号的段落回答问题。\n"
        "- 如果段落提供的信息不足以回答，请只回复这句话，不要添加任何内容：{refusal}\n"
        "- 如果问题可以用是或否回答，请以“是”或“否”开头。\n"
        "- 只引用段落中出现的案例、法律条文或规则。\n"
        "- 回答要简洁。",
        "问题：",
    ),
}
RULES = WORDINGS["en"].rules
PASSAGES_HEAD = WORDINGS["en"].passages_head
PASSAGE_JOIN = "\n\n"


def wording(question: str) -> Wording:
    return WORDINGS[language.detect(question)]


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
    `refusal` is the refusal sentence of the question's language.
    """
    w = wording(question)
    spans, at = [], len(w.passages_head)
    for i, p in enumerate(passages, start=1):
        block = passage_block(i, p.heading, p.text)
        spans.append([at, at + len(block)])
        at += len(block) + len(PASSAGE_JOIN)
    prompt = (f"{w.passages_head}{render_passages(passages)}\n\n{w.rules.format(refusal=refusal)}\n\n"
              f"{w.question_mark}{question}")
    return prompt, spans


def answer_prompt(passages: Sequence[Passage], question: str, refusal: str) -> str:
    return answer_prompt_with_spans(passages, question, refusal)[0]
