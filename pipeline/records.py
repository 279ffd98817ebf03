"""Typed records of docs/method.md §1 and their validation.

Every record that crosses a stage boundary is one of these dataclasses. `parse` checks a decoded JSON
object against the declared field types and raises RecordError naming the field, so `pipeline.io` can
add file and line.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from pipeline import typed

# Ids become parts of file names and DVC paths: letters, digits and a few separators, no "..".
SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$")


class RecordError(ValueError):
    """A record that does not match its schema. `field` is the dotted path of the offending field."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


@dataclass
class Section:
    id: str
    heading: str
    text: str


FieldType = Literal["money", "number", "date", "name", "yesno", "text"]
FIELD_TYPES: tuple[str, ...] = ("money", "number", "date", "name", "yesno", "text")


@dataclass
class Party:
    """One party's own field values in a decision that concerns several parties (docs/method.md §1)."""

    name: str
    fields: dict[str, str] = field(default_factory=dict)


@dataclass
class Decision:
    """A decision and its IRAC annotation (docs/method.md §1).

    `fields` holds the values every party shares (or all values, when the decision concerns one
    party); `parties` (optional) holds one field set per party: [{"name": ..., "fields": {...}}].
    A party's reference is `fields` updated with its own `fields`, and IRAC scores each
    (decision, party) as one case. `field_kinds` and `field_types` are keyed by field name and apply
    to the shared and the party fields alike; each key must name a field of the decision. Types are
    declared by the data because a name ("违法所得", "amount") says nothing reliable about its value.
    """

    id: str
    source: str
    language: Literal["en", "zh"]
    case_type: str
    title: str
    date: str
    text: str
    sections: list[Section]
    fields: dict[str, str] = field(default_factory=dict)
    field_kinds: dict[str, Literal["exact", "semantic"]] = field(default_factory=dict)
    analysis: str = ""
    outcome: str = ""
    field_types: dict[str, FieldType] = field(default_factory=dict)
    parties: list[Party] = field(default_factory=list)

    def field_names(self) -> set[str]:
        """Every field name the decision annotates, shared or per party."""
        return set(self.fields).union(*(p.fields for p in self.parties))

    def references(self) -> list[tuple[str, dict[str, str]]]:
        """(party name, reference fields) per scoring case: one per party, or ("", fields) when none."""
        if not self.parties:
            return [("", dict(self.fields))]
        return [(p.name, {**self.fields, **p.fields}) for p in self.parties]


@dataclass
class Passage:
    id: str
    decision_id: str
    family: str
    heading: str
    text: str
    # Order of the passage inside its decision; gold_surrounding takes neighbours by it.
    position: int = 0


@dataclass
class QA:
    id: str
    question: str
    answer: str
    gold_passage_id: str
    family: str
    kind: Literal["factual", "yesno", "rule"]
    facts: list[str]
    qualifiers: list[str]


@dataclass
class Context:
    id: str
    qa_id: str
    variant: str
    answerable: bool
    passage_ids: list[str]
    gold_slot: int | None


@dataclass
class Candidate:
    id: str
    context_id: str
    generator: str
    text: str
    finish_reason: str
    meta: dict[str, Any] = field(default_factory=dict)


Behaviour = Literal["attempted", "abstained", "unusable"]
Faithfulness = Literal["fully_supported", "partially_supported", "unsupported", "contradicted"]
Correctness = Literal["correct", "incorrect"]
Completeness = Literal["complete", "incomplete"]


@dataclass
class Label:
    candidate_id: str
    judge: str
    behaviour: Behaviour | None
    faithfulness: Faithfulness | None
    correctness: Correctness | None
    completeness: Completeness | None
    status: Literal["ok", "unparseable"]


# A Label's dimensions -> their allowed values, in the order a judge is asked about them.
LABEL_DIMENSIONS: dict[str, tuple[str, ...]] = {
    "behaviour": get_args(Behaviour),
    "faithfulness": get_args(Faithfulness),
    "correctness": get_args(Correctness),
    "completeness": get_args(Completeness),
}

# The dimension a Pair differs on (docs/method.md §5), in report order.
Dimension = Literal[
    "refusal_answerable", "refusal_unanswerable", "faithfulness", "correctness", "completeness"
]
PAIR_DIMENSIONS: tuple[str, ...] = get_args(Dimension)
Split = Literal["train", "val", "test"]
SPLITS: tuple[str, ...] = get_args(Split)


@dataclass
class Pair:
    id: str
    qa_id: str
    context_id: str
    variant: str
    answerable: bool
    split: Split
    dimension: Dimension
    prompt: str
    chosen: str
    rejected: str
    chosen_generator: str
    rejected_generator: str
    chosen_tokens: int
    rejected_tokens: int
    augmented: bool
    source: str
    # [start, end) character span of each numbered passage block in `prompt`, and the gold passage's
    # index among them (None: unanswerable). Empty spans: a prompt without known structure (outside pairs).
    passage_spans: list[list[int]] = field(default_factory=list)
    gold_slot: int | None = None


# sum / mean: log-prob of the response tokens under the model (docs/method.md §9); ref_sum / ref_mean: the same
# minus the reference (base) model's, the DPO implicit reward without beta.
Scoring = Literal["sum", "mean", "ref_sum", "ref_mean"]
SCORINGS: tuple[str, ...] = get_args(Scoring)


@dataclass
class Score:
    pair_id: str
    model: str
    scoring: Scoring
    chosen: float
    rejected: float
    margin: float
    correct: bool
    chosen_tokens: int
    rejected_tokens: int


IracTask = Literal["fields", "analysis"]
IracMode = Literal["standard", "expert_steps", "self_steps"]


@dataclass
class IracOutput:
    """One system's answer to one docs/method.md §11 task on one decision: extracted fields (task "fields") or a
    written legal analysis (task "analysis"). id = task/system slug/mode/decision_id."""

    id: str
    decision_id: str
    task: IracTask
    system: str
    mode: IracMode
    # task "fields": the value of each field the system filled (a field it left out is absent)
    fields: dict[str, str] | None
    # task "analysis": the analysis text
    analysis: str | None
    status: Literal["ok", "unparseable"]
    meta: dict[str, Any] = field(default_factory=dict)
    # task "fields" on a decision with several parties: the party whose fields these are ("" = the
    # decision as a whole); the id then ends in /p<index of the party>.
    party: str = ""


@dataclass
class IracGrade:
    """A judge's grade of one analysis: A complete and rigorous, B reasonable with gaps, C disorganised
    or wrong law; status "unparseable" (grade None) when no valid grade came back."""

    output_id: str
    judge: str
    grade: Literal["A", "B", "C"] | None
    status: Literal["ok", "unparseable"]
    reason: str = ""


def parse(cls: type, obj: Any) -> Any:
    """Build `cls` from a decoded JSON object, checking every field; raise RecordError on mismatch."""
    return typed.build(cls, obj, RecordError, words=_JSON, check=_check_ids_and_text)


_JSON = typed.Words(mapping="object", member="field")


def _check_ids_and_text(cls: type, values: dict[str, Any], where: str) -> None:
    for name, value in values.items():
        # JSON readers accept NaN and Infinity; a score that is not a number must not reach a statistic.
        if isinstance(value, float) and not math.isfinite(value):
            raise RecordError(typed.join(where, name), f"{value} is not a finite number")
    record_id = values.get("id")
    if isinstance(record_id, str) and (not SAFE_ID.match(record_id) or ".." in record_id.split("/")):
        raise RecordError(typed.join(where, "id"), f"unsafe id {record_id!r} (letters, digits, . _ : / - only)")
    text = values.get("text")
    if cls in (Decision, Section, Passage) and isinstance(text, str) and not text.strip():
        raise RecordError(typed.join(where, "text"), "empty text")
    if cls is Decision:
        _check_field_annotations(values, where)


def _check_field_annotations(values: dict[str, Any], where: str) -> None:
    """field_types keys must name a field (a typo would silently leave a field untyped); party names
    must be non-empty and unique. Type values are checked by the Literal of the dataclass."""
    parties = values.get("parties", [])
    names = set(values.get("fields", {})).union(*(p.fields for p in parties))
    for key in values.get("field_types", {}):
        if key not in names:
            raise RecordError(
                typed.join(typed.join(where, "field_types"), key),
                f"field_types names {key!r}, which is not a field of this decision",
            )
    seen: set[str] = set()
    for i, party in enumerate(parties):
        if not party.name.strip() or party.name in seen:
            raise RecordError(typed.join(where, f"parties[{i}].name"), f"empty or repeated party name {party.name!r}")
        seen.add(party.name)


def to_dict(record: Any) -> dict:
    return dataclasses.asdict(record)


