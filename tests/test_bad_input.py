"""Bad user decisions stop the stage with one message naming file, line and field; nothing partial stays."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from pipeline.stages import corpus as corpus_stage
from pipeline.stages import decisions as decisions_stage

pytestmark = pytest.mark.reliability

ROOT = Path(__file__).resolve().parents[1]
GOOD = {
    "id": "user-1",
    "source": "user",
    "language": "en",
    "case_type": "contract",
    "title": "Acme v Widget",
    "date": "1 May 2020",
    "text": "The buyer sued for the price of the goods. The claim succeeded in full.",
    "sections": [
        {"id": "1.1.1", "heading": "Facts", "text": "The buyer sued for the price of the goods."},
        {"id": "1.1.2", "heading": "Outcome", "text": "The claim succeeded in full."},
    ],
    "fields": {"price": "HK$10,000"},
    "field_kinds": {"price": "exact"},
    "field_types": {"price": "money"},
}


def _with(**changes) -> dict:
    record = copy.deepcopy(GOOD)
    record["id"] = "user-bad"
    for key, value in changes.items():
        if value is _DROP:
            record.pop(key)
        else:
            record[key] = value
    return record


_DROP = object()
_SECTIONS = GOOD["sections"]

# (name, the bad third line as bytes, the field the message must name)
CASES = [
    ("missing field", _with(title=_DROP), "title"),
    ("wrong type", _with(date=20200501), "date"),
    ("duplicate id", _with(id="user-1"), "id"),
    ("empty text", _with(text="   "), "text"),
    ("unsafe id", _with(id="../../etc/passwd"), "id"),
    ("unknown field", _with(judge="Lord Denning"), "judge"),
    ("wrong language", _with(language="fr"), "language"),
    ("language does not match text", _with(text="原告要求被告支付货款。法院判原告胜诉。"), "language"),
    ("sections not a list", _with(sections="Facts: the buyer sued."), "sections"),
    ("section of wrong type", _with(sections=[_SECTIONS[0], "Outcome"]), "sections[1]"),
    (
        "section heading wrong type",
        _with(sections=[{"id": "1", "heading": 3, "text": "x"}]),
        "sections[0].heading",
    ),
    ("section text missing", _with(sections=[{"id": "1", "heading": "Facts"}]), "sections[0].text"),
    ("section text empty", _with(sections=[{"id": "1", "heading": "Facts", "text": ""}]), "sections[0].text"),
    (
        "duplicate section id",
        _with(sections=[_SECTIONS[0], {**_SECTIONS[1], "id": "1.1.1"}]),
        "sections[1].id",
    ),
    ("no sections", _with(sections=[]), "sections"),
    ("field value wrong type", _with(fields={"price": 10000}), "fields.price"),
    ("field kind not allowed", _with(field_kinds={"price": "fuzzy"}), "field_kinds.price"),
    ("kind for unfilled field", _with(field_kinds={"price": "exact", "judge": "exact"}), "field_kinds.judge"),
    ("id taken by a synthetic decision", _with(id="syn-0001"), "id"),
    ("null where a string is required", _with(case_type=None), "case_type"),
]
# Lines that are not a record at all: file and line are named, there is no field to name.
UNREADABLE = [
    ("malformed JSON", b'{"id": "user-2", "source": ', "malformed JSON"),
    ("invalid UTF-8", b'{"id": "user-2", "title": "\xff\xfe"}', "invalid UTF-8"),
    ("non-object line", b'["user-2", "en"]', "expected an object"),
]


def _project(tmp_path: Path, bad_line: bytes) -> Path:
    raw = yaml.safe_load((ROOT / "params" / "smoke.yaml").read_text())
    raw["decisions"].update(n_decisions=3, import_path="user_decisions.jsonl")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw))
    # Line 1 good, line 2 blank (still counted), line 3 bad.
    (tmp_path / "user_decisions.jsonl").write_bytes(json.dumps(GOOD).encode() + b"\n\n" + bad_line + b"\n")
    out = tmp_path / "data" / "raw" / "decisions.jsonl"
    out.parent.mkdir(parents=True)
    out.write_text("previous output\n")
    return out


def _run_and_check(tmp_path: Path, monkeypatch, bad_line: bytes) -> str:
    monkeypatch.chdir(tmp_path)
    out = _project(tmp_path, bad_line)
    with pytest.raises(SystemExit) as info:
        decisions_stage.main([])
    message = str(info.value.code)
    assert "\n" not in message
    assert "user_decisions.jsonl" in message and "line 3" in message
    # The previous output is untouched and no temporary file is left beside it.
    assert out.read_text() == "previous output\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["decisions.jsonl"]
    return message


@pytest.mark.parametrize(("name", "record", "field"), CASES, ids=[c[0] for c in CASES])
def test_bad_decision_names_file_line_and_field(tmp_path, monkeypatch, name, record, field):
    message = _run_and_check(tmp_path, monkeypatch, json.dumps(record, ensure_ascii=False).encode())
    assert f"field '{field}'" in message, message


@pytest.mark.parametrize(("name", "line", "what"), UNREADABLE, ids=[c[0] for c in UNREADABLE])
def test_unreadable_line_names_file_and_line(tmp_path, monkeypatch, name, line, what):
    message = _run_and_check(tmp_path, monkeypatch, line)
    assert what in message


def test_missing_import_file_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, b"")
    (tmp_path / "user_decisions.jsonl").unlink()
    with pytest.raises(SystemExit, match="user_decisions.jsonl: file not found"):
        decisions_stage.main([])


def test_bad_params_stop_before_any_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = _project(tmp_path, json.dumps(GOOD | {"id": "user-2"}).encode())
    raw = yaml.safe_load((tmp_path / "params.yaml").read_text())
    raw["decisions"]["case_mix"] = {"maritime": 1.0}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw))
    with pytest.raises(SystemExit, match="decisions.case_mix: unknown case type"):
        decisions_stage.main([])
    assert out.read_text() == "previous output\n"


def test_corpus_stage_rejects_bad_decisions_file_and_keeps_outputs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text((ROOT / "params" / "smoke.yaml").read_text())
    decisions = tmp_path / "data" / "raw" / "decisions.jsonl"
    decisions.parent.mkdir(parents=True)
    decisions.write_text(
        json.dumps(GOOD) + "\n" + json.dumps(_with(sections=[{"id": 7, "heading": "h", "text": "t"}])) + "\n"
    )
    interim = tmp_path / "data" / "interim"
    interim.mkdir(parents=True)
    for name in ("passages.jsonl", "qa.jsonl"):
        (interim / name).write_text("previous\n")
    with pytest.raises(SystemExit) as info:
        corpus_stage.main([])
    message = str(info.value.code)
    assert "decisions.jsonl, line 2, field 'sections[0].id'" in message
    assert sorted(p.name for p in interim.iterdir()) == ["passages.jsonl", "qa.jsonl"]
    assert all((interim / n).read_text() == "previous\n" for n in ("passages.jsonl", "qa.jsonl"))


def test_a_stage_run_from_the_command_line_ends_with_one_line_not_a_traceback(tmp_path):
    import subprocess
    import sys

    bad = tmp_path / "params.yaml"
    bad.write_text("pairs:\n  trian: 0.8\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline.stages.pairs", "--params", str(bad)],
        capture_output=True, text=True, cwd=tmp_path,
        env={**__import__("os").environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("pairs: error: ") and "pairs.trian: unknown key" in last
