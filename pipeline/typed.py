"""Dataclasses from decoded JSON or YAML, checked against their type hints.

Params (pipeline/params.py) and records (pipeline/records.py) both declare their shape as dataclasses;
`build` walks a hint and a value together and raises the caller's error, naming the dotted path of the
first mismatch (e.g. `train.lora.r` or `sections[2].text`). An int is accepted where a float is
declared; bool is never taken for int.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

# (dotted path, message) -> the exception to raise
Fail = Callable[[str, str], Exception]
# (dataclass, its checked values, dotted path) -> None; raises through Fail for rules beyond types
Check = Callable[[type, dict[str, Any], str], None]


@dataclass(frozen=True)
class Words:
    """How the caller's format names things: YAML has mappings and keys, JSON objects and fields."""

    mapping: str = "mapping"
    member: str = "key"


def build(cls: type, obj: Any, fail: Fail, where: str = "", words: Words = Words(), check: Check | None = None) -> Any:
    """`cls(**obj)` with every value checked; missing members take their defaults (or fail if none)."""
    if not isinstance(obj, dict):
        raise fail(where, f"expected {_a(words.mapping)}, got {kind(obj)}")
    hints = _type_hints(cls)
    fields = _fields(cls)
    for key in obj:
        if key not in fields:
            raise fail(join(where, key), f"unknown {words.member} (known: {', '.join(sorted(fields))})")
    values = {}
    for name, f in fields.items():
        path = join(where, name)
        if name not in obj:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise fail(path, f"missing required {words.member}")
            continue
        values[name] = value(hints[name], obj[name], fail, path, words, check)
    if check is not None:
        check(cls, values, where)
    return cls(**values)


def value(hint: Any, obj: Any, fail: Fail, where: str, words: Words = Words(), check: Check | None = None) -> Any:
    """`obj` checked against `hint` (dataclass, Optional/Union, Literal, list, dict, Any, int/float/str/bool)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if dataclasses.is_dataclass(hint):
        return build(hint, obj, fail, where, words, check)  # type: ignore[arg-type]
    if origin in (typing.Union, types.UnionType):
        if obj is None:
            if type(None) in args:
                return None
            raise fail(where, "must not be null")
        inner = [a for a in args if a is not type(None)]
        return value(inner[0], obj, fail, where, words, check)
    if origin is Literal:
        if obj not in args:
            raise fail(where, f"expected one of {list(args)}, got {shown(obj)}")
        return obj
    if origin is list:
        if not isinstance(obj, list):
            raise fail(where, f"expected a list, got {kind(obj)}")
        return [value(args[0], v, fail, f"{where}[{i}]", words, check) for i, v in enumerate(obj)]
    if origin is dict:
        if not isinstance(obj, dict):
            raise fail(where, f"expected {_a(words.mapping)}, got {kind(obj)}")
        return {
            value(args[0], k, fail, where, words, check): value(args[1], v, fail, join(where, k), words, check)
            for k, v in obj.items()
        }
    if hint is Any:
        return obj
    if hint is float and isinstance(obj, int) and not isinstance(obj, bool):
        return float(obj)
    if hint in (int, float, str, bool):
        if isinstance(obj, bool) != (hint is bool) or not isinstance(obj, hint):
            raise fail(where, f"expected {hint.__name__}, got {kind(obj)} {shown(obj)}")
        return obj
    raise fail(where, f"unsupported declared type {hint!r}")


def shown(obj: Any, limit: int = 60) -> str:
    """repr(obj) as a message quotes it: a long value is cut in the middle, so what is allowed, which
    follows it, stays in sight."""
    text = repr(obj)
    return text if len(text) <= limit else f"{text[:limit // 2]}...{text[-limit // 2:]} ({len(text)} characters)"


def join(where: str, key: object) -> str:
    return f"{where}.{key}" if where else str(key)


def kind(obj: Any) -> str:
    return {type(None): "null", dict: "object", list: "list"}.get(type(obj), type(obj).__name__)


def _a(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"


# Resolving hints costs about a millisecond per call: once per class, not once per record.
_type_hints = functools.cache(typing.get_type_hints)


@functools.cache
def _fields(cls: type) -> dict[str, dataclasses.Field]:
    return {f.name: f for f in dataclasses.fields(cls)}
