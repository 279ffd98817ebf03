"""Stage `irac`: structured legal reasoning (docs/method.md §11) on the decisions with annotated fields.

Every system in irac.systems does task 1 (extract the fields) and task 2 (write the analysis) in every
prompt mode (irac.modes, or irac.task_modes for one task); model systems and the grader give their
structured replies under a JSON schema when irac.constrained is on (pipeline/structured), and the two
reasoning modes reason in a free first call before the answer (docs/irac_models.md); outputs are scored against the decisions' fields (field completeness, exact and semantic
accuracy, overall accuracy, IRAC recall) and, when irac.judge names a model, graded A/B/C.
-> data/irac/outputs.jsonl, data/irac/grades.jsonl, reports/irac.md, reports/irac_details.json (every metric)
   and reports/irac_metrics.json (the headline numbers `dvc metrics` lists).
Model calls go through a response cache (data/cache/irac/responses), so a restarted stage pays nothing twice.
Each language's embedding model (irac.embedding_models, else irac.embedding_model) must cover it: the stage
stops before any work when its tokenizer leaves too many tokens unknown (irac.max_unknown_token_rate).
Semantic matches compare cosines with that model's irac.tau; the report shows how each model in use
separates paraphrases from near-misses (pipeline/embeddings/calibration), recomputed on every run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pipeline import paths
from pipeline.backends.cache import compacting
from pipeline.io import read_records, write_json, write_records, write_text
from pipeline.irac import evaluate
from pipeline.irac.report import render
from pipeline.irac.rule import RuleSystem
from pipeline.irac.schema import field_specs
from pipeline.params import Params
from pipeline.records import Decision, IracGrade, IracOutput
from pipeline.retrieval.coverage import CoverageError
from pipeline.stages import path_options, run, start

log = logging.getLogger("irac")



def select(decisions: Sequence[Decision], limit: int) -> list[Decision]:
    """Decisions with annotated fields in id order, the first `limit` of them (0 = all)."""
    chosen = sorted((d for d in decisions if d.field_names()), key=lambda d: d.id)
    return chosen[:limit] if limit else chosen


def run_systems(decisions: list[Decision], params: Params, cache_dir: Path) -> list[IracOutput]:
    """Every system x task x mode; the rule system works one way only and runs as "standard"."""
    cfg = params.irac
    specs = field_specs(decisions)
    outputs: list[IracOutput] = []
    for system_spec in cfg.systems:
        if system_spec == "rule":
            system: Any = RuleSystem()
            modes = ["standard"]
        else:
            system = evaluate.CachedModelSystem(system_spec, params, cache_dir)
            modes = list(cfg.modes)
        try:
            for task in cfg.tasks:
                for mode in (modes if system_spec == "rule" else cfg.task_modes.get(task, modes)):
                    outputs.extend(system.run(decisions, specs, task, mode))
                    log.info("%s: %s/%s done", system_spec, task, mode)
        finally:
            if hasattr(system, "close"):
                system.close()
    outputs.sort(key=lambda o: o.id)
    return outputs


def headline_metrics(metrics: dict[str, Any]) -> dict[str, Any]:
    """What `dvc metrics show` / `dvc exp show` list for IRAC: per system/mode, the fields' overall accuracy
    and the analyses' IRAC recall (means); everything else is in irac_details.json."""
    out: dict[str, Any] = {}
    for key, m in sorted(metrics.get("fields", {}).items()):
        out.setdefault(key, {})["fields_overall"] = _round4(m["overall_accuracy"]["mean"])
    for key, m in sorted(metrics.get("analysis", {}).items()):
        out.setdefault(key, {})["analysis_recall"] = _round4(m["recall"]["mean"])
    return out


def _round4(x: Any) -> Any:
    return round(x, 4) if isinstance(x, float) else x


def main(argv: list[str] | None = None) -> None:
    args, params = start(__doc__, argv, _arguments)
    began = time.perf_counter()
    cfg = params.irac
    decisions = select(read_records(args.decisions, Decision), cfg.max_decisions)
    cache_dir = Path(args.cache_dir)
    # A DVC output: it must exist even when nothing is embedded (every field exact, e.g. zh money/date/name).
    (cache_dir / "embeddings").mkdir(parents=True, exist_ok=True)
    # Before any model call: every language's embedding model must cover it (docs/method.md §1).
    try:
        evaluate.check_languages(decisions, params)
    except CoverageError as exc:
        raise SystemExit(f"irac: error: {' '.join(str(exc).split())}") from None
    grades: list[IracGrade] = []
    # Model responses (a DVC output): on success they hold exactly this run's calls.
    with compacting(cache_dir / "responses"):
        outputs = run_systems(decisions, params, cache_dir)
        if cfg.judge:
            grades = evaluate.grade(outputs, decisions, params, cache_dir)
    model_of = {lang: evaluate.embedding_model(params, lang) for lang in sorted({d.language for d in decisions})}
    by_model = {m: evaluate.cached_similarity(m, cache_dir / "embeddings") for m in sorted(set(model_of.values()))}
    metrics = evaluate.metrics(outputs, grades, decisions, params, {lang: by_model[m] for lang, m in model_of.items()})
    # Always current: the table is made with the very models (and cache) that scored this run.
    metrics["calibration"] = evaluate.calibrate(by_model, params)
    out = Path(args.out)
    write_records(out / "outputs.jsonl", outputs)
    write_records(out / "grades.jsonl", grades)
    reports = Path(args.reports)
    write_json(reports / "irac_details.json", metrics)
    write_json(reports / "irac_metrics.json", headline_metrics(metrics))
    write_text(reports / "irac.md", render(metrics, params) + "\n")
    headline = "; ".join(
        f"{key}: completeness {_fmt(m['completeness']['mean'])}, overall {_fmt(m['overall_accuracy']['mean'])}"
        for key, m in metrics["fields"].items()
    )
    graded = f"{len(grades)} grades" if cfg.judge else "no grades (irac.judge is off)"
    print(
        f"irac: {len(decisions)} decisions, {len(outputs)} outputs, {graded}; {headline} "
        f"-> {reports / 'irac.md'} in {time.perf_counter() - began:.1f}s"
    )


def _fmt(value: float | None) -> str:
    return "n/a" if value is None or not np.isfinite(value) else f"{value:.3f}"


_arguments = path_options(decisions=paths.DECISIONS, out=paths.IRAC, cache_dir=paths.IRAC_CACHE,
                          reports=paths.REPORTS)


if __name__ == "__main__":
    run(main)
