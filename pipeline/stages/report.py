"""Stage `report`: reports/report.md, reports/metrics.json (headline numbers for `dvc metrics`),
reports/report_details.json (every accuracy, interval and test), reports/plots/*.csv and reports/figures/*.png.

Reads the Score records of every model (data/scores), the pairs (split, dimension, variant, texts for the
passage-blind rule), the data report's length diagnostics, the adapters' train_meta.json (run identity
and counts) and the training curves (reports/training). The numbers come from pipeline.reporting.analysis,
the markdown from pipeline.reporting.markdown; this module only reads and writes.
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from pipeline import params as params_mod
from pipeline import paths, stats
from pipeline.augment.core import is_refusal
from pipeline.data_sources import sources_text
from pipeline.io import InputError, csv_text, read_records, write_json, write_text
from pipeline.language import question_of_prompt, refusal_of
from pipeline.params import run_names
from pipeline.records import PAIR_DIMENSIONS, SCORINGS, Pair, Score
from pipeline.reporting import markdown
from pipeline.reporting.analysis import RULES, PairInfo, Run, Scored, analyse
from pipeline.reporting.baselines import passage_blind
from pipeline.reporting.optional import json_or
from pipeline.stages import path_options, run, start
from pipeline.training.data import EXTERNAL, outside_eval_pairs

log = logging.getLogger("pipeline.stages.report")

BASE_NAME = "base"  # the score stage's name for the base model (pipeline.stages.score, which loads torch)

# docs/method.md §8 training defaults: the report lists every run parameter that differs from them (the values of
# TrainParams' defaults, which are docs/method.md §8's).
METHOD_TRAIN = params_mod.TrainParams()
METHOD_TRAIN_KEYS = ("lr", "epochs", "batch_size", "grad_accum", "max_length", "beta", "loss_type", "lora.r", "lora.alpha",
              "lora.dropout")


# ------------------------------------------------------------------------------------------ inputs
def align(records: list[Score], ids: list[str], where: str) -> Scored:
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
    if not (np.isfinite(chosen).all() and np.isfinite(rejected).all()):
        raise InputError(where, None, "chosen", "non-finite scores: the score stage produced NaN or inf")
    return Scored(chosen, rejected, stats.correct_from_scores(chosen, rejected),
                  np.array([r.chosen_tokens for r in rows]), np.array([r.rejected_tokens for r in rows]))


def pair_info(pairs: list[Any], base: Scored, refusals: dict[str, str]) -> PairInfo:
    obj = lambda xs: np.asarray(list(xs), dtype=object)  # noqa: E731
    return PairInfo([p.id for p in pairs], obj(p.split for p in pairs), obj(p.dimension for p in pairs),
                    obj(p.variant for p in pairs), _passage_blind(pairs, base, refusals))


def _passage_blind(pairs: list[Any], base: Scored, refusals: dict[str, str]) -> np.ndarray:
    """The passage-blind rule per pair, each pair's answers held to the refusal sentence of its question
    (pipeline.language.refusal_of); the rule reads one pair at a time, so it runs once per sentence."""
    sentences = [refusal_of(question_of_prompt(p.prompt), refusals) for p in pairs]
    blind = np.zeros(len(pairs), dtype=bool)
    for sentence in sorted(set(sentences)):
        idx = [i for i, s in enumerate(sentences) if s == sentence]
        blind[idx] = passage_blind([pairs[i].chosen for i in idx], [pairs[i].rejected for i in idx],
                                   base.chosen_tokens[idx], base.rejected_tokens[idx],
                                   lambda text, s=sentence: is_refusal(text, s))
    return blind


def load_runs(adapters: Path, models: list[str]) -> tuple[dict[str, Run], dict[str, dict]]:
    """Run identity and metadata of every reported model's adapter, from its train_meta.json (the folder
    of a run removed from train.runs stays under `adapters`, and is not reported)."""
    runs, metas = {}, {}
    for path in sorted(adapters.glob("*/train_meta.json")) if adapters.exists() else []:
        name = path.parent.name
        if name not in models:
            continue
        meta = json.loads(path.read_text(encoding="utf-8"))
        runs[name] = Run(name, meta["objective"], meta["corpus"], int(meta["seed"]))
        metas[name] = meta
    return runs, metas


def eval_pairs(corpus: str, pairs_root: Path, external: Any) -> dict[str, Any]:
    if corpus == EXTERNAL:
        return {p.id: p for p in outside_eval_pairs(external)}
    return {p.id: p for f in sorted((pairs_root / corpus).glob("*.jsonl")) for p in read_records(f, Pair)}


def load_inputs(scores_root: Path, pairs_root: Path, refusals: dict[str, str], external: Any,
                train: params_mod.TrainParams):
    """Scores meta, the models to report, pair info and aligned scores per corpus. The models are the base
    and the runs train.runs names: the scores of a run removed from it stay until the score stage reruns.
    A corpus without scores (none of its pairs fitted score.max_length) is left out."""
    meta = json.loads((scores_root / "meta.json").read_text(encoding="utf-8"))
    names = run_names(train)
    models = [m for m in meta["models"] if m == BASE_NAME or m in names]
    info: dict[str, PairInfo] = {}
    scored: dict[tuple[str, str, str], Scored] = {}
    for corpus in sorted(meta["corpora"]):
        pairs = eval_pairs(corpus, pairs_root, external)
        for model in models:
            path = scores_root / model / f"{corpus}.jsonl"
            records = read_records(path, Score, unique_key=None)
            if not records:
                if corpus in info:
                    raise InputError(path, None, None, f"no scores, unlike {models[0]}'s: re-run the score stage")
                # An old score stage wrote a corpus whose pairs were all too long as empty files.
                log.warning("%s: no scores, corpus %s is left out of the report", path, corpus)
                break
            if corpus not in info:
                ids = sorted({s.pair_id for s in records})
                unknown = [i for i in ids if i not in pairs]
                if unknown:
                    raise InputError(path, None, "pair_id", f"pair {unknown[0]!r} not in {pairs_root / corpus}")
                base_like = align([r for r in records if r.scoring == "sum"], ids, f"{path} (sum)")
                info[corpus] = pair_info([pairs[i] for i in ids], base_like, refusals)
            for scoring in SCORINGS:
                rows = [r for r in records if r.scoring == scoring]
                if rows:
                    scored[(model, corpus, scoring)] = align(rows, info[corpus].ids, f"{path} ({scoring})")
    missing = [n for n in names if n not in models]
    if missing:
        # Score lists no train.runs among its params (adding a run changes models/adapters instead), so a
        # run put back with its old adapter folder leaves the score stage up to date: force it.
        raise InputError(scores_root / "meta.json", None, "models", f"run {missing[0]!r} of train.runs was not "
                                                                    f"scored (scored: {models}): re-run the score "
                                                                    "stage (`dvc repro -f score`)")
    if not info:
        raise InputError(scores_root / "meta.json", None, "corpora", "no corpus has scores: re-run the score stage")
    return meta, models, info, scored


def read_curves(root: Path, names: list[str]) -> dict[str, list[dict[str, float]]]:
    curves = {}
    for name in names:
        path = root / f"{name}.csv"
        if path.exists():
            with path.open(encoding="utf-8") as fh:
                curves[name] = [{k: float(v) for k, v in row.items() if v not in ("", None)}
                                for row in csv.DictReader(fh)]
    return curves


# --------------------------------------------------------------------------------------- rendering
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
    dev = spec8_deviations(prm.train)
    if dev:
        lines.append("- Training deviates from the docs/method.md §8 defaults (to fit the CPU budget; the GPU profile keeps "
                     "them): " + ", ".join(f"{k} {v} (§8: {s})" for k, (v, s) in dev.items()) + ".")
    extra = {k: v for k, v in (("max_steps", prm.train.max_steps), ("max_pairs", prm.train.max_pairs))
             if v not in (None, -1, 0)}
    if extra:
        lines.append("- Training caps: " + ", ".join(f"{k} {v}" for k, v in extra.items()) + ".")
    return lines


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


# -------------------------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> None:
    args, prm = start(__doc__, argv, _arguments)
    rp = prm.report
    meta, models, info, scored = load_inputs(Path(args.scores), Path(args.pairs_root), prm.generate.refusal_by_language(),
                                             prm.train.external_pairs, prm.train)
    if rp.baseline not in models:
        raise InputError(Path(args.scores) / "meta.json", None, "models",
                         f"baseline {rp.baseline!r} was not scored (models: {models})")
    runs, run_meta = load_runs(Path(args.adapters), models)
    res = analyse(scored, info, models, runs, rp)
    reports = Path(args.reports)
    data_metrics = json_or(reports / "data_details.json", {})
    base_meta = json_or(paths.BASE_META, {})
    augment_meta = json_or(Path(args.pairs_root) / paths.AUGMENT_META.relative_to(paths.PROCESSED), {})
    ctx = {"params": prm, "scores_meta": meta, "runs": run_meta, "data_metrics": data_metrics,
           "augment_meta": augment_meta,
           "scale": margin_scale(scored, info, models, rp.baseline, rp.main_split)}
    header = header_lines(prm, base_meta, meta, data_metrics)
    from pipeline import plots

    order = markdown.system_order(models, rp.baseline)
    rows = plot_rows(res)
    plots.accuracy_figure([r for r in rows if r["scoring"] == rp.main_scoring], reports / "figures" / "accuracy.png",
                          order)
    plots.dimension_figure({k: v for k, v in res["tables"].items() if k.endswith(f"/{rp.main_scoring}")},
                           reports / "figures" / "dimensions.png", order, PAIR_DIMENSIONS)
    plots.training_figure(read_curves(Path(args.curves), sorted(runs)), reports / "figures" / "training.png")
    write_text(reports / "plots" / "accuracy.csv", csv_text(rows, list(rows[0]) if rows else ["system"]))
    details = details_json(res, rp.main_scoring)
    write_json(reports / "report_details.json", details)
    write_json(reports / "metrics.json", headline_json(details, rp.main_scoring))
    worst = worst_cases(scored, info, markdown.system_order(models, rp.baseline), rp.baseline, rp.main_split,
                        rp.main_scoring)
    write_text(reports / "report.md", markdown.render(res, models, header, ctx).rstrip("\n") + "\n\n"
               + "\n".join(worst))
    lead = [r for r in rows if r["scoring"] == rp.main_scoring and r["model"] in models]
    best = max(lead, key=lambda r: r["accuracy"] or -1)
    print(f"report: {len(models)} models x {len(info)} corpora -> {reports / 'report.md'} "
          f"(best on {rp.main_split}, {rp.main_scoring}: {best['system']} {best['accuracy']})")


def _arguments(parser: argparse.ArgumentParser) -> None:
    path_options(scores=paths.SCORES, pairs_root=paths.PROCESSED, adapters=paths.ADAPTERS,
                 curves=paths.TRAINING_CURVES, reports=paths.REPORTS)(parser)


if __name__ == "__main__":
    run(main)
