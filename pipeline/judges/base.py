"""The judge interface: every judge (rule or LLM) turns judge items into one Label per candidate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pipeline import language, paths
from pipeline.records import QA, Candidate, Label, Passage


@dataclass(frozen=True)
class JudgeItem:
    """Everything a judge may look at for one candidate: the answer, the context shown, the reference."""

    candidate: Candidate
    qa: QA
    passages: tuple[Passage, ...]
    answerable: bool
    refusal: str


def item_language(qa: QA) -> str:
    """The language a judge reads an item in: that of its question and reference answer (a QA record
    carries no language of its own; its decision's language is the one its text is written in)."""
    return language.detect(f"{qa.question}\n{qa.answer}")


class Judge(Protocol):
    name: str

    def judge(self, items: Sequence[JudgeItem]) -> list[Label]:
        """One Label per item, in the same order; never drops an item."""
        ...


def file_name(judge: str) -> str:
    """Labels file name of a judge spec ("rule:strict" -> "rule-strict.jsonl")."""
    return judge.replace(":", "-").replace("/", "-").replace("|", "-") + ".jsonl"


def labels_file(judge: str) -> Path:
    """The judge stage's labels file of a judge spec."""
    return paths.LABELS / file_name(judge)
