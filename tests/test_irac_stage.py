"""The irac stage end to end on files: the rule baseline and a model system behind a real loopback
OpenAI-compatible server (its 'model' is scripted code, see test_irac_llm.ScriptedModel), graded A/B/C,
scored with the local MiniLM embeddings; a rerun pays nothing twice; bad input stops with file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from test_irac_llm import ChatServer

from pipeline.io import InputError, dumps
from pipeline.stages import irac as stage
from pipeline.synth import generate_decisions

MIX = {"insider_trading": 1, "criminal_sentencing": 1, "residential_tenancy": 1}


def setup_files(tmp_path: Path, server: ChatServer) -> list[str]:
    decisions = generate_decisions(6, MIX, seed=21)
    (tmp_path / "decisions.jsonl").write_text("".join(dumps(d) + "\n" for d in decisions), encoding="utf-8")
    params = {
        "irac": {
            "systems": ["rule", server.spec],
            "modes": ["standard", "self_steps"],
            "judge": server.spec,
            "bootstrap_resamples": 200,
        },
        "generate": {"concurrency": 2, "max_retries": 0, "timeout_s": 20.0},
    }
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    return [
        "--params", str(tmp_path / "params.yaml"),
        "--decisions", str(tmp_path / "decisions.jsonl"),
        "--out", str(tmp_path / "irac"),
        "--cache-dir", str(tmp_path / "cache"),
        "--reports", str(tmp_path / "reports"),
    ]  # fmt: skip


def test_stage_scores_rule_and_model_systems_and_reruns_from_cache(tmp_path):
    with ChatServer() as server:
        args = setup_files(tmp_path, server)
        stage.main(args)
        calls = len(server.prompts)
        outputs = [json.loads(x) for x in (tmp_path / "irac/outputs.jsonl").read_text().splitlines()]
        grades = [json.loads(x) for x in (tmp_path / "irac/grades.jsonl").read_text().splitlines()]
        first = {p: (tmp_path / p).read_bytes() for p in ("irac/outputs.jsonl", "reports/irac_details.json")}

        stage.main(args)
        assert len(server.prompts) == calls  # every model call came from the cache
        assert {p: (tmp_path / p).read_bytes() for p in first} == first

    # rule: 2 tasks x 1 way; model: 2 tasks x 2 modes; 6 decisions each
    assert len(outputs) == 6 * (2 + 4)
    assert {(o["system"], o["mode"]) for o in outputs} == {
        ("rule", "standard"), (server.spec, "self_steps"), (server.spec, "standard"),
    }  # fmt: skip
    analyses = {o["id"] for o in outputs if o["task"] == "analysis"}
    assert {g["output_id"] for g in grades} == analyses
    # ScriptedModel's analyses have Rule:, Conclusion: and an HK$ amount when the decision has one
    assert {g["grade"] for g in grades if server.spec in g["output_id"]} <= {"A", "B"}

    metrics = json.loads(first["reports/irac_details.json"])
    assert metrics["decisions"] == 6 and metrics["judge"] == server.spec
    model = metrics["fields"][f"{server.spec}/standard"]
    rule = metrics["fields"]["rule/standard"]
    # The scripted model fills only dates, money, numbers and names, so it leaves most fields empty.
    assert model["completeness"]["mean"] < rule["completeness"]["mean"]
    assert 0 < model["exact"]["correct"] <= model["exact"]["total"]
    for entry in (*metrics["fields"].values(), *metrics["analysis"].values()):
        assert entry["cases"] == 6 and entry["unparseable"] == 0
    assert metrics["analysis"]["rule/standard"]["judge"]["n"] == 6
    # The whole decision text, read as an analysis, states more than the rule system's extract of it.
    whole, rule_analysis = metrics["analysis_whole_text"], metrics["analysis"]["rule/standard"]
    assert whole["recall"]["mean"] > rule_analysis["recall"]["mean"]
    assert whole["mean_tokens"] > rule_analysis["mean_tokens"]
    report = (tmp_path / "reports/irac.md").read_text()
    assert "## Task 1: field extraction" in report and f"graded by {server.spec}" in report


def test_bad_decision_record_names_file_line_and_field(tmp_path):
    with ChatServer() as server:
        args = setup_files(tmp_path, server)
    lines = (tmp_path / "decisions.jsonl").read_text().splitlines()
    broken = json.loads(lines[2])
    broken["field_kinds"] = {"penalty": "fuzzy"}
    lines[2] = json.dumps(broken)
    (tmp_path / "decisions.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        stage.main(args)
    assert (err.value.line, err.value.field) == (3, "field_kinds.penalty")
    assert not (tmp_path / "irac").exists() and not (tmp_path / "reports").exists()


def test_select_keeps_annotated_decisions_in_id_order_up_to_the_limit():
    decisions = generate_decisions(5, MIX, seed=2)
    decisions[1].fields = {}
    chosen = stage.select(list(reversed(decisions)), 3)
    assert [d.id for d in chosen] == sorted(d.id for d in decisions if d.fields)[:3]


def zh_files(tmp_path: Path, irac: dict) -> list[str]:
    from test_irac_rule import zh_decision, zh_two_parties

    decisions = [zh_decision(), zh_two_parties()]
    (tmp_path / "decisions.jsonl").write_text("".join(dumps(d) + "\n" for d in decisions), encoding="utf-8")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"irac": {"bootstrap_resamples": 50, **irac}}), encoding="utf-8")
    return [
        "--params", str(tmp_path / "params.yaml"), "--decisions", str(tmp_path / "decisions.jsonl"),
        "--out", str(tmp_path / "irac"), "--cache-dir", str(tmp_path / "cache"), "--reports", str(tmp_path / "reports"),
    ]  # fmt: skip


def test_chinese_decisions_with_the_english_only_model_stop_before_any_work(tmp_path):
    with pytest.raises(SystemExit, match=r"irac\.embedding_models\.zh") as err:
        stage.main(zh_files(tmp_path, {"embedding_models": {}}))  # Chinese left to embedding_model (minilm)
    assert "'minilm'" in str(err.value) and "'zh'" in str(err.value)
    assert not (tmp_path / "irac").exists() and not (tmp_path / "reports").exists()


def test_chinese_decisions_run_per_party_when_the_user_opts_in(tmp_path):
    stage.main(zh_files(tmp_path, {"allow_uncovered_language": True, "embedding_models": {}}))
    outputs = [json.loads(x) for x in (tmp_path / "irac/outputs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(o["id"] for o in outputs if o["task"] == "fields") == [
        "fields/rule/standard/zh-1", "fields/rule/standard/zh-2/p0", "fields/rule/standard/zh-2/p1",
    ]  # fmt: skip
    assert all(o["status"] == "ok" and o["analysis"] for o in outputs if o["task"] == "analysis")
    metrics = json.loads((tmp_path / "reports/irac_details.json").read_text(encoding="utf-8"))
    assert metrics["cases"] == 3
    zh = metrics["fields"]["rule/standard"]["by_language"]["zh"]
    assert zh["cases"] == 3 and zh["exact"]["accuracy"] > 0.8
    assert metrics["analysis"]["rule/standard"]["by_language"]["zh"]["recall"]["mean"] > 0.5
    report = (tmp_path / "reports/irac.md").read_text(encoding="utf-8")
    assert "| rule | standard | zh | 3 |" in report
    # The header counts what ran: two imported Chinese decisions, no synthetic ones.
    assert "**Data:** imported decisions (zh 2)." in report and "synthetic" not in report.split("##")[0]
