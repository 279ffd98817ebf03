"""The messy profile (params/messy.yaml) through every stage: only Chinese data in its published shape, no
synthetic decisions. A folder of nested JSON documents, one per party (tests/fixtures/importers/messy/
decisions_folder), and a SQuAD-2.0-style file with broken questions (squad_zh_messy.json), both imported
with `on_invalid: skip`. The expected values below were counted by hand from the fixture files."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, make_project_copy, run

from pipeline import language
from pipeline.importers import Skips
from pipeline.importers.documents import load_documents
from pipeline.importers.squad import load_squad
from pipeline.params import load

MESSY = Path("tests/fixtures/importers/messy")
FOLDER = MESSY / "decisions_folder"
SQUAD = MESSY / "squad_zh_messy.json"

# decisions_folder: 11 files, 14 documents. Left out: two empty full texts (何某's whole case; 郑某's party
# document of the Shanghai judgment), a missing case number (吕某), a null party block (施某), a fine written
# as an object (孔某), an English translation declared zh (曹某), a string among the list file's documents
# and 吴某 repeated in that list.
DECISION_SKIPS = {"empty_value": 2, "language_mismatch": 1, "missing_key": 2, "not_an_object": 1,
                  "repeated_party": 1, "wrong_type": 1}
# squad_zh_messy.json: 23 questions in 5 paragraphs of 3 articles, 12 of them kept. Left out: s-6 and s-11
# (impossible, "true" as a string for s-11, yet answered), s-7 and c-7 (spans not at answer_start), the empty
# context (its two questions with it), s-12 (no answer, not impossible), the second s-8, c-5 (is_impossible
# "maybe"), c-6 (no question), the English paragraph (with c-8) and the article without paragraphs.
QA_SKIPS = {"answer_span_mismatch": 2, "duplicate_id": 1, "empty_context": 1, "empty_question": 1,
            "impossible_with_answer": 2, "language_mismatch": 1, "missing_key": 1, "no_answer": 1,
            "wrong_type": 1}
SQUAD_KEPT = ["qa-c-1", "qa-c-2", "qa-c-3", "qa-c-4", "qa-s-1", "qa-s-10", "qa-s-2", "qa-s-3", "qa-s-4",
              "qa-s-5", "qa-s-8", "qa-s-9"]
SQUAD_IMPOSSIBLE = {"qa-s-5", "qa-c-4"}
SQUAD_YESNO = {"qa-s-4", "qa-s-10"}  # answer text "是"; yesno_answer "YES"
# Case number -> (title, date, {party: own fields}, fields every kept party shares).
DECISIONS = {
    "证监罚字〔2016〕31号": ("孙某、钱某内幕交易案", "2016年9月12日",
                          {"钱某": {"罚款金额": "45万元", "没收违法所得": "150,000.00元"},
                           "孙某": {"罚款金额": "1,836,420.00元", "没收违法所得": "612,140.00元"}}, {}),
    # 冯某 has no 没收违法所得 (an optional key); the third and fourth list items are left out.
    "证监罚字〔2017〕21号": ("吴某、冯某操纵证券市场案", "2017年6月2日",
                          {"吴某": {"罚款金额": "6,830,452.74元", "没收违法所得": "3,415,226.37元"},
                           "冯某": {"罚款金额": "60万元"}}, {}),
    # 郑某's document has an empty full text: 周某某 is the one party left, whose fields are the decision's.
    "（2019）沪01刑初28号": ("周某某、郑某内幕交易罪一审刑事判决书", "2019年11月26日",
                         {"周某某": {}}, {"罚款金额": "2,200,000元"}),
    "京市监罚〔2020〕86号": ("某餐饮管理有限公司虚假宣传案", "2020年8月17日",
                         {"某餐饮管理有限公司": {}}, {"罚款金额": "20万元", "没收违法所得": "18,650.00元"}),
}


def doc_id(case_number: str) -> str:
    """The id a Chinese case number gets (not a safe id: params id_prefix + "h" + 12 hex of its SHA-1)."""
    return "doc-h" + hashlib.sha1(case_number.encode("utf-8")).hexdigest()[:12]


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# ----------------------------------------------------------------------------------------- fast
def test_the_profile_imports_the_messy_fixtures_with_the_counted_skips():
    """The importers alone on the profile's blocks (seconds, without DVC): what the slow run starts from."""
    p = load(ROOT / "params" / "messy.yaml")
    assert not p.decisions.synthetic and p.decisions.documents.on_invalid == p.corpus.qa_import.on_invalid == "skip"
    assert (p.decisions.documents.path, p.corpus.qa_import.path) == (FOLDER.as_posix(), SQUAD.as_posix())
    skips = Skips("decisions.documents", "skip")
    decisions = load_documents(p.decisions.documents, ROOT, set(), skips)
    assert sorted(d.id for d in decisions) == sorted(doc_id(n) for n in DECISIONS)
    assert skips.counts == DECISION_SKIPS
    skips = Skips("corpus.qa_import", "skip")
    _, qas = load_squad(p.corpus.qa_import, ROOT, skips)
    assert sorted(q.id for q in qas) == SQUAD_KEPT and skips.counts == QA_SKIPS


# ---------------------------------------------------------------------------------------- stages
@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """The project copy after one `dvc repro` of every stage on the messy profile."""
    base = tmp_path_factory.mktemp("messy")
    repo = make_project_copy(base / "repo", base / "remote")
    shutil.copytree(ROOT / MESSY, repo / MESSY)
    shutil.copy2(ROOT / "params" / "messy.yaml", repo / "params.yaml")
    run(["dvc", "repro"], repo)
    return repo


slow = pytest.mark.slow


@slow
def test_skipped_records_by_reason_beside_each_import(repo):
    (documents,) = json.loads((repo / "data/raw/decisions_skipped.json").read_text(encoding="utf-8"))["imports"]
    assert (documents["import"], documents["on_invalid"]) == ("decisions.documents", "skip")
    assert documents["by_reason"] == DECISION_SKIPS and documents["skipped"] == 8
    first = documents["first"]
    assert [(f["file"], f["path"]) for f in first["empty_value"]] == [
        (f"{FOLDER}/2018-09_he.json", "法律文书原文"), (f"{FOLDER}/2019-shanghai-28_zheng.json", "法律文书原文")]
    assert [(f["file"], f["path"]) for f in first["missing_key"]] == [
        (f"{FOLDER}/2018-14_lv.json", "案件信息.案件编号或字号"),
        (f"{FOLDER}/2018-15_shi.json", "当事人信息.当事人基础信息.姓名")]
    assert (first["not_an_object"][0]["path"], first["repeated_party"][0]["path"]) == (
        "[2]", "[3].当事人信息.当事人基础信息.姓名")
    assert first["wrong_type"][0]["path"] == "处罚信息.罚款金额"

    (squad,) = json.loads((repo / "data/interim/qa_skipped.json").read_text(encoding="utf-8"))["imports"]
    assert (squad["import"], squad["by_reason"], squad["skipped"]) == ("corpus.qa_import", QA_SKIPS, 11)
    first = squad["first"]
    assert [f["path"] for f in first["impossible_with_answer"]] == [
        "data[0].paragraphs[0].qas[5].answers", "data[0].paragraphs[2].qas[3].answers"]
    assert [f["path"] for f in first["answer_span_mismatch"]] == [
        "data[0].paragraphs[0].qas[6].answers[0].answer_start", "data[1].paragraphs[0].qas[6].answers[0].answer_start"]
    assert first["empty_context"][0]["path"] == "data[0].paragraphs[1].context"
    assert all(f["file"] == SQUAD.as_posix() and f["line"] is None for fs in first.values() for f in fs)


@slow
def test_the_data_report_lists_the_skipped_records(repo):
    details = json.loads((repo / "reports/data_details.json").read_text(encoding="utf-8"))
    assert {s["import"]: s["by_reason"] for s in details["imports"]} == {
        "decisions.documents": DECISION_SKIPS, "corpus.qa_import": QA_SKIPS}
    text = (repo / "reports/data.md").read_text(encoding="utf-8")
    assert "## Imported records left out (on_invalid)" in text
    assert (f"| decisions.documents | skip | missing_key | 2 | {FOLDER}/2018-14_lv.json 案件信息.案件编号或字号; "
            f"{FOLDER}/2018-15_shi.json 当事人信息.当事人基础信息.姓名 |") in text
    assert f"| corpus.qa_import | skip | empty_context | 1 | {SQUAD} data[0].paragraphs[1].context |" in text


@slow
def test_party_documents_become_one_decision_with_their_nested_fields(repo):
    decisions = {d["id"]: d for d in read_jsonl(repo / "data/raw/decisions.jsonl")}
    assert sorted(decisions) == sorted(doc_id(n) for n in DECISIONS)
    for number, (title, date, parties, shared) in DECISIONS.items():
        d = decisions[doc_id(number)]
        assert (d["title"], d["date"], d["language"], d["source"]) == (title, date, "zh", "messy")
        assert {p["name"]: p["fields"] for p in d["parties"]} == parties and d["fields"] == shared
        assert [p["name"] for p in d["parties"]] == list(parties)  # file order: qian before sun
        # Every mapped field is typed money, hence exact (docs/method.md §1).
        names = set(shared).union(*parties.values())
        assert d["field_types"] == dict.fromkeys(names, "money") and d["field_kinds"] == dict.fromkeys(names, "exact")
        # The full text of the first kept document, split into its lines as sections.
        assert d["sections"][0]["text"] == d["text"].split("\n")[0] and len(d["sections"]) == d["text"].count("\n") + 1
    judgment = decisions[doc_id("（2019）沪01刑初28号")]
    assert "并处罚金人民币2,200,000元" in judgment["text"]


@slow
def test_chinese_questions_reach_every_later_stage(repo):
    qas = {q["id"]: q for q in read_jsonl(repo / "data/interim/qa.jsonl")}
    assert sorted(i for i in qas if i.startswith("qa-")) == SQUAD_KEPT
    assert {i for i, q in qas.items() if i.startswith("qa-") and q["answer"] == ""} == SQUAD_IMPOSSIBLE
    assert {i for i, q in qas.items() if i.startswith("qa-") and q["kind"] == "yesno"} == SQUAD_YESNO
    assert qas["qa-s-1"]["answer"] == "3.2亿元" and qas["qa-c-1"]["answer"] == "人民币46,300元"
    # Questions of the mapped decisions: every decision gives some, in Chinese, about its own values.
    generated = [q for i, q in qas.items() if i.startswith("doc-")]
    assert {q["id"].rsplit("/", 1)[0] for q in generated} == {doc_id(n) for n in DECISIONS}
    assert all(language.detect(q["question"]) == "zh" for q in qas.values())
    assert "根据《吴某、冯某操纵证券市场案》，吴某的罚款金额是多少？" in {q["question"] for q in generated}
    # The full texts have no headings: no rule question asks about "the part headed “”".
    assert not any("“”" in q["question"] for q in generated)

    contexts = read_jsonl(repo / "data/interim/contexts.jsonl")
    assert {c["qa_id"] for c in contexts} == set(qas)
    assert all(not c["answerable"] for c in contexts if c["qa_id"] in SQUAD_IMPOSSIBLE)
    gold = next(c for c in contexts if c["id"] == "qa-s-1/gold_only")
    assert gold["answerable"] and gold["passage_ids"] == ["qa-a1/p1"]

    candidates = read_jsonl(repo / "data/interim/candidates.jsonl")
    refusals = [c for c in candidates if c["text"].endswith("没有足够的信息来回答这个问题。")]
    assert len(refusals) > 50 and {c["context_id"].rsplit("/", 1)[0] for c in candidates} == set(qas)
    assert any("3.2亿元" in c["text"] for c in candidates if c["context_id"] == "qa-s-1/gold_only")

    for corpus in ("pairs", "pairs_aug"):
        pairs = [p for s in ("train", "val", "test") for p in read_jsonl(repo / f"data/processed/{corpus}/{s}.jsonl")]
        assert pairs and {p["qa_id"] for p in pairs} <= set(qas)
        assert all(qas[p["qa_id"]]["question"] in p["prompt"] for p in pairs)
        assert {p["split"] for p in pairs} == {"train", "val", "test"}
        assert any(p["qa_id"] in SQUAD_IMPOSSIBLE and p["dimension"] == "refusal_unanswerable" for p in pairs)
    assert any(p["augmented"] for s in ("train", "val", "test")
               for p in read_jsonl(repo / f"data/processed/pairs_aug/{s}.jsonl"))


@slow
def test_every_stage_ran_and_wrote_its_outputs(repo):
    """dvc.lock holds every stage of dvc.yaml (train_* once per run of the profile), each output is there and
    not empty but two: IRAC grades (irac.judge is off) and IRAC's embedding cache (every field is exact, so
    nothing is embedded)."""
    lock = yaml.safe_load((repo / "dvc.lock").read_text(encoding="utf-8"))["stages"]
    declared = yaml.safe_load((repo / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    runs = ["train_dpo@pairs_aug-s0", "train_sft@pairs_aug-s0"]
    assert sorted(lock) == sorted([s for s in declared if not s.startswith("train_")] + runs)
    for stage in lock.values():
        for out in stage["outs"]:
            path = repo / out["path"]
            assert path.exists(), out["path"]
            if out["path"] in ("data/irac/grades.jsonl", "data/cache/irac/embeddings"):
                continue
            if path.is_file():
                assert path.stat().st_size > 0, out["path"]
            else:
                assert any(f.is_file() and f.stat().st_size for f in path.rglob("*")), out["path"]
    assert "up to date" in run(["dvc", "status"], repo).stdout


@slow
def test_reports_are_built_on_the_chinese_data(repo):
    report = (repo / "reports/report.md").read_text(encoding="utf-8")
    assert "dpo-pairs_aug-s0" in report and "sft-pairs_aug-s0" in report
    metrics = json.loads((repo / "reports/metrics.json").read_text(encoding="utf-8"))
    assert metrics  # the headline accuracy of each model
    by = json.loads((repo / "reports/data_details.json").read_text(encoding="utf-8"))["by_language"]
    qas = read_jsonl(repo / "data/interim/qa.jsonl")
    assert by["questions"] == {"zh": len(qas)}
    # IRAC on the merged decisions: a case per party (2 + 2 + 1 + 1), a reference field per filled value.
    irac = json.loads((repo / "reports/irac_details.json").read_text(encoding="utf-8"))
    assert irac["languages"] == {"zh": 4}
    zh = irac["fields"]["rule/standard"]["by_language"]["zh"]
    assert (zh["cases"], zh["reference_fields"]) == (6, 10)
    explorer = "".join(f.read_text(encoding="utf-8") for f in (repo / "reports/explorer").glob("*.js"))
    assert "郭某" in explorer and "提供的段落没有足够的信息来回答这个问题。" in explorer
