"""Stage `report`: reports/report.md, reports/metrics.json, reports/plots/*.csv and reports/figures/*.png.

Reads the Score records of every model (data/scores), the pairs' metadata (split, dimension, variant),
the data report's length diagnostics and the adapters' train_meta.json. The analysis is pure
(`analyse`), rendering is separate (`render_markdown`, `metrics_json`, `plot_rows`).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pipeline import params as params_mod
from pipeline import stats
from pipeline.io import InputError, read_records, write_json, write_text
from pipeline.records import Pair, Score
from pipeline.stages import run, start

log = logging.getLogger("pipeline.stages.report")

SCORES = Path("data/scores")
PAIRS_ROOT = Path("data/processed")
DATA_METRICS = Path("reports/data_metrics.json")
ADAPTERS = Path("models/adapters")
BASE_META = Path("models/base/meta.json")
REPORT = Path("reports/report.md")
METRICS = Path("reports/metrics.json")
PLOTS = Path("reports/plots")
FIGURES = Path("reports/figures")

SCORINGS = ("sum", "mean")
LONGER, SHORTER = "prefer-longer", "prefer-shorter"
DIMENSIONS = ("refusal_answerable", "refusal_unanswerable", "faithfulness", "correctness", "completeness")
# SPEC 8 training defaults: the report lists every run parameter that differs from them.
SPEC8 = {"lr": 2e-5, "epochs": 3.0, "batch_size": 4, "grad_accum": 4, "max_length": 1024, "beta": 0.1,
         "loss_type": "sigmoid", "lora.r": 32, "lora.alpha": 64, "lora.dropout": 0.05}


# ------------------------------------------------------------------------------------------ inputs
@dataclass
class PairInfo:
    """Metadata of one corpus's scored pairs, in pair-id order (the order every Scored array follows)."""

    ids: list[str]
    split: np.ndarray
    dimension: np.ndarray
    variant: np.ndarray


@dataclass
class Scored:
    chosen: np.ndarray
    rejected: np.ndarray
    correct: np.ndarray
    chosen_tokens: np.ndarray
    rejected_tokens: np.ndarray

    @property
    def margin(self) -> np.ndarray:
        return self.chosen - self.rejected


def pair_info(pairs: Sequence[Pair]) -> PairInfo:
    pairs = sorted(pairs, key=lambda p: p.id)
    obj = lambda xs: np.asarray(list(xs), dtype=object)  # noqa: E731
    return PairInfo([p.id for p in pairs], obj(p.split for p in pairs), obj(p.dimension for p in pairs),
                    obj(p.variant for p in pairs))


def align(records: Sequence[Score], ids: Sequence[str], where: str) -> Scored:
    """Score records of one model x corpus x scoring, in the order of `ids` (all of them, no others)."""
    by_id = {r.pair_id: r for r in records}
    missing = [i for i in ids if i not in by_id]
    if missing or len(by_id) != len(ids):
        extra = sorted(set(by_id) - set(ids))
        raise InputError(where, None, "pair_id",
                         f"scores do not cover the scored pairs (missing {missing[:3]}, unknown {extra[:3]})")
    rows = [by_id[i] for i in ids]
    chosen = np.array([r.chosen for r in rows], dtype=np.float64)
    rejected = np.array([r.rejected for r in rows], dtype=np.float64)
    return Scored(chosen, rejected, stats.correct_from_scores(chosen, rejected),
                  np.array([r.chosen_tokens for r in rows]), np.array([r.rejected_tokens for r in rows]))


def length_baselines(base: Scored) -> dict[str, Scored]:
    """Prefer-longer / prefer-shorter as pseudo-models on the same pairs (model-tokenizer lengths)."""
    c, r = base.chosen_tokens.astype(np.float64), base.rejected_tokens.astype(np.float64)
    return {
        LONGER: Scored(c, r, stats.prefer_longer(c, r), base.chosen_tokens, base.rejected_tokens),
        SHORTER: Scored(-c, -r, stats.prefer_shorter(c, r), base.chosen_tokens, base.rejected_tokens),
    }


# ---------------------------------------------------------------------------------------- analysis
def _acc(correct: np.ndarray) -> dict[str, Any]:
    s = stats.summarise(correct)
    return {"n": s.n, "correct": s.correct, "accuracy": s.accuracy, "low": s.wilson.low, "high": s.wilson.high}


def _compare(base: np.ndarray, system: np.ndarray, rp: params_mod.ReportParams) -> dict[str, Any]:
    test = stats.mcnemar_exact(base, system)
    diff = stats.paired_difference_interval(base, system, rp.bootstrap_resamples, rp.bootstrap_seed)
    delta = float(np.mean(system.astype(float) - base.astype(float))) if base.size else float("nan")
    return {"delta": delta, "delta_low": diff.low, "delta_high": diff.high, "b": test.b, "c": test.c,
            "p": test.p_value}


def _groups(correct: np.ndarray, labels: np.ndarray) -> dict[str, dict[str, Any]]:
    return {g: _acc(correct[labels == g]) for g in sorted(set(labels.tolist()))}


def analyse(
    scored: dict[tuple[str, str, str], Scored],
    info: dict[str, PairInfo],
    models: Sequence[str],
    rp: params_mod.ReportParams,
) -> dict[str, Any]:
    """All numbers of the report: per eval corpus and scoring, on report.main_split unless stated."""
    out: dict[str, Any] = {}
    for corpus, pinfo in info.items():
        for scoring in SCORINGS:
            key = f"{corpus}/{scoring}"
            systems = {m: scored[(m, corpus, scoring)] for m in models}
            baseline = systems[rp.baseline]
            systems.update(length_baselines(baseline))
            main = pinfo.split == rp.main_split
            lc = main & stats.length_controlled_mask(baseline.chosen_tokens, baseline.rejected_tokens,
                                                     rp.length_ratio)
            res: dict[str, Any] = {"main": {}, "dimension": {}, "variant": {}, "split": {}, "length_controlled": {}}
            for name, s in systems.items():
                row = _acc(s.correct[main])
                if name in models:
                    iv = stats.bootstrap_interval(s.margin[main], rp.bootstrap_resamples, rp.bootstrap_seed)
                    row |= {"margin": float(np.mean(s.margin[main])) if main.any() else float("nan"),
                            "margin_low": iv.low, "margin_high": iv.high}
                if name != rp.baseline:
                    row |= _compare(baseline.correct[main], s.correct[main], rp)
                res["main"][name] = row
                res["dimension"][name] = _groups(s.correct[main], pinfo.dimension[main])
                res["variant"][name] = _groups(s.correct[main], pinfo.variant[main])
                res["split"][name] = _groups(s.correct, pinfo.split)
                res["length_controlled"][name] = _acc(s.correct[lc])
            res["sft_vs_dpo"] = _paired_runs(systems, models, main, rp, "objective", "sft", "dpo")
            res["augmentation"] = _paired_runs(systems, models, main, rp, "corpus", "pairs", "pairs_aug")
            out[key] = res
        out[f"{corpus}/sum_vs_mean"] = {
            m: {"sum": _acc(scored[(m, corpus, "sum")].correct[pinfo.split == rp.main_split]),
                "mean": _acc(scored[(m, corpus, "mean")].correct[pinfo.split == rp.main_split])}
            | _compare(scored[(m, corpus, "sum")].correct[pinfo.split == rp.main_split],
                       scored[(m, corpus, "mean")].correct[pinfo.split == rp.main_split], rp)
            for m in models
        }
    out["holm"] = holm_table(out, models, rp.baseline)
    return out


RUN_NAME = re.compile(r"^(?P<objective>[a-z]+)-(?P<corpus>.+)-s(?P<seed>\d+)$")


def _paired_runs(systems: dict[str, Scored], models: Sequence[str], main: np.ndarray,
                 rp: params_mod.ReportParams, field: str, first: str, second: str) -> dict[str, Any]:
    """Runs that differ only in `field` (first vs second value): accuracies and second - first."""
    out = {}
    for name in models:
        m = RUN_NAME.match(name)
        if not m or m[field] != second:
            continue
        parts = {"objective": m["objective"], "corpus": m["corpus"], field: first}
        other = f"{parts['objective']}-{parts['corpus']}-s{m['seed']}"
        if other in systems:
            a, b = systems[other].correct[main], systems[name].correct[main]
            out[f"{name} vs {other}"] = {"first": _acc(a), "second": _acc(b)} | _compare(a, b, rp)
    return out


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (step-down, monotone), in input order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def holm_table(out: dict[str, Any], models: Sequence[str], baseline: str) -> list[dict[str, Any]]:
    """Every model-vs-baseline McNemar test of the main tables, with Holm-adjusted p over the family."""
    rows = []
    for key, res in out.items():
        if "main" not in res:
            continue
        for name in models:
            if name != baseline and name in res["main"]:
                row = res["main"][name]
                rows.append({"table": key, "model": name, "delta": row["delta"], "p": row["p"]})
    for row, adj in zip(rows, holm([r["p"] for r in rows]), strict=True):
        row["p_holm"] = adj
    return rows


# --------------------------------------------------------------------------------------- rendering
def _f(x: float, digits: int = 3) -> str:
    return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{digits}f}"


def _acc_cell(row: dict[str, Any]) -> str:
    if not row["n"]:
        return "n/a (0 pairs)"
    return f"{_f(row['accuracy'])} [{_f(row['low'])}, {_f(row['high'])}]"


def _delta_cell(row: dict[str, Any]) -> str:
    if "delta" not in row or np.isnan(row["delta"]):
        return "--"
    return f"{row['delta']:+.3f} [{row['delta_low']:+.3f}, {row['delta_high']:+.3f}]"


def _p_cell(row: dict[str, Any]) -> str:
    return "--" if "p" not in row else f"{row['p']:.3g} ({row['b']}/{row['c']})"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def header_lines(ctx: dict[str, Any]) -> list[str]:
    prm: params_mod.Params = ctx["params"]
    base = ctx.get("base_meta") or {}
    if prm.profile == "offline":
        n = base.get("n_params")
        size = f"{n / 1e6:.2f}M-parameter" if isinstance(n, (int, float)) else "small"
        what = (f"**What ran: offline default** -- synthetic decisions, extractive panel, rule judge, "
                f"built-in {size} Llama-architecture model trained by the pipeline (pretrain stage).")
    else:
        model = base.get("base_model", prm.pretrain.base_model)
        rev = base.get("revision", prm.pretrain.revision) or "default revision"
        what = (f"**What ran: real models** -- base `{model}` ({rev}); generators {', '.join(prm.generate.panel)}; "
                f"judges {', '.join(prm.judge.judges)}.")
    sp, rp = prm.score, prm.report
    scores_meta = ctx.get("scores_meta") or {}
    cap = (f"at most {sp.max_pairs} pairs per corpus and split (seeded hash of the pair id, the same pairs for "
           f"every model)" if sp.max_pairs else "all pairs")
    lines = [what, "",
             f"- Scoring: {scores_meta.get('scorer', sp.scorer)}, sum and mean log-prob of the response tokens "
             f"(response + EOS) given the chat-templated prompt, max_length {sp.max_length} (longer prompts cut "
             f"from the left); {cap}. Ties count as wrong.",
             f"- Main tables use the **{rp.main_split}** split; intervals: Wilson 95% for accuracy, percentile "
             f"bootstrap 95% ({rp.bootstrap_resamples} resamples, seed {rp.bootstrap_seed}) for margins and "
             f"paired differences; p: exact two-sided McNemar vs `{rp.baseline}` (b/c = pairs only the baseline / "
             f"only the model got right)."]
    for corpus, c in sorted((scores_meta.get("corpora") or {}).items()):
        avail = ", ".join(f"{k} {v}" for k, v in c.get("available", {}).items())
        lines.append(f"- `{corpus}`: {c.get('scored')} pairs scored (available: {avail}); "
                     f"{c.get('truncated_prompts', 0)} prompts cut to fit max_length.")
    dev = spec8_deviations(prm.train)
    if dev:
        lines.append("- Training deviates from the SPEC 8 defaults (to fit the CPU budget; the GPU profile keeps "
                     "them): " + ", ".join(f"{k} {v} (SPEC {SPEC8[k]})" for k, v in dev.items()) + ".")
    extra = {k: v for k, v in (("max_steps", prm.train.max_steps), ("max_pairs", getattr(prm.train, "max_pairs", 0)))
             if v not in (None, -1, 0)}
    if extra:
        lines.append("- Training caps: " + ", ".join(f"{k} {v}" for k, v in extra.items()) + ".")
    return lines


def spec8_deviations(t: params_mod.TrainParams) -> dict[str, Any]:
    values = {"lr": t.lr, "epochs": t.epochs, "batch_size": t.batch_size, "grad_accum": t.grad_accum,
              "max_length": t.max_length, "beta": t.beta, "loss_type": t.loss_type, "lora.r": t.lora.r,
              "lora.alpha": t.lora.alpha, "lora.dropout": t.lora.dropout}
    return {k: v for k, v in values.items() if v != SPEC8[k]}


def _system_order(models: Sequence[str], baseline: str) -> list[str]:
    return [baseline, LONGER, SHORTER] + [m for m in models if m != baseline]


def render_markdown(res: dict[str, Any], models: Sequence[str], ctx: dict[str, Any]) -> str:
    prm: params_mod.Params = ctx["params"]
    rp = prm.report
    order = _system_order(models, rp.baseline)
    out = ["# Reward models: results", ""] + header_lines(ctx) + [""]
    keys = [k for k in res if k.endswith("/sum") or k.endswith("/mean")]

    out += ["## Main results", ""]
    for key in keys:
        corpus, scoring = key.split("/")
        out += [f"### Eval corpus `{corpus}`, {scoring} scoring", ""]
        rows = []
        for name in order:
            r = res[key]["main"][name]
            margin = (f"{_f(r['margin'])} [{_f(r['margin_low'])}, {_f(r['margin_high'])}]" if "margin" in r else "--")
            rows.append([f"`{name}`", r["n"], _acc_cell(r), _delta_cell(r), _p_cell(r), margin])
        out += [table(["model", "pairs", "accuracy [95% CI]", "delta vs baseline [95% CI]", "McNemar p (b/c)",
                       "mean margin [95% CI]"], rows), ""]

    out += ["## Significance", "",
            "Every model-vs-baseline McNemar test above, with Holm-adjusted p over this family of "
            f"{len(res['holm'])} tests.", ""]
    out += [table(["table", "model", "delta", "p", "p (Holm)"],
                  [[r["table"], f"`{r['model']}`", f"{r['delta']:+.3f}" if not np.isnan(r["delta"]) else "n/a",
                    f"{r['p']:.3g}", f"{r['p_holm']:.3g}"] for r in res["holm"]]), ""]

    for title, part, labels in (("Accuracy per dimension", "dimension", DIMENSIONS),
                                ("Accuracy per variant", "variant", None),
                                ("Accuracy per split (all scored splits)", "split", None)):
        out += [f"## {title}", ""]
        for key in keys:
            cols = labels or sorted({g for name in order for g in res[key][part][name]})
            cols = [c for c in cols if any(c in res[key][part][n] for n in order)]
            out += [f"`{key}`:", ""]
            rows = [[f"`{n}`"] + [
                f"{_f(res[key][part][n][c]['accuracy'])} (n={res[key][part][n][c]['n']})" if c in res[key][part][n]
                else "--" for c in cols] for n in order]
            out += [table(["model"] + list(cols), rows), ""]

    for title, part, first, second, what in (
            ("SFT vs DPO", "sft_vs_dpo", "SFT", "DPO", "DPO - SFT"),
            ("Does augmentation help?", "augmentation", "trained on pairs", "trained on pairs_aug", "aug - orig")):
        out += [f"## {title}", ""]
        rows = [[key, cmp, _acc_cell(v["first"]), _acc_cell(v["second"]), _delta_cell(v), _p_cell(v)]
                for key in keys for cmp, v in res[key][part].items()]
        out += [table(["table", "comparison", first, second, f"{what} [95% CI]", "McNemar p (b/c)"], rows)
                if rows else "No pair of runs to compare.", ""]

    out += ["## Sum vs mean scoring", ""]
    rows = [[f"`{corpus}`", f"`{m}`", _acc_cell(v["sum"]), _acc_cell(v["mean"]), _delta_cell(v), _p_cell(v)]
            for corpus in sorted({k.split("/")[0] for k in keys}) for m, v in res[f"{corpus}/sum_vs_mean"].items()]
    out += [table(["eval corpus", "model", "sum", "mean", "mean - sum [95% CI]", "McNemar p (b/c)"], rows), ""]

    out += ["## Length-controlled accuracy", "",
            f"Pairs of the {rp.main_split} split whose responses differ in length by at most x{rp.length_ratio} "
            "(model-tokenizer counts); the length baselines show how much of the full-set accuracy length alone "
            "explains.", ""]
    rows = [[f"`{key}`", f"`{n}`", res[key]["length_controlled"][n]["n"], _acc_cell(res[key]["length_controlled"][n]),
             _acc_cell(res[key]["main"][n])] for key in keys for n in order]
    out += [table(["table", "model", "pairs kept", "length-controlled accuracy", "all pairs"], rows), ""]

    out += ["## Length diagnostics (from the data report)", ""]
    length = (ctx.get("data_metrics") or {}).get("length")
    if length:
        out += [table(["transition", "n", "augmented", "chosen before", "rejected before", "chosen after",
                       "rejected after"],
                      [[k, v.get("n"), v.get("augmented"), _f(v.get("mean_chosen_before"), 1),
                        _f(v.get("mean_rejected_before"), 1), _f(v.get("mean_chosen_after"), 1),
                        _f(v.get("mean_rejected_after"), 1)] for k, v in sorted(length.items())]), ""]
    else:
        out += ["reports/data_metrics.json has no length diagnostics.", ""]

    out += ["## Training summary", ""]
    runs = ctx.get("runs") or {}
    if runs:
        rows = []
        for name, m in sorted(runs.items()):
            c = m.get("counts", {})
            rows.append([f"`{name}`", c.get("pairs_in", "?"), c.get("capped", 0), c.get("pairs_used", "?"),
                         c.get("overlong", 0), c.get("truncated", 0),
                         c.get("dropped", 0) + c.get("dropped_unfittable", 0), m.get("steps", "?"),
                         _f(m.get("final_loss"), 4), _f(m.get("wall_time_s"), 1)])
        out += [table(["run", "train pairs", "capped", "used", "over-long", "truncated", "dropped", "steps",
                       "final loss", "wall s"], rows), ""]
    else:
        out += ["No adapters were trained.", ""]

    out += ["## Figures", "", "![accuracy](figures/accuracy.png)", "", "![per dimension](figures/dimensions.png)", ""]
    return "\n".join(out)


def metrics_json(res: dict[str, Any], models: Sequence[str], baseline: str) -> dict[str, Any]:
    """Accuracy with interval per system x corpus x scoring (main split), nested for `dvc metrics diff`."""
    out: dict[str, Any] = {}
    for key, r in res.items():
        if "main" not in r:
            continue
        corpus, scoring = key.split("/")
        for name, row in r["main"].items():
            entry = {k: _round(row[k]) for k in ("accuracy", "low", "high", "n") if k in row}
            entry |= {k: _round(row[k]) for k in ("delta", "delta_low", "delta_high", "p") if k in row}
            out.setdefault(name, {}).setdefault(corpus, {})[scoring] = entry
    return out


def _round(x: Any) -> Any:
    if isinstance(x, (float, np.floating)):
        return None if np.isnan(x) else round(float(x), 6)
    return int(x) if isinstance(x, (np.integer,)) else x


def plot_rows(res: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for key, r in res.items():
        if "main" not in r:
            continue
        corpus, scoring = key.split("/")
        for name, row in r["main"].items():
            rows.append({"system": f"{name} | {corpus} | {scoring}", "model": name, "corpus": corpus,
                         "scoring": scoring, "accuracy": _round(row["accuracy"]), "low": _round(row["low"]),
                         "high": _round(row["high"]), "n": row["n"]})
    return rows


def rows_csv(rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else ["system"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


# -------------------------------------------------------------------------------------------- main
def load_inputs(scores_root: Path, pairs_root: Path, adapters: Path):
    meta = json.loads((scores_root / "meta.json").read_text(encoding="utf-8"))
    models = list(meta["models"])
    info: dict[str, PairInfo] = {}
    scored: dict[tuple[str, str, str], Scored] = {}
    for corpus in sorted(meta["corpora"]):
        pairs = [p for f in sorted((pairs_root / corpus).glob("*.jsonl")) for p in read_records(f, Pair)]
        first = scores_root / models[0] / f"{corpus}.jsonl"
        ids = sorted({s.pair_id for s in read_records(first, Score, unique_key=None)})
        by_id = {p.id: p for p in pairs}
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            raise InputError(first, None, "pair_id", f"pair {unknown[0]!r} not in {pairs_root / corpus}")
        info[corpus] = pair_info([by_id[i] for i in ids])
        for model in models:
            path = scores_root / model / f"{corpus}.jsonl"
            records = read_records(path, Score, unique_key=None)
            for scoring in SCORINGS:
                scored[(model, corpus, scoring)] = align([r for r in records if r.scoring == scoring],
                                                         info[corpus].ids, f"{path} ({scoring})")
    runs = {}
    for d in sorted(adapters.glob("*/train_meta.json")) if adapters.exists() else []:
        runs[d.parent.name] = json.loads(d.read_text(encoding="utf-8"))
    return meta, models, info, scored, runs


def main(argv: list[str] | None = None) -> None:
    args, prm = start(__doc__, argv, _arguments)
    meta, models, info, scored, runs = load_inputs(Path(args.scores), Path(args.pairs_root), Path(args.adapters))
    if prm.report.baseline not in models:
        raise InputError(Path(args.scores) / "meta.json", None, "models",
                         f"baseline {prm.report.baseline!r} was not scored (models: {models})")
    res = analyse(scored, info, models, prm.report)
    reports = Path(args.reports)
    data_metrics = reports / DATA_METRICS.name
    ctx = {
        "params": prm,
        "scores_meta": meta,
        "runs": runs,
        "base_meta": json.loads(BASE_META.read_text(encoding="utf-8")) if BASE_META.exists() else None,
        "data_metrics": json.loads(data_metrics.read_text(encoding="utf-8")) if data_metrics.exists() else None,
    }
    from pipeline import plots

    rows = plot_rows(res)
    plots.accuracy_figure(rows, reports / "figures" / "accuracy.png", _system_order(models, prm.report.baseline))
    plots.dimension_figure(res, reports / "figures" / "dimensions.png", _system_order(models, prm.report.baseline),
                           DIMENSIONS)
    write_text(reports / "plots" / "accuracy.csv", rows_csv(rows))
    write_json(reports / METRICS.name, metrics_json(res, models, prm.report.baseline))
    write_text(reports / REPORT.name, render_markdown(res, models, ctx))
    main_rows = {r["system"]: r["accuracy"] for r in rows}
    best = max((r for r in rows if r["model"] in models), key=lambda r: r["accuracy"] or -1)
    print(f"report: {len(models)} models x {len(info)} corpora -> {reports / REPORT.name} "
          f"(best on {prm.report.main_split}: {best['system']} {best['accuracy']}; {len(main_rows)} rows)")


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scores", default=str(SCORES))
    parser.add_argument("--pairs-root", default=str(PAIRS_ROOT))
    parser.add_argument("--adapters", default=str(ADAPTERS))
    parser.add_argument("--reports", default="reports")


if __name__ == "__main__":
    run(main)
