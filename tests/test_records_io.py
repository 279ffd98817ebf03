"""Records and JSON Lines I/O: validation naming the field, round trips, canonical bytes, atomic writes."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.io import InputError, atomic_dir, atomic_file, dumps, read_records, write_json, write_records
from pipeline.records import (
    QA,
    Candidate,
    Context,
    Decision,
    Label,
    Pair,
    Passage,
    RecordError,
    Score,
    Section,
    parse,
    to_dict,
)

SAMPLES = [
    Decision(
        id="d-1",
        source="user",
        language="zh",
        case_type="tenancy",
        title="陈某诉李某",
        date="2020-05-01",
        text="原告要求被告支付租金。",
        sections=[Section(id="1.1.1", heading="事实", text="原告要求被告支付租金。")],
        fields={"rent": "8000元"},
        field_kinds={"rent": "exact"},
        analysis="",
        outcome="胜诉",
    ),
    Passage(
        id="d-1/1.1.1",
        decision_id="d-1",
        family="d-1/1.1",
        heading="事实",
        text="原告要求被告支付租金。",
        position=0,
    ),
    QA(
        id="d-1/q1",
        question="租金多少？",
        answer="8000元。",
        gold_passage_id="d-1/1.1.1",
        family="d-1/1.1",
        kind="factual",
        facts=["8000元"],
        qualifiers=[],
    ),
    Context(
        id="d-1/q1/gold_only",
        qa_id="d-1/q1",
        variant="gold_only",
        answerable=True,
        passage_ids=["d-1/1.1.1"],
        gold_slot=0,
    ),
    Candidate(
        id="c1",
        context_id="d-1/q1/gold_only",
        generator="offline:terse",
        text="8000元。",
        finish_reason="stop",
        meta={"score": 0.5, "nested": [1, 2]},
    ),
    Label(
        candidate_id="c1",
        judge="rule:strict",
        behaviour="attempted",
        faithfulness="fully_supported",
        correctness="correct",
        completeness=None,
        status="ok",
    ),
    Pair(
        id="p1",
        qa_id="d-1/q1",
        context_id="d-1/q1/gold_only",
        variant="gold_only",
        answerable=True,
        split="train",
        dimension="faithfulness",
        prompt="P",
        chosen="A",
        rejected="B",
        chosen_generator="offline:terse",
        rejected_generator="offline:verbose",
        chosen_tokens=1,
        rejected_tokens=1,
        augmented=False,
        source="generated",
    ),
    Score(
        pair_id="p1",
        model="base",
        scoring="sum",
        chosen=-1.5,
        rejected=-2.0,
        margin=0.5,
        correct=True,
        chosen_tokens=1,
        rejected_tokens=1,
    ),
]


@pytest.mark.parametrize("record", SAMPLES, ids=[type(r).__name__ for r in SAMPLES])
def test_round_trip(tmp_path, record):
    path = tmp_path / "r.jsonl"
    assert write_records(path, [record]) == 1
    assert read_records(path, type(record), unique_key=None) == [record]


def test_canonical_bytes():
    d = {"b": 1, "a": {"z": "陈", "y": [1.5, None]}}
    reordered = {"a": {"y": [1.5, None], "z": "陈"}, "b": 1}
    assert dumps(d) == dumps(reordered) == '{"a":{"y":[1.5,null],"z":"陈"},"b":1}'
    assert dumps(SAMPLES[1]) == json.dumps(
        to_dict(SAMPLES[1]), ensure_ascii=False, sort_keys=True, separators=(",", ":")
    )


def test_same_records_same_file_bytes(tmp_path):
    write_records(tmp_path / "a.jsonl", SAMPLES)
    write_records(tmp_path / "b.jsonl", [parse(type(r), json.loads(dumps(r))) for r in SAMPLES])
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert (tmp_path / "a.jsonl").read_bytes().count(b"\n") == len(SAMPLES)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(min_size=1).filter(str.strip), min_size=1, max_size=5), st.integers(-5, 5))
def test_passage_text_round_trips_exactly(texts, position):
    records = [
        Passage(id=f"p{i}", decision_id="d", family="d", heading="h", text=t, position=position)
        for i, t in enumerate(texts)
    ]
    # Through real files: line breaks such as U+2028 or U+0085 inside text must not split a record.
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.jsonl"
        write_records(path, records)
        assert read_records(path, Passage) == records


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        ({**to_dict(SAMPLES[3]), "gold_slot": "0"}, "gold_slot"),
        ({**to_dict(SAMPLES[3]), "answerable": 1}, "answerable"),
        ({**to_dict(SAMPLES[3]), "passage_ids": ["a", 2]}, "passage_ids[1]"),
        ({**to_dict(SAMPLES[5]), "behaviour": "maybe"}, "behaviour"),
        ({**to_dict(SAMPLES[7]), "chosen_tokens": True}, "chosen_tokens"),
        ({**to_dict(SAMPLES[0]), "sections": [{"id": "1", "heading": "h", "text": 5}]}, "sections[0].text"),
    ],
)
def test_parse_names_the_field(obj, field):
    cls = {
        "gold_slot": Context,
        "answerable": Context,
        "passage_ids[1]": Context,
        "behaviour": Label,
        "chosen_tokens": Score,
        "sections[0].text": Decision,
    }[field]
    with pytest.raises(RecordError) as info:
        parse(cls, obj)
    assert info.value.field == field


def test_ints_are_floats_and_null_allowed_only_where_optional():
    s = parse(Score, {**to_dict(SAMPLES[7]), "chosen": -1})
    assert s.chosen == -1.0 and isinstance(s.chosen, float)
    assert parse(Context, {**to_dict(SAMPLES[3]), "gold_slot": None}).gold_slot is None
    with pytest.raises(RecordError, match="question: expected str, got null"):
        parse(QA, {**to_dict(SAMPLES[2]), "question": None})


def test_read_records_reports_file_line_field(tmp_path):
    path = tmp_path / "qa.jsonl"
    good = dumps(SAMPLES[2])
    path.write_text(good + "\n\n" + good.replace('"kind":"factual"', '"kind":"essay"') + "\n")
    with pytest.raises(InputError) as info:
        read_records(path, QA)
    assert str(info.value).startswith(f"{path}, line 3, field 'kind':")
    path.write_text(good + "\n" + good + "\n")
    with pytest.raises(InputError, match="line 2, field 'id': duplicate id 'd-1/q1' \\(first on line 1\\)"):
        read_records(path, QA)


def test_atomic_file_keeps_old_content_on_failure(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text("old\n")

    def records():
        yield SAMPLES[1]
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        write_records(path, records())
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["out.jsonl"]
    write_json(path, {"b": 1, "a": 2})
    assert path.read_text() == '{\n  "a": 2,\n  "b": 1\n}\n'
    with atomic_file(tmp_path / "new" / "x.txt") as fh:
        fh.write("x")
    assert (tmp_path / "new" / "x.txt").read_text() == "x"


def test_atomic_dir_swaps_whole_or_not_at_all(tmp_path):
    target = tmp_path / "pairs"
    target.mkdir()
    (target / "train.jsonl").write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_dir(target) as tmp:
            (Path(tmp) / "train.jsonl").write_text("half\n")
            raise RuntimeError("interrupted")
    assert (target / "train.jsonl").read_text() == "old\n"
    assert sorted(os.listdir(tmp_path)) == ["pairs"]
    with atomic_dir(target) as tmp:
        (Path(tmp) / "val.jsonl").write_text("new\n")
    assert sorted(os.listdir(target)) == ["val.jsonl"]
    assert sorted(os.listdir(tmp_path)) == ["pairs"]
