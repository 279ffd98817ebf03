"""An LLM answer judge asking a real loopback OpenAI-compatible server for each label under its schema,
and the judge stage's capped sample of an LLM judge beside the rule judges.

The server's "model" is code that answers from the schema it is sent (its first allowed label), since no
weights can be downloaded here; the packaged real model is judged in tests/test_structured_real.py.
"""

from __future__ import annotations

import json

from conftest import ChatServer, chat_reply

from pipeline.agreement import agreement
from pipeline.backends import make_generator
from pipeline.judges.base import JudgeItem
from pipeline.judges.llm import LLMJudge, label_schema, sample_items
from pipeline.judges.rule import RuleJudge
from pipeline.params import DecodingParams, GenerateParams
from pipeline.records import LABEL_DIMENSIONS, QA, Candidate, Passage
from pipeline.structured.schemas import choice_token_bound

GOLD = Passage("d1/p1", "d1", "d1", "Orders", "The Tribunal ordered Chan Tai-man to pay HK$2,400,000.")
QA1 = QA("q1", "How much was Chan Tai-man ordered to pay?", "HK$2,400,000.", "d1/p1", "d1", "factual",
         ["HK$2,400,000"], [])


def _items(n_contexts: int) -> list[JudgeItem]:
    out = []
    for c in range(n_contexts):
        for k, text in enumerate(("He was ordered to pay HK$2,400,000.", "The passages do not say.")):
            cand = Candidate(f"q1/v{c}/g{k}", f"q1/v{c}", f"g{k}", text, "stop")
            out.append(JudgeItem(cand, QA1, (GOLD,), True, "The passages do not say."))
    return out


def _schema_answerer(headers, body, prompt, n):
    """Reply with the first label the request's schema allows (and say which schema it saw)."""
    fmt = body.get("response_format")
    if fmt is None:
        return 200, chat_reply(body["model"], "I think it is fine.")
    schema = fmt["json_schema"]["schema"]
    label = schema["properties"]["label"]["enum"][0]
    return 200, chat_reply(body["model"], json.dumps({"label": label, "reason": "first allowed"}))


def test_each_dimension_is_asked_under_its_own_label_schema():
    bodies: list[dict] = []
    with ChatServer(lambda h, b, p, n: (bodies.append(b), _schema_answerer(h, b, p, n))[1]) as server:
        gen = make_generator(f"openai:{server.url}|judge-model", GenerateParams(concurrency=2, max_retries=0))
        judge = LLMJudge("llm:x", gen, 0, DecodingParams(max_new_tokens=48), constrained=True, reason_max_chars=60)
        labels = judge.judge(_items(1)[:1])
    # behaviour first (its first label: attempted), then the three stage-two dimensions.
    asked = [b["response_format"]["json_schema"]["schema"] for b in bodies]
    assert asked == [label_schema(d, 60) for d in ("behaviour", "faithfulness", "correctness", "completeness")]
    lab = labels[0]
    assert (lab.behaviour, lab.faithfulness, lab.correctness, lab.completeness, lab.status) == (
        "attempted", "fully_supported", "correct", "complete", "ok")


def test_a_constrained_reply_gets_the_budget_its_schema_needs_and_a_free_one_keeps_decodings():
    bodies: list[dict] = []
    with ChatServer(lambda h, b, p, n: (bodies.append(b), _schema_answerer(h, b, p, n))[1]) as server:
        gen = make_generator(f"openai:{server.url}|judge-model", GenerateParams(concurrency=2, max_retries=0))
        LLMJudge("llm:x", gen, 0, DecodingParams(max_new_tokens=48), constrained=True,
                 reason_max_chars=60).judge(_items(1)[:1])
        constrained = list(bodies)
        bodies.clear()
        LLMJudge("llm:x", gen, 0, DecodingParams(max_new_tokens=48)).judge(_items(1)[:1])
    dims = ("behaviour", "faithfulness", "correctness", "completeness")
    assert [b["max_tokens"] for b in constrained] == [choice_token_bound("label", LABEL_DIMENSIONS[d], 60) for d in dims]
    assert {b["max_tokens"] for b in bodies} == {48}


def test_a_free_judge_sends_no_schema_and_counts_unusable_replies_as_unparseable():
    bodies: list[dict] = []
    with ChatServer(lambda h, b, p, n: (bodies.append(b), _schema_answerer(h, b, p, n))[1]) as server:
        gen = make_generator(f"openai:{server.url}|judge-model", GenerateParams(concurrency=2, max_retries=0))
        labels = LLMJudge("llm:x", gen, 1, DecodingParams(max_new_tokens=48)).judge(_items(1)[:1])
    assert not any("response_format" in b for b in bodies) and len(bodies) == 2  # one try and one retry
    assert labels[0].status == "unparseable"


def test_a_sampled_llm_judge_is_compared_with_the_rule_judge_on_its_sample():
    items = _items(6)
    sample = sample_items(items, 5, seed=13)
    assert len(sample) == 4  # two whole contexts of two candidates
    with ChatServer(_schema_answerer) as server:
        gen = make_generator(f"openai:{server.url}|judge-model", GenerateParams(concurrency=2, max_retries=0))
        llm_labels = LLMJudge("llm:x", gen, 0, DecodingParams(max_new_tokens=48), constrained=True).judge(sample)
    rule_labels = RuleJudge("strict").judge(items)
    stats = agreement([{lab.candidate_id: lab for lab in rule_labels}, {lab.candidate_id: lab for lab in llm_labels}])
    # Computed over the sample only: the candidates both judges labelled.
    assert stats["behaviour"]["items"] == 4
    # The scripted judge calls every answer attempted; the rule judge calls the refusals abstained.
    assert stats["behaviour"]["raw"] == 0.5


def test_the_data_report_measures_a_sampled_judge_on_its_sample_only():
    from pipeline.judges import sampled_judge
    from pipeline.params import Params, from_dict
    from pipeline.stages.data_report import sampled_agreement

    params = from_dict({"judge": {"judges": ["rule:strict", "llm:hf:m"], "llm_max_candidates": 4}})
    assert sampled_judge("llm:hf:m", params) and not sampled_judge("rule:strict", params)
    assert not sampled_judge("llm:hf:m", Params())  # no cap: a full judge like the others
    items = _items(6)
    strict = {lab.candidate_id: lab for lab in RuleJudge("strict").judge(items)}
    lenient = {lab.candidate_id: lab for lab in RuleJudge("lenient").judge(items)}
    sample = {k: strict[k] for k in list(strict)[:4]}  # a judge that agrees with strict on its sample
    out = sampled_agreement([("rule:strict", strict), ("rule:lenient", lenient)], [("llm:hf:m", sample)])
    entry = out["llm:hf:m"]
    assert entry["labels"] == 4 and entry["unparseable"] == 0
    assert entry["agreement_with"]["rule:strict"]["behaviour"] == agreement([strict, sample])["behaviour"]
    assert entry["agreement_with"]["rule:strict"]["behaviour"]["raw"] == 1.0
    assert entry["agreement_all"]["behaviour"]["items"] == 4
