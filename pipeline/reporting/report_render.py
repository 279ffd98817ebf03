"""The report stage's tables and files besides the markdown sections (pipeline/reporting/markdown.py): the
header that says what ran, the worst-case links into the explorer, report_details.json, the headline
metrics.json and the rows of the accuracy plot."""

from __future__ import annotations

from typing import Any

import numpy as np

from pipeline import params as params_mod
from pipeline.data_sources import sources_text
from pipeline.records import PAIR_DIMENSIONS
from pipeline.reporting.analysis import RULES, PairInfo

# docs/method.md §8 training defaults: the report lists every run parameter that differs from them (the values of
# TrainParams' defaults, which are docs/method.md §8's).
METHOD_TRAIN = params_mod.TrainParams()
METHOD_TRAIN_KEYS = ("lr", "epochs", "batch_size", "grad_accum", "max_length", "beta", "loss_type", "lora.r", "lora.alpha",
              "lora.dropout")


def margin_scale(scored: dict, info: dict[str, PairInfo], models: list[str], baseline: str, split: str
                 ) -> dict[str, Any]:
    """Median |sum margin| of the baseline against median |ref_sum margin| of each trained model."""
    out = {}
    for corpus, pinfo in info.items():
        main = pinfo.split == split
        ref = {m: float(np.median(np.abs(scored[(m, corpus, "ref_sum")].margin[main])))
               for m in models if (m, corpus, "ref_sum") in scored and main.any()}
        if main.any():
            out[corpus] = {"base_margin": float(np.median(np.abs(scored[(baseline, corpus, "sum")].margin[main]))),
                           "ref_margin": ref}
    return out


def data_line(data_details: dict) -> str:
    """Which data ran, as the data report counted it from the records (never from the params alone)."""
    text = sources_text(data_details.get("data_sources"))
    return f"- Data: {text}." if text else ("- Data: not known (reports/data_details.json has no `data_sources`: "
                                            "re-run the data_report stage).")


def header_lines(prm: params_mod.Params, base_meta: dict, scores_meta: dict, data_details: dict) -> list[str]:
    if prm.profile == "offline":
        n = base_meta.get("n_params")
        size = f"{n / 1e6:.2f}M-parameter" if isinstance(n, (int, float)) else "small"
        what = (f"**What ran: offline profile** -- extractive panel, rule judge, built-in {size} "
                f"Llama-architecture model trained by the pipeline (pretrain stage).")
    else:
        model = base_meta.get("base_model", prm.pretrain.base_model)
        rev = base_meta.get("revision", prm.pretrain.revision) or "default revision"
        what = (f"**What ran: real models** -- base `{model}` ({rev}); generators {', '.join(prm.generate.panel)}; "
                f"judges {', '.join(prm.judge.judges)}.")
    sp, rp = prm.score, prm.report
    cap = (f"at most {sp.max_pairs} pairs per corpus and split (seeded, the same pairs for every model)"
           if sp.max_pairs else "all pairs")
    lines = [what, "", data_line(data_details)]
    lines += [f"- Scoring: {scores_meta.get('scorer', sp.scorer)} through the fused kernel, response + EOS given "
              f"the chat-templated prompt, max_length {sp.max_length} (over-long: {scores_meta.get('overlong')}); "
              f"splits {', '.join(sp.splits)}; {cap}. Ties count as wrong.",
              f"- Main tables use the **{rp.main_split}** split; intervals: Wilson 95% for accuracy, percentile "
              f"bootstrap 95% ({rp.bootstrap_resamples} resamples, seed {rp.bootstrap_seed}) for margins and paired "
              "differences; p: exact two-sided McNemar (b/c = pairs only the reference, base or passage-blind, "
              "got right / only the row's system got right)."]
    for corpus, c in sorted((scores_meta.get("corpora") or {}).items()):
        avail = ", ".join(f"{k} {v}" for k, v in c.get("available", {}).items())
        fit = (c.get("fit") or {}).get("all", {})
        lines.append(f"- `{corpus}`: {c.get('scored')} pairs scored (available: {avail}); "
                     f"{fit.get('refit', 0)} prompts fitted by dropping distractors, {fit.get('left_out', 0)} left "
                     f"out, {fit.get('gold_lost', 0)} gold passages lost.")
    corpora = set(scores_meta.get("corpora") or {})
    hierarchy = (f"- Preference hierarchy (docs/method.md §5): `pairs` and `pairs_aug`, and the runs trained on "
                 f"them, use `{prm.pairs.hierarchy}` (pairs.hierarchy)")
    if "pairs_grounded" in corpora:
        hierarchy += ("; `pairs_grounded` and its runs use `grounded` (no pair whose chosen answer is unsupported, "
                      "contradicted or incorrect)")
    lines.append(hierarchy + ".")
    dev = spec8_deviations(prm.train)
    if dev:
        lines.append("- Training deviates from the docs/method.md §8 defaults (to fit the CPU budget; the GPU profile keeps "
                     "them): " + ", ".join(f"{k} {v} (§8: {s})" for k, (v, s) in dev.items()) + ".")
    extra = {k: v for k, v in (("max_steps", prm.train.max_steps), ("max_pairs", prm.train.max_pairs))
             if v not in (None, -1, 0)}
    if extra:
        lines.append("- Training caps: " + ", ".join(f"{k} {v}" for k, v in extra.items()) + ".")
    others = stage_caps(prm)
    if others:
        lines.append("- Other stages of this run are capped too (seeded samples, for the CPU budget; each stage's "
                     "report says so): " + "; ".join(others) + ".")
    return lines


def stage_caps(prm: params_mod.Params) -> list[str]:
    """The caps the stages before and beside this report ran under, as "param value" phrases."""
    caps = [f"generate.budgets {g} {n} questions" for g, n in sorted(prm.generate.budgets.items())]
    if prm.judge_eval.llm_items and any(j.startswith("llm:") for j in prm.judge.judges):
        caps.append(f"judge_eval.llm_items {prm.judge_eval.llm_items} (validation items per sampled LLM judge)")
    if prm.reward.rerank_max_contexts:
        caps.append(f"reward.rerank_max_contexts {prm.reward.rerank_max_contexts} (best-of-n contexts)")
    if prm.irac.max_decisions and any(s != "rule" for s in prm.irac.systems):
        caps.append(f"irac.max_decisions {prm.irac.max_decisions} (decisions of the model IRAC systems)")
    return caps


# The explore stage's page, relative to reports/report.md.
EXPLORER = "explorer/index.html"
WORST = 10


def worst_cases(scored: dict, info: dict[str, PairInfo], models: list[str], baseline: str, split: str,
                scoring: str, n: int = WORST) -> list[str]:
    """Per model, corpus and dimension, the `n` pairs of `split` with the most negative margin, as links
    into the pair explorer (the base model under sum: its ref scores are zero by construction)."""
    lines = ["## Worst cases", "",
             f"Per model and corpus, the {n} {split} pairs with the most negative margin per dimension ({scoring}; "
             f"{baseline}: sum), most negative first; each links to the pair in the explorer (`{EXPLORER}`, the "
             "explore stage's page).", ""]
    rows = []
    for model in models:
        use = "sum" if model == baseline else scoring
        for corpus, pinfo in info.items():
            s = scored.get((model, corpus, use))
            if s is None:
                continue
            margin = s.margin
            for dim in PAIR_DIMENSIONS:
                idx = np.flatnonzero((pinfo.split == split) & (pinfo.dimension == dim) & (margin <= 0))
                worst = idx[np.argsort(margin[idx], kind="stable")][:n]
                if len(worst):
                    links = " ".join(f"[{margin[i]:+.3g}]({EXPLORER}#pair={pinfo.ids[i]}&corpus={corpus})" for i in worst)
                    rows.append(f"| {model} | {corpus} | {dim} | {links} |")
    if not rows:
        return lines + ["No pair has a margin at or below zero.", ""]
    return lines + ["| model | corpus | dimension | worst margins (links) |", "|---|---|---|---|", *rows, ""]


def _get(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def spec8_deviations(t: params_mod.TrainParams) -> dict[str, tuple[Any, Any]]:
    return {k: (_get(t, k), _get(METHOD_TRAIN, k)) for k in METHOD_TRAIN_KEYS if _get(t, k) != _get(METHOD_TRAIN, k)}


def details_json(res: dict[str, Any], main_scoring: str) -> dict[str, Any]:
    """Every accuracy with its interval, n, delta and p, per system x corpus x scoring (main split); the
    rules, the same under every scoring, once (under the main scoring)."""
    out: dict[str, Any] = {}
    for key, table in res["tables"].items():
        corpus, scoring = key.split("/")
        for name, row in table["main"].items():
            if name in RULES and scoring != main_scoring:
                continue
            entry = {k: _round(row[k]) for k in ("accuracy", "low", "high", "n", "delta") if k in row}
            if "p" in row:
                entry["p"] = _significant(row["p"])
            out.setdefault(name, {}).setdefault(corpus, {})[scoring] = entry
    return out


def headline_json(details: dict[str, Any], main_scoring: str) -> dict[str, Any]:
    """What `dvc metrics show` / `dvc exp show` list: per reward model and corpus, the accuracy under the
    main scoring and its McNemar p against the base model; the base model's better raw scoring (sum or
    mean, what an untrained model offers) and the passage-blind rule's accuracy. The rest is in
    report_details.json."""
    out: dict[str, Any] = {}
    for name, by_corpus in sorted(details.items()):
        for corpus, by_scoring in sorted(by_corpus.items()):
            if name == "base":
                raw = [by_scoring[s]["accuracy"] for s in ("sum", "mean") if s in by_scoring]
                if raw:
                    out.setdefault(name, {})[corpus] = {"accuracy": max(raw)}
            elif name == "passage-blind" or name not in RULES:
                row = by_scoring.get(main_scoring)
                if row is not None:
                    out.setdefault(name, {})[corpus] = {k: row[k] for k in ("accuracy", "p") if k in row}
    return out


def _round(x: Any) -> Any:
    if isinstance(x, (float, np.floating)):
        return None if np.isnan(x) else round(float(x), 6)
    return int(x) if isinstance(x, (np.integer,)) else x


# A p-value spans many orders of magnitude: six decimals wrote 2.2e-11 as 0.0, which reads as "impossible"
# in `dvc metrics show`; three significant figures keep its size and are as precise as the test is.
P_FIGURES = 3


def _significant(x: Any, figures: int = P_FIGURES) -> Any:
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return None if np.isnan(x) else (0.0 if x == 0 else float(f"{x:.{figures - 1}e}"))
    return _round(x)


def plot_rows(res: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for key, table in res["tables"].items():
        corpus, scoring = key.split("/")
        for name, row in table["main"].items():
            rows.append({"system": f"{name} | {corpus} | {scoring}", "model": name, "corpus": corpus,
                         "scoring": scoring, "accuracy": _round(row["accuracy"]), "low": _round(row["low"]),
                         "high": _round(row["high"]), "n": row["n"]})
    return rows
