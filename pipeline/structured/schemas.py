"""The JSON schema of every structured reply a model gives, declared once.

Three replies are structured: the IRAC fields of a decision (one string-or-null property per field of its
case type), the A/B/C grade of an analysis, and an answer judge's label on one dimension. Each schema is
used three ways: it constrains local generation (pipeline/structured/hf.py), it is sent to servers as
`response_format` (pipeline/backends/openai.py), and every reply is checked against it (`problems`),
whichever way it was made.

String lengths are capped (`maxLength`) so that a constrained reply always closes within its token
budget: an unbounded string lets a small model run on inside one value until max_new_tokens cuts the
object open.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

# Whitespace a constrained reply may use: one space after ":" and ",", nothing else (a small model left
# free to emit whitespace can spend its whole budget on newlines).
SEPARATORS = (", ", ": ")


def fields_schema(names: Sequence[str], max_chars: int) -> dict[str, Any]:
    """IRAC task 1: every field named, in the order given, each a string of at most `max_chars`
    characters or null (the decision does not state it)."""
    if not names:
        raise ValueError("a fields schema needs at least one field")
    value = {"anyOf": [{"type": "string", "maxLength": max_chars}, {"type": "null"}]}
    return {
        "type": "object",
        "properties": {name: value for name in names},
        "required": list(names),
        "additionalProperties": False,
    }


def fields_token_bound(names: Sequence[str], max_chars: int) -> int:
    """Tokens enough for ANY object fields_schema(names, max_chars) allows, as the constrained decoder
    writes it (SEPARATORS, no other whitespace): its UTF-8 bytes at most, since a byte-level tokenizer never
    needs more tokens than bytes, with every value at max_chars characters of 4 bytes (or 2-byte escapes),
    plus end-of-sequence. A fields reply given this budget always closes."""
    per_field = [len(json.dumps(n, ensure_ascii=False).encode("utf-8")) + len(SEPARATORS[1]) + 2 + 4 * max_chars
                 + len(SEPARATORS[0]) for n in names]
    return 2 + sum(per_field) + 1


def choice_token_bound(key: str, choices: Sequence[str], max_reason_chars: int) -> int:
    """Tokens enough for ANY object choice_schema(key, choices, max_reason_chars) allows, counted as
    fields_token_bound counts them: the longest choice, a reason of max_reason_chars 4-byte characters,
    and end-of-sequence. A constrained label or grade given this budget always closes."""
    def quoted(text: str) -> int:
        return len(json.dumps(text, ensure_ascii=False).encode("utf-8"))

    longest = max(quoted(c) for c in choices)
    return (2 + quoted(key) + len(SEPARATORS[1]) + longest + len(SEPARATORS[0])
            + quoted("reason") + len(SEPARATORS[1]) + 2 + 4 * max_reason_chars + 1)


def choice_schema(key: str, choices: Sequence[str], max_reason_chars: int) -> dict[str, Any]:
    """{key: one of `choices`, "reason": one sentence}: the IRAC grade and the judge's label."""
    return {
        "type": "object",
        "properties": {
            key: {"type": "string", "enum": list(choices)},
            "reason": {"type": "string", "maxLength": max_reason_chars},
        },
        "required": [key, "reason"],
        "additionalProperties": False,
    }


def schema_text(schema: Mapping[str, Any]) -> str:
    """The canonical text of a schema: what a Request carries and its cache key hashes."""
    return json.dumps(schema, ensure_ascii=False, separators=(",", ":"))


# ------------------------------------------------------------------------------------ validation
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "string": (str,),
    "null": (type(None),),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
}


def problems(schema: Mapping[str, Any], value: Any, where: str = "reply") -> list[str]:
    """What is wrong with `value` under `schema` (empty: it conforms). Covers the keywords the schemas of
    this module use (type, enum, maxLength, anyOf, properties, required, additionalProperties); a schema
    using any other keyword is refused rather than half-checked."""
    unknown = set(schema) - {"type", "enum", "maxLength", "anyOf", "properties", "required", "additionalProperties"}
    if unknown:
        raise ValueError(f"schema keyword(s) {sorted(unknown)} not supported by the validator")
    if "anyOf" in schema:
        options = [problems(option, value, where) for option in schema["anyOf"]]
        if all(options):
            return [min(options, key=len)[0]]
    kind = schema.get("type")
    if kind is not None:
        allowed = _TYPES[kind]
        # JSON true/false are not numbers, though Python's bool is an int.
        if not isinstance(value, allowed) or (isinstance(value, bool) and kind != "boolean"):
            return [f"{where} must be {'an' if kind[0] in 'aeio' else 'a'} {kind}, not {_json_type(value)}"]
    out: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where} must be one of {', '.join(map(str, schema['enum']))}, not {json.dumps(value)[:40]}")
    if "maxLength" in schema and isinstance(value, str) and len(value) > schema["maxLength"]:
        out.append(f"{where} is longer than {schema['maxLength']} characters")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        missing = [k for k in schema.get("required", ()) if k not in value]
        if missing:
            out.append(f"{where} lacks {', '.join(repr(k) for k in missing)}")
        if schema.get("additionalProperties") is False:
            extra = [k for k in value if k not in properties]
            if extra:
                out.append(f"{where} has unknown key(s) {', '.join(repr(k) for k in extra[:5])}")
        for key, sub in properties.items():
            if key in value:
                out.extend(problems(sub, value[key], f"{key!r}"))
    return out


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"
