"""Real datasets as they are published (issue 20): mapping keys as paths into nested JSON, `on_invalid`
(stop by default, or skip and count by reason) in every import, and exact IRAC fields that must declare
a type. The messy fixtures (tests/fixtures/importers/messy) hold nested party records, an empty full
text, a missing case number, and SQuAD questions marked impossible that carry answers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from pipeline.importers import Skips, skipped_path
from pipeline.importers.candidates import ContextIndex, load_candidates
from pipeline.importers.checks import check_decision, load_records
from pipeline.importers.documents import load_documents
from pipeline.importers.pairs import read_outside_pairs
from pipeline.importers.paths import PathMissing, PathSyntaxError, join_path, read_path, split_path
from pipeline.importers.squad import load_squad
from pipeline.io import InputError
from pipeline.params import DocumentsImportParams, ParamsError, QaImportParams, from_dict
from pipeline.records import QA, Context, Passage
from pipeline.stages import data_report
from pipeline.stages import decisions as decisions_stage
from pipeline.synth import generate_decisions

ROOT = Path(__file__).resolve().parents[1]
MESSY = ROOT / "tests" / "fixtures" / "importers" / "messy"
NESTED_MAPPING = {
    "案件信息.案件编号或字号": "id",
    "案件信息.案件名称": "title",
    "案件信息.决定日期": "fields.决定日期",
    "法律文书原文": "text",
    "当事人信息.当事人基础信息.姓名": "party",
    "处罚信息.罚款金额": "fields.罚款金额",
}


def nested_cfg(**over) -> DocumentsImportParams:
    base = dict(
        format="jsonl",
        path="penalties_nested.jsonl",
        mapping=NESTED_MAPPING,
        language="zh",
        case_type="insider_trading",
        field_types={"决定日期": "date", "罚款金额": "money"},
    )
    return DocumentsImportParams(**(base | over))


# ------------------------------------------------------------------------------------- path reader
def test_paths_read_english_and_chinese_keys_list_indices_and_escaped_dots():
    doc = {
        "案件信息": {"案件编号或字号": "证监罚字〔2016〕3号"},
        "当事人信息": [{"姓名": "李某"}, {"姓名": "王某"}],
        "parties": [{"name": "Chan"}],
        "No.": "HCA 1/2020",
        "a.b": {"c": 1},
        "obj": {"0": "key zero"},
    }
    assert read_path(doc, "案件信息.案件编号或字号") == "证监罚字〔2016〕3号"
    assert read_path(doc, "当事人信息.1.姓名") == "王某"
    assert read_path(doc, "parties.0.name") == "Chan"
    assert read_path(doc, "No\\.") == "HCA 1/2020"
    assert read_path(doc, "a\\.b.c") == 1
    assert read_path(doc, "obj.0") == "key zero"  # on an object a number is a key
    assert split_path("a\\.b.c\\\\d") == ("a.b", "c\\d") and join_path(("a.b", "c\\d")) == "a\\.b.c\\\\d"


@pytest.mark.parametrize(
    ("path", "reached", "words"),
    [
        ("案件信息.案件名称", "案件信息", "has no key '案件名称' (it has: 案件编号或字号)"),
        ("当事人信息.2.姓名", "当事人信息", "a list of 1: no index 2"),
        ("当事人信息.first", "当事人信息", "is a list: 'first' is not an index"),
        ("案件信息.案件编号或字号.x", "案件信息.案件编号或字号", "is str"),
        ("missing", "(the document)", "has no key 'missing'"),
    ],
)
def test_a_missing_path_says_how_far_it_got(path, reached, words):
    doc = {"案件信息": {"案件编号或字号": "x"}, "当事人信息": [{"姓名": "李某"}]}
    with pytest.raises(PathMissing) as err:
        read_path(doc, path)
    assert err.value.reached == reached and words in err.value.why


@pytest.mark.parametrize("bad", ["a..b", ".a", "a.", "a\\b", "a\\"])
def test_malformed_paths_are_refused(bad):
    with pytest.raises(PathSyntaxError):
        split_path(bad)


def test_a_malformed_mapping_path_stops_before_reading(tmp_path):
    cfg = nested_cfg(mapping=NESTED_MAPPING | {"案件信息..标题": "title"})
    with pytest.raises(ParamsError, match=r"decisions\.documents\.mapping\.案件信息\.\.标题: not a path"):
        load_documents(cfg, MESSY, set())


# ----------------------------------------------------------------- nested documents, stop and skip
def test_nested_documents_stop_by_default_naming_file_line_and_path():
    with pytest.raises(InputError) as err:
        load_documents(nested_cfg(), MESSY, set())
    message = str(err.value)
    assert "penalties_nested.jsonl, line 3, field '法律文书原文'" in message and "empty" in message


def test_nested_documents_skip_counts_by_reason_and_keep_the_valid_decision():
    skips = Skips("decisions.documents", "skip")
    (decision,) = load_documents(nested_cfg(on_invalid="skip"), MESSY, set(), skips)
    assert decision.title == "李某、王某内幕交易案"
    assert decision.fields == {"决定日期": "2016年3月18日"}
    assert [(p.name, p.fields) for p in decision.parties] == [
        ("李某", {"罚款金额": "2,628,976.50元"}),
        ("王某", {"罚款金额": "93.6万元"}),
    ]
    summary = skips.summary()
    assert summary["by_reason"] == {"empty_value": 1, "missing_key": 2}
    assert summary["skipped"] == 3
    missing = summary["first"]["missing_key"]
    assert [(f["line"], f["path"]) for f in missing] == [
        (4, "案件信息.案件编号或字号"),
        (5, "当事人信息.当事人基础信息.姓名"),
    ]
    assert "案件信息 has no key '案件编号或字号'" in missing[0]["message"]
    assert "当事人信息 is null" in missing[1]["message"]
    assert summary["first"]["empty_value"][0]["path"] == "法律文书原文"


def test_decisions_stage_writes_the_skipped_counts_beside_its_output(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shutil.copy2(MESSY / "penalties_nested.jsonl", tmp_path / "penalties_nested.jsonl")
    raw = {
        "decisions": {
            "n_decisions": 2,
            "documents": {
                "format": "jsonl", "path": "penalties_nested.jsonl", "language": "zh", "on_invalid": "skip",
                "case_type": "insider_trading", "mapping": NESTED_MAPPING,
                "field_types": {"决定日期": "date", "罚款金额": "money"},
            },
        }
    }  # fmt: skip
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    decisions_stage.main(["--params", "params.yaml"])
    assert "3 invalid records skipped (empty_value 1, missing_key 2)" in capsys.readouterr().out
    written = json.loads(skipped_path("data/raw/decisions.jsonl").read_text(encoding="utf-8"))
    (summary,) = written["imports"]
    assert summary["import"] == "decisions.documents" and summary["by_reason"] == {"empty_value": 1, "missing_key": 2}
    # The data report shows them, with the first locations.
    lines = data_report.render_skips(data_report.import_skips(from_dict(raw), tmp_path))
    text = "\n".join(lines)
    assert "| decisions.documents | skip | missing_key | 2 | penalties_nested.jsonl:4 案件信息.案件编号或字号;" in text


def test_stages_with_imports_off_write_an_empty_summary(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"decisions": {"n_decisions": 2}}))
    decisions_stage.main(["--params", "params.yaml"])
    assert json.loads(Path("data/raw/decisions_skipped.json").read_text()) == {"imports": []}
    assert data_report.import_skips(from_dict({}), tmp_path) == []


# --------------------------------------------------------------------------------------- SQuAD
def test_squad_stops_by_default_on_the_first_invalid_question():
    with pytest.raises(InputError) as err:
        load_squad(QaImportParams(format="squad", path="squad_messy.json", language="zh"), MESSY)
    assert "data[0].paragraphs[0].qas[1].answers" in str(err.value) and "is_impossible but has an answer" in str(err.value)


def test_squad_skip_counts_impossible_with_answer_under_its_own_reason():
    skips = Skips("corpus.qa_import", "skip")
    cfg = QaImportParams(format="squad", path="squad_messy.json", language="zh", on_invalid="skip")
    passages, qas = load_squad(cfg, MESSY, skips)
    assert [p.id for p in passages] == ["qa-a1/p1"]  # the empty paragraph is left out with its question
    assert [(q.id, q.answer) for q in qas] == [("qa-m-1", "4,665,091.79元"), ("qa-m-6", "")]
    assert skips.counts == {"impossible_with_answer": 2, "answer_span_mismatch": 1, "no_answer": 1, "empty_context": 1}
    first = skips.summary()["first"]
    assert [f["path"] for f in first["impossible_with_answer"]] == [
        "data[0].paragraphs[0].qas[1].answers",
        "data[0].paragraphs[0].qas[2].answers",
    ]
    assert first["empty_context"][0]["path"] == "data[0].paragraphs[1].context"


# --------------------------------------------------------------------------- outside candidates
def _index() -> ContextIndex:
    passage = Passage("qa-a1/p1", "qa-a1", "qa-a1", "T", "The tribunal ordered payment of HK$48,000.", position=0)
    qa = QA("qa-1", "How much?", "HK$48,000", passage.id, passage.family, "factual", ["HK$48,000"], [])
    context = Context("qa-1/gold_only", qa.id, "gold_only", True, [passage.id], 0)
    return ContextIndex([context], {qa.id: qa}, {passage.id: passage})


def test_candidates_skip_invalid_lines_by_reason(tmp_path):
    lines = [
        {"context_id": "qa-1/gold_only", "model": "m", "response": "HK$48,000."},
        {"context_id": "qa-9/gold_only", "model": "m", "response": "x"},
        {"context_id": "qa-1/gold_only", "response": "x"},
        {"context_id": "qa-1/gold_only", "model": "m", "response": "again"},
        {"context_id": "qa-1/gold_only", "model": "n", "response": "x", "labels": {"rule:strict": {}}},
    ]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(InputError, match=r"line 2, field 'context_id': unknown context"):
        load_candidates(path, _index(), set())
    skips = Skips("generate.import_candidates", "skip")
    (kept,) = load_candidates(path, _index(), set(), skips)
    assert kept.text == "HK$48,000."
    assert skips.counts == {"unknown_context": 1, "missing_key": 1, "duplicate_id": 1, "bad_labels": 1}


# ------------------------------------------------------------------------------ outside pairs
def test_outside_pairs_skip_invalid_lines_by_reason(tmp_path):
    lines = [
        {"prompt": "Q", "chosen": "A", "rejected": "B"},
        {"prompt": "Q", "chosen": "A", "rejected": "A"},
        {"prompt": "Q", "chosen": "A"},
        {"prompt": "问", "chosen": "甲", "rejected": "乙", "id": "../x"},
    ]
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2, field 'rejected'"):
        read_outside_pairs(path)
    skips = Skips("train.external_pairs", "skip")
    assert [p.id for p in read_outside_pairs(path, skips)] == ["external/1"]
    assert skips.counts == {"same_answers": 1, "missing_key": 1, "unsafe_id": 1}
    # The data report counts them from params, the way training reads the file.
    raw = {"train": {"external_pairs": {"format": "jsonl", "path": "pairs.jsonl", "on_invalid": "skip"}}}
    (summary,) = data_report.import_skips(from_dict(raw), tmp_path)
    assert summary["import"] == "train.external_pairs" and summary["skipped"] == 3
    # Everything invalid: the import holds nothing and says what was skipped.
    path.write_text(json.dumps(lines[1]) + "\n")
    with pytest.raises(InputError, match=r"no records .*1 invalid records skipped \(same_answers 1\)"):
        read_outside_pairs(path, Skips("train.external_pairs", "skip"))


# ---------------------------------------------------------------------------------------- params
@pytest.mark.parametrize(
    "block",
    ["decisions.documents", "corpus.qa_import", "generate.import_candidates", "train.external_pairs"],
)
def test_on_invalid_defaults_to_stop_and_other_values_are_named(block):
    section, key = block.split(".")
    assert getattr(getattr(from_dict({}), section), key).on_invalid == "stop"
    assert getattr(getattr(from_dict({section: {key: {"on_invalid": "skip"}}}), section), key).on_invalid == "skip"
    with pytest.raises(ParamsError) as err:
        from_dict({section: {key: {"on_invalid": "drop"}}})
    assert str(err.value) == f"params: {block}.on_invalid: expected one of ['stop', 'skip'], got 'drop'"


# ------------------------------------------------------------------------ untyped exact fields
def _record(**changes) -> dict:
    obj = {
        "id": "zh-1", "source": "t", "language": "zh", "case_type": "insider_trading", "title": "张某案",
        "date": "2013年6月20日", "text": "我会决定：没收违法所得4,665,091.79元。",
        "sections": [{"id": "s1", "heading": "处罚决定", "text": "我会决定：没收违法所得4,665,091.79元。"}],
        "fields": {"违法所得": "4,665,091.79元", "理由": "内幕交易"},
        "field_kinds": {"违法所得": "exact", "理由": "semantic"},
        "field_types": {"违法所得": "money"},
    }  # fmt: skip
    return obj | changes


def test_an_exact_field_without_a_type_stops_naming_file_record_and_field(tmp_path):
    path = tmp_path / "decisions.jsonl"
    untyped = _record(id="zh-2", field_types={})
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in (_record(), untyped)), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_records(path, set())
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{path}, line 2, field 'field_types.违法所得': decision 'zh-2': exact field '违法所得'")
    # A semantic field needs no type; under skip the untyped decision is left out and counted.
    skips = Skips("decisions.documents", "skip")
    assert [d.id for d in load_records(path, set(), skips=skips)] == ["zh-1"]
    assert skips.counts == {"untyped_exact_field": 1}


def test_a_mapped_exact_field_without_a_type_stops_before_reading():
    cfg = nested_cfg(field_kinds={"罚款金额": "exact"}, field_types={"决定日期": "date"})
    with pytest.raises(ParamsError, match=r"decisions\.documents\.field_types\.罚款金额: exact field"):
        load_documents(cfg, MESSY, set())


def test_synthetic_decisions_and_the_fixtures_declare_every_exact_type():
    for decision in generate_decisions(12, {"insider_trading": 0.4, "criminal_sentencing": 0.3,
                                            "residential_tenancy": 0.3}, 13):
        check_decision(decision, Path("synthetic"), None)
    bilingual = yaml.safe_load((ROOT / "params" / "bilingual.yaml").read_text(encoding="utf-8"))
    cfg = DocumentsImportParams(**bilingual["decisions"]["documents"])
    assert len(load_documents(cfg, ROOT, set())) == 2
