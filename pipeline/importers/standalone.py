"""Questions bound to their document, made standalone at import (docs/method.md §1, "Standalone questions").

A published QA set writes each question on one judgment: "被告向原告借了多少钱?", "How much did the tenant
have to pay?". Shown ten passages of ten judgments, a reader cannot tell which 被告 is meant, and an
answer quoting another case's defendant is faithful and wrong. A question is bound to its document when
it names no party, case or document of its own (a role, 本案/this case, a demonstrative or nothing at all
points back to the judgment it was written on). `corpus.qa_import.standalone` then:

- prefix: the question is prefixed with its judgment's identifier as the reader sees it beside the gold
  passage: a case number in the title or opening the paragraph ("在（2015）定民一初字第01234号案中，…"),
  else the title ("在《曹x0与朱0民间借贷纠纷一审民事判决书》中，…", "In Chan v Wong, how much …"); with
  neither, the question is left out (reason `bound_no_identifier`);
- skip: it is left out (reason `document_bound`);
- keep: it stays as written (counted as kept bound).

Names are read by pipeline/matching/anchors.py (anonymised names, companies, case numbers, titles; in
English a capitalised word that is not a role). A real full name the rule cannot see ("张三") counts as none:
prefixing such a question is harmless, skipping it loses it, so prefix is the default.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# has_anchor and is_deictic are the judge's too (a question still bound is read against its judgment).
from pipeline.matching.anchors import CASE_NUMBER, has_anchor, is_deictic, opening_case_number

# First words an English question may start with that lose their capital after "In <title>, ".
_EN_LOWER_FIRST = frozenset(
    "what who whom whose when where which why how did does do is was were are has have had can could should "
    "would will must may might to in on for under after before the a an by at according".split()
)
# Reasons a bound question is left out.
SKIPPED = "document_bound"
NO_IDENTIFIER = "bound_no_identifier"
EXAMPLES = 5


def identifier(title: str, paragraph: str, language: str) -> str | None:
    """How the reader beside the gold passage can tell its judgment: a case number in the title or
    opening the paragraph (a number further in is often another court's, cited), else the title."""
    title = title.strip()
    if language == "zh":
        in_title = CASE_NUMBER.search(title)
        number = in_title.group(0) if in_title else opening_case_number(paragraph)
        if number:
            return f"{number}案"
        return f"《{title.strip('《》')}》" if title else None
    return title or None


def prefixed(question: str, ident: str, language: str) -> str:
    """The question prefixed with its judgment's identifier (the rule of docs/method.md §1)."""
    question = question.strip()
    if language == "zh":
        return f"在{ident}中，{question}"
    first, _, rest = question.partition(" ")
    if first.lower().rstrip(",") in _EN_LOWER_FIRST:
        question = first[:1].lower() + first[1:] + (f" {rest}" if rest else "")
    return f"In {ident}, {question}"


@dataclass
class StandaloneCounts:
    """What the standalone rule did to one import: written with the import's skipped records."""

    policy: str
    questions: int = 0
    bound: int = 0
    deictic: int = 0  # bound questions with a role or demonstrative (the rest name nothing at all)
    prefixed: int = 0
    kept_bound: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    examples: list[dict] = field(default_factory=list)

    def summary(self) -> dict:
        return {"policy": self.policy, "questions": self.questions, "bound": self.bound,
                "deictic": self.deictic, "prefixed": self.prefixed, "kept_bound": self.kept_bound,
                "skipped": dict(sorted(self.skipped.items())), "examples": self.examples}


def make_standalone(
    question: str, title: str, paragraph: str, language: str, policy: str, counts: StandaloneCounts, qid: str
) -> tuple[str | None, str | None]:
    """(the question as imported under `policy`, None) or (None, the reason it is left out); `counts`
    records which."""
    counts.questions += 1
    if has_anchor(question, language):
        return question, None
    counts.bound += 1
    counts.deictic += is_deictic(question, language)
    if policy == "keep":
        counts.kept_bound += 1
        return question, None
    ident = identifier(title, paragraph, language) if policy == "prefix" else None
    made, reason = None, None
    if ident is None:
        reason = SKIPPED if policy == "skip" else NO_IDENTIFIER
        counts.skipped[reason] = counts.skipped.get(reason, 0) + 1
    else:
        counts.prefixed += 1
        made = prefixed(question, ident, language)
    if len(counts.examples) < EXAMPLES:
        counts.examples.append({"id": qid, "question": question, "made": made})
    return made, reason
