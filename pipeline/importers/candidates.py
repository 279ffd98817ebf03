"""Outside answers, optionally graded, entering at the generate/judge boundary.

Format (params `generate.import_candidates`, JSON Lines, one answer per line):
    {"model": "gpt-4o", "response": "...",
     "context_id": "<an id of data/interim/contexts.jsonl>"            -- or --
     "question": "...", "passage_ids": ["<passage id>", ...]          -- or --
     "question": "...", "context": "<the passages' text>",
     "id": "...", "finish_reason": "stop",                             (optional)
     "labels": {"<judge spec of judge.judges>": {"behaviour": "attempted", "faithfulness": ...,
                "correctness": ..., "completeness": ...}}}            (optional)
A line names the context it answered: by id, or by its question (the exact text of a QA) with the
passage ids or the passages' text (whitespace ignored). Outside questions and contexts come in first
through `corpus.qa_import` (a SQuAD-style file); each paragraph then has a `gold_only` context holding
just that paragraph, which a (question, context) line matches.
Each line becomes a Candidate (generator `import:<model>`, id `<context id>/import:<model>` unless given)
beside the generated ones; its grades ride in `meta.labels` and the judge stage takes them, in place of
its own label, for the judge they are keyed by; a key that names no judge of judge.judges stops the judge
stage. Errors name the file, line and key; under `on_invalid: skip` an invalid line is left out and
counted by reason instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pipeline.backends.base import generator_slug
from pipeline.importers import Invalid, Skips, is_safe_id, no_records
from pipeline.io import InputError, iter_json
from pipeline.records import (
    LABEL_DIMENSIONS,
    QA,
    Candidate,
    Context,
    Label,
    Passage,
    RecordError,
    parse,
)

PARAM = "generate.import_candidates.path"
KEYS = {
    "id",
    "model",
    "response",
    "context_id",
    "question",
    "passage_ids",
    "context",
    "finish_reason",
    "labels",
}


def _norm(text: str) -> str:
    return " ".join(text.split())


class ContextIndex:
    """Finds the context an outside answer names: by id, by (question, passage ids) or (question, text)."""

    def __init__(self, contexts: Iterable[Context], qas: dict[str, QA], passages: dict[str, Passage]):
        self.ids: dict[str, Context] = {}
        self.by_ids: dict[tuple, str] = {}
        self.by_text: dict[tuple, str] = {}
        for c in sorted(contexts, key=lambda c: c.id):
            self.ids[c.id] = c
            question = _norm(qas[c.qa_id].question)
            self.by_ids.setdefault((question, tuple(c.passage_ids)), c.id)
            text = _norm(" ".join(passages[p].text for p in c.passage_ids))
            self.by_text.setdefault((question, text), c.id)

    def find(self, obj: dict, path: Path, line: int) -> str:
        if "context_id" in obj:
            cid = _str(obj, "context_id", path, line)
            if cid not in self.ids:
                raise Invalid("unknown_context", path, line, "context_id", f"unknown context {cid!r}")
            return cid
        question = _norm(_str(obj, "question", path, line))
        if "passage_ids" in obj:
            ids = obj["passage_ids"]
            if not isinstance(ids, list) or not all(isinstance(p, str) for p in ids):
                raise Invalid("wrong_type", path, line, "passage_ids", "expected a list of passage ids")
            found = self.by_ids.get((question, tuple(ids)))
            key = "passage_ids"
        elif "context" in obj:
            found = self.by_text.get((question, _norm(_str(obj, "context", path, line))))
            key = "context"
        else:
            raise Invalid(
                "missing_key",
                path,
                line,
                "context_id",
                "name the context: context_id, or question with passage_ids or context",
            )
        if found is None:
            raise Invalid(
                "unknown_context",
                path,
                line,
                key,
                "no context of this question holds exactly these passages (import the question and its "
                "context through corpus.qa_import first)",
            )
        return found


def load_candidates(
    path: Path, index: ContextIndex, taken: set[str], skips: Skips | None = None
) -> list[Candidate]:
    """Candidates of the JSONL file `path`; ids must be new (not in `taken`, not repeated). An invalid
    line stops the import, or is counted in `skips` and left out (generate.import_candidates.on_invalid)."""
    skips = skips if skips is not None else Skips("generate.import_candidates")
    if path.is_dir():
        raise InputError(path, None, None, f"is a folder; {PARAM} names one .jsonl file")
    out: list[Candidate] = []
    seen: dict[str, int] = {}
    for line, obj in iter_json(path):
        try:
            candidate = _candidate(obj, path, line, index, taken, seen)
        except InputError as exc:
            skips.record(exc)
            continue
        seen[candidate.id] = line
        out.append(candidate)
    if not out:
        empty = no_records(path, PARAM)
        raise InputError(empty.path, None, None, empty.message + skips.note())
    return out


def _candidate(obj: Any, path: Path, line: int, index: ContextIndex, taken: set[str], seen: dict) -> Candidate:
    if not isinstance(obj, dict):
        raise Invalid("not_an_object", path, line, None, "expected a JSON object")
    unknown = sorted(set(obj) - KEYS)
    if unknown:
        raise Invalid("unknown_key", path, line, unknown[0], f"unknown key (known: {', '.join(sorted(KEYS))})")
    cid = index.find(obj, path, line)
    model = _str(obj, "model", path, line)
    generator = f"import:{model}"
    response = obj.get("response")
    if not isinstance(response, str):
        raise Invalid("wrong_type", path, line, "response", 'expected a string (an empty answer is "")')
    rid = _str(obj, "id", path, line) if "id" in obj else f"{cid}/{generator_slug(generator)}"
    if not is_safe_id(rid):
        raise Invalid("unsafe_id", path, line, "id", f"unsafe id {rid!r} (letters, digits, . _ : / - only)")
    if rid in taken or rid in seen:
        first = f"line {seen[rid]}" if rid in seen else "a generated candidate"
        raise Invalid("duplicate_id", path, line, "id", f"duplicate candidate id {rid!r} (first: {first})")
    finish = _str(obj, "finish_reason", path, line) if "finish_reason" in obj else "stop"
    meta: dict[str, Any] = {"imported": path.name, "line": line}
    if "labels" in obj:
        meta["labels"] = _labels(obj["labels"], rid, path, line)
    return Candidate(rid, cid, generator, response, finish, meta)


def _labels(value: Any, rid: str, path: Path, line: int) -> dict[str, dict]:
    """Grades per judge, checked against the Label schema (a dimension left out is null)."""
    if not isinstance(value, dict):
        raise Invalid("bad_labels", path, line, "labels", "expected an object judge -> grades")
    out = {}
    for judge, grades in value.items():
        if not isinstance(grades, dict):
            raise Invalid("bad_labels", path, line, f"labels.{judge}", "expected an object of grades")
        extra = sorted(set(grades) - set(LABEL_DIMENSIONS))
        if extra:
            raise Invalid(
                "bad_labels",
                path,
                line,
                f"labels.{judge}.{extra[0]}",
                f"unknown dimension (known: {', '.join(LABEL_DIMENSIONS)})",
            )
        if "behaviour" not in grades:
            raise Invalid("bad_labels", path, line, f"labels.{judge}.behaviour", "missing")
        record = {"candidate_id": rid, "judge": judge, "status": "ok"} | {
            d: grades.get(d) for d in LABEL_DIMENSIONS
        }
        try:
            parse(Label, record)
        except RecordError as exc:
            raise Invalid("bad_labels", path, line, f"labels.{judge}.{exc.field}", exc.message) from None
        out[judge] = {d: grades.get(d) for d in LABEL_DIMENSIONS}
    return out


def imported_labels(candidates: Iterable[Candidate], judge: str, judges: Sequence[str]) -> dict[str, Label]:
    """The grades outside answers carry for `judge` (a judge spec of judge.judges), by candidate id.
    Grades keyed by a spec not in `judges` (judge.judges) are an InputError: no judge would take them, and
    a typo in a spec would otherwise drop a user's grades without a word."""
    out = {}
    for c in candidates:
        by_judge = c.meta.get("labels") or {}
        unknown = sorted(set(by_judge) - set(judges))
        if unknown:
            raise InputError(c.meta.get("imported", "generate.import_candidates"), c.meta.get("line"),
                             f"labels.{unknown[0]}", f"no judge {unknown[0]!r} in judge.judges (configured: "
                             f"{', '.join(judges)}): key the grades by one of them")
        grades = by_judge.get(judge)
        if grades is not None:
            out[c.id] = Label(
                candidate_id=c.id, judge=judge, status="ok", **{d: grades[d] for d in LABEL_DIMENSIONS}
            )
    return out


def _str(obj: dict, key: str, path: Path, line: int) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        reason = "missing_key" if key not in obj else "wrong_type"
        raise Invalid(reason, path, line, key, "missing" if key not in obj else "expected a non-empty string")
    return value
