"""docs/method.md §11 metrics on hand-built cases whose answers are worked out by hand in the tests, with a
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
    pooled_ci,
    score_analysis_batch,
    score_fields_batch,
    segments,
    summarise_analyses,
    summarise_fields,
)
from pipeline.stats import bootstrap_interval

TAU = 0.6


def score_fields(predicted, reference, kinds, similarity, tau):
    """One decision's task 1 scores: a batch of one."""
    return score_fields_batch([("", "", predicted, reference, kinds, {})], similarity, tau)[0]


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
    # Each pooled accuracy has its case-resampled interval, which holds the point estimate.
    assert s["exact_ci95"][0] <= 0.75 <= s["exact_ci95"][1] and s["semantic_ci95"][0] <= 0.5 <= s["semantic_ci95"][1]
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
    assert s == {"A": 1, "B": 2, "C": 1, "unparseable": 1, "n": 5, "score": 0.4, "ci95": None,
                 "score_parseable": 0.5}  # fmt: skip
    assert judge_score([])["score"] is None
    assert judge_score([None, None]) == {"A": 0, "B": 0, "C": 0, "unparseable": 2, "n": 2, "score": 0.0,
                                         "ci95": None, "score_parseable": None}  # fmt: skip
    # The interval is the bootstrap of the per-analysis points (A 1, B 0.5, else 0) over the analyses.
    grades = ["A", "B", "B", "C", None] * 4
    boot = judge_score(grades, resamples=2000, seed=1)["ci95"]
    expected = bootstrap_interval(np.array([1.0, 0.5, 0.5, 0.0, 0.0] * 4), 2000, 1)
    assert boot == [expected.low, expected.high] and boot[0] < 0.4 < boot[1]


def test_pooled_accuracy_interval_resamples_cases_not_fields():
    # Two cases: one all right (10/10), one all wrong (0/10). Pooled 0.5; resampling cases, a resample
    # is 0, 0.5 or 1, so the interval spans [0, 1] -- a field-level interval would be far narrower.
    low, high = pooled_ci([10, 0], [10, 10], 2000, 3)
    assert (low, high) == (0.0, 1.0)
    assert pooled_ci([1, 2], [0, 0], 100, 3) is None and pooled_ci([1], [2], 0, 3) is None


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


# ---------------------------------------------------------------------------------------------------
# Chinese decisions with declared types, several parties, and the embedding model's language coverage.

from test_irac_rule import zh_decision, zh_two_parties  # noqa: E402

from pipeline.irac import evaluate  # noqa: E402
from pipeline.params import from_dict  # noqa: E402
from pipeline.records import IracOutput  # noqa: E402
from pipeline.retrieval.coverage import CoverageError, check_coverage, unknown_token_rate  # noqa: E402

# A system that copies the reference values but writes them its own way (hand-reformatted, per field).
COPIED = {
    ("zh-1", ""): {"违法所得": "4665091.79", "罚款金额": "人民币13995275.37元", "买入日期": "2011-04-08",
                   "内幕信息公开日": "3 May 2011", "决定日期": "2013.6.20", "买入股数": "1,200,000",
                   "当事人": "张 某", "没收违法所得": "有"},
    ("zh-2", "李某"): {"违法所得": "876325.5", "罚款金额": "262.89765万元", "买入日期": "二〇一五年九月二日",
                      "内幕信息公开日": "2015年10月9日", "决定日期": "2016-03-18", "买入股数": "350,000"},
    ("zh-2", "王某"): {"违法所得": "312000", "罚款金额": "936,000", "买入日期": "7 September 2015",
                      "内幕信息公开日": "October 9, 2015", "决定日期": "2016年3月18日", "买入股数": "12.6万股"},
}  # fmt: skip
MONEY_DATE = {"违法所得", "罚款金额", "买入日期", "内幕信息公开日", "决定日期"}


def copied_items(decisions, typed=True):
    items = []
    for d in decisions:
        for party, reference in d.references():
            items.append((d.id, d.case_type, COPIED[(d.id, party)], reference, d.field_kinds,
                          d.field_types if typed else {}, party))  # fmt: skip
    return items


def test_copying_the_reference_in_other_formats_is_exact_on_typed_chinese_money_and_dates():
    decisions = [zh_decision(), zh_two_parties()]
    cases = score_fields_batch(copied_items(decisions), BagOfWords(), TAU)
    assert [(c.decision_id, c.party) for c in cases] == [("zh-1", ""), ("zh-2", "李某"), ("zh-2", "王某")]
    money_date = [ok for c in cases for name, ok in c.per_field.items() if name in MONEY_DATE]
    assert len(money_date) == 15 and sum(money_date) / len(money_date) > 0.9
    # Every copied field is right (8 + 6 + 6 = 20 exact fields), so each (decision, party) scores 1.
    assert [c.overall for c in cases] == [1.0, 1.0, 1.0]
    assert sum(c.exact_correct for c in cases) == sum(c.exact_total for c in cases) == 20
    # The same copies scored as old untyped data: 9 dates, 3 share counts and the 2 amounts written with 元
    # on both sides still match; the 4 bare amounts, "有" for "是" and "张 某" for "张某" do not: 14 of 20.
    untyped = score_fields_batch(copied_items(decisions, typed=False), BagOfWords(), TAU)
    assert sum(c.exact_correct for c in untyped) == 14


def test_cases_are_decision_party_pairs_averaged_equally():
    d = zh_two_parties()
    predicted = {"违法所得": "876,325.50元", "罚款金额": "1元"}  # right for 李某 only
    # Scored against 李某: overlap 2 fields, 1 right -> 0.5; against 王某: both wrong -> 0.0.
    items = [(d.id, d.case_type, predicted, ref, d.field_kinds, d.field_types, party) for party, ref in d.references()]
    cases = score_fields_batch(items, BagOfWords(), TAU)
    assert [(c.party, c.overall) for c in cases] == [("李某", 0.5), ("王某", 0.0)]
    assert summarise_fields(cases, resamples=50)["overall_accuracy"]["mean"] == pytest.approx(0.25)


def params(**irac):
    return from_dict({"irac": {"bootstrap_resamples": 50, **irac}})


def test_stage_metrics_score_each_party_and_report_per_language():
    zh1, zh2 = zh_decision(), zh_two_parties()
    en = Decision_en()
    outputs = [
        IracOutput("fields/copy/standard/zh-1", "zh-1", "fields", "copy", "standard", COPIED[("zh-1", "")], None, "ok"),
        IracOutput("fields/copy/standard/zh-2/p0", "zh-2", "fields", "copy", "standard", COPIED[("zh-2", "李某")], None, "ok", party="李某"),
        IracOutput("fields/copy/standard/zh-2/p1", "zh-2", "fields", "copy", "standard", {"违法所得": "1元"}, None, "ok", party="王某"),
        IracOutput("fields/copy/standard/en-1", "en-1", "fields", "copy", "standard", {"penalty_amount": "960000"}, None, "ok"),
    ]  # fmt: skip
    sims = {"zh": BagOfWords(), "en": BagOfWords()}
    result = evaluate.metrics(outputs, [], [zh1, zh2, en], params(tasks=["fields"]), sims)
    entry = result["fields"]["copy/standard"]
    assert result["cases"] == 4 and result["languages"] == {"en": 1, "zh": 2}
    assert entry["cases"] == 4
    zh = entry["by_language"]["zh"]
    # zh-1 8/8 and 李某 6/6 right; 王某: only 违法所得 filled, wrong -> overall (1 + 1 + 0) / 3.
    assert zh["cases"] == 3 and zh["overall_accuracy"]["mean"] == pytest.approx(2 / 3)
    assert zh["exact"] == {"correct": 14, "total": 15, "accuracy": 14 / 15}
    # en: "960000" against the money field "HK$960,000" is right once the type is declared.
    assert entry["by_language"]["en"]["exact"] == {"correct": 1, "total": 1, "accuracy": 1.0}
    assert sims["zh"].calls == [] and sims["en"].calls == []  # no semantic field was compared


def Decision_en():
    from pipeline.records import Decision, Section

    return Decision("en-1", "t", "en", "insider_trading", "Re Chan", "", "A penalty of HK$960,000.",
                    [Section("s", "Orders", "A penalty of HK$960,000.")], {"penalty_amount": "HK$960,000"},
                    {"penalty_amount": "exact"}, field_types={"penalty_amount": "money"})  # fmt: skip


class CharTokenizer:
    """A WordPiece-like tokenizer that knows ASCII only: every other character is its unknown token."""

    unk_token_id = 0

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": [0 if ord(ch) > 127 else ord(ch) for ch in text if not ch.isspace()]}


def test_unknown_token_rate_is_the_share_of_unknown_tokens():
    assert unknown_token_rate(CharTokenizer(), ["ab张c", "某"]) == pytest.approx(2 / 5)
    assert unknown_token_rate(CharTokenizer(), ["", "  "]) == 0.0


def test_a_model_that_does_not_cover_chinese_stops_with_the_param_to_set():
    decisions = [zh_decision()]
    with pytest.raises(CoverageError, match=r"irac\.embedding_models\.zh") as err:
        evaluate.check_languages(decisions, params(embedding_models={}), tokenizer_for=lambda model: CharTokenizer())
    assert "'minilm'" in str(err.value) and "irac.allow_uncovered_language" in str(err.value)
    # A model named for zh is the one checked; the opt-in accepts the poor coverage and reports the rate.
    seen = []
    evaluate.check_languages(decisions, params(embedding_models={"zh": "multi"}, tau={"multi": 0.5}, allow_uncovered_language=True),
                             tokenizer_for=lambda model: seen.append(model) or CharTokenizer())  # fmt: skip
    assert seen == ["multi"]


def test_the_bundled_english_minilm_does_not_cover_chinese_but_covers_english():
    """Loads only the tokenizer of the MiniLM model shipped in the local package (no download)."""
    from pipeline.retrieval.coverage import load_tokenizer

    tokenizer = load_tokenizer("minilm")
    zh = zh_decision()
    with pytest.raises(CoverageError, match=r"irac\.embedding_models\.zh"):
        check_coverage("minilm", "zh", [zh.text], 0.05, "irac.embedding_models.zh", "irac.allow_uncovered_language", tokenizer)
    assert unknown_token_rate(tokenizer, [zh.text]) > 0.3
    rates = evaluate.check_languages([Decision_en()], params(), tokenizer_for=lambda model: tokenizer)
    assert rates == {"en": 0.0}
