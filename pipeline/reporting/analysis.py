"""The numbers of the reward-model report (docs/method.md §9), from aligned score arrays: no files, no rendering.

Systems are the scored models (base and one per adapter) and three rules on the same pairs: prefer the
longer response, prefer the shorter, and passage-blind (a refusal wins, otherwise the longer answer).
Per eval corpus and scoring (sum, mean, ref_sum, ref_mean) every system gets accuracy with a Wilson
interval on the main split, a paired difference and exact McNemar test against the comparator, and a
McNemar test against passage-blind. The comparator is the baseline model under the same scoring for
sum/mean, and the baseline's better of sum and mean for the ref scorings (its own ref scores are all 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pipeline import stats
from pipeline.params import ReportParams
from pipeline.records import SCORINGS

LONGER, SHORTER, BLIND = "prefer-longer", "prefer-shorter", "passage-blind"
RULES = (LONGER, SHORTER, BLIND)
PLAIN = ("sum", "mean")


@dataclass
class PairInfo:
    """Metadata of one corpus's scored pairs, in pair-id order (the order every Scored array follows)."""

    ids: list[str]
    split: np.ndarray
    dimension: np.ndarray
    variant: np.ndarray
    # Passage-blind rule's verdict per pair (pipeline.reporting.baselines).
    blind_correct: np.ndarray


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


@dataclass(frozen=True)
class Run:
    """A trained model's identity, read from its train_meta.json."""

    name: str
    objective: str
    corpus: str
    seed: int


def accuracy_row(correct: np.ndarray) -> dict[str, Any]:
    s = stats.summarise(correct)
    return {"n": s.n, "correct": s.correct, "accuracy": s.accuracy, "low": s.wilson.low, "high": s.wilson.high}


def compare(first: np.ndarray, second: np.ndarray, rp: ReportParams) -> dict[str, Any]:
    """second vs first on the same pairs: accuracy difference with bootstrap interval, exact McNemar."""
    test = stats.mcnemar_exact(first, second)
    diff = stats.paired_difference_interval(first, second, rp.bootstrap_resamples, rp.bootstrap_seed)
    delta = float(np.mean(second.astype(float) - first.astype(float))) if first.size else float("nan")
    return {"delta": delta, "delta_low": diff.low, "delta_high": diff.high, "b": test.b, "c": test.c,
            "p": test.p_value}


def groups(correct: np.ndarray, labels: np.ndarray) -> dict[str, dict[str, Any]]:
    return {g: accuracy_row(correct[labels == g]) for g in sorted(set(labels.tolist()))}


def rule_systems(base: Scored, info: PairInfo) -> dict[str, np.ndarray]:
    """Correctness of the three rules per pair (lengths in the model tokenizer's tokens)."""
    c, r = base.chosen_tokens, base.rejected_tokens
    return {LONGER: stats.prefer_longer(c, r), SHORTER: stats.prefer_shorter(c, r), BLIND: info.blind_correct}


def better_plain_scoring(scored: dict, baseline: str, corpus: str, main: np.ndarray) -> str:
    """The baseline's better of sum and mean on the main split (sum on a tie)."""
    acc = {s: stats.accuracy(scored[(baseline, corpus, s)].correct[main]) for s in PLAIN}
    return max(PLAIN, key=lambda s: (acc[s], s == "sum"))


def scoring_table(scored: dict, info: PairInfo, models: Sequence[str], corpus: str, scoring: str,
                  rp: ReportParams) -> dict[str, Any]:
    """Every system on one (corpus, scoring): main split, per dimension/variant/split, length-controlled."""
    main = info.split == rp.main_split
    base = scored[(rp.baseline, corpus, "sum")]
    comparator_scoring = scoring if scoring in PLAIN else better_plain_scoring(scored, rp.baseline, corpus, main)
    comparator = scored[(rp.baseline, corpus, comparator_scoring)].correct
    systems = {m: scored[(m, corpus, scoring)].correct for m in models if (m, corpus, scoring) in scored}
    systems |= rule_systems(base, info)
    lc = main & stats.length_controlled_mask(base.chosen_tokens, base.rejected_tokens, rp.length_ratio)
    out: dict[str, Any] = {"comparator": f"{rp.baseline} ({comparator_scoring})",
                           "comparator_row": accuracy_row(comparator[main]), "main": {}, "dimension": {},
                           "variant": {}, "split": {}, "length_controlled": {}}
    for name, correct in systems.items():
        row = accuracy_row(correct[main])
        if name in models:
            margin = scored[(name, corpus, scoring)].margin[main]
            iv = stats.bootstrap_interval(margin, rp.bootstrap_resamples, rp.bootstrap_seed)
            row |= {"margin": float(np.mean(margin)) if margin.size else float("nan"),
                    "margin_low": iv.low, "margin_high": iv.high}
        if not (name == rp.baseline and scoring in PLAIN):
            row |= compare(comparator[main], correct[main], rp)
        if name != BLIND:
            row["vs_blind"] = compare(info.blind_correct[main], correct[main], rp)
        out["main"][name] = row
        out["dimension"][name] = groups(correct[main], info.dimension[main])
        out["variant"][name] = groups(correct[main], info.variant[main])
        out["split"][name] = groups(correct, info.split)
        out["length_controlled"][name] = accuracy_row(correct[lc])
    return out


def fit_table(scored: dict, info: PairInfo, models: Sequence[str], corpus: str, scoring: str,
              rp: ReportParams) -> dict[str, dict[str, Any]]:
    """Accuracy and mean margin per split under `scoring` (the baseline under its better plain scoring):
    learning (train sample) beside generalisation (val, test)."""
    main = info.split == rp.main_split
    out = {}
    for name in models:
        s = scoring
        if name == rp.baseline and scoring not in PLAIN:
            s = better_plain_scoring(scored, rp.baseline, corpus, main)
        if (name, corpus, s) not in scored:
            continue
        sc = scored[(name, corpus, s)]
        row = {"scoring": s}
        for split in sorted(set(info.split.tolist())):
            mask = info.split == split
            row[split] = accuracy_row(sc.correct[mask]) | {"margin": float(np.mean(sc.margin[mask]))}
        out[name] = row
    return out


def verdict(row: dict[str, Any], alpha: float = 0.05) -> str:
    if row["p"] < alpha:
        return "holds" if row["delta"] > 0 else "reversed"
    return "not shown"


def paired_runs(runs: dict[str, Run], field: str, first: str, second: str) -> list[tuple[Run, Run]]:
    """Runs equal in everything but `field`, which is `first` in one and `second` in the other."""
    key = lambda r: tuple(getattr(r, f) for f in ("objective", "corpus", "seed") if f != field)  # noqa: E731
    by_key = {(key(r), getattr(r, field)): r for r in runs.values()}
    return [(by_key[(key(r), first)], r) for r in runs.values()
            if getattr(r, field) == second and (key(r), first) in by_key]


def findings(scored: dict, info: dict[str, PairInfo], runs: dict[str, Run], models: Sequence[str],
             rp: ReportParams) -> list[dict[str, Any]]:
    """The method paper's findings tested on this run: DPO > SFT, pairs_aug > pairs, sum vs mean, and
    whether DPO reads the passages (beats passage-blind); each on every eval corpus, main split."""
    out = []
    s = rp.main_scoring
    for corpus, pinfo in info.items():
        main = pinfo.split == rp.main_split

        def correct(name: str, scoring: str = s, corpus: str = corpus, main: np.ndarray = main) -> np.ndarray:
            return scored[(name, corpus, scoring)].correct[main]

        for a, b in paired_runs(runs, "objective", "sft", "dpo"):
            out.append({"finding": "DPO > SFT", "corpus": corpus, "scoring": s, "first": a.name, "second": b.name}
                       | compare(correct(a.name), correct(b.name), rp))
        for a, b in paired_runs(runs, "corpus", "pairs", "pairs_aug"):
            out.append({"finding": "pairs_aug > pairs", "corpus": corpus, "scoring": s, "first": a.name,
                        "second": b.name} | compare(correct(a.name), correct(b.name), rp))
        for name in models:
            out.append({"finding": "mean != sum", "corpus": corpus, "scoring": "sum vs mean", "first": name,
                        "second": name} | compare(correct(name, "sum"), correct(name, "mean"), rp))
        for run in runs.values():
            if run.objective == "dpo":
                out.append({"finding": "DPO > passage-blind", "corpus": corpus, "scoring": s, "first": BLIND,
                            "second": run.name} | compare(pinfo.blind_correct[main], correct(run.name), rp))
    for row in out:
        row["verdict"] = verdict(row) if row["finding"] != "mean != sum" else (
            "differ" if row["p"] < 0.05 else "not shown")
    return out


def seed_spread(scored: dict, info: dict[str, PairInfo], runs: dict[str, Run], rp: ReportParams
                ) -> list[dict[str, Any]]:
    """Accuracy across seeds of each (objective, corpus), on every eval corpus (main split, main scoring)."""
    groups_: dict[tuple[str, str], list[Run]] = {}
    for run in runs.values():
        groups_.setdefault((run.objective, run.corpus), []).append(run)
    out = []
    for (objective, train_corpus), members in sorted(groups_.items()):
        members.sort(key=lambda r: r.seed)
        for corpus, pinfo in info.items():
            main = pinfo.split == rp.main_split
            accs = [stats.accuracy(scored[(r.name, corpus, rp.main_scoring)].correct[main]) for r in members]
            out.append({"objective": objective, "trained_on": train_corpus, "corpus": corpus,
                        "seeds": [r.seed for r in members], "accuracies": accs, "mean": float(np.mean(accs)),
                        "min": float(np.min(accs)), "max": float(np.max(accs)),
                        "sd": float(np.std(accs, ddof=1)) if len(accs) > 1 else float("nan")})
    return out


def holm_table(tables: dict[str, Any], models: Sequence[str], baseline: str) -> list[dict[str, Any]]:
    """Every model-vs-comparator McNemar test of the main tables, with Holm-adjusted p over the family."""
    rows = []
    for key, res in tables.items():
        for name in models:
            row = res["main"].get(name)
            if row is not None and "p" in row and name != baseline:
                rows.append({"table": key, "model": name, "delta": row["delta"], "p": row["p"]})
    for row, adj in zip(rows, stats.holm([r["p"] for r in rows]), strict=True):
        row["p_holm"] = adj
    return rows


def analyse(scored: dict, info: dict[str, PairInfo], models: Sequence[str], runs: dict[str, Run],
            rp: ReportParams) -> dict[str, Any]:
    """All numbers of the report. `scored` maps (model, corpus, scoring) to aligned Scored arrays."""
    tables = {f"{corpus}/{scoring}": scoring_table(scored, pinfo, models, corpus, scoring, rp)
              for corpus, pinfo in info.items() for scoring in SCORINGS
              if any((m, corpus, scoring) in scored for m in models)}
    return {
        "tables": tables,
        "fit": {corpus: fit_table(scored, pinfo, models, corpus, rp.main_scoring, rp)
                for corpus, pinfo in info.items()},
        "findings": findings(scored, info, runs, models, rp),
        "seeds": seed_spread(scored, info, runs, rp),
        "holm": holm_table(tables, models, rp.baseline),
    }
