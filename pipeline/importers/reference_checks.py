"""Sanity checks of a QA set's own references, as the set gives them (docs/method.md §1, "Label noise").

An importer cannot repair a published set, but it can say where its labels are plainly wrong. Every
question the set calls answerable (`is_impossible` false, or absent) is checked before the import's own validation (so a question that
validation then leaves out is still counted here):

- `empty_reference`: no answer text with any letter, digit or Chinese character, and no yes/no answer;
- `reference_not_in_passage`: an answer that shares nothing with its own paragraph: not a substring of it,
  and not one character bigram (zh) or content word (en) in common ("全权由对方承担" for a paragraph that
  only says 负事故的次要责任).

The counts and the first examples are written with the import's skipped records and shown by the data
report beside the leak count of pipeline.reporting.label_noise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pipeline import language

EMPTY = "empty_reference"
NOT_IN_PASSAGE = "reference_not_in_passage"
REASONS = (EMPTY, NOT_IN_PASSAGE)
EXAMPLES = 3
_CONTENT = re.compile(rf"[0-9A-Za-z{language.CJK}]")


def units(text: str, lang: str) -> set[str]:
    """What overlap is measured in: character bigrams (zh, numbers and Latin words whole), content words (en)."""
    if lang == "zh":
        return set(language.ngrams(text, 2, "zh"))
    return set(language.content_words(text, "en"))


def reference_problem(answers: list[str], context: str, lang: str) -> str | None:
    """The check an answerable question's answer texts fail (None: they pass). Yes/no texts pass."""
    texts = [t.strip() for t in answers if _CONTENT.search(t)]
    if not texts:
        return EMPTY
    if any(t in context for t in texts):
        return None
    hay = units(context, lang)
    return None if any(units(t, lang) & hay for t in texts) else NOT_IN_PASSAGE


@dataclass
class ReferenceChecks:
    """Counts of one import's answerable questions and of those failing a check, with first examples."""

    answerable: int = 0
    failed: dict[str, int] = field(default_factory=lambda: dict.fromkeys(REASONS, 0))
    examples: dict[str, list[dict]] = field(default_factory=lambda: {r: [] for r in REASONS})

    def check(self, qa: Any, context: str, lang: str, where: str, yesno: frozenset[str]) -> None:
        """Check one raw question object of the set (malformed ones are the validation's to report)."""
        if not isinstance(qa, dict) or not _answerable(qa.get("is_impossible", False)):
            return
        answers = qa.get("answers") if isinstance(qa.get("answers"), list) else []
        texts = [a["text"] for a in answers if isinstance(a, dict) and isinstance(a.get("text"), str)]
        flags = [qa.get(k) for k in ("yesno_answer", "yes_no", "yesno")]
        if any(isinstance(t, str) and t.strip().lower() in yesno for t in texts + flags):
            self.answerable += 1
            return
        self.answerable += 1
        problem = reference_problem(texts, context, lang)
        if problem is None:
            return
        self.failed[problem] += 1
        if len(self.examples[problem]) < EXAMPLES:
            self.examples[problem].append({"id": str(qa.get("id")), "path": where, "question": qa.get("question"),
                                           "reference": " | ".join(texts), "passage": context[:160]})

    def summary(self) -> dict:
        return {"answerable": self.answerable, "failed": self.failed, "examples": self.examples}


def _answerable(value: Any) -> bool:
    """The set calls the question answerable (an unreadable flag, such as "maybe", calls it nothing)."""
    return value is False or (isinstance(value, str) and value.strip().lower() == "false")
