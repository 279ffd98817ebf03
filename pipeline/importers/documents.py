"""Decisions from the user's own documents through a field mapping in params (no code to write).

Formats (params `decisions.documents.format`):
- `records`: JSON Lines of docs/method.md §1 Decision records, taken as they are (a file, or a folder of *.jsonl);
- `jsonl`: one source document (a JSON object with the user's own keys) per line;
- `json_folder`: a folder of *.json files, each one document (or a list of documents), in name order.
`mapping` maps a source key to a Decision field: id, title, date, text, case_type, source, analysis,
outcome, sections (a list of {id, heading, text}, a list of strings or an object heading -> text),
`sections.<heading>` (that key's text becomes one section), `fields.<name>` (an annotated field, whose
kind comes from `field_kinds` or, failing that, from its declared type in `field_types`) or `party` (the
party's name: documents with the same id are then one decision with one field set per party, as
corpora with one record per party are written; fields equal for every party stay shared). A decision
without sections gets them split from its text: paragraphs at blank lines, else at line breaks.
A mapping key is a path into nested JSON (pipeline/importers/paths.py: `案件信息.案件编号或字号`,
`当事人信息.0.姓名`, a backslash before a dot inside a key), as published sets nest their records.
Every problem names the file, the line (jsonl) or list item, and the source key (the path, and how far
it got). `on_invalid: skip` leaves an invalid document out and counts it by reason (`Skips`); a party
document is left out alone, a decision whose merged record is invalid with all its documents.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pipeline.importers import Invalid, Skips, files_of, no_records, safe_id
from pipeline.importers.checks import check_decision, load_records
from pipeline.importers.paths import PathMissing, PathSyntaxError, read_path, split_path
from pipeline.io import InputError, iter_json, require_path
from pipeline.params import DocumentsImportParams, ParamsError
from pipeline.records import Decision, RecordError, parse

SCALAR_TARGETS = {"id", "title", "date", "text", "case_type", "source", "analysis", "outcome", "party"}
# Kinds implied by a declared field type (docs/method.md §1): values compared exactly, or by meaning.
KIND_OF_TYPE = {
    "money": "exact",
    "number": "exact",
    "date": "exact",
    "name": "exact",
    "yesno": "exact",
    "text": "semantic",
}
PARAM = "decisions.documents"


def check_mapping(cfg: DocumentsImportParams) -> None:
    """Stop on a mapping that cannot produce valid decisions, before any document is read."""
    targets = list(cfg.mapping.values())
    for key, target in cfg.mapping.items():
        try:
            split_path(key)
        except PathSyntaxError as exc:
            raise ParamsError(f"{PARAM}.mapping.{key}: not a path into the document: {exc}") from None
        base = target.split(".", 1)[0]
        if not (
            target in SCALAR_TARGETS
            or target == "sections"
            or (base in ("fields", "sections") and "." in target)
        ):
            raise ParamsError(
                f"{PARAM}.mapping.{key}: unknown target {target!r} (one of {sorted(SCALAR_TARGETS)}, "
                "sections, sections.<heading>, fields.<name>)"
            )
        if target.startswith("fields."):
            name = target[len("fields.") :]
            if name not in cfg.field_kinds and name not in cfg.field_types:
                raise ParamsError(
                    f"{PARAM}.mapping.{key}: field {name!r} needs a kind in {PARAM}.field_kinds "
                    f"(exact|semantic) or a type in {PARAM}.field_types"
                )
            # An exact field compares values by its type; without one IRAC reads whole clauses as values.
            if cfg.field_kinds.get(name) == "exact" and name not in cfg.field_types:
                raise ParamsError(
                    f"{PARAM}.field_types.{name}: exact field {name!r} (mapped from {key!r}) declares no type "
                    "(money|number|date|name|yesno|text)"
                )
    for target in SCALAR_TARGETS | {"sections"}:
        if targets.count(target) > 1:
            raise ParamsError(f"{PARAM}.mapping: two keys map to {target!r}")
    if "party" in targets and "parties" not in {f.name for f in dataclasses.fields(Decision)}:
        raise ParamsError(f"{PARAM}.mapping: this Decision record has no parties to map 'party' to")
    party_keys = [k for k, t in cfg.mapping.items() if t == "party"]
    if party_keys and party_keys[0] in cfg.optional:
        raise ParamsError(f"{PARAM}.optional: the party key {party_keys[0]!r} cannot be optional")
    if "title" not in targets:
        raise ParamsError(f"{PARAM}.mapping: no key maps to 'title'")
    if "text" not in targets and not any(t == "sections" or t.startswith("sections.") for t in targets):
        raise ParamsError(f"{PARAM}.mapping: no key maps to 'text' or to sections")
    fields = {t[len("fields.") :] for t in targets if t.startswith("fields.")}
    for where, names in (("field_kinds", cfg.field_kinds), ("field_types", cfg.field_types)):
        extra = sorted(set(names) - fields)
        if extra:
            raise ParamsError(
                f"{PARAM}.{where}.{extra[0]}: no key of {PARAM}.mapping maps to fields.{extra[0]}"
            )


def documents(path: Path, fmt: str) -> Iterator[tuple[Path, int | None, str, str, dict]]:
    """(file, line or None, key prefix, default id, document) for every source document, in order."""
    if fmt == "jsonl":
        for n, (line, doc) in enumerate(iter_json(_one_file(path, ".jsonl")), start=1):
            yield path, line, "", f"{n:04d}", doc
        return
    if not path.is_dir():
        raise InputError(path, None, None, "format json_folder needs a folder of *.json files")
    for file in files_of(path, "*.json", f"{PARAM}.path"):
        try:
            doc = json.loads(file.read_bytes().decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise InputError(file, None, None, f"invalid UTF-8 at byte {exc.start}") from None
        except json.JSONDecodeError as exc:
            raise InputError(
                file, exc.lineno, None, f"malformed JSON: {exc.msg} (column {exc.colno})"
            ) from None
        if isinstance(doc, list):
            for i, item in enumerate(doc):
                yield file, None, f"[{i}].", f"{file.stem}-{i + 1}", item
        else:
            yield file, None, "", file.stem, doc


def _one_file(path: Path, suffix: str) -> Path:
    if path.is_dir():
        raise InputError(path, None, None, f"is a folder; {PARAM}.path names one {suffix} file for this format")
    return path


def load_documents(
    cfg: DocumentsImportParams, root: Path, taken: set[str], skips: Skips | None = None
) -> list[Decision]:
    """The decisions of `cfg` (format records, jsonl or json_folder), validated; ids unique across `taken`.
    Invalid documents stop the import (`cfg.on_invalid: stop`) or are counted in `skips` and left out."""
    skips = skips if skips is not None else Skips(PARAM, cfg.on_invalid)
    path = root / cfg.path
    require_path(path, f"{PARAM}.path", missing="not found")
    if cfg.format == "records":
        return load_records(path, taken, f"{PARAM}.path", skips)
    check_mapping(cfg)
    out: list[Decision] = []
    seen: dict[str, str] = {}
    groups: dict[str, list[tuple[dict, str, tuple]]] = {}
    id_key = next((k for k, t in cfg.mapping.items() if t == "id"), "id")
    for file, line, prefix, default_id, doc in documents(path, cfg.format):
        try:
            if not isinstance(doc, dict):
                raise Invalid("not_an_object", file, line, prefix.rstrip(".") or None,
                              f"expected a JSON object, got {type(doc).__name__}")
            obj, party = map_document(doc, cfg, file, line, prefix, default_id)
            if obj["id"] in taken or (obj["id"] in seen and party is None):
                first = seen.get(obj["id"], "a synthetic decision")
                raise Invalid("duplicate_id", file, line, f"{prefix}{id_key}",
                              f"duplicate id {obj['id']!r} (first: {first})")
        except InputError as exc:
            skips.record(exc)
            continue
        seen.setdefault(
            obj["id"],
            f"{file}" + (f" line {line}" if line else "") + (f" item {prefix[1:-2]}" if prefix else ""),
        )
        groups.setdefault(obj["id"], []).append((obj, party, (file, line, prefix)))
    party_key = next((k for k, t in cfg.mapping.items() if t == "party"), "party")
    for members in groups.values():
        names: set[str | None] = set()
        kept = []
        for member in members:
            party, (file, line, prefix) = member[1], member[2]
            if party in names:
                skips.record(Invalid("repeated_party", file, line, f"{prefix}{party_key}",
                                     f"repeated party name {party!r} in one decision"))
                continue
            names.add(party)
            kept.append(member)
        obj = kept[0][0] if kept[0][1] is None else merge_parties(kept)
        file, line, prefix = kept[0][2]
        try:
            decision = _parse(obj, cfg, file, line, prefix)
            check_decision(decision, file, line, prefix)
        except InputError as exc:
            skips.record(exc, records=len(kept))
            continue
        out.append(decision)
    if not out:
        empty = no_records(path, f"{PARAM}.path")
        raise InputError(empty.path, None, None, empty.message + skips.note())
    return out


def merge_parties(members: list[tuple[dict, str, tuple]]) -> dict:
    """Documents of one decision, one per party -> one record: the first document's text and metadata,
    the fields every party shares in `fields`, the rest in `parties[].fields`."""
    first = members[0][0]
    values = [obj["fields"] for obj, _, _ in members]
    shared = {k: v for k, v in values[0].items() if all(other.get(k) == v for other in values[1:])}
    obj = dict(first)
    obj["fields"] = shared
    obj["parties"] = [
        {"name": party, "fields": {k: v for k, v in fields.items() if k not in shared}}
        for (_, party, _), fields in zip(members, values, strict=True)
    ]
    for key in ("field_kinds", "field_types"):
        if key in first:
            obj[key] = {k: v for o, _, _ in members for k, v in o[key].items()}
    return obj


def map_document(
    doc: dict, cfg: DocumentsImportParams, file: Path, line: int | None, prefix: str, default_id: str
) -> tuple[dict, str | None]:
    """One source document -> (a Decision as a JSON object, its party's name or None) through
    `cfg.mapping` (pure; errors name file, line and key)."""
    obj: dict[str, Any] = {
        "source": cfg.source or Path(cfg.path).name,
        "language": cfg.language,
        "case_type": cfg.case_type,
        "date": "",
        "fields": {},
        "field_kinds": {},
    }
    sections: list[dict] = []
    raw_id = default_id
    party = None
    for key, target in cfg.mapping.items():
        here = f"{prefix}{key}"
        try:
            value = read_path(doc, key)
        except PathMissing as exc:
            if key in cfg.optional:
                continue
            raise Invalid("missing_key", file, line, here, f"mapped key {key!r} (-> {target}) is missing: "
                                                             f"{exc.why}") from None
        if value is None or value == "":
            if key in cfg.optional:
                continue
            raise Invalid("empty_value", file, line, here, f"mapped key {key!r} (-> {target}) is "
                                                           f"{'null' if value is None else 'empty'}")
        if target == "sections":
            sections += _sections(value, file, line, here)
        elif target.startswith("sections."):
            sections.append({"heading": target[len("sections.") :], "text": _text(value, file, line, here)})
        elif target.startswith("fields."):
            name = target[len("fields.") :]
            obj["fields"][name] = _scalar(value, file, line, here)
            obj["field_kinds"][name] = cfg.field_kinds.get(name) or KIND_OF_TYPE[cfg.field_types[name]]
        elif target == "id":
            raw_id = _scalar(value, file, line, here)
        elif target == "party":
            party = _scalar(value, file, line, here)
        else:
            obj[target] = _text(value, file, line, here)
    if "text" not in obj:
        obj["text"] = "\n\n".join(s["text"] for s in sections)
    if not sections:
        sections = [{"heading": "", "text": p} for p in paragraphs(obj["text"])]
    obj["sections"] = [
        {"id": s.get("id") or f"s{i}", "heading": s["heading"], "text": s["text"]}
        for i, s in enumerate(sections, 1)
    ]
    obj["id"] = safe_id(raw_id, cfg.id_prefix)
    if "field_types" in {f.name for f in dataclasses.fields(Decision)}:
        obj["field_types"] = {n: t for n, t in cfg.field_types.items() if n in obj["fields"]}
    return obj, party


def _parse(obj: dict, cfg: DocumentsImportParams, file: Path, line: int | None, prefix: str) -> Decision:
    try:
        return parse(Decision, obj)
    except RecordError as exc:
        head = exc.field.split(".", 1)[0].split("[", 1)[0]
        head = "party" if head == "parties" else head
        keys = [k for k, t in cfg.mapping.items() if t.split(".", 1)[0] == head]
        raise Invalid(
            "invalid_record", file, line, f"{prefix}{keys[0]}" if keys else exc.field, f"{exc.field}: {exc.message}"
        ) from None


def paragraphs(text: str) -> list[str]:
    """Paragraphs at blank lines; a text without blank lines (common in Chinese) splits at line breaks."""
    parts = re.split(r"\n\s*\n", text) if re.search(r"\n\s*\n", text) else text.split("\n")
    return [p.strip() for p in parts if p.strip()]


def _sections(value: Any, file: Path, line: int | None, here: str) -> list[dict]:
    if isinstance(value, dict):
        return [{"heading": str(h), "text": _text(t, file, line, f"{here}.{h}")} for h, t in value.items()]
    if not isinstance(value, list):
        raise Invalid("wrong_type", file, line, here, "sections must be a list or an object heading -> text")
    out = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            out.append({"heading": "", "text": _text(item, file, line, f"{here}[{i}]")})
        elif isinstance(item, dict) and "text" in item:
            section = {
                "heading": str(item.get("heading") or ""),
                "text": _text(item["text"], file, line, f"{here}[{i}].text"),
            }
            if item.get("id") not in (None, ""):
                section["id"] = safe_id(str(item["id"]))
            out.append(section)
        else:
            raise Invalid(
                "wrong_type", file, line, f"{here}[{i}]", "a section is a string or an object with text (and id, heading)"
            )
    return out


def _text(value: Any, file: Path, line: int | None, here: str) -> str:
    if not isinstance(value, str):
        raise Invalid("wrong_type", file, line, here,
                      f"expected a string, got {type(value).__name__} {value!r}"[:200])
    return value


def _scalar(value: Any, file: Path, line: int | None, here: str) -> str:
    """A field value: strings as they are, numbers as written in JSON (4665091.79 -> "4665091.79")."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise Invalid("wrong_type", file, line, here, f"expected a string or number, got {type(value).__name__}")
    if isinstance(value, float) and not math.isfinite(value):
        # JSON readers accept NaN and Infinity; as text they would become a value ("NaN") or an id ("doc-Infinity").
        raise Invalid("wrong_type", file, line, here, f"{value} is not a finite number")
    return value if isinstance(value, str) else json.dumps(value)
