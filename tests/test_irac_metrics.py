"""SPEC 11 metrics on hand-built cases whose answers are worked out by hand in the tests, with a
deterministic bag-of-words similarity (and one check of the real MiniLM model at tau 0.6)."""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np
import pytest

from pipeline.irac import metrics
from pipeline.irac.metrics import (
    judge_score,
    per_field_accuracy,
    score_analysis_batch,
    score_fields,
    score_fields_batch,
    segments,
    summarise_analyses,
    summarise_fields,
)
from pipeline.stats import bootstrap_interval

TAU = 0.6


def bow_cosine(a: str, b: str) -> float:
    ca, cb = Counter(re.findall(r"\w+", a.lower())), Counter(re.findall(r"\w+", b.lower()))
    dot = sum(ca[w] * cb[w] for w in ca)
    norm = math.sqrt(sum(v * v for v in ca.values()) * sum(v * v for v in cb.values()))
    return dot / norm if norm else 0.0


class BagOfWords:
    """Cosine of word-count vectors; counts its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], list[str]]] = []

    def __call__(self, a: list[str], b: list[str]) -> np.ndarray:
        self.calls.append((a, b))
        return np.array([[bow_cosine(x, y) for y in b] for x in a], dtype=np.float64)


ISSUE = "whether the respondent dealt in shares while in possession of inside information"
INSIDER_REF = {
    "decision_date": "15 May 2019",
    "penalty_amount": "HK$1,224,000",
    "multiplier": "two times",
    "issue": ISSUE,
    "conclusion": "the respondent is ordered to pay a pecuniary penalty",
    "cold_shoulder_period": "",  # the reference leaves it empty
}
INSIDER_KINDS = {"decision_date": "exact", "penalty_amount": "exact", "multiplier": "exact",
                 "cold_shoulder_period": "exact", "issue": "semantic", "conclusion": "semantic"}  # fmt: skip
TENANCY_REF = {
    "landlord": "Chu Estates Limited",
    "monthly_rent": "HK$18,000",
    "relief": "the tribunal may grant relief from forfeiture if arrears are paid",
}
TENANCY_KINDS = {"landlord": "exact", "monthly_rent": "exact", "relief": "semantic"}


def field_items():
    insider_pred = {
        "decision_date": "2019-05-15",  # right, another format
        "penalty_amount": "HK$1,224",  # wrong amount
        # multiplier not given
        "issue": "whether the respondent dealt in shares with inside information",
        "conclusion": "  ",  # blank: not filled
        "cold_shoulder_period": "2 years",  # spurious: the reference is empty
    }
    tenancy_pred = {
        "landlord": "chu estates limited",
        "monthly_rent": "HK$ 18000",
        "relief": "the landlord recovers possession of the flat",
    }
    return [
        ("d1", "insider_trading", insider_pred, INSIDER_REF, INSIDER_KINDS),
        ("d2", "insider_trading", None, INSIDER_REF, INSIDER_KINDS),  # unparseable output
        ("d3", "residential_tenancy", tenancy_pred, TENANCY_REF, TENANCY_KINDS),
    ]


def test_the_fake_similarity_is_what_the_hand_arithmetic_assumes():
    # issue: shared words whether the respondent dealt in shares inside information, "in" twice in the
    # reference: dot 9, norms sqrt(14) and sqrt(9) -> 9 / sqrt(126) = 0.80 >= 0.6.
    assert bow_cosine(
        "whether the respondent dealt in shares with inside information", ISSUE
    ) == pytest.approx(9 / math.sqrt(126))
    # relief: only "the" (twice in the prediction) is shared: 2 / sqrt(9 * 11) = 0.20 < 0.6.
    assert bow_cosine("the landlord recovers possession of the flat", TENANCY_REF["relief"]) == pytest.approx(
        2 / math.sqrt(99)
    )


def test_field_scores_of_hand_built_cases():
    sim = BagOfWords()
    d1, d2, d3 = score_fields_batch(field_items(), sim, TAU)
    assert len(sim.calls) == 1  # every semantic comparison of the batch in one call

    # d1: reference fills 5 fields; the system fills date, penalty, issue (3) -> completeness 3/5.
    # Overlap: exact date (right), penalty (wrong); semantic issue (right, cosine 0.80).
    # overall = 2/3 * 1/2 + 1/3 * 1/1 = 2/3.
    assert (d1.reference_count, d1.filled, d1.spurious) == (5, 3, 1)
    assert (d1.exact_total, d1.exact_correct, d1.semantic_total, d1.semantic_correct) == (2, 1, 1, 1)
    assert d1.completeness == pytest.approx(0.6)
    assert d1.overall == pytest.approx(2 / 3)
    assert d1.per_field == {"decision_date": True, "issue": True, "penalty_amount": False}

    # d2: unparseable -> fills nothing, kept with completeness 0 and no overall.
    assert (d2.filled, d2.spurious, d2.completeness, d2.overall, d2.parseable) == (0, 0, 0.0, None, False)
    assert d2.per_field == {}

    # d3: all 3 filled; exact 2/2 right, semantic relief wrong (cosine 0.20).
    # overall = 2/3 * 2/2 + 1/3 * 0/1 = 2/3.
    assert (d3.filled, d3.completeness, d3.exact_correct, d3.semantic_correct) == (3, 1.0, 2, 0)
    assert d3.overall == pytest.approx(2 / 3)


def test_single_case_helper_equals_the_batch():
    item = field_items()[0]
    one = score_fields(
        item[2], item[3], item[4], BagOfWords(), TAU, decision_id="d1", case_type="insider_trading"
    )
    assert one == score_fields_batch([item], BagOfWords(), TAU)[0]


def test_field_summary_and_per_field_accuracy():
    cases = score_fields_batch(field_items(), BagOfWords(), TAU)
    s = summarise_fields(cases, resamples=500, seed=3)
    assert s["cases"] == 3 and s["unparseable"] == 1 and s["spurious"] == 1
    # completeness over all 3 cases: (0.6 + 0 + 1) / 3; overall over the 2 with an overlap: (2/3 + 2/3) / 2.
    assert s["completeness"]["mean"] == pytest.approx(1.6 / 3)
    assert s["overall_accuracy"]["mean"] == pytest.approx(2 / 3) and s["overall_cases"] == 2
    assert (s["reference_fields"], s["filled"]) == (5 + 5 + 3, 3 + 0 + 3)
    assert s["exact"] == {"correct": 3, "total": 4, "accuracy": 0.75}
    assert s["semantic"] == {"correct": 1, "total": 2, "accuracy": 0.5}
    expected = bootstrap_interval(np.array([0.6, 0.0, 1.0]), 500, 3)
    assert s["completeness"]["ci95"] == [expected.low, expected.high]
    assert expected.low <= s["completeness"]["mean"] <= expected.high

    assert per_field_accuracy(cases) == {
        "decision_date": (1, 1), "issue": (1, 1), "landlord": (1, 1), "monthly_rent": (1, 1),
        "penalty_amount": (0, 1), "relief": (0, 1),
    }  # fmt: skip


def test_semantic_field_equal_after_normalisation_needs_no_similarity():
    sim = BagOfWords()
    case = score_fields({"relief": "The Tribunal may grant relief from forfeiture if arrears are paid."},
                        {"relief": TENANCY_REF["relief"]}, {}, sim, TAU)  # fmt: skip
    assert case.semantic_correct == 1 and sim.calls == []


def test_a_reference_without_fields_is_refused():
    with pytest.raises(ValueError, match="d9"):
        score_fields_batch([("d9", "x", {}, {"a": " "}, {})], BagOfWords(), TAU)


def test_split_similarity_calls_give_the_same_scores(monkeypatch):
    items = field_items() * 4
    whole = score_fields_batch(items, BagOfWords(), TAU)
    monkeypatch.setattr(metrics, "_BLOCK_CELLS", 1)
    sim = BagOfWords()
    assert score_fields_batch(items, sim, TAU) == whole
    assert len(sim.calls) == 8  # one per semantic comparison (2 per repeat) under a 1-cell cap


ANALYSIS = (
    "Issue: whether the respondent dealt in shares with inside information. "
    "On 15 May 2019 the Tribunal ordered a penalty of HK$1.224 million; costs follow the event."
)
ANALYSIS_REF = {
    "decision_date": "15 May 2019",
    "penalty_amount": "HK$1,224,000",
    "cold_shoulder_ordered": "Yes",
    "issue": ISSUE,
    "conclusion": "the respondent is ordered to pay a pecuniary penalty",
}
ANALYSIS_KINDS = {"decision_date": "exact", "penalty_amount": "exact", "cold_shoulder_ordered": "exact",
                  "issue": "semantic", "conclusion": "semantic"}  # fmt: skip


def test_segments_split_sentences_then_colons_and_semicolons():
    assert segments(ANALYSIS) == [
        "Issue",
        "whether the respondent dealt in shares with inside information.",
        "On 15 May 2019 the Tribunal ordered a penalty of HK$1.224 million",
        "costs follow the event.",
    ]
    assert segments("被告人认罪。法院判处三年：缓刑") == ["被告人认罪。", "法院判处三年", "缓刑"]


def test_analysis_recall_of_hand_built_cases():
    sim = BagOfWords()
    relief = "the Tribunal may grant relief from forfeiture if arrears are paid"
    items = [
        ("d1", "insider_trading", ANALYSIS, ANALYSIS_REF, ANALYSIS_KINDS),
        ("d2", "insider_trading", None, ANALYSIS_REF, ANALYSIS_KINDS),
        ("d3", "residential_tenancy", f"Held: {relief.upper()}, and the rent is HK$18,000.", TENANCY_REF,
         TENANCY_KINDS),
    ]  # fmt: skip
    d1, d2, d3 = score_analysis_batch(items, sim, TAU)
    assert len(sim.calls) == 1

    # d1: date (15 May 2019) and penalty (HK$1.224 million) stated exactly; "Yes" has no value a text
    # can contain, so it leaves the denominator; issue matches segment 2 (cosine 0.80); conclusion's best
    # segment is segment 3: shared words the, ordered, a, penalty -> 4 / sqrt(9 * 14) = 0.36 < 0.6.
    # Recall 3/4.
    assert d1.per_field == {"conclusion": False, "decision_date": True, "issue": True, "penalty_amount": True}
    assert (d1.stated, d1.reference_count, d1.unstatable, d1.recall) == (3, 4, 1, pytest.approx(0.75))
    assert d1.tokens > 20

    # d2: unparseable states nothing, kept.
    assert (d2.stated, d2.recall, d2.tokens, d2.parseable) == (0, 0.0, 0, False)

    # d3: the relief text is there verbatim (any case); the rent is stated; the landlord is not. 2/3.
    assert d3.per_field == {"landlord": False, "monthly_rent": True, "relief": True}

    s = summarise_analyses([d1, d2, d3], resamples=200, seed=1)
    assert s["recall"]["mean"] == pytest.approx((0.75 + 0 + 2 / 3) / 3)
    assert (s["stated"], s["reference_fields"], s["unstatable_fields"], s["unparseable"]) == (5, 11, 2, 1)
    assert s["pooled_recall"] == pytest.approx(5 / 11)
    assert per_field_accuracy([d1, d2])["decision_date"] == (1, 2)


def test_judge_score_arithmetic():
    # A=1, B=2, C=1, unparseable=1: (1 + 0.5 * 2) / 5 = 0.4 over all graded; 2 / 4 = 0.5 over parseable.
    s = judge_score(["A", "B", "B", "C", None])
    assert s == {"A": 1, "B": 2, "C": 1, "unparseable": 1, "n": 5, "score": 0.4, "score_parseable": 0.5}
    assert judge_score([])["score"] is None
    assert judge_score([None, None]) == {"A": 0, "B": 0, "C": 0, "unparseable": 2, "n": 2, "score": 0.0,
                                         "score_parseable": None}  # fmt: skip


def test_empty_summaries_have_no_means():
    assert summarise_fields([])["completeness"] == {"mean": None, "ci95": None}
    assert summarise_analyses([])["recall"] == {"mean": None, "ci95": None}


def test_real_minilm_separates_paraphrase_from_unrelated_at_tau():
    """Loads the MiniLM model shipped in the local package (no download; fine on CPU)."""
    from pipeline.retrieval.dense import load_encoder

    encode = load_encoder("minilm")

    def minilm(a: list[str], b: list[str]) -> np.ndarray:
        return encode(a) @ encode(b).T

    reference = {
        "possession": "possession of the premises is granted to the landlord",
        "suspension": "the court suspended the sentence in view of the defendant's clean record",
        "arrears": "the tenant owes rent arrears",
    }
    predicted = {
        "possession": "the landlord may recover possession of the flat",
        "suspension": "the sentence was suspended for two years because of the defendant's good character",
        "arrears": "the defendant was sentenced to prison for burglary",
    }
    case = score_fields(predicted, reference, {}, minilm, TAU)
    assert case.per_field == {"arrears": False, "possession": True, "suspension": True}
