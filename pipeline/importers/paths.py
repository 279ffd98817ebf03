"""Mapping keys as paths into nested JSON, the one reader every importer that maps keys uses.

Syntax (data/external/README.md): segments joined by `.`; a segment indexes a list when the value there
is a list and the segment is a whole number (`当事人信息.0.姓名`, `parties.0.name`), and names a key
otherwise (so an object key "0" is still reachable); `\\.` is a dot inside a key (`No\\.` is the key
"No.") and `\\\\` a backslash. A key without dots is a path of one segment, so flat mappings read as
before. Published sets nest their records (案件信息 / 当事人信息 / 法律文书原文), and one reader keeps the
syntax and the error messages the same in every importer.
"""

from __future__ import annotations

from typing import Any


class PathSyntaxError(ValueError):
    """A mapping key that is not a valid path (an empty segment, a dangling backslash)."""


class PathMissing(LookupError):
    """The path leads nowhere in a document: `reached` is the part that exists, `why` what stopped it."""

    def __init__(self, path: str, reached: str, why: str):
        super().__init__(f"{path}: {why}")
        self.path, self.reached, self.why = path, reached, why


def split_path(path: str) -> tuple[str, ...]:
    """`a.b\\.c.0` -> ("a", "b.c", "0"); PathSyntaxError for an empty segment or a dangling escape."""
    segments: list[str] = []
    current: list[str] = []
    chars = iter(path)
    for ch in chars:
        if ch == "\\":
            nxt = next(chars, None)
            if nxt not in (".", "\\"):
                raise PathSyntaxError(f"{path!r}: a backslash escapes only '.' or '\\' (write \\. or \\\\)")
            current.append(nxt)
        elif ch == ".":
            segments.append("".join(current))
            current = []
        else:
            current.append(ch)
    segments.append("".join(current))
    if any(s == "" for s in segments):
        raise PathSyntaxError(f"{path!r}: an empty segment (two dots, or a dot at an end; a dot inside a key "
                              "is written \\.)")
    return tuple(segments)


def join_path(segments: tuple[str, ...] | list[str]) -> str:
    """The inverse of split_path: dots and backslashes inside a segment escaped."""
    return ".".join(s.replace("\\", "\\\\").replace(".", "\\.") for s in segments)


def read_path(doc: Any, path: str) -> Any:
    """The value at `path` in `doc`; PathMissing naming how far the path got and what is there instead."""
    value = doc
    done: list[str] = []
    for segment in split_path(path):
        reached = join_path(done) or "(the document)"
        if isinstance(value, dict):
            if segment not in value:
                keys = ", ".join(list(value)[:12]) or "no keys"
                raise PathMissing(path, reached, f"{reached} has no key {segment!r} (it has: {keys})")
            value = value[segment]
        elif isinstance(value, list):
            if not segment.isdigit():
                raise PathMissing(path, reached, f"{reached} is a list: {segment!r} is not an index")
            if int(segment) >= len(value):
                raise PathMissing(path, reached, f"{reached} is a list of {len(value)}: no index {segment}")
            value = value[int(segment)]
        else:
            shown = "null" if value is None else type(value).__name__
            raise PathMissing(path, reached, f"{reached} is {shown}, not an object or list: no {segment!r}")
        done.append(segment)
    return value


def get_path(doc: Any, path: str, default: Any = None) -> Any:
    """read_path, or `default` where the path leads nowhere."""
    try:
        return read_path(doc, path)
    except PathMissing:
        return default
