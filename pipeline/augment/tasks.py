"""The three rewrite tasks of docs/method.md §6 as prompts any generator can follow (an LLM, or the offline
rewriter, which reads the fields back out of the same prompt text)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline import language

UNGROUNDED_ANSWER = "ungrounded_answer"
EXPLAINED_REFUSAL = "explained_refusal"
BARE_CONCLUSION = "bare_conclusion"

INSTRUCTIONS = {
    UNGROUNDED_ANSWER: (
        "Write a confident answer of two or three sentences to the question from general legal knowledge "
        "alone, as if no passages were available: state a specific conclusion, do not hedge, do not refuse "
        "and do not mention passages or missing information."
    ),
    EXPLAINED_REFUSAL: (
        "Write a refusal of two or three sentences: say that the passages do not contain the information "
        "needed, and say specifically what is missing for this question. Do not guess an answer."
    ),
    BARE_CONCLUSION: (
        "Rewrite the short answer as exactly one sentence that states the same conclusion (the same Yes or "
        "No, the same figure) in the words of the question, without the rule, conditions or exceptions "
        "behind it."
    ),
}
_FIELD = re.compile(
    r"^(Task|Question kind|Question|Short response|Refusal sentence|Target length): (.*)$", re.M
)


@dataclass(frozen=True)
class RewriteTask:
    task: str
    question: str
    kind: str
    original: str
    refusal: str
    # Length of the pair's other side (tokens): the rewrite aims near it so length stops telling them apart.
    target_tokens: int = 0


def rewrite_prompt(t: RewriteTask) -> str:
    return (
        f"Task: {t.task}\n"
        f"Question: {_one_line(t.question)}\n"
        f"Question kind: {t.kind}\n"
        f"Short response: {_one_line(t.original)}\n"
        f"Refusal sentence: {_one_line(t.refusal)}\n"
        f"Target length: {_target(t)}\n\n"
        f"{INSTRUCTIONS[t.task]}\nReply with the rewritten response only."
    )


def parse_prompt(prompt: str) -> RewriteTask:
    fields = {k: v.strip() for k, v in _FIELD.findall(prompt)}
    missing = {"Task", "Question", "Question kind", "Short response"} - set(fields)
    if missing or fields["Task"] not in INSTRUCTIONS:
        raise ValueError(f"not a rewrite prompt (missing {sorted(missing) or 'a known task'})")
    return RewriteTask(
        fields["Task"],
        fields["Question"],
        fields["Question kind"],
        fields["Short response"],
        fields.get("Refusal sentence", ""),
        int(next(iter(re.findall(r"\d+", fields.get("Target length", ""))), 0)),
    )


# Chinese characters per count_tokens unit on judgment prose (1.36-1.50 on tests/fixtures/zh_judgments.json).
ZH_CHARS_PER_TOKEN = 1.4


def _target(t: RewriteTask) -> str:
    """The length to aim at. Lengths are count_tokens units; a Chinese rewrite also gets them in characters,
    the unit a writer of Chinese counts in ("words" means nothing definite there)."""
    if language.detect(t.question) == "zh":
        chars = round(t.target_tokens * ZH_CHARS_PER_TOKEN)
        return f"about {t.target_tokens} tokens (about {chars} Chinese characters)"
    return f"about {t.target_tokens} words"


def _one_line(text: str) -> str:
    return " ".join(text.split())
