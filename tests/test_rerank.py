"""Best-of-n (the rerank stage, pipeline/reward/bestofn.py): picks, chance, ties and the exact test against
hand-computed values; the stage on the tiny project of tests/reward_project.py; and the stage as `dvc repro`
runs it on the smoke profile (the session's smoke_repo of tests/conftest.py, shared with the end-to-end tests)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import numpy as np
import pytest
import reward_project
from scipy import stats as sps

from pipeline.records import Candidate, Context, Label
from pipeline.reward.bestofn import BLIND, ORACLE, RANDOM, Reranked, analyse, is_ideal
from pipeline.stats import chance_test


def label(cid: str, behaviour: str, faithful: str | None = None, correct: str | None = None,
          complete: str | None = None, status: str = "ok") -> Label:
    return Label(cid, "rule:strict", behaviour, faithful, correct, complete, status)  # type: ignore[arg-type]


GOOD = ("attempted", "fully_supported", "correct", "complete")


def context(cid: str, answerable: bool, texts: list[str], labels: list[tuple], rewards: list[float],
            seed: int = 13) -> Reranked:
    c = Context(cid, cid.split("/")[0], "gold_plus_bm25" if answerable else "bm25_hard_negative", answerable,
                ["p"], 0 if answerable else None)
    cands = [Candidate(f"{cid}/g{k}", cid, f"g{k}", t, "stop") for k, t in enumerate(texts)]
    by_id = {x.id: label(x.id, *lab) for x, lab in zip(cands, labels, strict=True)}
    return Reranked.of(c, "en", cands, by_id, lambda t: t == "REFUSE", [len(t.split()) for t in texts],
                       {"m/ref_sum": rewards}, seed)


def test_ideal_follows_the_primary_judge_per_kind_of_context():
    assert is_ideal(label("a", *GOOD), answerable=True)
    assert not is_ideal(label("a", "attempted", "partially_supported", "correct", "complete"), answerable=True)
    assert not is_ideal(label("a", "abstained"), answerable=True)
    assert is_ideal(label("a", "abstained"), answerable=False)
    assert not is_ideal(label("a", "attempted", "unsupported", "correct", "complete"), answerable=False)
    assert not is_ideal(label("a", "abstained", status="unparseable"), answerable=False)


def test_each_system_picks_as_defined():
    r = context("q1/x", True, ["short answer", "REFUSE", "a much longer wrong answer here"],
                [GOOD, ("abstained",), ("attempted", "contradicted", "incorrect", "complete")], [0.5, 2.0, -1.0])
    picks = r.picks(["g0", "g1", "g2", "g9"])
    assert picks[RANDOM][0] == pytest.approx(1 / 3)
    assert picks[ORACLE] == (1.0, 0, False)
    assert picks[BLIND][:2] == (0.0, 1)  # a refusal wins
    assert picks["generator:g0"][0] == 1.0 and picks["generator:g2"][0] == 0.0 and "generator:g9" not in picks
    assert picks["m/ref_sum"] == (0.0, 1, False)  # the highest reward: the refusal, not ideal here
    no_refusal = context("q2/x", True, ["one two", "one two three", "one"], [GOOD, GOOD, GOOD], [0, 0, 0])
    assert no_refusal.picks([])[BLIND][1] == 1  # then the longer answer


def test_ties_are_broken_by_the_seeded_order_not_the_file_order():
    c = Context("q3/x", "q3", "gold_plus_bm25", True, ["p"], 0)
    cands = [Candidate(f"q3/x/g{k}", "q3/x", f"g{k}", text, "stop") for k, text in enumerate(["a", "b", "c", "d"])]
    labels = {x.id: label(x.id, *(GOOD if k % 2 else ("abstained",))) for k, x in enumerate(cands)}
    rewards = {x.id: r for x, r in zip(cands, [1.0, 1.0, 1.0, 0.0], strict=True)}

    def winner(order: list[Candidate], seed: int = 13) -> str:
        r = Reranked.of(c, "en", order, labels, lambda t: False, [1] * 4, {"m": [rewards[x.id] for x in order]}, seed)
        k, tie = r.pick(r.rewards["m"])
        assert tie
        return r.candidates[k].id

    assert winner(cands) == winner(cands[::-1]) == winner([cands[2], cands[0], cands[3], cands[1]])
    assert winner(cands) != cands[3].id
    assert len({winner(cands, seed) for seed in range(12)}) > 1
    # A tie between answers that share their verdict decides nothing and is not counted.
    same = Reranked.of(c, "en", cands, {x.id: label(x.id, *GOOD) for x in cands}, lambda t: False, [1] * 4,
                       {"m": [1.0, 1.0, 1.0, 0.0]}, 13)
    assert same.pick(same.rewards["m"])[1] is False


def test_the_exact_test_is_the_binomial_test_at_equal_chances_and_exact_otherwise():
    picked = np.array([1, 1, 0, 1, 1, 1, 0, 1, 1, 1], dtype=bool)
    assert chance_test(picked, np.full(10, 0.4)) == pytest.approx(sps.binomtest(8, 10, 0.4).pvalue, rel=1e-12)
    chance = np.array([0.5, 0.25, 0.75])
    # Enumerate the 8 outcomes by hand: P(count) for counts 0..3.
    outcomes = {}
    for bits in range(8):
        x = [(bits >> i) & 1 for i in range(3)]
        prob = np.prod([c if xi else 1 - c for c, xi in zip(chance, x, strict=True)])
        outcomes[sum(x)] = outcomes.get(sum(x), 0) + prob
    observed = outcomes[3]
    assert chance_test(np.ones(3, bool), chance) == pytest.approx(sum(p for p in outcomes.values() if p <= observed))
    assert chance_test(np.array([True]), np.array([1.0])) == 1.0


def test_analyse_gives_shares_intervals_and_differences_against_random():
    contexts = [context(f"q{i}/x", True, ["good", "REFUSE", "bad"], [GOOD, ("abstained",), ("attempted", "contradicted",
                                                                                           "incorrect", "complete")],
                        [3.0, 1.0, 0.0] if i % 4 else [0.0, 1.0, 3.0]) for i in range(20)]
    res = analyse(contexts, ["g0", "g1", "g2"], [RANDOM, ORACLE, BLIND, "generator:g0", "m/ref_sum"], 200, 42)
    model = res["m/ref_sum"]
    assert model["n"] == 20 and model["share"] == pytest.approx(15 / 20)
    assert model["random"] == pytest.approx(1 / 3) and model["vs_random"] == pytest.approx(0.75 - 1 / 3)
    assert model["ci95"][0] < 0.75 < model["ci95"][1]
    assert model["p_vs_random"] == pytest.approx(sps.binomtest(15, 20, 1 / 3).pvalue, rel=1e-9)
    assert res[RANDOM]["p_vs_random"] is None and res[ORACLE]["share"] == 1.0 and res[BLIND]["share"] == 0.0
    assert res["generator:g0"]["share"] == 1.0
    assert res["m/ref_sum"]["by_variant"]["gold_plus_bm25"]["n"] == 20
    assert res["m/ref_sum"]["p_vs_random_holm"] >= res["m/ref_sum"]["p_vs_random"]


def run_rerank(root: Path) -> dict:
    from pipeline.stages import rerank

    with contextlib.chdir(root):
        rerank.main(["--params", "params.yaml"])
    return json.loads((root / "reports/rerank_details.json").read_text(encoding="utf-8"))


def test_the_stage_reranks_every_test_context_of_the_tiny_project(tmp_path):
    root = reward_project.build(tmp_path, top_layers=True)
    details = run_rerank(root)
    picks = [json.loads(line) for line in (root / "data/rerank/picks.jsonl").read_text(encoding="utf-8").splitlines()]
    # Half the 8 questions are test, each with one answerable and one unanswerable context.
    assert details["contexts"]["scored"] == len(picks) == 8
    assert {p["language"] for p in picks} == {"en", "zh"} and details["languages"] == ["en", "zh"]
    res = details["systems"]
    # The project's answers per context: right, refusal, wrong, right at length. Ideal: both right ones on an
    # answerable context, the refusal on an unanswerable one.
    assert res[RANDOM]["share"] == pytest.approx((2 / 4 + 1 / 4) / 2)
    assert res[BLIND]["by_variant"]["gold_plus_random"]["share"] == 0.0
    assert res[BLIND]["by_variant"]["random_context"]["share"] == 1.0
    assert res["generator:offline:a"]["share"] == 0.5 and res[ORACLE]["share"] == 1.0
    assert set(details["order"][-9:]) == {f"dpo-pairs-s{s}/{x}" for s in (0, 1)
                                          for x in ("sum", "mean", "ref_sum", "ref_mean")} | {"base/mean"}
    # Each model's pick is its highest reward among the context's answers.
    for p in picks:
        for name, rewards in p["rewards"].items():
            assert rewards[p["picks"][name]] == max(rewards)
            assert len(rewards) == len(p["candidates"]) == 4
        ideal = [c["ideal"] for c in p["candidates"]]
        assert ideal == ([True, False, False, True] if p["answerable"] else [False, True, False, False])
    metrics = json.loads((root / "reports/rerank_metrics.json").read_text(encoding="utf-8"))
    assert metrics["systems"]["dpo-pairs-s0/ref_sum"]["share"] == res["dpo-pairs-s0/ref_sum"]["share"]
    report = (root / "reports/rerank.md").read_text(encoding="utf-8")
    assert "| `random pick (expected)` | 8 | 0.375 |" in report and "## Per language" in report
    # Rewards equal the API's for the same context given as an item (the same prompt, the same tokens).
    from test_reward_server import request_items

    from pipeline.reward import RewardModel, parse_item

    item = next(i for i in request_items(root) if i["id"] == picks[0]["context_id"])
    context = json.loads(next(line for line in (root / "data/interim/contexts.jsonl").read_text().splitlines()
                              if json.loads(line)["id"] == item["id"]))
    if context["gold_slot"] is not None:
        item["gold"] = context["gold_slot"]
    rm = RewardModel.load(root / "models/adapters/dpo-pairs-s1", root / "params.yaml")
    [scored] = rm.score([parse_item(item, "x", 64)])
    assert picks[0]["rewards"]["dpo-pairs-s1/ref_sum"] == pytest.approx(scored.scores["ref_sum"], abs=1e-4)


def test_a_context_cap_scores_the_seeded_sample_and_says_so(tmp_path):
    """reward.rerank_max_contexts: the contexts of smallest stable_hash(seed, "rerank", id), each scored as in
    the uncapped run, and the report names the cap."""
    import yaml

    from pipeline.text import stable_hash

    root = reward_project.build(tmp_path, top_layers=True)
    run_rerank(root)
    full = {p["context_id"]: p for p in map(json.loads, (root / "data/rerank/picks.jsonl").read_text().splitlines())}
    params = yaml.safe_load((root / "params.yaml").read_text())
    params.setdefault("reward", {})["rerank_max_contexts"] = 3
    (root / "params.yaml").write_text(yaml.safe_dump(params))
    details = run_rerank(root)
    picks = [json.loads(line) for line in (root / "data/rerank/picks.jsonl").read_text().splitlines()]
    expected = sorted(full, key=lambda cid: (stable_hash(params["seed"], "rerank", cid), cid))[:3]
    assert sorted(p["context_id"] for p in picks) == sorted(expected)
    for p in picks:
        uncapped = full[p["context_id"]]["rewards"]
        assert p["rewards"].keys() == uncapped.keys()
        assert all(p["rewards"][m] == pytest.approx(uncapped[m], abs=1e-4) for m in uncapped)
    assert details["contexts"]["available"] == 8 and details["contexts"]["scored"] == 3
    assert details["contexts"]["cap"] == 3
    report = (root / "reports/rerank.md").read_text(encoding="utf-8")
    assert "a seeded sample of 3 of the 8 `test` contexts (reward.rerank_max_contexts" in report


@pytest.mark.slow
def test_the_rerank_stage_runs_in_the_smoke_pipeline(smoke_repo: Path):
    """dvc repro of the smoke profile ran the stage after the adapters: every test context of the paired
    variants is reranked by the base and every adapter, and the numbers hang together."""
    import yaml

    from pipeline.params import load as load_params
    from pipeline.params import run_names
    from pipeline.preferences import assign_splits

    lock = yaml.safe_load((smoke_repo / "dvc.lock").read_text())["stages"]
    assert "rerank" in lock
    details = json.loads((smoke_repo / "reports/rerank_details.json").read_text(encoding="utf-8"))
    params = load_params(smoke_repo / "params.yaml")
    qas = [json.loads(line)["id"] for line in (smoke_repo / "data/interim/qa.jsonl").read_text().splitlines()]
    splits = assign_splits(qas, params.seed, (params.pairs.train, params.pairs.val, params.pairs.test))
    contexts = [json.loads(line) for line in (smoke_repo / "data/interim/contexts.jsonl").read_text().splitlines()]
    test = [c for c in contexts if splits[c["qa_id"]] == "test" and c["variant"] in params.pairs.variants]
    assert details["contexts"]["scored"] + details["fit"]["left_out"] == len(test) > 0
    models = [f"{m}/{s}" for m in run_names(params.train) for s in ("ref_sum", "sum")] + ["base/sum", "base/mean"]
    for system in models + [RANDOM, ORACLE, BLIND]:
        r = details["systems"][system]
        assert r["n"] == details["contexts"]["scored"] and 0 <= r["share"] <= 1
        assert r["ci95"][0] <= r["share"] <= r["ci95"][1]
    assert details["systems"][ORACLE]["share"] >= max(details["systems"][s]["share"] for s in models)
    assert (smoke_repo / "reports/rerank.md").read_text().startswith("# Best-of-n")
