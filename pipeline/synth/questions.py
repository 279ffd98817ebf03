"""Question templates: how the corpus stage turns a decision's annotated fields into QA triples.

Each case type declares templates over its field names. A template names the fields that are the QA's
facts and qualifiers; the generator guarantees that every such value occurs verbatim in one section
of the decision text, so the gold passage is found by search and a rule judge can check answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class QuestionTemplate:
    key: str
    kind: Literal["factual", "yesno", "rule"]
    # Alternative wordings (str.format over the decision's fields); none copies the gold sentence.
    questions: tuple[str, ...]
    # Long-form reference answer; for yes/no templates `answer` is used for "Yes" and `answer_no` for "No".
    answer: str
    # Field names; a trailing "?" marks an optional fact (used when the decision has that field).
    facts: tuple[str, ...]
    qualifiers: tuple[str, ...] = ()
    # Field holding "Yes" or "No" (yes/no templates only); it is the first fact.
    polarity: str | None = None
    answer_no: str | None = None

    def needs(self) -> tuple[str, ...]:
        """Fields the template reads; a decision lacking one of them cannot use the template."""
        extra = (self.polarity,) if self.polarity else ()
        required = tuple(f for f in self.facts if not f.endswith("?"))
        return (*extra, *required, *self.qualifiers)

    def fact_fields(self, fields: dict[str, str]) -> list[str]:
        """The fact fields this decision fills, polarity first."""
        names = [self.polarity] if self.polarity else []
        for name in self.facts:
            bare = name.rstrip("?")
            if not name.endswith("?") or bare in fields:
                names.append(bare)
        return names
