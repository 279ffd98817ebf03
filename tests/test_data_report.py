"""judge -> pairs -> augment -> data_report on the hand-built corpus of test_pairs, checked against
counts worked out by hand from how that corpus was built."""

from __future__ import annotations

import json

import pytest
from test_pairs import N_QUESTIONS, read_pairs, write_corpus

from pipeline.stages import augment as augment_stage
from pipeline.stages import data_report
from pipeline.stages import judge as judge_stage
from pipeline.stages import pairs as pairs_stage


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    write_corpus(root)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        judge_stage.main([])
        pairs_stage.main([])
        augment_stage.main([])
        data_report.main([])
    metrics = json.loads((root / "reports/data_details.json").read_text())
    return root, metrics, (root / "reports/data.md").read_text()


def test_corpus_statistics(report):
    _, m, _ = report
    c = m["corpus"]
    assert (c["decisions"], c["passages"], c["questions"]) == (N_QUESTIONS, N_QUESTIONS, N_QUESTIONS)
    assert c["contexts_by_variant"] == {"gold_plus_bm25": 20, "random_context": 20, "gold_surrounding": 20}
    assert c["candidates_by_generator"] == {
        g: 60 for g in ("offline:cautious", "offline:confident", "offline:terse", "offline:verbose")
    }
    assert c["decisions_by_case_type"] == {"tenancy": 10, "criminal": 10}


def test_answer_quality(report):
    _, m, _ = report
    q = m["quality"]
    # Per answerable context: cautious refuses, confident quotes the gold sentence (ideal), terse gives the
    # bare amount (incomplete), verbose is degenerate for 7 of 20 questions and quotes a distractor otherwise.
    assert q["gold_plus_bm25"]["all"]["ideal_rate"] == pytest.approx(20 / 80)
    assert q["gold_plus_bm25"]["all"]["attempted_rate"] == pytest.approx((20 + 20 + 13) / 80)
    assert q["gold_plus_bm25"]["offline:confident"]["ideal_rate"] == 1.0
    assert q["gold_plus_bm25"]["offline:cautious"]["attempted_rate"] == 0.0
    # Unanswerable: cautious and terse refuse.
    assert q["random_context"]["all"]["correct_refusal_rate"] == pytest.approx(40 / 80)
    assert "ideal_rate" not in q["random_context"]["all"]


def test_pair_counts_match_the_pair_files(report):
    root, m, _ = report
    pairs = read_pairs(root)
    counts = m["pairs"]["counts"]
    for split in ("train", "val", "test"):
        in_split = [p for p in pairs if p.split == split]
        assert counts[split]["total"] == len(in_split)
        for dim in (
            "refusal_answerable",
            "refusal_unanswerable",
            "faithfulness",
            "correctness",
            "completeness",
        ):
            assert counts[split][dim] == sum(p.dimension == dim for p in in_split)
    assert m["pairs"]["augmented"] == sum(p.augmented for p in read_pairs(root, "pairs_aug")) > 0


def test_lengths_before_and_after_augmentation(report):
    root, m, _ = report
    before = {p.id: p for p in read_pairs(root)}
    after = {p.id: p for p in read_pairs(root, "pairs_aug")}
    row = m["length"]["unanswerable: abstained>attempted"]
    # The rejected side is attempted unless it is verbose's degenerate text (every third question).
    ids = [
        i
        for i, p in before.items()
        if p.dimension == "refusal_unanswerable"
        and not (p.rejected_generator == "offline:verbose" and int(p.qa_id[1:]) % 3 == 0)
    ]
    assert row["n"] == len(ids)
    assert row["mean_chosen_before"] == pytest.approx(sum(before[i].chosen_tokens for i in ids) / len(ids))
    assert row["mean_chosen_after"] == pytest.approx(sum(after[i].chosen_tokens for i in ids) / len(ids))
    # Rewritten refusals say what is missing, so they are longer than the one-sentence originals.
    assert 0 < row["augmented"] <= row["n"] and row["mean_chosen_after"] > row["mean_chosen_before"]
    aug = m["augmentation"]
    meta = json.loads((root / "data/processed/pairs_aug/meta.json").read_text())
    # The data report shows the augment stage's own outcome counts, task by task.
    for task, v in aug.items():
        assert v["rewritten"] == meta["outcomes"].get(f"{task}:rewritten", 0)
        assert v["planned"] == v["kept_for_balance"] + v["rewritten"] + v["failed_check"] + v["dropped_by_judge"]
    assert sum(v["rewritten"] for v in aug.values()) == m["pairs"]["augmented"]
    comp = m["length"]["answerable: completeness complete>incomplete"]
    assert comp["mean_rejected_after"] >= comp["mean_rejected_before"]


def test_judges_agreement_and_robustness(report):
    _, m, md = report
    assert m["judges"]["rule:strict"] == {"labels": 240, "unparseable": 0}
    assert set(m["agreement"]) == {"behaviour", "faithfulness", "correctness", "completeness"}
    assert m["agreement"]["behaviour"]["items"] == 240
    rob = m["robustness"]["rule:lenient"]
    for scope in ("overall", "test"):
        assert rob[scope]["kept"] + rob[scope]["reversed"] + rob[scope]["lost"] == pytest.approx(1.0)
    assert rob["overall"]["pairs"] == sum(m["pairs"]["counts"][s]["total"] for s in ("train", "val", "test"))
    assert rob["test"]["pairs"] == m["pairs"]["counts"]["test"]["total"]
    assert "offline default: synthetic decisions, extractive panel, rule judge" in md
    assert "Fleiss kappa" in md and "answerable: attempted>abstained" in md


def test_report_is_deterministic(report):
    root, _, md = report
    before = (root / "reports/data_details.json").read_bytes()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        data_report.main([])
    assert (root / "reports/data_details.json").read_bytes() == before
    assert (root / "reports/data.md").read_text() == md


def test_figures_by_language(report):
    """The hand-built corpus is English only: every label, pair and question counts under "en", the
    per-language pair counts add up to the split x dimension table, and recall@10 covers its 20 questions
    (its exact value is tested on a corpus built for it in test_contexts.py)."""
    root, m, md = report
    by = m["by_language"]
    assert by["questions"] == {"en": 20}
    assert sum(by["labels"]["en"].values()) == 240 and set(by["labels"]) == {"en"}
    assert by["labels"]["en"]["abstained"] == sum(
        1 for line in (root / "data/interim/labels/rule-strict.jsonl").read_text().splitlines()
        if json.loads(line)["behaviour"] == "abstained"
    )
    for dim, row in by["pairs"].items():
        assert row == {"en": sum(m["pairs"]["counts"][s][dim] for s in ("train", "val", "test"))}
    recall = by["recall_at_10"]["en"]
    assert recall["questions"] == 20 and 0 <= recall["dense"] <= 1 and 0 <= recall["bm25"] <= 1
    assert "## By language" in md and "Gold recall@10" in md
