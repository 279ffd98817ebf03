"""What a newcomer trips on in the first hour (issue 31, item 4), each tried as a new user would.

Every case stops the stage that meets it with one line naming the place (file, line, field) and the key at
fault, and leaves every file of the project as it was; one test per case. The last tests hold the shipped
per-language embedding models: imported Chinese ranks and compares with e5 without an edit, while an
English corpus never routes to it (so the English default stays byte for byte what it was).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_pairs import build_corpus
from test_reliability_params import project, raw_with, run_main, snapshot

from pipeline import params as params_mod
from pipeline.io import write_records
from pipeline.params import ParamsError
from pipeline.records import Decision, Section

pytestmark = pytest.mark.reliability

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------ params a run accepted
# (overrides of the smoke profile, the stage that meets them, its argv, the dotted key, what it says)
PARAMS = [
    # After a full run, emptying the run matrix re-ran score, then the report died on max() of nothing.
    ({"train.runs": {"dpo": [], "sft": []}}, "report", [], "train.runs", "lists no run (allowed: at least one"),
    ({"train.runs": {"dpo": [], "sft": []}}, "score", [], "train.runs", "lists no run"),
    # An empty name read no variable: requests went out without an Authorization header, without a word.
    ({"generate.api_key_env": ""}, "generate", [], "generate.api_key_env",
     "'' is not an environment variable name"),
    # One token per window has no next token to predict; pretraining "trained" on nothing.
    ({"pretrain.seq_len": 1}, "pretrain", [], "pretrain.seq_len", "1 is out of range (allowed: >= 2"),
    # pairs+pairs trained on every pair twice.
    ({"train.runs": {"dpo": ["pairs+pairs-s0"]}}, "train", ["--run", "dpo-pairs+pairs-s0"], "train.runs.dpo[0]",
     "corpus part 'pairs' is named twice"),
    # A prefix no id can start with was blamed on every record's id instead of on the key.
    ({"decisions.documents.id_prefix": "my cases "}, "decisions", [], "decisions.documents.id_prefix",
     "'my cases ' cannot start a record id"),
    ({"corpus.qa_import.id_prefix": "qa/"}, "corpus", [], "corpus.qa_import.id_prefix", "'qa/' cannot start a record id"),
]


@pytest.mark.parametrize(("overrides", "stage", "argv", "key", "says"), PARAMS,
                         ids=[f"{c[1]}:{c[3]}" for c in PARAMS])
def test_params_a_run_used_to_accept_stop_naming_the_key(tmp_path, monkeypatch, overrides, stage, argv, key, says):
    monkeypatch.chdir(project(tmp_path, raw_with(overrides)))
    before = snapshot(tmp_path)
    message = run_main(stage, argv)
    assert message.startswith(f"params.yaml: {key}: ") and says in message and "\n" not in message, message
    assert snapshot(tmp_path) == before


def test_the_prefixes_and_key_names_in_use_stay_accepted():
    """The refusals above do not catch what the shipped profiles and the documented examples write."""
    params_mod.from_dict(raw_with({"decisions.documents.id_prefix": "", "corpus.qa_import.id_prefix": "zh-qa.",
                                   "generate.api_key_env": "VLLM_KEY_2", "pretrain.seq_len": 2,
                                   "train.runs": {"dpo": ["pairs_aug+pairs-s0"], "sft": []}}))


# ------------------------------------------------------------------------------------- the pairs stage
def test_no_pairs_stops_naming_the_variants_that_were_answered(tmp_path, monkeypatch):
    """generate.variants [gold_surrounding] is valid, but pairs.variants pairs none of it: the stage's own
    no-pairs check crashed on the ids of a dict (AttributeError) instead of saying so."""
    from pipeline.stages import judge as judge_stage

    decisions, passages, qas, contexts, candidates = build_corpus(6)
    contexts = [c for c in contexts if c.variant == "gold_surrounding"]
    candidates = [c for c in candidates if c.context_id.endswith("/gold_surrounding")]
    for name, records in (("data/raw/decisions.jsonl", decisions), ("data/interim/passages.jsonl", passages),
                          ("data/interim/qa.jsonl", qas), ("data/interim/contexts.jsonl", contexts),
                          ("data/interim/candidates.jsonl", candidates)):
        write_records(tmp_path / name, records)
    raw = raw_with({"generate.variants": ["gold_surrounding"], "judge.judges": ["rule:strict"]})
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    judge_stage.main([])
    before = snapshot(tmp_path)
    message = run_main("pairs", [])
    assert message.startswith("params.yaml: pairs.variants: "), message
    assert f"made no pairs from the {len(candidates)} candidates" in message
    assert "they answer the variants ['gold_surrounding'] of generate.variants" in message
    assert snapshot(tmp_path) == before and not (tmp_path / "data" / "processed").exists()


# ------------------------------------------------------------------------------------ imported documents
DOC_MAPPING = {"case_no": "id", "title": "title", "body": "text", "gain": "fields.gain"}


def _documents(tmp_path: Path, docs: list[dict], **import_params) -> Path:
    lines = "".join(json.dumps(d, ensure_ascii=False, allow_nan=True) + "\n" for d in docs)
    raw = raw_with({"decisions.n_decisions": 3, "decisions.documents.format": "jsonl",
                    "decisions.documents.path": "data/external/cases.jsonl",
                    "decisions.documents.mapping": DOC_MAPPING,
                    "decisions.documents.field_types": {"gain": "money"}, **import_params})
    return project(tmp_path, raw, {"data/external/cases.jsonl": lines.encode()})


def _doc(i: int, **changes) -> dict:
    return {"case_no": f"C{i}", "title": f"Case {i}",
            "body": f"The tribunal found that party {i} made a profit of HK${i + 1},000 from the trades.",
            "gain": f"HK${i + 1},000", **changes}


@pytest.mark.parametrize(("changes", "field", "says"), [
    ({"gain": float("nan")}, "gain", "nan is not a finite number"),
    ({"case_no": float("inf")}, "case_no", "inf is not a finite number"),
], ids=["money NaN", "id Infinity"])
def test_non_finite_json_numbers_in_mapped_documents_are_refused(tmp_path, monkeypatch, changes, field, says):
    """Python's JSON reader takes NaN and Infinity: a money field became the text "NaN" and an id
    `doc-Infinity`, silently."""
    monkeypatch.chdir(_documents(tmp_path, [_doc(0), _doc(1, **changes)]))
    before = snapshot(tmp_path)
    message = run_main("decisions", [])
    assert f"data/external/cases.jsonl, line 2, field '{field}': {says}" in message, message
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", ["loop", "dangling"])
def test_a_broken_symbolic_link_is_not_called_a_missing_file(tmp_path, monkeypatch, kind):
    monkeypatch.chdir(project(tmp_path, raw_with({"decisions.import_path": "data/external/mine.jsonl"})))
    link = tmp_path / "data" / "external" / "mine.jsonl"
    link.parent.mkdir(parents=True, exist_ok=True)
    if kind == "loop":
        os.symlink("mine.jsonl", link)
        says = "a symbolic link loop"
    else:
        os.symlink("moved/decisions.jsonl", link)
        says = "a symbolic link to 'moved/decisions.jsonl', which does not exist"
    before = snapshot(tmp_path)
    message = run_main("decisions", [])
    assert message.endswith(f"data/external/mine.jsonl: {says}" + message.split(says, 1)[1]), message
    assert says in message and "(decisions.import_path)" in message and "not found" not in message
    assert snapshot(tmp_path) == before


# ----------------------------------------------------------------------------------- corpus and contexts
def test_a_passage_id_collision_names_the_decision_and_the_file(tmp_path, monkeypatch):
    """A long section is cut into <section>-1, -2, ...; a second section already called s1-1 made the same
    passage id, and the stop named neither the decision nor the file."""
    long_text = " ".join(f"The tribunal considered submission {i} of the landlord about the arrears." for i in range(40))
    decision = Decision("d0", "mine", "en", "tenancy", "Case 0", "2020-01-01", long_text + " Short.",
                        [Section("s1", "Facts", long_text), Section("s1-1", "Orders", "The appeal was dismissed " * 8)])
    root = project(tmp_path, raw_with({"corpus.max_passage_chars": 400}))
    write_records(root / "data/raw/decisions.jsonl", [decision])
    monkeypatch.chdir(root)
    before = snapshot(tmp_path)
    message = run_main("corpus", [])
    assert message.startswith("corpus: error: passage id 'd0/s1-1' is made twice, by decision 'd0' of "
                              "data/raw/decisions.jsonl and by decision 'd0' of data/raw/decisions.jsonl"), message
    assert "rename the decision or section" in message
    assert snapshot(tmp_path) == before


def test_too_few_distractors_names_contexts_k(tmp_path, monkeypatch):
    decisions, passages, qas, _, _ = build_corpus(6)
    raw = raw_with({"contexts.variants": ["random_context"], "contexts.k": 20, "contexts.pool": 20})
    root = project(tmp_path, raw)
    for name, records in (("data/raw/decisions.jsonl", decisions), ("data/interim/passages.jsonl", passages),
                          ("data/interim/qa.jsonl", qas)):
        write_records(root / name, records)
    monkeypatch.chdir(root)
    before = snapshot(tmp_path)
    message = run_main("contexts", [])
    assert "data/interim/qa.jsonl, line 1, field 'family': question 'q00': variant random_context needs 20 " \
           "distractors" in message, message
    assert "contexts.k = 20 asks for" in message and "lower contexts.k" in message
    assert snapshot(tmp_path) == before


# ---------------------------------------------------------------------------------- the terminal itself
def test_control_characters_from_the_data_are_shown_escaped(tmp_path):
    """A key of the user's data quoted in a stop (`it has: ...`) wrote a colour escape and a NUL to the
    terminal as they were: run as a user runs it, the stage's line shows them escaped."""
    doc = {"case_no": "C0", "\x1b[31mtitle": "Case", "body": "The tribunal made an order.", "gain": "1\x00"}
    root = _documents(tmp_path, [doc])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "pipeline.stages.decisions"], cwd=root, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    # The stage's log lines (" INFO: ", the CPU pin's first of all), then its one-line stop.
    stops = [x for x in proc.stderr.splitlines() if x.strip() and " INFO: " not in x]
    assert len(stops) == 1 and stops[0].startswith("decisions: error: data/external/cases.jsonl, line 1, field 'title'")
    assert "\x1b" not in proc.stderr and "\x00" not in proc.stderr and "\\x1b[31mtitle" in stops[0], stops


def test_printable_escapes_controls_and_keeps_every_script():
    from pipeline.stages import printable

    assert printable("证监罚字〔2011〕12号 HK$24,000 \u00e9") == "证监罚字〔2011〕12号 HK$24,000 \u00e9"
    assert printable("a\x1b[2Jb\x00c\u202ed\x7f") == "a\\x1b[2Jb\\x00c\\u202ed\\x7f"


# --------------------------------------------------------------------------- Chinese without an edit
def test_the_shipped_params_route_chinese_to_e5_and_english_nowhere_new():
    from pipeline.irac.evaluate import embedding_model
    from pipeline.retrieval.build import dense_models

    for name in ("params.yaml", "params/smoke.yaml", "params/gpu.yaml", "params/real.yaml"):
        p = params_mod.load(ROOT / name)
        assert dense_models("dense", p.contexts, {"en", "zh"}) == {
            "en": (p.contexts.dense_model, "contexts.dense_language_models.en"),
            "zh": ("e5", "contexts.dense_language_models.zh")}, name
        # An English corpus plans its dense model alone: e5 is never loaded, no output changes.
        assert {m for m, _ in dense_models("dense", p.contexts, {"en"}).values()} == {p.contexts.dense_model}
        assert (embedding_model(p, "zh"), embedding_model(p, "en")) == ("e5", p.irac.embedding_model), name
    defaults = params_mod.from_dict({})
    assert (defaults.contexts.dense_language_models, defaults.irac.embedding_models) == ({"zh": "e5"}, {"zh": "e5"})


def test_imported_chinese_passes_the_coverage_check_on_the_default_params():
    """The contexts and irac stages check the model of each language first; on the default params Chinese
    stopped until the user routed it by hand."""
    from pipeline.irac.evaluate import check_languages as irac_check
    from pipeline.retrieval.build import check_languages, dense_models
    from pipeline.synth import generate_decisions

    p = params_mod.load(ROOT / "params.yaml")
    zh = ["被告人李某于2015年3月利用内幕信息买入股票，违法所得人民币120万元。", "本院认为，被告人的行为构成内幕交易罪。"]
    rates = check_languages(dense_models("dense", p.contexts, {"zh"}), {"zh": zh}, p.contexts)
    assert rates["zh"] <= p.contexts.max_unknown_token_rate
    decisions = generate_decisions(3, {"insider_trading": 1.0}, seed=1)
    chinese = Decision("zh-1", "mine", "zh", "insider_trading", "李某内幕交易案", "2016-01-01", "".join(zh),
                       [Section("s1", "事实", "".join(zh))], {"违法所得": "人民币120万元"}, {"违法所得": "exact"},
                       field_types={"违法所得": "money"})
    rates = irac_check([*decisions, chinese], p)
    assert set(rates) == {"en", "zh"} and rates["zh"] <= p.irac.max_unknown_token_rate


def test_a_user_can_still_route_chinese_elsewhere():
    p = params_mod.from_dict(raw_with({"contexts.dense_language_models": {"zh": "use"},
                                       "irac.embedding_models": {}}))
    assert p.contexts.dense_language_models == {"zh": "use"} and p.irac.embedding_models == {}
    with pytest.raises(ParamsError, match=r"irac\.embedding_models\.zh: model 'mine' has no cosine threshold"):
        params_mod.from_dict(raw_with({"irac.embedding_models": {"zh": "mine"}}))
