"""Which refusal sentence a record is held to.

The rule, the same in every stage: a record's language is the language of its question, detected from
the question alone. The question is what the prompt's wording follows (pipeline/prompts.py), so the
sentence a generator is asked to reply with is the sentence its answer is judged, paired, augmented and
reported against. The reference answer does not take part (a pair, which the report reads, has none),
and neither does the answer under test: an answer in the wrong language is still held to the sentence
its prompt asked for.

A pair carries its question as the last paragraph of its prompt (`question_of_prompt`).
"""

from __future__ import annotations

from collections.abc import Mapping

from pipeline.language.core import detect


def refusal_of(question: str, refusals: str | Mapping[str, str]) -> str:
    """The refusal sentence for a record whose question is `question`. `refusals` is one sentence for every
    record, or one per language (generate.refusal as "en" plus generate.refusals); a language without one
    is an error that names the param to set."""
    if isinstance(refusals, str):
        return refusals
    lang = detect(question)
    if lang not in refusals:
        raise ValueError(f"no refusal sentence for language {lang!r}: set generate.refusals.{lang}")
    return refusals[lang]


def question_of_prompt(prompt: str) -> str:
    """The question of an answer prompt: its last paragraph, where pipeline/prompts.py puts it behind the
    wording's "Question: " (whose language is the question's, so detecting on the paragraph gives the
    question's language). An outside pair's prompt is read the same way: its last paragraph, or all of it."""
    return prompt.rstrip().rpartition("\n\n")[2]
