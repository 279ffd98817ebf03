"""Checks every imported decision passes, and the plain format: SPEC 1 Decision records as JSON Lines.

Schema checks (types, safe ids, non-empty text) happen in `pipeline.records.parse`; the rules here are
the ones a schema cannot say: unique section ids that still make valid passage ids, kinds only for
filled fields, no empty field values, and a declared language that matches the script of the text.
"""

from __future__ import annotations

from pathlib import Path

from pipeline import language
from pipeline.importers import files_of, no_records
from pipeline.io import InputError, iter_json, read_records
from pipeline.records import Decision

# Passage ids are "<decision id>/<section id>" and must stay valid ids (records.SAFE_ID allows 200 chars).
MAX_PASSAGE_ID = 190


def load_records(path: Path, taken: set[str], param: str = "decisions.import_path") -> list[Decision]:
    """SPEC 1 Decision JSONL: one file, or every *.jsonl of a folder in name order. `param` is the key
    that named `path`, for the messages."""
    if not path.exists():
        raise InputError(path, None, None, f"file not found ({param})")
    out: list[Decision] = []
    seen = set(taken)
    for file in files_of(path, "*.jsonl", param):
        decisions = read_records(file, Decision)
        lines = [number for number, _ in iter_json(file)]
        for decision, line in zip(decisions, lines, strict=True):
            if decision.id in seen:
                raise InputError(file, line, "id", f"id {decision.id!r} is already used by another decision")
            seen.add(decision.id)
            check_decision(decision, file, line)
            out.append(decision)
    if not out:
        raise no_records(path, param)
    return out


def check_decision(decision: Decision, file: Path, line: int | None, prefix: str = "") -> None:
    """Rules beyond the schema: sections present with unique, short ids; kinds only for filled fields; no
    empty field values; the declared language matches the script of the text."""
    if not decision.sections:
        raise InputError(file, line, f"{prefix}sections", "at least one section is required")
    seen: set[str] = set()
    for i, section in enumerate(decision.sections):
        if section.id in seen:
            raise InputError(file, line, f"{prefix}sections[{i}].id", f"duplicate section id {section.id!r}")
        if len(decision.id) + 1 + len(section.id) > MAX_PASSAGE_ID:
            raise InputError(
                file, line, f"{prefix}sections[{i}].id", "decision id + section id too long for a passage id"
            )
        seen.add(section.id)
    # Field names of every party too (Decision.parties, where the record has it).
    names = decision.field_names() if hasattr(decision, "field_names") else set(decision.fields)
    for name in decision.field_kinds:
        if name not in names:
            raise InputError(
                file, line, f"{prefix}field_kinds.{name}", "kind given for a field that is not filled"
            )
    mismatch = language_mismatch(decision.language, decision.text)
    if mismatch:
        raise InputError(file, line, f"{prefix}language", mismatch)
    for party in getattr(decision, "parties", []):
        for name, value in party.fields.items():
            if not value.strip():
                raise InputError(file, line, f"{prefix}parties.{party.name}.fields.{name}", "empty value")
    for name, value in decision.fields.items():
        if not value.strip():
            raise InputError(file, line, f"{prefix}fields.{name}", "empty value")


def cjk_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum(language.has_cjk(c) for c in letters) / max(1, len(letters))


def language_mismatch(declared: str, text: str) -> str | None:
    """Why `text` cannot be in the declared language (its share of Chinese letters), or None."""
    share = cjk_share(text)
    if (declared == "en" and share > 0.3) or (declared == "zh" and share < 0.05):
        return f"declared {declared!r} but {share:.0%} of the text is Chinese"
    return None
