"""Markdown of the reward-model report from `analysis.analyse`'s numbers (no computation of results here)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pipeline.records import PAIR_DIMENSIONS, SCORINGS
from pipeline.reporting.analysis import BLIND, LONGER, SHORTER

SCORING_TEXT = {
    "sum": "sum of the response tokens' log-probs under the model",
    "mean": "mean log-prob per response token under the model",
    "ref_sum": "sum of log pi - log pi_ref over the response tokens (the DPO implicit reward without beta)",
    "ref_mean": "ref_sum / response tokens",
}


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], cell: Callable[[Any], str] = str) -> str:
    """A markdown table (the reward-model and data reports'); `cell` writes each value."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def num(x: Any, digits: int = 3) -> str:
    return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{digits}f}"


def acc_cell(row: dict[str, Any]) -> str:
    if not row["n"]:
        return "n/a (0 pairs)"
    return f"{num(row['accuracy'])} [{num(row['low'])}, {num(row['high'])}]"


def delta_cell(row: dict[str, Any]) -> str:
    if "delta" not in row or np.isnan(row["delta"]):
        return "--"
    return f"{row['delta']:+.3f} [{row['delta_low']:+.3f}, {row['delta_high']:+.3f}]"


def p_cell(row: dict[str, Any] | None) -> str:
    return "--" if not row or "p" not in row else f"{row['p']:.3g} ({row['b']}/{row['c']})"


def system_order(models: Sequence[str], baseline: str) -> list[str]:
    return [baseline, LONGER, SHORTER, BLIND] + [m for m in models if m != baseline]


def main_table(res: dict[str, Any], order: Sequence[str]) -> str:
    rows = []
    for name in order:
        r = res["main"].get(name)
        if r is None and name == order[0]:  # the baseline has no ref scores: show what it is compared by
            c = res["comparator_row"]
            rows.append([f"`{res['comparator']}`", c["n"], acc_cell(c), "--", "--", "--", "--"])
        if r is None:
            continue
        margin = f"{num(r['margin'])} [{num(r['margin_low'])}, {num(r['margin_high'])}]" if "margin" in r else "--"
        rows.append([f"`{name}`", r["n"], acc_cell(r), delta_cell(r), p_cell(r), p_cell(r.get("vs_blind")), margin])
    return table(["system", "pairs", "accuracy [95% CI]", f"delta vs {res['comparator']} [95% CI]",
                  "McNemar p (b/c)", "p vs passage-blind (b/c)", "mean margin [95% CI]"], rows)


def grouped_table(res: dict[str, Any], part: str, order: Sequence[str], labels: Sequence[str] | None) -> str:
    cols = labels or sorted({g for name in order for g in res[part].get(name, {})})
    cols = [c for c in cols if any(c in res[part].get(n, {}) for n in order)]
    rows = [[f"`{n}`"] + [f"{num(res[part][n][c]['accuracy'])} (n={res[part][n][c]['n']})"
                          if c in res[part][n] else "--" for c in cols] for n in order if n in res[part]]
    return table(["system"] + list(cols), rows)


def fit_section(fit: dict[str, Any], splits: Sequence[str]) -> list[str]:
    out = []
    for corpus, models in fit.items():
        rows = []
        for name, row in models.items():
            cells = [f"{num(row[s]['accuracy'])} / {num(row[s]['margin'], 2)} (n={row[s]['n']})" if s in row else "--"
                     for s in splits]
            rows.append([f"`{name}`", row["scoring"]] + cells)
        out += [f"Eval corpus `{corpus}` (accuracy / mean margin):", "",
                table(["model", "scoring"] + list(splits), rows), ""]
    return out


def findings_summary(rows: Sequence[dict[str, Any]]) -> list[str]:
    """One line per finding: in how many comparisons it holds, is reversed or cannot be told."""
    lines = []
    for finding in dict.fromkeys(r["finding"] for r in rows):
        verdicts = [r["verdict"] for r in rows if r["finding"] == finding]
        counts = ", ".join(f"{v} in {verdicts.count(v)}" for v in dict.fromkeys(verdicts))
        held = verdicts.count("holds") + verdicts.count("differ")
        word = "reproduces" if held == len(verdicts) else "does not reproduce" if held == 0 else "reproduces in part"
        lines.append(f"- **{finding}** {word} here: {counts} of {len(verdicts)} comparisons.")
    return lines + [""] if lines else []


def findings_section(rows: Sequence[dict[str, Any]]) -> list[str]:
    body = [[r["finding"], f"`{r['corpus']}`", r["scoring"], f"`{r['first']}`" if r["first"] != r["second"] else "--",
             f"`{r['second']}`", delta_cell(r), p_cell(r), f"**{r['verdict']}**"] for r in rows]
    return [table(["finding", "eval corpus", "scoring", "first", "second", "second - first [95% CI]",
                   "McNemar p (b/c)", "verdict"], body) if body else "No runs to compare.", ""]


def seeds_section(rows: Sequence[dict[str, Any]]) -> list[str]:
    body = [[r["objective"], f"`{r['trained_on']}`", f"`{r['corpus']}`", ", ".join(map(str, r["seeds"])),
             ", ".join(num(a) for a in r["accuracies"]), num(r["mean"]), f"{num(r['min'])} - {num(r['max'])}",
             num(r["sd"])] for r in rows]
    return [table(["objective", "trained on", "eval corpus", "seeds", "accuracy per seed", "mean", "range", "sd"],
                  body) if body else "No trained runs.", ""]


def fitting_section(scores_meta: dict[str, Any], runs: dict[str, Any]) -> list[str]:
    """How over-long prompts were fitted: per eval corpus and split/variant, and per training run."""
    keys = ("pairs", "refit", "passages_dropped", "left_out", "gold_lost")
    heads = ["pairs", "fitted by dropping distractors", "distractor passages dropped", "left out",
             "gold passages lost"]
    out = []
    for corpus, c in sorted((scores_meta.get("corpora") or {}).items()):
        fit = c.get("fit") or {}
        out += [f"Scored pairs of `{corpus}`:", "",
                table(["split/variant"] + heads, [[k] + [v.get(x, 0) for x in keys] for k, v in fit.items()]), ""]
    rows = [[f"`{name}`"] + [m.get("counts", {}).get("fit", {}).get("all", {}).get(x, 0) for x in keys]
            for name, m in sorted(runs.items())]
    if rows:
        out += ["Training pairs of each run (after the seeded cap):", "", table(["run"] + heads, rows), ""]
    return out


def augmentation_section(meta: dict[str, Any]) -> list[str]:
    """What the length-balancing rewrites did (data/processed/pairs_aug/meta.json)."""
    if not meta:
        return []
    outcomes = meta.get("outcomes", {})
    tasks = sorted({k.split(":")[0] for k in outcomes})
    cols = ("rewritten", "on_length_plan", "kept_for_balance", "failed_check", "dropped_by_judge")
    rows = [[t] + [outcomes.get(f"{t}:{c}", 0) for c in cols] for t in tasks]
    return ["## Augmentation (pairs_aug)", "",
            f"{meta.get('rewritten')} of {meta.get('pairs')} pairs rewritten by `{meta.get('rewriter')}`; every rewrite "
            f"re-judged by `{meta.get('judge')}` and used only when its pair keeps its direction (else the pair "
            f"keeps its original side). Chosen side longer in {num(meta.get('chosen_longer'))} of all pairs.", "",
            table(["task", "rewritten", "rewrite on its planned length side", "left as is (already on its side)",
                   "failed the behaviour check", "dropped by re-judging"], rows), ""]


def why_scorings_differ(scale: dict[str, Any]) -> list[str]:
    if not scale:
        return []
    lines = ["Why sum/mean of a trained model move little while ref scores move: the base model's own "
             "preference between two responses (median |sum margin| on the main split) against what training "
             "changed (median |ref_sum margin|), in nats:", ""]
    rows = [[f"`{corpus}`", num(v["base_margin"], 1),
             ", ".join(f"`{m}` {num(x, 1)}" for m, x in sorted(v["ref_margin"].items()))]
            for corpus, v in sorted(scale.items())]
    return lines + [table(["eval corpus", "base |margin|", "trained |ref margin|"], rows), ""]


def render(res: dict[str, Any], models: Sequence[str], header: Sequence[str], ctx: dict[str, Any]) -> str:
    rp = ctx["params"].report
    order = system_order(models, rp.baseline)
    lead = rp.main_scoring
    scorings = [lead] + [s for s in SCORINGS if s != lead]
    corpora = list(res["fit"])
    out = ["# Reward models: results", "", *header, ""]

    out += ["## Main results", "",
            "Scorings: " + "; ".join(f"`{s}` = {SCORING_TEXT[s]}" for s in scorings) + ". The table leads with "
            f"`{lead}` (report.main_scoring). ref scores of `{rp.baseline}` are 0 by definition, so ref tables "
            f"compare with `{rp.baseline}` under its better of sum and mean on the same pairs.", ""]
    out += why_scorings_differ(ctx.get("scale") or {})
    for scoring in scorings:
        for corpus in corpora:
            key = f"{corpus}/{scoring}"
            if key in res["tables"]:
                out += [f"### Eval corpus `{corpus}`, {scoring}", "", main_table(res["tables"][key], order), ""]

    out += ["## Learning vs generalisation", "",
            f"Under `{lead}`: the train column is a seeded sample of training pairs (taken in the order of the "
            "training cap, so the runs on that corpus trained on them); val and test are held out.", ""]
    scored_splits = {k for models in res["fit"].values() for row in models.values() for k in row if k != "scoring"}
    out += fit_section(res["fit"], [s for s in ("train", "val", "test") if s in scored_splits])

    out += ["## Findings of the method, tested here", "",
            "Main split, exact McNemar; **holds** / **reversed** at p < 0.05, else **not shown** (the data "
            "cannot tell).", ""]
    out += findings_summary(res["findings"])
    out += findings_section(res["findings"])
    out += ["## Seeds", ""] + seeds_section(res["seeds"])

    out += ["## Significance", "", "Every model-vs-comparator McNemar test of the main tables, with Holm-adjusted "
            f"p over this family of {len(res['holm'])} tests.", ""]
    out += [table(["table", "model", "delta", "p", "p (Holm)"],
                  [[r["table"], f"`{r['model']}`", f"{r['delta']:+.3f}" if not np.isnan(r["delta"]) else "n/a",
                    f"{r['p']:.3g}", f"{r['p_holm']:.3g}"] for r in res["holm"]]), ""]

    for title, part, labels in (("Accuracy per dimension", "dimension", PAIR_DIMENSIONS),
                                ("Accuracy per variant", "variant", None),
                                ("Accuracy per split (all scored splits)", "split", None)):
        out += [f"## {title} ({lead})", ""]
        for corpus in corpora:
            key = f"{corpus}/{lead}"
            if key in res["tables"]:
                out += [f"`{key}`:", "", grouped_table(res["tables"][key], part, order, labels), ""]

    out += ["## Length-controlled accuracy", "",
            f"Pairs of the {rp.main_split} split whose responses differ in length by at most x{rp.length_ratio} "
            "(model-tokenizer tokens); the rules show how much of the full-set accuracy length alone explains.", ""]
    rows = [[f"`{key}`", f"`{n}`", t["length_controlled"][n]["n"], acc_cell(t["length_controlled"][n]),
             acc_cell(t["main"][n])]
            for key, t in res["tables"].items() if key.endswith(f"/{lead}") for n in order if n in t["main"]]
    out += [table(["table", "system", "pairs kept", "length-controlled accuracy", "all pairs"], rows), ""]

    out += ["## Prompts that did not fit max_length", "",
            "Over-long prompts lose whole distractor passages (last slot first; never the gold passage, the "
            "question or the rules), in training and scoring alike; a pair that cannot fit is left out.", ""]
    out += fitting_section(ctx.get("scores_meta") or {}, ctx.get("runs") or {})

    out += augmentation_section(ctx.get("augment_meta") or {})
    out += ["## Length diagnostics (from the data report)", ""]
    length = (ctx.get("data_metrics") or {}).get("length")
    if length:
        out += [table(["transition", "n", "augmented", "chosen before", "rejected before", "chosen after",
                       "rejected after"],
                      [[k, v.get("n"), v.get("augmented"), num(v.get("mean_chosen_before"), 1),
                        num(v.get("mean_rejected_before"), 1), num(v.get("mean_chosen_after"), 1),
                        num(v.get("mean_rejected_after"), 1)] for k, v in sorted(length.items())]), ""]
    else:
        out += ["reports/data_metrics.json has no length diagnostics.", ""]

    out += ["## Training summary", ""]
    runs = ctx.get("runs") or {}
    rows = [[f"`{name}`", m.get("counts", {}).get("pairs_in", "?"), m.get("counts", {}).get("capped", 0),
             m.get("counts", {}).get("pairs_used", "?"), m.get("counts", {}).get("refit", 0),
             m.get("counts", {}).get("dropped", 0), m.get("steps", "?"), num(m.get("final_loss"), 4)]
            for name, m in sorted(runs.items())]
    out += [table(["run", "train pairs", "capped", "used", "fitted", "left out", "steps", "final loss"],
                  rows) if rows else "No adapters were trained.", ""]

    out += ["## Figures", "", "![accuracy](figures/accuracy.png)", "", "![per dimension](figures/dimensions.png)",
            "", "![training curves](figures/training.png)", ""]
    return "\n".join(out)
