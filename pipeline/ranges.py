"""Allowed ranges of params values, declared in their types and checked before any stage work.

Every number of pipeline/params.py carries its range in its type, `Annotated[int, Range(1)]`, so the
declaration says what a value may be. `check_ranges` walks the loaded params with those types: every
float must be finite and every Range and Entries rule kept. A NaN beta or a negative token budget would
otherwise run to the end and be reported as a result. Rules between params (pool >= k, splits summing
to 1) stay in params.py.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any

from pipeline import typed


def format_number(x: float) -> str:
    """A number as messages show it: 3 rather than 3.0, 2e-05 rather than 0.00002."""
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


@dataclass(frozen=True)
class Range:
    """Allowed values of a number: between `low` and `high` (either may be open or absent), or one of
    `also` (special values such as -1 for "no limit"); `note` says what special values mean."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    also: tuple[int, ...] = ()
    note: str = ""

    def allows(self, value: float) -> bool:
        if value in self.also:
            return True
        below = self.low is not None and (value < self.low or (self.low_open and value == self.low))
        above = self.high is not None and (value > self.high or (self.high_open and value == self.high))
        return not (below or above)

    def __str__(self) -> str:
        if self.low is not None and self.high is not None:
            text = f"in {'(' if self.low_open else '['}{format_number(self.low)}, {format_number(self.high)}{')' if self.high_open else ']'}"
        elif self.low is not None:
            text = f"{'>' if self.low_open else '>='} {format_number(self.low)}"
        else:
            text = "any finite number" if self.high is None else f"<= {format_number(self.high)}"
        return text + "".join(f" or {format_number(v)}" for v in self.also)


@dataclass(frozen=True)
class Entries:
    """A list a stage needs: at least one entry, none listed twice."""

    def problem(self, value: list) -> str | None:
        if not value:
            return "is empty: the stage needs at least one entry"
        twice = sorted({v for v in value if value.count(v) > 1}, key=str)
        return f"lists {twice[0]!r} twice" if twice else None

    def __str__(self) -> str:
        return "a non-empty list of distinct entries"


Seed = Annotated[int, Range(0, 2**32 - 1)]  # numpy and torch take seeds below 2**32
Count = Annotated[int, Range(1)]  # sizes, steps, batches: at least one
NonNegInt = Annotated[int, Range(0)]
Positive = Annotated[float, Range(0, low_open=True)]
NonNegative = Annotated[float, Range(0)]
Share = Annotated[float, Range(0, 1)]  # probabilities, rates and shares
TopP = Annotated[float, Range(0, 1, low_open=True)]  # nucleus mass: 0 would keep no token
NEEDED = Entries()


def check_ranges(obj: Any, fail: typed.Fail, hint: Any = None, where: str = "") -> None:
    """Walk `obj` (params dataclasses) with its declared types: every float must be finite and every
    Range and Entries rule kept; raises fail(dotted key, message naming value and allowed range)."""
    rules, hint, optional = declared(hint)
    if dataclasses.is_dataclass(obj):
        hints = _hints(type(obj))
        for f in dataclasses.fields(obj):
            check_ranges(getattr(obj, f.name), fail, hints[f.name], typed.join(where, f.name))
        return
    if obj is None:
        return
    message = rule_broken(obj, rules, optional)
    if message:
        raise fail(where, message)
    if hint is Any:  # passed through as is (train.trainer_kwargs): no declared type to walk
        return
    if isinstance(obj, list):
        for i, item in enumerate(obj):
            check_ranges(item, fail, typing.get_args(hint)[0], f"{where}[{i}]")
    elif isinstance(obj, dict):
        for key, item in obj.items():
            check_ranges(item, fail, typing.get_args(hint)[1], typed.join(where, key))


def rule_broken(value: Any, rules: tuple, optional: bool) -> str | None:
    """Why `value` breaks its rules (or is a non-finite float), or None."""
    allowed = "; ".join(_allowed(rule, optional) for rule in rules) or "a finite number"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a finite number (allowed: {allowed})"
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
        # numpy and torch hold counts in 64 bits: a larger one overflows inside a stage.
        return f"{value} is out of range (allowed: {allowed}; below 2**63)"
    for rule in rules:
        if isinstance(rule, Range) and not rule.allows(value):
            return f"{value!r} is out of range (allowed: {allowed})"
        problem = rule.problem(value) if isinstance(rule, Entries) else None
        if problem:
            return f"{value!r}"[:200] + f" {problem} (allowed: {allowed})"
    return None


def _allowed(rule: Range | Entries, optional: bool) -> str:
    note = getattr(rule, "note", "")
    return f"{rule}{' or null' if optional else ''}{'; ' + note if note else ''}"


def declared(hint: Any) -> tuple[tuple, Any, bool]:
    """(rules, bare type, whether null is allowed) of a declared type."""
    optional = False
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(hint) if a is not type(None)]
        optional, hint = len(inner) < len(typing.get_args(hint)), inner[0]
    if typing.get_origin(hint) is Annotated:
        bare, *rules = typing.get_args(hint)
        return tuple(rules), bare, optional
    return (), hint, optional


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, include_extras=True)
