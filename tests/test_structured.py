"""The reply schemas (pipeline/structured/schemas.py) as a validator, and the judge's seeded sample.

The schemas are checked against hand-written replies whose verdict is known; the constraint itself is
exercised on the real packaged model in tests/test_structured_real.py and over HTTP in
tests/test_irac_llm.py and tests/test_judge_llm_constrained.py.
"""

from __future__ import annotations

import json

import pytest

from pipeline.irac.llm import grade_schema
from pipeline.judges.base import JudgeItem
from pipeline.judges.llm import label_schema, sample_items
from pipeline.records import QA, Candidate
from pipeline.structured.schemas import fields_schema, problems, schema_text


def test_fields_schema_requires_every_field_as_a_short_string_or_null():
    schema = fields_schema(["respondent", "penalty_amount"], 12)
    assert problems(schema, {"respondent": "Chan Tai-man", "penalty_amount": None}) == []
    cases = {
        "lacks 'penalty_amount'": {"respondent": "Chan"},
        "unknown key(s) 'judge'": {"respondent": "Chan", "penalty_amount": None, "judge": "x"},
        "'respondent' must be a string": {"respondent": 3, "penalty_amount": None},
        "longer than 12 characters": {"respondent": "Chan Tai-man Esq.", "penalty_amount": None},
        "must be an object": ["Chan", None],
    }
    for expected, reply in cases.items():
        found = problems(schema, reply)
        assert any(expected in p for p in found), (expected, found)
    with pytest.raises(ValueError):
        fields_schema([], 12)


def test_choice_schemas_take_only_their_labels():
    assert problems(grade_schema(), {"grade": "B", "reason": "misses the exception"}) == []
    assert problems(grade_schema(), {"grade": "A+", "reason": ""})
    assert problems(grade_schema(), {"grade": True, "reason": ""})  # JSON true is not a string
    schema = label_schema("correctness", 20)
    assert schema["properties"]["label"]["enum"] == ["correct", "incorrect"]
    assert problems(schema, {"label": "correct", "reason": "same amount"}) == []
    assert problems(schema, {"label": "partially_supported", "reason": ""})
    assert problems(schema, {"label": "correct", "reason": "x" * 21})


def test_schema_text_keeps_the_declared_key_order_and_round_trips():
    schema = fields_schema(["zeta", "alpha"], 5)
    text = schema_text(schema)
    assert json.loads(text) == schema
    assert text.index('"zeta"') < text.index('"alpha"')  # the order the model is asked to write them in


def test_the_validator_refuses_keywords_it_does_not_check():
    with pytest.raises(ValueError, match="pattern"):
        problems({"type": "string", "pattern": "^a"}, "a")


def _item(context: str, k: int) -> JudgeItem:
    qa = QA("q", "Question?", "Answer.", "g", "f", "factual", [], [])
    return JudgeItem(Candidate(f"{context}/g{k}", context, f"g{k}", "text", "stop"), qa, (), True, "refusal")


def test_the_judge_sample_takes_whole_contexts_seeded_up_to_the_cap():
    items = [_item(f"q{c}/v", k) for c in range(10) for k in range(3)]
    sample = sample_items(items, 10, seed=13)
    contexts = {i.candidate.context_id for i in sample}
    # Whole contexts only (3 candidates each), so 9 of the cap of 10; in the order given.
    assert len(sample) == 9 and len(contexts) == 3
    assert all(sum(i.candidate.context_id == c for i in sample) == 3 for c in contexts)
    assert sample == [i for i in items if i in sample]
    assert sample_items(items, 10, seed=13) == sample  # reproducible from params alone
    assert sample_items(items, 10, seed=14) != sample
    assert sample_items(items, 0, seed=13) == items and sample_items(items, 99, seed=13) == items


def test_the_token_bound_holds_the_longest_object_the_schema_allows():
    from pipeline.structured.schemas import SEPARATORS, fields_token_bound

    names = ["respondent", "违法所得", "penalty_amount"]
    bound = fields_token_bound(names, 8)
    # The longest conforming replies: every value at the cap in 4-byte characters, or in characters that
    # must be escaped (2 bytes each); a byte-level tokenizer needs at most one token per byte, plus EOS.
    for char in ("\U0001F600", '"', "\n", "a"):
        reply = json.dumps({n: char * 8 for n in names}, ensure_ascii=False, separators=SEPARATORS)
        assert problems(fields_schema(names, 8), json.loads(reply)) == []
        assert len(reply.encode("utf-8")) + 1 <= bound, char
    # Not wildly above it either: one field more or a longer cap raises it.
    assert fields_token_bound(names, 9) > bound and fields_token_bound([*names, "x"], 8) > bound


def test_the_choice_bound_holds_the_longest_label_or_grade_the_schema_allows():
    from pipeline.records import LABEL_DIMENSIONS
    from pipeline.structured.schemas import SEPARATORS, choice_schema, choice_token_bound

    for key, choices in [("label", LABEL_DIMENSIONS["faithfulness"]), ("grade", ["A", "B", "C"])]:
        bound = choice_token_bound(key, choices, 120)
        longest = max(choices, key=len)
        for char in ("\U0001F600", "的", '"', "a"):
            reply = json.dumps({key: longest, "reason": char * 120}, ensure_ascii=False, separators=SEPARATORS)
            assert problems(choice_schema(key, choices, 120), json.loads(reply)) == []
            assert len(reply.encode("utf-8")) + 1 <= bound, (key, char)
        # A 120-character Chinese reason alone is 360 bytes: far past the 128 tokens the judges used to get.
        assert bound > 128 * 3
        assert choice_token_bound(key, choices, 121) > bound
