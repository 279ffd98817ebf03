"""The score and report stages end to end on a tiny project, and the report's analysis on hand-built data.

The base model is a tiny random LlamaForCausalLM saved in Hugging Face format with a tokenizer trained
in the test; the adapters are random LoRA weights. Nothing is downloaded.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from conftest import tiny_llama_config

from pipeline import params as params_mod
from pipeline import stats
from pipeline.io import read_records, write_records
from pipeline.prompts import answer_prompt_with_spans
from pipeline.records import Pair, Passage, Score
from pipeline.reporting import analysis
from pipeline.stages import report, score

DIMS = ["refusal_answerable", "refusal_unanswerable", "faithfulness", "correctness", "completeness"]


REFUSAL = "The provided passages do not contain enough information to answer this question."


def make_pairs(corpus: str, split: str, n: int) -> list[Pair]:
    """Answer prompts of 2 short or 4 long passages (the long ones need fitting at max_length 400)."""
    out = []
    for i in range(n):
        answer = f"The tenant must give {i + 2} weeks notice in writing under section {i}."
        chosen, rejected = (answer, REFUSAL) if i % 3 else (REFUSAL, answer)
        long = i % 3 == 0
        passages = [Passage(f"d{i}/p{k}", f"d{i}", f"d{i}", "Notice", f"Notice of {i + k} weeks. " * (15 if long else 4))
                    for k in range(4 if long else 2)]
        prompt, spans = answer_prompt_with_spans(passages, f"How much notice in case {i}?", REFUSAL)
        out.append(
            Pair(
                id=f"{corpus}-{split}-{i:03d}",
                qa_id=f"q{split}{i // 2}",
                context_id=f"q{split}{i // 2}/gold_plus_bm25",
                variant=["gold_plus_bm25", "random_context"][i % 2],
                answerable=bool(i % 2 == 0),
                split=split,
                dimension=DIMS[i % len(DIMS)],
                prompt=prompt,
                chosen=chosen,
                rejected=rejected,
                chosen_generator="offline:a",
                rejected_generator="offline:b",
                chosen_tokens=len(chosen.split()),
                rejected_tokens=len(rejected.split()),
                augmented=corpus == "pairs_aug",
                source="test",
                passage_spans=spans,
                gold_slot=0 if i % 2 == 0 else None,
            )
        )
    return out


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    from peft import LoraConfig, get_peft_model
    from transformers import LlamaForCausalLM

    from pipeline.models.tokenizer import train_tokenizer

    root = tmp_path_factory.mktemp("proj")
    texts = [p.prompt + " " + p.chosen + " " + p.rejected for p in make_pairs("pairs", "train", 30)]
    tok = train_tokenizer(sorted(texts), vocab_size=400)
    torch.manual_seed(0)
    config = tiny_llama_config(tok)
    model = LlamaForCausalLM(config)
    base = root / "models/base"
    model.save_pretrained(base)
    tok.save_pretrained(base)
    n_params = sum(p.numel() for p in model.parameters())
    (base / "meta.json").write_text(json.dumps({"base_model": "builtin", "n_params": n_params}))
    for k, name in enumerate(["dpo-pairs-s0", "sft-pairs-s0"]):
        torch.manual_seed(10 + k)
        peft_model = get_peft_model(
            LlamaForCausalLM(config).eval(),
            LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]),
        )
        peft_model.base_model.model.load_state_dict(model.state_dict(), strict=False)
        with torch.no_grad():
            for pname, param in peft_model.named_parameters():
                if "lora_B" in pname:
                    param.normal_(0, 0.3)
        out = root / "models/adapters" / name
        peft_model.save_pretrained(out)
        (out / "train_meta.json").write_text(
            json.dumps(
                {
                    "run": name,
                    "objective": name.split("-")[0],
                    "corpus": "pairs",
                    "seed": 0,
                    "steps": 3,
                    "final_loss": 0.69,
                    "counts": {
                        "pairs_in": 30,
                        "capped": 0,
                        "overlong": 2,
                        "refit": 2,
                        "dropped": 0,
                        "pairs_used": 30,
                        "fit": {"all": {"pairs": 30, "refit": 2, "passages_dropped": 3, "left_out": 0,
                                        "gold_lost": 0}},
                    },
                }
            )
        )
    for corpus in ("pairs", "pairs_aug"):
        for split, n in (("train", 4), ("val", 10), ("test", 16)):
            write_records(root / "data/processed" / corpus / f"{split}.jsonl", make_pairs(corpus, split, n))
    (root / "reports").mkdir()
    (root / "reports/data_details.json").write_text(
        json.dumps(
            {
                # What the data report counted from the records (tests/test_data_report.py checks that).
                "data_sources": {"synthetic_decisions": {"en": 300}, "outside_pairs": {"en": 6}},
                "length": {
                    "refusal: attempted>abstained": {
                        "n": 5,
                        "augmented": 2,
                        "mean_chosen_before": 20.0,
                        "mean_rejected_before": 3.0,
                        "mean_chosen_after": 20.0,
                        "mean_rejected_after": 15.0,
                    }
                }
            }
        )
    )
    raw = params_mod.to_dict(params_mod.Params())
    outside = [{"id": f"ext-{i}", "prompt": f"Question: is notice of {i} weeks enough?",
                "chosen": f"Yes, {i} weeks is enough.", "rejected": "No."} for i in range(5)]
    outside.append({"id": "ext-long", "prompt": "Question: " + "notice " * 500, "chosen": "Yes.", "rejected": "No."})
    (root / "ext.jsonl").write_text("".join(json.dumps(o) + "\n" for o in outside))
    raw["train"]["external_pairs"] = {"format": "jsonl", "path": "ext.jsonl"}
    # The runs whose adapters are made above: score and report take exactly the runs of train.runs.
    raw["train"]["runs"] = {"dpo": ["pairs-s0"], "sft": ["pairs-s0"]}
    raw["score"].update(max_pairs=12, batch_tokens=2048, max_length=400, corpora=["pairs", "pairs_aug", "external"])
    raw["report"].update(bootstrap_resamples=500)
    (root / "params.yaml").write_text(yaml.safe_dump(raw))
    return root


@pytest.fixture(scope="module")
def scored(project: Path) -> Path:
    mp = pytest.MonkeyPatch()
    mp.chdir(project)
    try:
        score.main([])
        report.main([])
    finally:
        mp.undo()
    return project


def test_score_writes_one_record_per_pair_and_scoring(scored: Path):
    meta = json.loads((scored / "data/scores/meta.json").read_text())
    assert meta["models"] == ["base", "dpo-pairs-s0", "sft-pairs-s0"]
    # max_pairs=12 per split: all 4 train pairs, all 10 val pairs, 12 of 16 test pairs.
    fit = meta["corpora"]["pairs"]["fit"]["all"]
    assert fit["pairs"] == 26 and meta["corpora"]["pairs"]["scored"] == 26 - fit["left_out"]
    assert fit["refit"] > 0 and fit["gold_lost"] == 0  # the long prompts lost distractors, never gold
    records = read_records(scored / "data/scores/base/pairs.jsonl", Score, unique_key=None)
    n = meta["corpora"]["pairs"]["scored"]
    assert len(records) == 2 * n and {r.scoring for r in records} == {"sum", "mean"}
    adapter = read_records(scored / "data/scores/dpo-pairs-s0/pairs.jsonl", Score, unique_key=None)
    assert {r.scoring for r in adapter} == {"sum", "mean", "ref_sum", "ref_mean"} and len(adapter) == 4 * n
    for r in records + adapter:
        assert r.margin == pytest.approx(r.chosen - r.rejected)
        assert r.correct == (r.chosen > r.rejected)
    by = {(r.pair_id, r.scoring): r for r in records}
    for (pid, scoring), r in by.items():
        if scoring == "mean":
            s = by[(pid, "sum")]
            assert r.chosen == pytest.approx(s.chosen / s.chosen_tokens, rel=1e-5)


def test_outside_pairs_are_an_extra_eval_corpus(scored: Path):
    """Transfer evaluation: every outside pair is scored as held out; one too long for max_length and
    without passage structure is left out and counted, never cut."""
    meta = json.loads((scored / "data/scores/meta.json").read_text())
    ext = meta["corpora"]["external"]
    assert ext["available"] == {"test": 6} and ext["scored"] == 5
    assert ext["fit"]["all"]["left_out"] == 1 and ext["fit"]["all"]["refit"] == 0
    ids = {r.pair_id for r in read_records(scored / "data/scores/dpo-pairs-s0/external.jsonl", Score, unique_key=None)}
    assert ids == {f"ext-{i}" for i in range(5)}
    metrics = json.loads((scored / "reports/report_details.json").read_text())
    assert metrics["dpo-pairs-s0"]["external"]["ref_sum"]["n"] == 5
    text = (scored / "reports/report.md").read_text()
    assert "### Eval corpus `external`, ref_sum" in text and "outside pairs (en 6)" in text


def test_scores_match_an_independent_plain_computation(scored: Path):
    from pipeline.models import load_base, render_prompt, render_response

    model, tok = load_base(scored / "models/base", device="cpu")
    pair = read_records(scored / "data/processed/pairs/val.jsonl", Pair)[1]  # short: fits unchanged
    rec = {
        r.scoring: r
        for r in read_records(scored / "data/scores/base/pairs.jsonl", Score, unique_key=None)
        if r.pair_id == pair.id
    }
    prompt = tok(render_prompt(tok, pair.prompt), add_special_tokens=False)["input_ids"]
    response = tok(render_response(tok, pair.chosen), add_special_tokens=False)["input_ids"]
    assert len(prompt) + max(len(response), rec["sum"].rejected_tokens) <= 400
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([prompt + response])).logits[0].double(), -1)
    expected = sum(logp[len(prompt) - 1 + t, tok_id].item() for t, tok_id in enumerate(response))
    assert rec["sum"].chosen == pytest.approx(expected, abs=1e-4)
    assert rec["sum"].chosen_tokens == len(response)


def test_reference_relative_is_the_log_ratio_to_the_base(scored: Path):
    def load(model: str) -> dict:
        path = scored / f"data/scores/{model}/pairs.jsonl"
        return {(r.pair_id, r.scoring): r for r in read_records(path, Score, unique_key=None)}

    base, dpo = load("base"), load("dpo-pairs-s0")
    for (pid, scoring), r in dpo.items():
        if scoring.startswith("ref_"):
            plain = scoring.removeprefix("ref_")
            assert r.chosen == pytest.approx(dpo[(pid, plain)].chosen - base[(pid, plain)].chosen, abs=1e-9)
            assert r.rejected == pytest.approx(dpo[(pid, plain)].rejected - base[(pid, plain)].rejected, abs=1e-9)
    assert any(abs(r.margin) > 1e-6 for (_, s), r in dpo.items() if s == "ref_sum")


def test_report_metrics_match_the_score_files(scored: Path):
    metrics = json.loads((scored / "reports/report_details.json").read_text())
    test_ids = {p.id for p in read_records(scored / "data/processed/pairs/test.jsonl", Pair)}
    for model, scoring in (("base", "mean"), ("dpo-pairs-s0", "mean"), ("dpo-pairs-s0", "ref_sum")):
        recs = [r for r in read_records(scored / f"data/scores/{model}/pairs.jsonl", Score, unique_key=None)
                if r.scoring == scoring and r.pair_id in test_ids]
        m = metrics[model]["pairs"][scoring]
        assert m["n"] == len(recs) > 0
        assert m["accuracy"] == pytest.approx(sum(r.correct for r in recs) / len(recs), abs=1e-6)
        assert m["low"] <= m["accuracy"] <= m["high"]
    assert "delta" in metrics["dpo-pairs-s0"]["pairs"]["sum"] and "base" not in {
        k for k, v in metrics.items() if "ref_sum" in v["pairs"]}
    lengths = {
        r.pair_id: (r.chosen_tokens, r.rejected_tokens)
        for r in read_records(scored / "data/scores/base/pairs.jsonl", Score, unique_key=None)
        if r.pair_id in test_ids
    }
    longer = np.mean([c > r for c, r in lengths.values()])
    assert metrics["prefer-longer"]["pairs"]["ref_sum"]["accuracy"] == pytest.approx(longer, abs=1e-6)
    assert set(metrics["prefer-longer"]["pairs"]) == {"ref_sum"}  # the rules once, under the main scoring


def test_headline_metrics_are_few_and_taken_from_the_details(scored: Path):
    """reports/metrics.json is what `dvc exp show` lists: per reward model and corpus the main-scoring
    accuracy and p, the base model's better raw accuracy and the passage-blind rule; nothing else."""
    details = json.loads((scored / "reports/report_details.json").read_text())
    headline = json.loads((scored / "reports/metrics.json").read_text())
    assert set(headline) == {"base", "passage-blind"} | {m for m in details if m.startswith(("dpo-", "sft-"))}
    for model, by_corpus in headline.items():
        for corpus, entry in by_corpus.items():
            if model == "base":
                raw = details["base"][corpus]
                assert entry == {"accuracy": max(raw["sum"]["accuracy"], raw["mean"]["accuracy"])}
            else:
                row = details[model][corpus]["ref_sum"]
                assert entry == {k: row[k] for k in ("accuracy", "p") if k in row} and "accuracy" in entry
    leaves = sum(len(entry) for by_corpus in headline.values() for entry in by_corpus.values())
    assert leaves <= 6 * len(headline)


def test_report_markdown_figures_and_plot_data(scored: Path):
    text = (scored / "reports/report.md").read_text()
    assert "offline profile" in text and "Llama-architecture model trained by the pipeline" in text
    assert "\n- Data: synthetic decisions (en 300); outside pairs (en 6).\n" in text
    for section in (
        "## Main results",
        "## Learning vs generalisation",
        "## Findings of the method, tested here",
        "## Seeds",
        "## Significance",
        "## Accuracy per dimension",
        "## Length-controlled accuracy",
        "## Prompts that did not fit max_length",
        "## Training summary",
    ):
        assert section in text
    # The main table leads with report.main_scoring (ref_sum by default), before sum and mean.
    assert text.index("### Eval corpus `pairs`, ref_sum") < text.index("### Eval corpus `pairs`, sum")
    assert "`passage-blind`" in text and "DPO > SFT" in text and "pairs_aug > pairs" not in text
    assert "refusal: attempted>abstained" in text  # copied from data_details.json
    assert "at most 12 pairs per corpus and split" in text
    for fig in ("accuracy.png", "dimensions.png", "training.png"):
        assert (scored / "reports/figures" / fig).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (
        (scored / "reports/plots/accuracy.csv").read_text().startswith("system,model,corpus,scoring,accuracy")
    )


def test_stages_are_deterministic(scored: Path, monkeypatch):
    before = {p: p.read_bytes() for p in (scored / "data/scores").rglob("*.jsonl")}
    before[scored / "reports/report.md"] = (scored / "reports/report.md").read_bytes()
    before[scored / "reports/figures/accuracy.png"] = (scored / "reports/figures/accuracy.png").read_bytes()
    monkeypatch.chdir(scored)
    score.main([])
    report.main([])
    assert all(p.read_bytes() == b for p, b in before.items())


def _scored(correct: list[bool], ct: list[int], rt: list[int]) -> analysis.Scored:
    c = np.where(correct, 1.0, 0.0)
    return analysis.Scored(c, np.full(len(c), 0.5), np.asarray(correct), np.asarray(ct), np.asarray(rt))


def test_analyse_on_hand_built_scores():
    n = 8
    info = analysis.PairInfo(
        [f"p{i}" for i in range(n)],
        np.array(["test"] * 6 + ["val"] * 2, dtype=object),
        np.array(["faithfulness", "correctness"] * 4, dtype=object),
        np.array(["gold_plus_bm25"] * n, dtype=object),
        np.array([True, True, False, False, False, False, True, True]),
    )
    ct, rt = [10, 10, 10, 10, 30, 2, 5, 5], [10, 12, 30, 2, 10, 10, 5, 5]
    base = _scored([True, False, False, True, False, False, True, True], ct, rt)
    base_mean = _scored([True, True, False, True, False, False, True, True], ct, rt)
    dpo = _scored([True, True, True, True, False, True, False, False], ct, rt)
    sft = _scored([True, False, True, True, False, False, True, True], ct, rt)
    aug = _scored([False] * 6 + [True] * 2, ct, rt)
    named = (("base", base), ("dpo-pairs-s0", dpo), ("sft-pairs-s0", sft), ("dpo-pairs_aug-s0", aug))
    table = {(m, "pairs", s): x for m, x in named for s in ("sum", "mean")}
    table[("base", "pairs", "mean")] = base_mean
    table |= {(m, "pairs", s): x for m, x in named[1:] for s in ("ref_sum", "ref_mean")}
    runs = {m: analysis.Run(m, m.split("-")[0], m.split("-")[1], 0) for m, _ in named[1:]}
    rp = params_mod.ReportParams(bootstrap_resamples=200, length_ratio=1.5, main_scoring="ref_sum")
    res = analysis.analyse(table, {"pairs": info}, [m for m, _ in named], runs, rp)
    main = res["tables"]["pairs/sum"]["main"]
    # test split = first 6 pairs: base 2/6, dpo 5/6; discordant: b = 0, c = 3 -> p = 2 * 0.5^3.
    assert main["base"]["accuracy"] == pytest.approx(2 / 6)
    assert main["dpo-pairs-s0"]["delta"] == pytest.approx(3 / 6)
    assert (main["dpo-pairs-s0"]["b"], main["dpo-pairs-s0"]["c"]) == (0, 3)
    assert main["dpo-pairs-s0"]["p"] == pytest.approx(0.25)
    # ref tables compare with the base's better plain scoring: mean (3/6) beats sum (2/6) on test.
    ref = res["tables"]["pairs/ref_sum"]
    assert ref["comparator"] == "base (mean)" and "base" not in ref["main"]
    assert ref["main"]["dpo-pairs-s0"]["delta"] == pytest.approx(2 / 6)
    # passage-blind is right on test pairs 0 and 1; dpo on 0, 1, 2, 3, 5: b = 0, c = 3.
    assert ref["main"]["passage-blind"]["accuracy"] == pytest.approx(2 / 6)
    assert (ref["main"]["dpo-pairs-s0"]["vs_blind"]["b"], ref["main"]["dpo-pairs-s0"]["vs_blind"]["c"]) == (0, 3)
    # prefer-longer on the test split: chosen longer in pairs 3 and 4 only; shorter in 1, 2, 5; pair 0 ties.
    assert main["prefer-longer"]["accuracy"] == pytest.approx(2 / 6)
    assert main["prefer-shorter"]["accuracy"] == pytest.approx(3 / 6)
    # length ratio <= 1.5 on test: pairs 0, 1 -> dpo right on both.
    lc = res["tables"]["pairs/sum"]["length_controlled"]["dpo-pairs-s0"]
    assert (lc["n"], lc["accuracy"]) == (2, 1.0)
    dims = res["tables"]["pairs/sum"]["dimension"]["dpo-pairs-s0"]
    assert dims["faithfulness"]["accuracy"] == pytest.approx(2 / 3) and dims["correctness"]["accuracy"] == 1.0
    assert res["tables"]["pairs/sum"]["split"]["base"]["val"]["accuracy"] == 1.0
    # learning vs generalisation under ref_sum; the base under its better plain scoring.
    assert res["fit"]["pairs"]["base"]["scoring"] == "mean"
    assert res["fit"]["pairs"]["dpo-pairs-s0"]["val"]["accuracy"] == 0.0
    found = {(f["finding"], f["first"], f["second"]): f for f in res["findings"]}
    assert found[("DPO > SFT", "sft-pairs-s0", "dpo-pairs-s0")]["delta"] == pytest.approx(2 / 6)
    aug_vs = found[("pairs_aug > pairs", "dpo-pairs-s0", "dpo-pairs_aug-s0")]
    assert aug_vs["delta"] == pytest.approx(-5 / 6) and aug_vs["verdict"] == "not shown"  # b=5, c=0: p=0.0625
    assert [r["model"] for r in res["holm"]].count("dpo-pairs-s0") == 4


def test_holm_adjustment():
    # Hand computation: sorted p = .01, .02, .04 -> .03, .04, .04 (monotone).
    assert stats.holm([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    assert stats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_passage_blind_rule():
    from pipeline.reporting.baselines import passage_blind

    refusal = lambda t: t.startswith("No info")  # noqa: E731
    got = passage_blind(["No info.", "Long answer here", "a", "No info x"], ["Answer", "No info.", "bb", "No info"],
                        np.array([2, 3, 1, 3]), np.array([1, 2, 2, 2]), refusal)
    # refusal beats an answer either way; two answers or two refusals: the longer wins.
    assert got.tolist() == [True, False, False, True]


def test_headline_p_values_keep_three_significant_figures():
    """A tiny p is written as itself (2.2e-11), not rounded to 0.0; accuracy keeps its six decimals."""
    row = {"accuracy": 0.8123456789, "low": 0.7, "high": 0.9, "n": 200, "delta": 0.3, "p": 2.2345e-11}
    res = {"tables": {"pairs/ref_sum": {"main": {"dpo-pairs-s0": row, "base": {**row, "p": float("nan")}}}}}
    details = report.details_json(res, "ref_sum")
    assert details["dpo-pairs-s0"]["pairs"]["ref_sum"]["p"] == 2.23e-11
    assert details["dpo-pairs-s0"]["pairs"]["ref_sum"]["accuracy"] == 0.812346
    assert details["base"]["pairs"]["ref_sum"]["p"] is None
    headline = report.headline_json(details, "ref_sum")
    assert headline["dpo-pairs-s0"]["pairs"] == {"accuracy": 0.812346, "p": 2.23e-11}
    assert json.loads(json.dumps(headline))["dpo-pairs-s0"]["pairs"]["p"] > 0
    assert [report._significant(x) for x in (0.004581234, 1.0, 0.0, 0.12345)] == [0.00458, 1.0, 0.0, 0.123]


def test_worst_cases_link_the_most_negative_test_margins_into_the_explorer():
    ids = [f"syn-1/q1/gold_only/{i}" for i in range(6)]
    info = {"pairs": analysis.PairInfo(ids, np.array(["test"] * 5 + ["val"], dtype=object),
                                       np.array(["faithfulness"] * 4 + ["correctness"] * 2, dtype=object),
                                       np.array(["gold_only"] * 6, dtype=object), np.zeros(6, dtype=bool))}

    def scored(margins):
        chosen = np.array(margins, dtype=float)
        zeros = np.zeros(6)
        return analysis.Scored(chosen, zeros, chosen > 0, zeros, zeros)

    data = {("dpo-pairs-s0", "pairs", "ref_sum"): scored([-1.0, -3.0, 2.0, 0.0, -0.5, -9.0]),
            ("base", "pairs", "sum"): scored([-5.0, 1, 1, 1, 1, 1])}
    lines = report.worst_cases(data, info, ["base", "prefer-longer", "dpo-pairs-s0"], "base", "test", "ref_sum", n=2)
    rows = [line for line in lines if line.startswith("| dpo") or line.startswith("| base")]
    assert rows == [
        "| base | pairs | faithfulness | [-5](explorer/index.html#pair=syn-1/q1/gold_only/0&corpus=pairs) |",
        "| dpo-pairs-s0 | pairs | faithfulness | [-3](explorer/index.html#pair=syn-1/q1/gold_only/1&corpus=pairs) "
        "[-1](explorer/index.html#pair=syn-1/q1/gold_only/0&corpus=pairs) |",
        "| dpo-pairs-s0 | pairs | correctness | [-0.5](explorer/index.html#pair=syn-1/q1/gold_only/4&corpus=pairs) |",
    ]


def test_header_says_what_data_ran_from_the_records():
    """Mixed synthetic and imported records, counted by hand: three synthetic English decisions, two
    imported Chinese and one imported English; one question from a decision and two of an imported
    Chinese QA set (their passage belongs to no decision); one outside answer on a Chinese question and
    one panel answer; an English and a Chinese outside pair. The params ask for none of the imports."""
    from pipeline.importers.pairs import OutsidePairRecord
    from pipeline.judges.inputs import InterimData
    from pipeline.records import QA, Candidate, Context, Decision, Section
    from pipeline.reporting.provenance import data_sources

    def decision(i: str, source: str, lang: str) -> Decision:
        return Decision(i, source, lang, "tenancy", i, "2020-01-01", "text", [Section("s1", "h", "text")])

    decisions = [decision(f"d{i}", "synthetic", "en") for i in range(3)]
    decisions += [decision("doc-1", "csrc", "zh"), decision("doc-2", "csrc", "zh"), decision("hk-1", "hklii", "en")]
    passages = {p.id: p for p in (Passage("d0/p0", "d0", "d0", "Orders", "The tenant paid HK$100.", 0),
                                  Passage("qa-a1/p0", "qa-a1", "qa-a1", "案", "张某获利100元。张某没有上诉。", 0))}
    qas = {q.id: q for q in (QA("d0/q0", "How much did the tenant pay?", "HK$100", "d0/p0", "d0", "factual",
                                ["HK$100"], []),
                             QA("qa-zh-1", "张某获利多少？", "100元", "qa-a1/p0", "qa-a1", "factual", ["100元"], []),
                             QA("qa-zh-2", "张某上诉了吗？", "否", "qa-a1/p0", "qa-a1", "yesno", ["No"], []))}
    contexts = {c.id: c for c in (Context("d0/q0/gold_only", "d0/q0", "gold_only", True, ["d0/p0"], 0),
                                  Context("qa-zh-1/gold_only", "qa-zh-1", "gold_only", True, ["qa-a1/p0"], 0))}
    candidates = [Candidate("d0/q0/gold_only/offline-terse", "d0/q0/gold_only", "offline:terse", "HK$100.", "stop"),
                  Candidate("qa-zh-1/gold_only/import-gpt", "qa-zh-1/gold_only", "import:gpt", "100元。", "stop")]
    outside = [OutsidePairRecord("o1", "Question: was notice given?", "Yes.", "No."),
               OutsidePairRecord("o2", "问题：张某是否获利？", "是。", "否。")]
    sources = data_sources(decisions, InterimData(passages, qas, contexts, candidates), outside)
    assert sources == {"synthetic_decisions": {"en": 3}, "imported_decisions": {"en": 1, "zh": 2},
                       "imported_qa": {"zh": 2}, "outside_answers": {"zh": 1}, "outside_pairs": {"en": 1, "zh": 1}}
    prm = params_mod.Params()
    lines = report.header_lines(prm, {"n_params": 2_000_000}, {}, {"data_sources": sources})
    assert lines[0].startswith("**What ran: offline profile** -- extractive panel, rule judge, built-in 2.00M")
    assert lines[2] == ("- Data: synthetic decisions (en 3); imported decisions (en 1, zh 2); imported QA (zh 2); "
                        "outside answers (zh 1); outside pairs (en 1, zh 1).")
    # A data report from before the counts says so rather than guessing from the params.
    assert report.header_lines(prm, {}, {}, {})[2].startswith("- Data: not known (reports/data_details.json")


def test_header_says_which_preference_hierarchy_the_numbers_use():
    prm = params_mod.Params()
    lines = report.header_lines(prm, {}, {"corpora": {"pairs": {}, "pairs_aug": {}}}, {})
    assert lines[-1] == ("- Preference hierarchy (docs/method.md §5): `pairs` and `pairs_aug`, and the runs trained "
                         "on them, use `method` (pairs.hierarchy).")
    import dataclasses

    grounded = dataclasses.replace(prm, pairs=dataclasses.replace(prm.pairs, hierarchy="grounded"))
    lines = report.header_lines(grounded, {}, {"corpora": {"pairs": {}, "pairs_grounded": {}}}, {})
    assert "use `grounded` (pairs.hierarchy); `pairs_grounded` and its runs use `grounded`" in lines[-1]


def test_header_names_every_cap_of_a_capped_profile():
    """The real profile runs under seeded caps for its CPU budget (params/real.yaml); the report header names
    each, with the value the params file gives, and the uncapped default names none."""
    root = Path(__file__).resolve().parents[1]
    raw = yaml.safe_load((root / "params/real.yaml").read_text(encoding="utf-8"))
    lines = report.header_lines(params_mod.load(root / "params/real.yaml"), {}, {}, {})
    [caps] = [line for line in lines if line.startswith("- Other stages of this run are capped too")]
    [(generator, budget)] = raw["generate"]["budgets"].items()
    assert f"generate.budgets {generator} {budget} questions" in caps
    assert f"judge_eval.llm_items {raw['judge_eval']['llm_items']} " in caps
    assert f"reward.rerank_max_contexts {raw['reward']['rerank_max_contexts']} " in caps
    assert f"irac.max_decisions {raw['irac']['max_decisions']} " in caps
    assert f"- Training caps: max_pairs {raw['train']['max_pairs']}." in lines
    assert not [line for line in report.header_lines(params_mod.Params(), {}, {}, {}) if "capped" in line]
