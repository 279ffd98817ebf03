"""The irac report's comparison of model systems with the rule baseline, how replies were made, and the
intervals every reported metric carries (pipeline/irac/evaluate.py, pipeline/irac/report.py)."""

from __future__ import annotations

import numpy as np

from pipeline.irac import evaluate
from pipeline.irac.report import render
from pipeline.params import from_dict
from pipeline.records import Decision, IracGrade, IracOutput, Section
from pipeline.stats import bootstrap_interval


def _decision(i: int) -> Decision:
    text = f"On {i} May 2019 Chan Tai-man {i} was ordered to pay HK${i},000."
    return Decision(f"d{i}", "t", "en", "insider_trading", "SFC v Chan", "", text, [Section("s1", "x", text)],
                    {"respondent": f"Chan Tai-man {i}", "penalty_amount": f"HK${i},000"},
                    {"respondent": "exact", "penalty_amount": "exact"},
                    field_types={"respondent": "name", "penalty_amount": "money"})


def _fields(system: str, d: Decision, values: dict | None, meta: dict | None = None) -> IracOutput:
    return IracOutput(f"fields/{system}/standard/{d.id}", d.id, "fields", system, "standard", values, None,
                      "ok" if values is not None else "unparseable", meta or {})


def test_a_model_that_fills_less_is_reported_worse_than_the_rule_baseline():
    decisions = [_decision(i) for i in range(1, 9)]
    outputs = []
    for d in decisions:
        outputs.append(_fields("rule", d, dict(d.fields)))
        # The model gets the respondent only, and nothing at all on two decisions.
        values = None if d.id in ("d1", "d2") else {"respondent": d.fields["respondent"]}
        outputs.append(_fields("hf:m", d, values, {"constrained": "llguidance", "finish_reason": "stop"}))
    params = from_dict({"irac": {"systems": ["rule", "hf:m"], "tasks": ["fields"], "bootstrap_resamples": 2000}})

    def no_embeddings(a, b):
        raise AssertionError("exact fields only")

    metrics = evaluate.metrics(outputs, [], decisions, params, no_embeddings)
    row = metrics["against_rule"]["hf:m/standard"]["completeness"]
    # Rule 1.0 everywhere; the model 0.5 on six decisions and 0 on two: differences -0.5 x 6, -1 x 2.
    diffs = np.array([-1.0, -1.0] + [-0.5] * 6)
    expected = bootstrap_interval(diffs, 2000, 42)
    assert row["difference"] == diffs.mean() and row["ci95"] == [expected.low, expected.high]
    assert row["verdict"] == "worse" and (row["system"], row["rule"]) == (0.375, 1.0)
    model = metrics["fields"]["hf:m/standard"]
    assert model["unparseable_share"]["k"] == 2 and model["unparseable_share"]["n"] == 8
    assert model["replies"]["constrained"] == {"llguidance": 8}
    text = render(metrics, params)
    assert "**hf:m is worse than the rule baseline** on field completeness in standard mode" in text
    # Every metric in the fields table has its interval (the unparseable share a Wilson one).
    assert "2/8 [" in text and "| rule | standard | 8 | 1.000 [1.000, 1.000] |" in text


def test_the_judge_score_and_recall_are_compared_on_the_same_cases():
    decisions = [_decision(i) for i in range(1, 5)]
    outputs, grades = [], []
    for d in decisions:
        for system, grade in (("rule", "A"), ("hf:m", "C")):
            oid = f"analysis/{system}/standard/{d.id}"
            outputs.append(IracOutput(oid, d.id, "analysis", system, "standard", None, d.text, "ok"))
            grades.append(IracGrade(oid, "llm:hf:m", grade, "ok", ""))
    params = from_dict({"irac": {"systems": ["rule", "hf:m"], "tasks": ["analysis"], "judge": "hf:m",
                                 "bootstrap_resamples": 500}})

    def no_embeddings(a, b):
        return np.zeros((len(a), len(b)), dtype=np.float32)

    metrics = evaluate.metrics(outputs, grades, decisions, params, no_embeddings)
    row = metrics["against_rule"]["hf:m/standard"]
    assert row["judge_points"]["difference"] == -1.0 and row["judge_points"]["verdict"] == "worse"
    assert row["recall"]["difference"] == 0.0 and row["recall"]["verdict"] == "no clear difference"
    judge = metrics["analysis"]["hf:m/standard"]["judge"]
    assert judge["score"] == 0.0 and judge["ci95"] == [0.0, 0.0]


def test_a_grader_that_gives_one_grade_to_everything_is_called_out():
    from pipeline.irac.report import _one_grade

    def entry(a, b, c):
        return {"judge": {"A": a, "B": b, "C": c, "n": a + b + c}}

    assert "same grade (A)" in _one_grade({"rule/standard": entry(3, 0, 0), "hf:m/standard": entry(5, 0, 0)})
    assert _one_grade({"rule/standard": entry(3, 0, 0), "hf:m/standard": entry(4, 1, 0)}) == ""
    assert _one_grade({"rule/standard": {"judge": None}}) == ""
