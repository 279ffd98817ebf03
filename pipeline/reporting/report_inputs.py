"""The report stage's inputs: every model's Score records aligned with the pairs they score, the pairs'
split, dimension, variant and passage-blind verdict, the adapters' run identity (train_meta.json) and the
training curves. Each reader checks what it reads and names the file at fault."""

from __future__ import annotations

import csv
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from pipeline import params as params_mod
from pipeline import stats
from pipeline.augment.core import is_refusal
from pipeline.io import InputError, read_records
from pipeline.language import question_of_prompt, refusal_of
from pipeline.params import run_names
from pipeline.records import SCORINGS, Pair, Score
from pipeline.reporting.analysis import PairInfo, Run, Scored
from pipeline.reporting.baselines import passage_blind
from pipeline.training.data import EXTERNAL, outside_eval_pairs

log = logging.getLogger("pipeline.stages.report")

BASE_NAME = "base"  # the score stage's name for the base model (pipeline.stages.score, which loads torch)


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
