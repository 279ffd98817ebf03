"""The IRAC annotation of a Decision record: declared field types, one field set per party, and the
validation that names the offending field (docs/method.md §1)."""

from __future__ import annotations

import json

import pytest

from pipeline.io import InputError, read_records, write_records
from pipeline.records import Decision, RecordError, parse
from pipeline.synth import generate_decisions


def raw(**extra) -> dict:
    obj = {
        "id": "zh-1", "source": "test", "language": "zh", "case_type": "insider_trading_zh", "title": "张某案",
        "date": "2013年6月20日", "text": "我会决定：没收违法所得4,665,091.79元。",
        "sections": [{"id": "s1", "heading": "处罚决定", "text": "我会决定：没收违法所得4,665,091.79元。"}],
        "fields": {"违法所得": "4,665,091.79元", "决定日期": "2013年6月20日"},
        "field_kinds": {"违法所得": "exact", "决定日期": "exact"},
        "field_types": {"违法所得": "money", "决定日期": "date"},
    }  # fmt: skip
    obj.update(extra)
    return obj


def test_field_types_are_read_as_declared():
    d = parse(Decision, raw())
    assert d.field_types == {"违法所得": "money", "决定日期": "date"}
    assert d.references() == [("", {"违法所得": "4,665,091.79元", "决定日期": "2013年6月20日"})]


def test_a_type_outside_the_set_names_the_field():
    with pytest.raises(RecordError) as err:
        parse(Decision, raw(field_types={"违法所得": "currency"}))
    assert err.value.field == "field_types.违法所得"
    assert "currency" in str(err.value) and "money" in str(err.value)


def test_a_type_for_a_field_the_decision_lacks_names_it():
    with pytest.raises(RecordError) as err:
        parse(Decision, raw(field_types={"违法所得": "money", "罚款金额": "money"}))
    assert err.value.field == "field_types.罚款金额"
    assert "not a field" in str(err.value)


def test_parties_carry_their_own_fields_on_top_of_the_shared_ones():
    d = parse(Decision, raw(
        fields={"决定日期": "2016年3月18日"},
        parties=[{"name": "李某", "fields": {"违法所得": "876,325.50元"}},
                 {"name": "王某", "fields": {"违法所得": "312,000元"}}],
    ))  # fmt: skip
    assert d.field_names() == {"决定日期", "违法所得"}  # field_types may name a party field
    assert d.references() == [
        ("李某", {"决定日期": "2016年3月18日", "违法所得": "876,325.50元"}),
        ("王某", {"决定日期": "2016年3月18日", "违法所得": "312,000元"}),
    ]


def test_repeated_or_empty_party_names_are_refused():
    parties = [
        {"name": "李某", "fields": {"违法所得": "1元"}},
        {"name": "李某", "fields": {"违法所得": "2元"}},
    ]
    with pytest.raises(RecordError) as err:
        parse(Decision, raw(parties=parties))
    assert err.value.field == "parties[1].name"


def test_a_file_with_a_bad_type_stops_with_file_line_and_field(tmp_path):
    path = tmp_path / "decisions.jsonl"
    lines = [raw(), raw(id="zh-2", field_types={"决定日期": "day"})]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_records(path, Decision)
    message = str(err.value)
    assert "decisions.jsonl, line 2" in message and "field_types.决定日期" in message


def test_typed_decisions_round_trip(tmp_path):
    d = parse(Decision, raw(parties=[{"name": "张某", "fields": {}}]))
    write_records(tmp_path / "d.jsonl", [d])
    assert read_records(tmp_path / "d.jsonl", Decision) == [d]


def test_synthetic_decisions_declare_a_type_for_every_field():
    decisions = generate_decisions(
        9, {"insider_trading": 1, "criminal_sentencing": 1, "residential_tenancy": 1}, 5
    )
    for d in decisions:
        assert set(d.field_types) == set(d.fields), d.id
    insider = next(d for d in decisions if d.case_type == "insider_trading")
    assert insider.field_types["penalty_amount"] == "money"
    assert insider.field_types["decision_date"] == "date"
    assert insider.field_types["respondent"] == "name"
    assert insider.field_types["costs_ordered"] == "yesno"
