"""End to end: `dvc repro` of the whole lineage on the smoke profile, in a throw-away git repo."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
import yaml
from conftest import run

pytestmark = pytest.mark.slow

DATA_STAGES = ["decisions", "corpus", "contexts", "generate", "judge", "pairs", "augment", "data_report", "irac"]
DIMENSIONS = {"refusal_answerable", "refusal_unanswerable", "faithfulness", "correctness", "completeness"}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def out_hashes(repo: Path, stages: list[str]) -> dict[str, str]:
    lock = yaml.safe_load((repo / "dvc.lock").read_text())["stages"]
    return {
        f"{stage}:{out['path']}": out["md5"]
        for stage in stages
        for out in lock[stage].get("outs", [])
        if "md5" in out
    }


def test_repro_builds_pairs_with_every_dimension(smoke_repo: Path):
    pairs = [
        p
        for split in ("train", "val", "test")
        for p in read_jsonl(smoke_repo / f"data/processed/pairs/{split}.jsonl")
    ]
    # Every dimension but correctness must decide pairs on the smoke data. Under the party-aware judge an
    # answer with the wrong bottom line is nearly always unsupported too, so faithfulness decides first
    # (30 correctness pairs of 9,829 on the default); tests/test_preferences.py covers that branch.
    assert DIMENSIONS - {"correctness"} <= {p["dimension"] for p in pairs} <= DIMENSIONS
    by_question: dict[str, set[str]] = {}
    for p in pairs:
        by_question.setdefault(p["qa_id"], set()).add(p["split"])
    assert all(len(splits) == 1 for splits in by_question.values())
    # Every pair is readable by TRL's DPOTrainer as it is.
    assert all(isinstance(p[k], str) and p[k] for p in pairs for k in ("prompt", "chosen", "rejected"))
    assert (smoke_repo / "reports/data.md").stat().st_size > 0
    assert (smoke_repo / "reports/report.md").stat().st_size > 0


def test_the_data_report_says_how_valid_each_judge_is(smoke_repo: Path):
    """judge_eval ran every judge on the validation set and data.md shows it beside the agreement."""
    validity = json.loads((smoke_repo / "reports/judge_validity.json").read_text(encoding="utf-8"))
    assert set(validity["judges"]) == {"rule:strict", "rule:lenient"}
    test_half = validity["judges"]["rule:strict"]["all/test"]["dimensions"]
    assert test_half["behaviour"]["n"] >= 100 and test_half["faithfulness"]["n"] > 0
    data_md = (smoke_repo / "reports/data.md").read_text(encoding="utf-8")
    assert "### Validity against reading" in data_md and "rule:strict | zh |" in data_md


def test_dpo_moves_the_model_in_the_direction_of_its_pairs(smoke_repo: Path):
    """On the seeded sample of training pairs the score stage reads (a subset of the pairs the run trained
    on), the DPO adapter raises chosen over rejected relative to the base model."""
    train_ids = {p["id"] for p in read_jsonl(smoke_repo / "data/processed/pairs/train.jsonl")}
    scores = [s for s in read_jsonl(smoke_repo / "data/scores/dpo-pairs-s0/pairs.jsonl")
              if s["scoring"] == "ref_sum" and s["pair_id"] in train_ids]
    assert scores
    # The median, not the mean: of the ten pairs the smoke profile scores after 8 steps, one far-off pair (a
    # margin of -2.2 with the 6 December labels) outweighs the six that moved the right way.
    margins = sorted(s["margin"] for s in scores)
    accuracy = sum(s["correct"] for s in scores) / len(scores)
    assert statistics.median(margins) > 0 and accuracy > 0.5, (margins, accuracy)
    curve = (smoke_repo / "reports/training/dpo-pairs-s0.csv").read_text().splitlines()
    header, last = curve[0].split(","), curve[-1].split(",")
    assert float(last[header.index("rewards_margins")]) > 0


def test_irac_stage_scores_the_rule_baseline_on_every_annotated_decision(smoke_repo: Path):
    decisions = read_jsonl(smoke_repo / "data/raw/decisions.jsonl")
    metrics = json.loads((smoke_repo / "reports/irac_details.json").read_text())
    fields, analysis = metrics["fields"]["rule/standard"], metrics["analysis"]["rule/standard"]
    assert metrics["decisions"] == fields["cases"] == analysis["cases"] == len(decisions)
    assert fields["reference_fields"] == sum(len(d["fields"]) for d in decisions)
    for stat in (fields["completeness"], fields["overall_accuracy"], analysis["recall"]):
        assert 0 < stat["ci95"][0] <= stat["mean"] <= stat["ci95"][1] <= 1
    assert "not run" in (smoke_repo / "reports/irac.md").read_text()  # no judge model offline


def test_second_repro_runs_nothing(smoke_repo: Path):
    status = run(["dvc", "status", "--json"], smoke_repo).stdout
    assert json.loads(status or "{}") == {}
    out = run(["dvc", "repro"], smoke_repo).stdout
    assert "Running stage" not in out


def test_forced_repro_reproduces_identical_hashes(smoke_repo: Path):
    before = out_hashes(smoke_repo, DATA_STAGES)
    run(["dvc", "repro", "-f", "data_report", "irac"], smoke_repo)
    after = out_hashes(smoke_repo, DATA_STAGES)
    assert before and after == before


def test_push_then_pull_in_fresh_clone_restores_pairs(smoke_repo: Path, tmp_path: Path):
    run(["git", "add", "-A"], smoke_repo)
    run(["git", "-c", "user.email=t@localhost", "-c", "user.name=t", "commit", "-qm", "results"], smoke_repo)
    run(["dvc", "push"], smoke_repo)
    clone = tmp_path / "clone"
    run(["git", "clone", "-q", str(smoke_repo), str(clone)], tmp_path)
    assert not (clone / "data/processed/pairs/train.jsonl").exists()
    run(["dvc", "pull"], clone)
    for split in ("train", "val", "test"):
        rel = f"data/processed/pairs/{split}.jsonl"
        assert (clone / rel).read_bytes() == (smoke_repo / rel).read_bytes()
    # Only the embedding caches (persist, never pushed) may be missing from a fresh clone; the response
    # caches travel with the data (tests/test_remote.py).
    status = json.loads(run(["dvc", "status", "--json"], clone).stdout or "{}")
    missing = {path for changes in status.values() for c in changes for path in c.get("changed outs", {})}
    other = [c for changes in status.values() for c in changes if set(c) != {"changed outs"}]
    assert not other and all("embeddings" in path for path in missing), status
