"""Decisions -> passages: one passage per section, long sections cut, short ones merged in their family."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pipeline import language
from pipeline.records import Decision, Passage

_NUMBERED = re.compile(r"^\d+(?:\.\d+)+$")
# Sentence ends in English and Chinese; Chinese needs no space after the stop, and may write it half-width
# ("……80,000元;借款到期后……", language.zh_punct): a half-width ; ! ? right after a Chinese character ends one too.
_SENTENCE_END = re.compile(rf"(?<=[.!?])\s+|(?<=[。！？；])|(?<=[{language.CJK}][;!?])")


def family_of(decision_id: str, section_id: str) -> str:
    """The evidence family of a section.

    Numbered sections of imported corpora ("5.7.3") belong to the family of their first two components
    ("5.7"), scoped to their document as "<decision_id>/5.7" so that two documents that both have a
    section 5.7 stay apart; any other section belongs to its decision.
    """
    if _NUMBERED.match(section_id):
        head = ".".join(section_id.split(".")[:2])
        return f"{decision_id}/{head}"
    return decision_id


def split_sentences(text: str) -> list[str]:
    return [s for s in (part.strip() for part in _SENTENCE_END.split(text)) if s]


def chunk_text(text: str, max_chars: int) -> list[str]:
    """Cut text at sentence ends into pieces of at most max_chars (a longer single sentence stays whole)."""
    if len(text) <= max_chars:
        return [text]
    joiner = "" if language.has_cjk(text) else " "
    pieces: list[str] = []
    current = ""
    for sentence in split_sentences(text):
        candidate = f"{current}{joiner}{sentence}" if current else sentence
        if current and len(candidate) > max_chars:
            pieces.append(current)
            current = sentence
        else:
            current = candidate
    if current:
        pieces.append(current)
    return pieces


@dataclass
class _Unit:
    id: str
    family: str
    heading: str
    text: str


def _units(decision: Decision, max_chars: int) -> list[_Unit]:
    units = []
    for section in decision.sections:
        family = family_of(decision.id, section.id)
        pieces = chunk_text(section.text.strip(), max_chars)
        for k, piece in enumerate(pieces, start=1):
            suffix = f"-{k}" if len(pieces) > 1 else ""
            units.append(_Unit(f"{decision.id}/{section.id}{suffix}", family, section.heading, piece))
    return units


def _merge(units: list[_Unit], min_chars: int, max_chars: int, joiner: str = " ") -> list[_Unit]:
    """Merge each short unit into its predecessor of the same family (else into its successor).
    Chinese text is joined without a space (`joiner` ""), as Chinese is written."""
    merged: list[_Unit] = []
    for unit in units:
        last = merged[-1] if merged else None
        short = len(unit.text) < min_chars or (last is not None and len(last.text) < min_chars)
        fits = last is not None and len(last.text) + len(joiner) + len(unit.text) <= max_chars
        if last is not None and last.family == unit.family and short and fits:
            heading = last.heading if unit.heading in last.heading.split("; ") else f"{last.heading}; {unit.heading}"
            merged[-1] = _Unit(last.id, last.family, heading, f"{last.text}{joiner}{unit.text}")
        else:
            merged.append(unit)
    return merged


def split_passages(decisions: Iterable[Decision], min_chars: int, max_chars: int = 1500) -> list[Passage]:
    """Passages of every decision, in decision order; `position` counts passages within a decision."""
    if min_chars < 0 or max_chars <= 0:
        raise ValueError("corpus.min_passage_chars must be >= 0 and corpus.max_passage_chars > 0")
    passages = []
    for decision in decisions:
        joiner = "" if decision.language == "zh" else " "
        for position, unit in enumerate(_merge(_units(decision, max_chars), min_chars, max_chars, joiner)):
            passages.append(
                Passage(
                    id=unit.id,
                    decision_id=decision.id,
                    family=unit.family,
                    heading=unit.heading,
                    text=unit.text,
                    position=position,
                )
            )
    return passages
