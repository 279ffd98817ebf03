"""The reliability promise for inputs that are well-formed but wrong for the run (issue 9, continued).

Empty imports, outside grades for a judge that is not configured, unsafe outside pair ids, adapters of
runs no longer in train.runs, and corpora of which no pair fits score.max_length: each stops the stage
that reads it with one message naming the place and what to do, and leaves earlier outputs as they
were; the report leaves out what it cannot report instead of crashing.
"""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path

import pytest
import yaml
from test_reliability_params import raw_with, snapshot

from pipeline.importers.candidates import ContextIndex, load_candidates
from pipeline.importers.checks import load_records
from pipeline.importers.documents import load_documents
from pipeline.importers.squad import load_squad
from pipeline.io import InputError, write_records
from pipeline.params import DocumentsImportParams, ParamsError, QaImportParams
from pipeline.records import QA, Context, Passage, Score
from pipeline.training.data import load_external

pytestmark = pytest.mark.reliability

ROOT = Path(__file__).resolve().parents[1]
SMOKE = yaml.safe_load((ROOT / "params" / "smoke.yaml").read_text(encoding="utf-8"))
PREVIOUS = b"previous output\n"


def project(root: Path, overrides: dict, files: dict[str, bytes | None]) -> Path:
    """params.yaml of the smoke profile with `overrides`, and `files`."""
    (root / "params.yaml").write_text(yaml.safe_dump(raw_with(overrides), allow_unicode=True), encoding="utf-8")
    return put(root, files)


def put(root: Path, files: dict[str, bytes | None]) -> Path:
    """Each file under `root` with its bytes (None: an empty folder)."""
    for name, data in files.items():
        path = root / name
        if data is None:
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    return root


def stops(stage: str, argv: list[str]) -> str:
    """The one line a stage's main stops with: its own SystemExit, or what pipeline.stages.run prints."""
    module = importlib.import_module(f"pipeline.stages.{stage}")
    with pytest.raises((InputError, ParamsError, SystemExit)) as info:
        module.main(argv)
    message = str(info.value.code if isinstance(info.value, SystemExit) else info.value)
    assert "\n" not in message, message
    return message if message.startswith(f"{stage}: error: ") else f"{stage}: error: {message}"


def lines(*records: dict) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)


def outside(i: int, **changes) -> dict:
    return {"id": f"o{i}", "prompt": f"Is notice of {i} weeks needed?", "chosen": "Yes, in writing.",
            "rejected": "No.", **changes}


# ------------------------------------------------------------------------------------ empty imports
MAPPING = {"headline": "title", "body": "text"}
# (name, files under tmp_path, the call, what the message must say)
EMPTY = [
    ("import_path empty file", {"x.jsonl": b""}, lambda r: load_records(r / "x.jsonl", set()),
     "x.jsonl: no records (decisions.import_path names an empty file)"),
    ("import_path folder of empty files", {"recs/a.jsonl": b"\n\n"}, lambda r: load_records(r / "recs", set()),
     "recs: no records (decisions.import_path names a folder whose files hold no records)"),
    ("documents records empty file", {"x.jsonl": b""},
     lambda r: load_documents(DocumentsImportParams(format="records", path="x.jsonl"), r, set()),
     "x.jsonl: no records (decisions.documents.path names an empty file)"),
    ("documents jsonl empty file", {"x.jsonl": b"  \n"},
     lambda r: load_documents(DocumentsImportParams(format="jsonl", path="x.jsonl", mapping=MAPPING), r, set()),
     "x.jsonl: no records (decisions.documents.path names an empty file)"),
    ("documents json_folder without json", {"docs/notes.txt": b"x"},
     lambda r: load_documents(DocumentsImportParams(format="json_folder", path="docs", mapping=MAPPING), r, set()),
     "docs: a folder with no *.json files (decisions.documents.path"),
    ("documents json_folder of empty lists", {"docs/a.json": b"[]"},
     lambda r: load_documents(DocumentsImportParams(format="json_folder", path="docs", mapping=MAPPING), r, set()),
     "docs: no records (decisions.documents.path names a folder whose files hold no records)"),
    ("squad empty file", {"qa.json": b""}, lambda r: load_squad(QaImportParams(format="squad", path="qa.json"), r),
     "qa.json: no records (an empty file; corpus.qa_import.path"),
    ("squad no articles", {"qa.json": b'{"data": []}'},
     lambda r: load_squad(QaImportParams(format="squad", path="qa.json"), r),
     "qa.json: no records (corpus.qa_import.path names a file that holds no records)"),
    ("squad folder without json", {"qa": None}, lambda r: load_squad(QaImportParams(format="squad", path="qa"), r),
     "qa: a folder with no *.json files (corpus.qa_import.path"),
    ("import_candidates empty file", {"answers.jsonl": b""},
     lambda r: load_candidates(r / "answers.jsonl", ContextIndex([], {}, {}), set()),
     "answers.jsonl: no records (generate.import_candidates.path names an empty file)"),
    ("external_pairs empty file", {"ext.jsonl": b"\n"}, lambda r: load_external(r / "ext.jsonl"),
     "ext.jsonl: no records (train.external_pairs.path names an empty file)"),
    ("external_pairs folder", {"ext": None}, lambda r: load_external(r / "ext"),
     "ext: is a folder; train.external_pairs.path names one .jsonl file"),
]


@pytest.mark.parametrize(("name", "files", "call", "says"), EMPTY, ids=[c[0] for c in EMPTY])
def test_empty_import_stops_naming_path_and_key(tmp_path, name, files, call, says):
    put(tmp_path, files)
    with pytest.raises(InputError) as info:
        call(tmp_path)
    assert str(info.value).startswith(str(tmp_path)) and says in str(info.value), str(info.value)


def test_empty_decision_import_stops_the_decisions_stage(tmp_path, monkeypatch):
    root = project(tmp_path, {"decisions.n_decisions": 3, "decisions.import_path": "data/external/mine.jsonl"},
                   {"data/external/mine.jsonl": b"", "data/raw/decisions.jsonl": PREVIOUS})
    monkeypatch.chdir(root)
    before = snapshot(root)
    assert stops("decisions", []) == ("decisions: error: data/external/mine.jsonl: no records (decisions.import_path "
                                      "names an empty file)")
    assert snapshot(root) == before


def test_empty_qa_import_stops_the_corpus_stage(tmp_path, monkeypatch):
    from pipeline.synth import generate_decisions

    cfg = {"format": "squad", "path": "data/external/qa", "language": "en", "id_prefix": "qa-", "family": "article"}
    root = project(tmp_path, {"corpus.qa_import": cfg}, {"data/external/qa/empty.json": b"{\"data\": []}\n",
                                                         "data/interim/passages.jsonl": PREVIOUS})
    write_records(root / "data/raw/decisions.jsonl", generate_decisions(2, SMOKE["decisions"]["case_mix"], 1))
    monkeypatch.chdir(root)
    before = snapshot(root)
    assert stops("corpus", []) == ("corpus: error: data/external/qa: no records (corpus.qa_import.path names a "
                                   "folder whose files hold no records)")
    assert snapshot(root) == before


# ---------------------------------------------------------------------- grades for an unknown judge
GRADES = {"behaviour": "attempted", "faithfulness": "fully_supported", "correctness": "correct",
          "completeness": "complete"}


def _interim(root: Path, labels: dict) -> None:
    """data/interim of one question, one context and one outside answer graded as `labels`."""
    passages = [Passage("d/1", "d", "d", "Notice", "The tenant must give four weeks notice in writing.", 0)]
    qas = [QA("q", "How much notice must the tenant give?", "Four weeks.", "d/1", "d", "factual", ["four weeks"], [])]
    contexts = [Context("q/gold_only", "q", "gold_only", True, ["d/1"], 0)]
    answers = root / "answers.jsonl"
    answers.write_bytes(lines({"context_id": "q/gold_only", "model": "human", "response": "Four weeks, in writing.",
                               "labels": labels}))
    index = ContextIndex(contexts, {q.id: q for q in qas}, {p.id: p for p in passages})
    for name, records in (("passages", passages), ("qa", qas), ("contexts", contexts),
                          ("candidates", load_candidates(answers, index, set()))):
        write_records(root / "data/interim" / f"{name}.jsonl", records)


def test_grades_for_a_judge_not_in_judge_judges_stop_the_judge_stage(tmp_path, monkeypatch):
    root = project(tmp_path, {}, {"data/interim/labels/rule_strict.jsonl": PREVIOUS})
    _interim(root, {"rule:strict": GRADES, "rule:strcit": GRADES})
    monkeypatch.chdir(root)
    before = snapshot(root)
    assert stops("judge", []) == ("judge: error: answers.jsonl, line 1, field 'labels.rule:strcit': no judge "
                                  "'rule:strcit' in judge.judges (configured: rule:strict, rule:lenient): key the "
                                  "grades by one of them")
    assert snapshot(root) == before


# ------------------------------------------------------------------------------ outside pair ids
@pytest.mark.parametrize("ident", ["", "../x", "a/../../b", "/abs/x", "x/..", "a b"])
def test_outside_pair_id_must_be_safe(tmp_path, ident):
    path = tmp_path / "ext.jsonl"
    path.write_bytes(lines(outside(0), outside(1, id=ident)))
    with pytest.raises(InputError, match="unsafe id") as info:
        load_external(path)
    assert (info.value.path, info.value.line, info.value.field) == (str(path), 2, "id")


def test_safe_outside_pair_ids_still_load(tmp_path):
    path = tmp_path / "ext.jsonl"
    path.write_bytes(lines(outside(0, id="set-a/q1"), outside(1, id="set-a/q1..v2"),
                           {k: v for k, v in outside(2).items() if k != "id"}))
    assert [e.id for e in load_external(path)] == ["set-a/q1", "set-a/q1..v2", "external/3"]


# ------------------------------------------------------------------- score and report: runs, corpora
TEXTS = [outside(i)["prompt"] + " " + outside(i)["chosen"] + " " + outside(i)["rejected"] for i in range(20)]


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> Path:
    """A tiny random Llama as models/base and a random LoRA adapter of it (a folder to copy)."""
    import torch
    from conftest import tiny_llama_config
    from peft import LoraConfig, get_peft_model
    from transformers import LlamaForCausalLM

    from pipeline.models.tokenizer import train_tokenizer

    root = tmp_path_factory.mktemp("models")
    tokenizer = train_tokenizer(TEXTS * 5, 300)
    torch.manual_seed(0)
    config = tiny_llama_config(tokenizer)
    base = LlamaForCausalLM(config).eval()
    base.save_pretrained(root / "base")
    tokenizer.save_pretrained(root / "base")
    (root / "base" / "meta.json").write_text(json.dumps({"base_model": "builtin"}))
    peft_model = get_peft_model(LlamaForCausalLM(config).eval(), LoraConfig(r=2, lora_alpha=4,
                                                                            target_modules=["q_proj", "v_proj"]))
    peft_model.base_model.model.load_state_dict(base.state_dict(), strict=False)
    peft_model.save_pretrained(root / "adapter")
    return root


def _score_project(root: Path, models: Path, runs: dict, adapters: list[str], overrides: dict | None = None,
                   files: dict | None = None) -> Path:
    """Outside pairs as the only eval corpus, the tiny base, and the adapter copied to each of `adapters`."""
    ext = {"format": "jsonl", "path": "data/external/outside.jsonl"}
    project(root, {"train.runs": runs, "train.external_pairs": ext, "score.corpora": ["external"],
                   "score.max_pairs": 0, **(overrides or {})},
            {ext["path"]: lines(*[outside(i) for i in range(4)]), "data/scores/meta.json": PREVIOUS, **(files or {})})
    shutil.copytree(models / "base", root / "models/base")
    for name in adapters:
        shutil.copytree(models / "adapter", root / "models/adapters" / name)
    return root


def test_score_scores_only_the_runs_of_train_runs(tmp_path, monkeypatch, models):
    from pipeline.stages import score

    # sft-pairs-s0 was removed from train.runs; DVC left its folder.
    root = _score_project(tmp_path, models, {"dpo": ["pairs-s0"]}, ["dpo-pairs-s0", "sft-pairs-s0"])
    monkeypatch.chdir(root)
    score.main([])
    meta = json.loads((root / "data/scores/meta.json").read_text())
    assert meta["models"] == ["base", "dpo-pairs-s0"]
    assert sorted(p.name for p in (root / "data/scores").iterdir()) == ["base", "dpo-pairs-s0", "meta.json"]


def test_score_stops_on_a_run_of_train_runs_without_its_adapter(tmp_path, monkeypatch, models):
    root = _score_project(tmp_path, models, {"dpo": ["pairs-s0", "pairs-s1"]}, ["dpo-pairs-s0"])
    monkeypatch.chdir(root)
    before = snapshot(root)
    assert stops("score", []) == ("score: error: models/adapters/dpo-pairs-s1: no adapter of run 'dpo-pairs-s1' "
                                  "(train.runs.dpo lists 'pairs-s1'): train it with `dvc repro train_dpo@pairs-s1`")
    assert snapshot(root) == before


@pytest.mark.parametrize(("overrides", "files", "says"), [
    ({"score.max_length": 1}, {}, "data/external/outside.jsonl: corpus 'external', split 'test': no pair left to "
     "score, all 4 dropped as too long for score.max_length 1: raise score.max_length"),
    ({"score.max_length": 64}, {"data/external/outside.jsonl": lines(*[outside(i, prompt="Notice? " * 80)
                                                                      for i in range(3)])},
     "data/external/outside.jsonl: corpus 'external', split 'test': no pair left to score, all 3 dropped as too "
     "long for score.max_length 64: raise score.max_length"),
], ids=["max_length 1", "every outside pair too long"])
def test_score_stops_when_no_pair_of_a_corpus_fits(tmp_path, monkeypatch, models, overrides, files, says):
    root = _score_project(tmp_path, models, {"dpo": ["pairs-s0"]}, ["dpo-pairs-s0"], overrides, files)
    monkeypatch.chdir(root)
    before = snapshot(root)
    assert stops("score", []) == f"score: error: {says}"
    assert snapshot(root) == before


def _scores(root: Path, models_: list[str], corpora: dict[str, int]) -> None:
    """data/scores as the score stage writes it: `corpora` maps a corpus to its number of scored pairs."""
    meta = {"models": models_, "scorer": "shared_prefix", "overlong": "drop_distractors",
            "corpora": {c: {"available": {"test": 4}, "scored": n, "fit": {}} for c, n in corpora.items()}}
    (root / "data/scores").mkdir(parents=True, exist_ok=True)
    (root / "data/scores/meta.json").write_text(json.dumps(meta))
    for model in models_:
        for corpus, n in corpora.items():
            scorings = ["mean", "sum"] + ([] if model == "base" else ["ref_mean", "ref_sum"])
            write_records(root / "data/scores" / model / f"{corpus}.jsonl", [
                Score(f"o{i}", model, s, -1.0 - i % 3, -2.0 + i % 2, 1.0 - i % 3 - i % 2, i % 3 == 0, 4, 2)
                for s in scorings for i in range(n)])


def _report_project(root: Path, runs: dict, corpora: dict[str, int], scored: list[str]) -> Path:
    """Outside pairs and an empty `pairs` corpus, the scores of `scored` and their adapters' train_meta."""
    ext = {"format": "jsonl", "path": "data/external/outside.jsonl"}
    project(root, {"train.runs": runs, "train.external_pairs": ext, "score.corpora": sorted(corpora),
                   "report.bootstrap_resamples": 50},
            {ext["path"]: lines(*[outside(i) for i in range(4)]), "data/processed/pairs/test.jsonl": b""})
    _scores(root, scored, corpora)
    for name in scored[1:]:
        meta = {"run": name, "objective": name.split("-")[0], "corpus": "pairs", "seed": 0}
        put(root, {f"models/adapters/{name}/train_meta.json": json.dumps(meta).encode()})
    return root


def test_report_leaves_out_runs_removed_from_train_runs(tmp_path, monkeypatch):
    from pipeline.stages import report

    # sft-pairs-s0 was scored, then left train.runs: DVC keeps its adapter folder and, until the score
    # stage reruns, its scores.
    root = _report_project(tmp_path, {"dpo": ["pairs-s0"]}, {"external": 4}, ["base", "dpo-pairs-s0", "sft-pairs-s0"])
    monkeypatch.chdir(root)
    report.main([])
    assert set(json.loads((root / "reports/report_details.json").read_text())) >= {"base", "dpo-pairs-s0"}
    for name in ("report_details.json", "metrics.json", "report.md", "plots/accuracy.csv"):
        assert "sft-pairs-s0" not in (root / "reports" / name).read_text(), name


def test_report_leaves_out_a_corpus_without_scores(tmp_path, monkeypatch):
    from pipeline.stages import report

    # An earlier score stage wrote empty score files for `pairs`, none of whose pairs fitted max_length.
    root = _report_project(tmp_path, {"dpo": ["pairs-s0"]}, {"external": 4, "pairs": 0}, ["base", "dpo-pairs-s0"])
    monkeypatch.chdir(root)
    report.main([])
    assert set(json.loads((root / "reports/report_details.json").read_text())["dpo-pairs-s0"]) == {"external"}
    text = (root / "reports/report.md").read_text()
    assert "Eval corpus `external`" in text and "Eval corpus `pairs`" not in text


def test_report_stops_on_a_run_of_train_runs_that_was_not_scored(tmp_path, monkeypatch):
    ext = {"format": "jsonl", "path": "data/external/outside.jsonl"}
    root = project(tmp_path, {"train.runs": {"dpo": ["pairs-s0", "pairs-s1"]}, "train.external_pairs": ext},
                   {ext["path"]: lines(*[outside(i) for i in range(4)]), "reports/report.md": PREVIOUS})
    _scores(root, ["base", "dpo-pairs-s0"], {"external": 4})
    monkeypatch.chdir(root)
    before = snapshot(root)
    assert stops("report", []) == ("report: error: data/scores/meta.json, field 'models': run 'dpo-pairs-s1' of "
                                   "train.runs was not scored (scored: ['base', 'dpo-pairs-s0']): re-run the "
                                   "score stage (`dvc repro -f score`)")
    assert snapshot(root) == before
