"""Checks every imported decision passes, and the plain format: docs/method.md §1 Decision records as JSON Lines.

Schema checks (types, safe ids, non-empty text) happen in `pipeline.records.parse`; the rules here are
the ones a schema cannot say: unique section ids that still make valid passage ids, kinds only for
filled fields, a declared type for every exact field, no empty field values, and a declared language that
matches the script of the text.
"""

from __future__ import annotations

from pathlib import Path

from pipeline import language
from pipeline.importers import Invalid, Skips, files_of, no_records
from pipeline.io import InputError, iter_json, require_path
from pipeline.records import Decision, RecordError, parse

# Passage ids are "<decision id>/<section id>" and must stay valid ids (records.SAFE_ID allows 200 chars).
MAX_PASSAGE_ID = 190


def load_records(
    path: Path, taken: set[str], param: str = "decisions.import_path", skips: Skips | None = None
) -> list[Decision]:
    """docs/method.md §1 Decision JSONL: one file, or every *.jsonl of a folder in name order. `param` is the key
    that named `path`, for the messages; an invalid record stops the import unless `skips` says skip."""
    skips = skips if skips is not None else Skips(param.rsplit(".path", 1)[0])
    require_path(path, param)
    out: list[Decision] = []
    seen = set(taken)
    for file in files_of(path, "*.jsonl", param):
        for line, obj in iter_json(file):
            try:
                try:
                    decision = parse(Decision, obj)
                except RecordError as exc:
                    raise Invalid("invalid_record", file, line, exc.field, exc.message) from None
                if decision.id in seen:
                    raise Invalid("duplicate_id", file, line, "id",
                                  f"id {decision.id!r} is already used by another decision")
                check_decision(decision, file, line)
            except InputError as exc:
                skips.record(exc)
                continue
            seen.add(decision.id)
            out.append(decision)
    if not out:
        empty = no_records(path, param)
        raise InputError(empty.path, None, None, empty.message + skips.note())
    return out


def check_decision(decision: Decision, file: Path, line: int | None, prefix: str = "") -> None:
    """Rules beyond the schema: sections present with unique, short ids; kinds only for filled fields; no
    empty field values; the declared language matches the script of the text."""
    if not decision.sections:
        raise Invalid("no_sections", file, line, f"{prefix}sections", "at least one section is required")
    seen: set[str] = set()
    for i, section in enumerate(decision.sections):
        if section.id in seen:
            raise Invalid("invalid_record", file, line, f"{prefix}sections[{i}].id",
                          f"duplicate section id {section.id!r}")
        if len(decision.id) + 1 + len(section.id) > MAX_PASSAGE_ID:
            raise Invalid(
                "invalid_record", file, line, f"{prefix}sections[{i}].id",
                "decision id + section id too long for a passage id"
            )
        seen.add(section.id)
    # Field names of every party too (Decision.parties, where the record has it).
    names = decision.field_names() if hasattr(decision, "field_names") else set(decision.fields)
    for name in decision.field_kinds:
        if name not in names:
            raise Invalid(
                "invalid_record", file, line, f"{prefix}field_kinds.{name}", "kind given for a field that is not filled"
            )
    # An exact field is compared by its type (money, date, ...); untyped, the rule extractor takes whole
    # clauses as its value and exact accuracy collapses without a word, so the type is required here.
    types = getattr(decision, "field_types", {})
    for name in sorted(names):
        if decision.field_kinds.get(name) == "exact" and name not in types:
            raise Invalid(
                "untyped_exact_field", file, line, f"{prefix}field_types.{name}",
                f"decision {decision.id!r}: exact field {name!r} declares no type (field_types.{name}: "
                "money|number|date|name|yesno|text)",
            )
    mismatch = language_mismatch(decision.language, decision.text)
    if mismatch:
        raise Invalid("language_mismatch", file, line, f"{prefix}language", mismatch)
    for party in getattr(decision, "parties", []):
        for name, value in party.fields.items():
            if not value.strip():
                raise Invalid("empty_value", file, line, f"{prefix}parties.{party.name}.fields.{name}", "empty value")
    for name, value in decision.fields.items():
        if not value.strip():
            raise Invalid("empty_value", file, line, f"{prefix}fields.{name}", "empty value")


def cjk_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum(language.has_cjk(c) for c in letters) / max(1, len(letters))


def language_mismatch(declared: str, text: str) -> str | None:
    """Why `text` cannot be in the declared language (its share of Chinese letters), or None."""
    share = cjk_share(text)
    if (declared == "en" and share > 0.3) or (declared == "zh" and share < 0.05):
        return f"declared {declared!r} but {share:.0%} of the text is Chinese"
    return None
