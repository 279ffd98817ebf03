"""Which language each passage is in, and how many distractors of the contexts came from another one.

Languages come from the records that declare them, never from the script: a passage is in its decision's
`language`, a paragraph of the outside QA set (corpus.qa_import, which checked every paragraph against
it) in corpus.qa_import.language. A question is in the language of its gold passage (`question_languages`,
the one rule of retrieval: the contexts stage's distractors, its dense model per language and the data
report's recall all follow it), so a Chinese question full of Latin names still goes to the Chinese model.
The contexts draw distractors in the question's language (pipeline/retrieval/variants.py); `fill_ins`
counts the passages of another language that had to fill in where a language ran short.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.records import QA, Context, Passage


class UnknownGold(ValueError):
    """A question whose gold passage is missing, so its language is unknown; `qa_id` names it."""

    field = "gold_passage_id"

    def __init__(self, qa_id: str, message: str):
        super().__init__(f"question {qa_id!r}, field '{self.field}': {message}")
        self.qa_id, self.message = qa_id, message


class UnknownDecision(ValueError):
    """A passage whose language no record declares; `index` is its position in the passages file."""

    def __init__(self, index: int, message: str):
        super().__init__(message)
        self.index, self.message = index, message


def passage_languages(
    passages: Sequence[Passage], decision_language: Mapping[str, str], imported: tuple[str, str] | None
) -> list[str]:
    """The language of every passage. `decision_language` maps decision id -> language; `imported` is
    (id prefix, language) of the outside QA set, None when it is off."""
    out = []
    for i, p in enumerate(passages):
        lang = decision_language.get(p.decision_id)
        if lang is None and imported is not None and p.decision_id.startswith(imported[0]):
            lang = imported[1]
        if lang is None:
            where = "not in the decisions file" + (
                f" and lacks corpus.qa_import.id_prefix {imported[0]!r}"
                if imported
                else " and corpus.qa_import is off"
            )
            raise UnknownDecision(
                i, f"passage {p.id!r}: decision {p.decision_id!r} is {where}, so its language is unknown"
            )
        out.append(lang)
    return out


def imported(qa_import: Any) -> tuple[str, str] | None:
    """(id prefix, language) of the outside QA set of params corpus.qa_import, None when it is off."""
    return (qa_import.id_prefix, qa_import.language) if qa_import.format != "none" else None


def question_languages(qas: Sequence[QA], passages: Sequence[Passage], languages: Sequence[str]) -> list[str]:
    """The language of every question: that of its gold passage (`languages[i]` is `passages[i]`'s)."""
    lang_of = {p.id: lang for p, lang in zip(passages, languages, strict=True)}
    out = []
    for q in qas:
        if q.gold_passage_id not in lang_of:
            raise UnknownGold(q.id, f"unknown passage {q.gold_passage_id!r}, so its language is unknown")
        out.append(lang_of[q.gold_passage_id])
    return out


def fill_ins(
    contexts: Sequence[Context],
    qas: Sequence[QA],
    passages: Sequence[Passage],
    languages: Sequence[str],
    variants: Sequence[str],
) -> dict[str, Any]:
    """The contexts stage's language counts: passages and questions per language, and per question
    language and variant the contexts, their distractors, how many of those are in another language
    (`fill_ins`) and in how many contexts (`contexts_filled`). gold_only has no distractors: left out."""
    lang_of = {p.id: lang for p, lang in zip(passages, languages, strict=True)}
    qa_of = {q.id: q for q in qas}
    question_lang = dict(zip((q.id for q in qas), question_languages(qas, passages, languages), strict=True))
    shown = [v for v in variants if v != "gold_only"]
    table = {
        lang: {v: {"contexts": 0, "distractors": 0, "fill_ins": 0, "contexts_filled": 0} for v in shown}
        for lang in sorted(set(question_lang.values()))
    }
    for c in contexts:
        if c.variant not in shown:
            continue
        lang = question_lang[c.qa_id]
        others = [p for p in c.passage_ids if p != qa_of[c.qa_id].gold_passage_id]
        foreign = sum(lang_of[p] != lang for p in others)
        row = table[lang][c.variant]
        row["contexts"] += 1
        row["distractors"] += len(others)
        row["fill_ins"] += foreign
        row["contexts_filled"] += foreign > 0
    return {
        "passages_by_language": dict(sorted(Counter(languages).items())),
        "questions_by_language": dict(sorted(Counter(question_lang.values()).items())),
        "fill_ins": table,
        "fill_ins_total": sum(row["fill_ins"] for per in table.values() for row in per.values()),
    }
