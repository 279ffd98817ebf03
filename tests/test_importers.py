"""Importers of outside data (pipeline/importers): mapped decision documents, SQuAD-style QA sets with
their own contexts, and outside graded answers -- records checked field by field against hand-written
values, and errors that name the file, the line or JSON path, and the key."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
import yaml

from pipeline.importers.candidates import ContextIndex, imported_labels, load_candidates
from pipeline.importers.documents import load_documents, paragraphs
from pipeline.importers.squad import load_squad
from pipeline.io import InputError, read_records
from pipeline.params import DocumentsImportParams, ParamsError, QaImportParams
from pipeline.records import QA, Context, Decision, Passage, Section
from pipeline.retrieval.variants import build_contexts
from pipeline.stages import corpus as corpus_stage
from pipeline.stages import decisions as decisions_stage

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "importers"
MAPPING = {
    "案号": "id",
    "标题": "title",
    "日期": "date",
    "全文": "text",
    "段落": "sections",
    "当事人": "fields.party",
    "违法所得": "fields.illegal_gains",
    "处罚日期": "fields.penalty_date",
}
TYPES = {"party": "name", "illegal_gains": "money", "penalty_date": "date"}


def zh_cfg(**over) -> DocumentsImportParams:
    base = dict(
        format="json_folder",
        path="zh_cases",
        mapping=MAPPING,
        optional=["全文", "段落"],
        language="zh",
        source="csrc",
        case_type="insider_trading",
        field_types=TYPES,
    )
    return DocumentsImportParams(**(base | over))


@pytest.fixture()
def cases(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURES / "zh_cases", tmp_path / "zh_cases")
    return tmp_path


# ------------------------------------------------------------------------------------ decisions
def test_json_folder_with_chinese_keys_maps_every_field(cases):
    first, second = load_documents(zh_cfg(), cases, set())
    # An unsafe id (a Chinese case number) becomes prefix + "h" + 12 hex of its SHA-1; a safe one stays.
    assert first.id == "doc-he5a03fa52403"
    assert second.id == "doc-CSRC-2012-7"
    assert (first.source, first.language, first.case_type) == ("csrc", "zh", "insider_trading")
    assert first.title == "中国证监会行政处罚决定书（张某）"
    assert first.date == "2011年5月3日"
    assert first.fields == {
        "party": "张某",
        "illegal_gains": "4,665,091.79元",
        "penalty_date": "2011年5月3日",
    }
    # Kinds follow the declared types: names, money and dates compare exactly.
    assert first.field_kinds == {"party": "exact", "illegal_gains": "exact", "penalty_date": "exact"}
    # No sections in the document: one per line of the text (it has no blank lines).
    assert first.sections == [
        Section("s1", "", "当事人：张某，男，1970年出生。"),
        Section("s2", "", "经查明，张某在内幕信息敏感期内买入某公司股票，获利4,665,091.79元。"),
        Section(
            "s3", "", "根据《证券法》第二百零二条，我会决定：没收张某违法所得4,665,091.79元，并处以罚款。"
        ),
    ]
    # Sections given as objects; the text is their join; a JSON number keeps its digits.
    assert second.sections == [
        Section("s1", "事实", "李某在重组公告前买入股票，获利1200000元。"),
        Section("s2", "决定", "我会决定：没收李某违法所得1200000元。"),
    ]
    assert second.text == "李某在重组公告前买入股票，获利1200000元。\n\n我会决定：没收李某违法所得1200000元。"
    assert second.fields["illegal_gains"] == "1200000"
    assert first.field_types == TYPES and first.parties == []


def test_jsonl_documents_in_english_get_paragraph_sections_and_numbered_ids(tmp_path):
    docs = [
        {
            "name": "Chan v Wong",
            "body": "The tenant owed rent.\n\nThe tribunal ordered payment of HK$48,000.",
            "sum": "HK$48,000",
        },
        {"name": "Lee v Ho", "body": "The appeal was dismissed.", "sum": "HK$1,000"},
    ]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    cfg = DocumentsImportParams(
        format="jsonl",
        path="cases.jsonl",
        mapping={"name": "title", "body": "text", "sum": "fields.award"},
        field_kinds={"award": "exact"},
        field_types={"award": "money"},
        id_prefix="hk-",
    )
    a, b = load_documents(cfg, tmp_path, set())
    assert (a.id, b.id) == ("hk-0001", "hk-0002")
    assert a.source == "cases.jsonl" and a.case_type == "imported" and a.date == ""
    assert a.sections == [
        Section("s1", "", "The tenant owed rent."),
        Section("s2", "", "The tribunal ordered payment of HK$48,000."),
    ]
    assert a.field_kinds == {"award": "exact"}
    assert paragraphs("a\nb") == ["a", "b"] and paragraphs("a\nb\n\nc") == ["a\nb", "c"]


def test_one_document_per_party_becomes_one_decision_with_parties(tmp_path):
    text = "经查明，张某、王某共同买入股票。我会决定：没收张某违法所得10万元，没收王某违法所得5万元。"
    docs = [
        {
            "案号": "CSRC-2013-1",
            "标题": "处罚决定书",
            "全文": text,
            "当事人": "张某",
            "违法所得": "10万元",
            "日期": "2013年1月5日",
        },
        {
            "案号": "CSRC-2013-1",
            "标题": "处罚决定书",
            "全文": text,
            "当事人": "王某",
            "违法所得": "5万元",
            "日期": "2013年1月5日",
        },
    ]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs))
    mapping = {
        "案号": "id",
        "标题": "title",
        "全文": "text",
        "当事人": "party",
        "违法所得": "fields.gains",
        "日期": "fields.date",
    }
    cfg = DocumentsImportParams(
        format="jsonl",
        path="p.jsonl",
        mapping=mapping,
        language="zh",
        field_types={"gains": "money", "date": "date"},
    )
    [decision] = load_documents(cfg, tmp_path, set())
    assert decision.id == "doc-CSRC-2013-1"
    assert decision.fields == {"date": "2013年1月5日"}
    assert [(p.name, p.fields) for p in decision.parties] == [
        ("张某", {"gains": "10万元"}),
        ("王某", {"gains": "5万元"}),
    ]
    assert decision.field_types == {"gains": "money", "date": "date"}
    assert decision.field_kinds == {"gains": "exact", "date": "exact"}
    docs[1]["当事人"] = "张某"
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs))
    with pytest.raises(InputError, match="repeated party name '张某'") as info:
        load_documents(cfg, tmp_path, set())
    assert info.value.field == "当事人" and info.value.line == 2


def test_missing_mapped_key_names_file_and_key(cases):
    mapping = dict(MAPPING, **{"标 题": "title"})
    del mapping["标题"]
    with pytest.raises(InputError) as info:
        load_documents(zh_cfg(mapping=mapping), cases, set())
    assert info.value.path.endswith("zh_cases/case1.json")
    assert info.value.field == "标 题"
    assert "mapped key '标 题' (-> title) is missing" in str(info.value)


def test_jsonl_error_names_the_line_and_wrong_type(tmp_path):
    (tmp_path / "c.jsonl").write_text('{"t": "A v B", "x": "Text."}\n\n{"t": ["A"], "x": "Text."}\n')
    cfg = DocumentsImportParams(format="jsonl", path="c.jsonl", mapping={"t": "title", "x": "text"})
    with pytest.raises(InputError) as info:
        load_documents(cfg, tmp_path, set())
    assert (info.value.line, info.value.field) == (3, "t")
    assert "expected a string, got list" in str(info.value)


def test_duplicate_decision_id_is_named(cases):
    doc = json.loads((cases / "zh_cases" / "case2.json").read_text())
    (cases / "zh_cases" / "case3.json").write_text(json.dumps(doc, ensure_ascii=False))
    with pytest.raises(InputError) as info:
        load_documents(zh_cfg(), cases, set())
    assert info.value.path.endswith("case3.json") and info.value.field == "案号"
    assert "duplicate id 'doc-CSRC-2012-7'" in str(info.value) and "case2.json" in str(info.value)


def test_mapping_problems_stop_before_reading(cases):
    with pytest.raises(ParamsError, match="decisions.documents.mapping.x: unknown target 'headline'"):
        load_documents(zh_cfg(mapping={"x": "headline"}), cases, set())
    with pytest.raises(ParamsError, match="field 'party' needs a kind"):
        load_documents(zh_cfg(field_types={}), cases, set())
    with pytest.raises(InputError, match="declared 'en' but 100% of the text is Chinese"):
        load_documents(zh_cfg(language="en"), cases, set())


def test_decisions_stage_reads_a_folder_import_path_and_mapped_documents(cases, monkeypatch):
    monkeypatch.chdir(cases)
    (cases / "records").mkdir()
    user = {
        "id": "u1",
        "source": "user",
        "language": "en",
        "case_type": "contract",
        "title": "A v B",
        "date": "",
        "text": "The claim failed.",
        "sections": [{"id": "1", "heading": "", "text": "The claim failed."}],
    }
    (cases / "records" / "a.jsonl").write_text(json.dumps(user) + "\n")
    raw = yaml.safe_load((ROOT / "params" / "smoke.yaml").read_text())
    raw["decisions"].update(synthetic=False, import_path="records")
    raw["decisions"]["documents"] = dataclasses.asdict(zh_cfg())
    (cases / "params.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True))
    decisions_stage.main(["--params", "params.yaml"])
    out = read_records(cases / "data/raw/decisions.jsonl", Decision)
    assert [d.id for d in out] == ["u1", "doc-he5a03fa52403", "doc-CSRC-2012-7"]


# ------------------------------------------------------------------------------------- QA sets
def test_chinese_squad_answerable_impossible_and_yes_no():
    passages, qas = load_squad(
        QaImportParams(format="squad", path=str(FIXTURES / "zh_squad.json"), language="zh")
    )
    context = (
        "经审理查明，王某于2019年7月入职某物流公司担任仓库管理员，月工资8,500元，公司始终未与其签订书面劳动合同。"
        "法院判决某物流公司向王某支付二倍工资差额93,500元。"
    )
    assert passages == [Passage("qa-a1/p1", "qa-a1", "qa-a1", "王某劳动争议案", context, 0)]
    assert qas == [
        QA(
            "qa-zh-1",
            "法院判令公司付给王某多少钱？",
            "93,500元",
            "qa-a1/p1",
            "qa-a1",
            "factual",
            ["93,500元"],
            [],
        ),
        QA("qa-zh-2", "王某的代理律师是谁？", "", "qa-a1/p1", "qa-a1", "factual", [], []),
        # It names no party of its own ("公司", "法院"): made standalone with its judgment's title (standalone:
        # prefix, the default; docs/method.md §1).
        QA("qa-zh-3", "在《王某劳动争议案》中，法院有没有判令公司支付二倍工资差额？", "是", "qa-a1/p1", "qa-a1", "yesno",
           ["Yes"], []),
    ]


def test_english_squad_yesno_field_and_paragraph_families():
    cfg = QaImportParams(
        format="squad", path=str(FIXTURES / "en_squad.json"), id_prefix="sq-", family="paragraph"
    )
    passages, qas = load_squad(cfg)
    assert [(p.id, p.family, p.heading) for p in passages] == [("sq-a1/p1", "sq-a1/p1", "Chan v Wong")]
    assert [(q.id, q.kind, q.answer, q.facts, q.family) for q in qas] == [
        ("sq-en-1", "factual", "HK$48,000", ["HK$48,000"], "sq-a1/p1"),
        ("sq-en-2", "factual", "", [], "sq-a1/p1"),
        ("sq-en-3", "yesno", "No", ["No"], "sq-a1/p1"),
    ]


def _squad(tmp_path: Path, edit) -> Path:
    obj = json.loads((FIXTURES / "zh_squad.json").read_text())
    edit(obj)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(obj, ensure_ascii=False))
    return path


def test_bad_answer_span_names_the_question(tmp_path):
    def shift(obj):
        obj["data"][0]["paragraphs"][0]["qas"][0]["answers"][0]["answer_start"] = 49

    path = _squad(tmp_path, shift)
    with pytest.raises(InputError) as info:
        load_squad(QaImportParams(format="squad", path=str(path), language="zh"))
    assert info.value.field == "data[0].paragraphs[0].qas[0].answers[0].answer_start"
    assert "question 'zh-1': answer '93,500元' is not at 49" in str(info.value)


def test_duplicate_question_id_and_impossible_with_answer(tmp_path):
    def dup(obj):
        obj["data"][0]["paragraphs"][0]["qas"][2]["id"] = "zh-1"

    with pytest.raises(
        InputError, match=r"duplicate question id 'zh-1' \(first at data\[0\].paragraphs\[0\].qas\[0\]\)"
    ):
        load_squad(QaImportParams(format="squad", path=str(_squad(tmp_path, dup)), language="zh"))

    def contradict(obj):
        obj["data"][0]["paragraphs"][0]["qas"][0]["is_impossible"] = True

    with pytest.raises(InputError, match="question 'zh-1' is_impossible but has an answer"):
        load_squad(QaImportParams(format="squad", path=str(_squad(tmp_path, contradict)), language="zh"))


def test_impossible_question_gets_only_unanswerable_contexts():
    passages = [
        Passage(f"qa-a1/p{i}", "qa-a1", f"qa-a1/p{i}", "", f"Paragraph number {i} text.", i)
        for i in range(1, 5)
    ]
    qas = [
        QA("ok", "Q?", "A", "qa-a1/p1", "qa-a1/p1", "factual", ["A"], []),
        QA("none", "Q2?", "", "qa-a1/p2", "qa-a1/p2", "factual", [], []),
    ]
    variants = ["gold_only", "gold_plus_random", "random_context", "gold_surrounding"]
    contexts = {c.id: c for c in build_contexts(passages, qas, variants, 2, 13, {}, 3)}
    assert [
        (c.answerable, c.gold_slot is not None) for k, c in sorted(contexts.items()) if k.startswith("ok/")
    ] == [(True, True), (True, True), (True, True), (False, False)]
    # The paragraph the question was written against is still shown, now as an unanswerable context.
    assert contexts["none/gold_only"] == Context(
        "none/gold_only", "none", "gold_only", False, ["qa-a1/p2"], None
    )
    plus = contexts["none/gold_plus_random"]
    assert not plus.answerable and plus.gold_slot is None and "qa-a1/p2" in plus.passage_ids
    assert not contexts["none/random_context"].answerable
    assert "none/gold_surrounding" not in contexts


def test_corpus_stage_appends_the_imported_set(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    raw = yaml.safe_load((ROOT / "params" / "smoke.yaml").read_text())
    raw["decisions"]["n_decisions"] = 3
    raw["corpus"]["qa_import"] = {
        "format": "squad",
        "path": str(FIXTURES / "zh_squad.json"),
        "language": "zh",
    }
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True))
    decisions_stage.main(["--params", "params.yaml"])
    corpus_stage.main(["--params", "params.yaml"])
    passages = read_records(tmp_path / "data/interim/passages.jsonl", Passage)
    qas = read_records(tmp_path / "data/interim/qa.jsonl", QA)
    assert passages[-1].id == "qa-a1/p1"
    assert [q.id for q in qas if q.id.startswith("qa-")] == ["qa-zh-1", "qa-zh-2", "qa-zh-3"]


# ---------------------------------------------------------------------------------- candidates
@pytest.fixture()
def index() -> ContextIndex:
    passages = {
        "d/1": Passage("d/1", "d", "d", "", "张某获利4,665,091.79元。", 0),
        "d/2": Passage("d/2", "d", "d", "", "The claim failed.", 1),
    }
    qas = {"q": QA("q", "张某获利多少？", "4,665,091.79元", "d/1", "d", "factual", ["4,665,091.79元"], [])}
    contexts = [
        Context("q/gold_only", "q", "gold_only", True, ["d/1"], 0),
        Context("q/gold_plus_random", "q", "gold_plus_random", True, ["d/2", "d/1"], 1),
    ]
    return ContextIndex(contexts, qas, passages)


def test_outside_candidates_by_id_passage_ids_and_text_with_grades(tmp_path, index):
    lines = [
        {"context_id": "q/gold_plus_random", "model": "gpt-4o", "response": "获利4,665,091.79元。"},
        {
            "question": "张某获利多少？",
            "passage_ids": ["d/2", "d/1"],
            "model": "human",
            "response": "",
            "id": "h1",
        },
        {
            "question": "张某获利多少？",
            "context": "张某获利4,665,091.79元。 ",
            "model": "qwen",
            "response": "4,665,091.79元",
            "finish_reason": "length",
            "labels": {
                "rule:strict": {
                    "behaviour": "attempted",
                    "faithfulness": "fully_supported",
                    "correctness": "correct",
                    "completeness": "complete",
                }
            },
        },
    ]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    a, b, c = load_candidates(path, index, {"q/gold_only/offline:terse"})
    assert (a.id, a.context_id, a.generator, a.text, a.finish_reason) == (
        "q/gold_plus_random/import:gpt-4o",
        "q/gold_plus_random",
        "import:gpt-4o",
        "获利4,665,091.79元。",
        "stop",
    )
    assert a.meta == {"imported": "answers.jsonl", "line": 1}
    assert (b.id, b.context_id, b.text) == ("h1", "q/gold_plus_random", "")
    assert (c.id, c.context_id, c.finish_reason) == ("q/gold_only/import:qwen", "q/gold_only", "length")
    labels = imported_labels([a, b, c], "rule:strict", ["rule:strict", "rule:lenient"])
    assert list(labels) == ["q/gold_only/import:qwen"]
    label = labels["q/gold_only/import:qwen"]
    assert (
        label.judge,
        label.behaviour,
        label.faithfulness,
        label.correctness,
        label.completeness,
        label.status,
    ) == ("rule:strict", "attempted", "fully_supported", "correct", "complete", "ok")
    assert imported_labels([c], "rule:lenient", ["rule:strict", "rule:lenient"]) == {}
    with pytest.raises(InputError, match="no judge 'rule:strict' in judge.judges") as info:
        imported_labels([c], "rule:lenient", ["rule:lenient"])
    assert (info.value.path, info.value.line, info.value.field) == ("answers.jsonl", 3, "labels.rule:strict")


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ({"context_id": "q/nope", "model": "m", "response": "x"}, "context_id", "unknown context 'q/nope'"),
        (
            {"question": "张某获利多少？", "context": "别的文本", "model": "m", "response": "x"},
            "context",
            "no context",
        ),
        (
            {
                "context_id": "q/gold_only",
                "model": "m",
                "response": "x",
                "labels": {"j": {"behaviour": "maybe"}},
            },
            "labels.j.behaviour",
            "expected one of",
        ),
        (
            {
                "context_id": "q/gold_only",
                "model": "terse",
                "response": "x",
                "id": "q/gold_only/offline:terse",
            },
            "id",
            "duplicate candidate id",
        ),
        ({"context_id": "q/gold_only", "model": "m", "answer": "x"}, "answer", "unknown key"),
    ],
)
def test_bad_outside_candidate_names_line_and_key(tmp_path, index, line, field, message):
    path = tmp_path / "answers.jsonl"
    path.write_text(
        json.dumps({"context_id": "q/gold_only", "model": "ok", "response": "y"})
        + "\n"
        + json.dumps(line, ensure_ascii=False)
        + "\n"
    )
    with pytest.raises(InputError) as info:
        load_candidates(path, index, {"q/gold_only/offline:terse"})
    assert (info.value.line, info.value.field) == (2, field)
    assert message in str(info.value)


def test_records_format_reads_a_folder_of_decision_jsonl_and_checks_ids(tmp_path):
    record = {
        "id": "u1",
        "source": "user",
        "language": "zh",
        "case_type": "penalty",
        "title": "处罚决定书",
        "date": "",
        "text": "我会决定没收违法所得。",
        "sections": [{"id": "1", "heading": "决定", "text": "我会决定没收违法所得。"}],
    }
    (tmp_path / "recs").mkdir()
    (tmp_path / "recs" / "b.jsonl").write_text(json.dumps(dict(record, id="u2"), ensure_ascii=False) + "\n")
    (tmp_path / "recs" / "a.jsonl").write_text(json.dumps(record, ensure_ascii=False) + "\n")
    cfg = DocumentsImportParams(format="records", path="recs")
    assert [d.id for d in load_documents(cfg, tmp_path, set())] == ["u1", "u2"]
    with pytest.raises(InputError, match="id 'u2' is already used") as info:
        load_documents(cfg, tmp_path, {"u2"})
    assert info.value.path.endswith("b.jsonl") and (info.value.line, info.value.field) == (1, "id")
