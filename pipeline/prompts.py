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


def render_passages(passages: Sequence[Passage]) -> str:
    return "\n\n".join(f"[{i}] {p.heading}\n{p.text}" for i, p in enumerate(passages, start=1))


def answer_prompt(passages: Sequence[Passage], question: str, refusal: str) -> str:
    return (
        f"Passages:\n\n{render_passages(passages)}\n\n"
        f"{RULES.format(refusal=refusal)}\n\n"
        f"Question: {question}"
    )
