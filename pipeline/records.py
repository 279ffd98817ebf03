"""Typed records of SPEC 1 and their validation.

Every record that crosses a stage boundary is one of these dataclasses. `parse` checks a decoded JSON
object against the declared field types and raises RecordError naming the field, so `pipeline.io` can
add file and line.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal

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


@dataclass
class Decision:
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


@dataclass
class Label:
    candidate_id: str
    judge: str
    behaviour: Behaviour | None
    faithfulness: Faithfulness | None
    correctness: Literal["correct", "incorrect"] | None
    completeness: Literal["complete", "incomplete"] | None
    status: Literal["ok", "unparseable"]


Dimension = Literal[
    "refusal_answerable", "refusal_unanswerable", "faithfulness", "correctness", "completeness"
]


@dataclass
class Pair:
    id: str
    qa_id: str
    context_id: str
    variant: str
    answerable: bool
    split: Literal["train", "val", "test"]
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


@dataclass
class Score:
    pair_id: str
    model: str
    scoring: Literal["sum", "mean"]
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
    """One system's answer to one SPEC 11 task on one decision: extracted fields (task "fields") or a
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
    return _build(cls, obj, "")


def to_dict(record: Any) -> dict:
    return dataclasses.asdict(record)


def _build(cls: type, obj: Any, where: str) -> Any:
    if not isinstance(obj, dict):
        raise RecordError(where, f"expected an object, got {_kind(obj)}")
    hints = _type_hints(cls)
    fields = _fields(cls)
    for key in obj:
        if key not in fields:
            raise RecordError(_join(where, key), "unknown field")
    values = {}
    for name, f in fields.items():
        path = _join(where, name)
        if name not in obj:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise RecordError(path, "missing required field")
            continue
        values[name] = _check(hints[name], obj[name], path)
    record_id = values.get("id")
    if isinstance(record_id, str) and (not SAFE_ID.match(record_id) or ".." in record_id.split("/")):
        raise RecordError(_join(where, "id"), f"unsafe id {record_id!r} (letters, digits, . _ : / - only)")
    if "text" in values and isinstance(values["text"], str) and not values["text"].strip():
        if cls in (Decision, Section, Passage):
            raise RecordError(_join(where, "text"), "empty text")
    return cls(**values)


# Resolving hints costs about a millisecond per call: once per class, not once per record.
_type_hints = functools.cache(typing.get_type_hints)


@functools.cache
def _fields(cls: type) -> dict[str, dataclasses.Field]:
    return {f.name: f for f in dataclasses.fields(cls)}


def _check(hint: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, where)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            if type(None) in args:
                return None
            raise RecordError(where, "must not be null")
        inner = [a for a in args if a is not type(None)]
        return _check(inner[0], value, where)
    if origin is Literal:
        if value not in args:
            raise RecordError(where, f"expected one of {list(args)}, got {value!r}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise RecordError(where, f"expected a list, got {_kind(value)}")
        return [_check(args[0], v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise RecordError(where, f"expected an object, got {_kind(value)}")
        return {k: _check(args[1], v, f"{where}.{k}") for k, v in value.items()}
    if hint is Any:
        return value
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint in (int, float, str, bool):
        if isinstance(value, bool) != (hint is bool) or not isinstance(value, hint):
            raise RecordError(where, f"expected {hint.__name__}, got {_kind(value)}")
        return value
    raise RecordError(where, f"unsupported declared type {hint!r}")


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else str(key)


def _kind(value: Any) -> str:
    return {type(None): "null", dict: "object", list: "list"}.get(type(value), type(value).__name__)
