"""Stage `judge_eval`: every configured judge against the validation set labelled by reading ->
reports/judge_validity.json (docs/method.md §4).

Agreement between two rule judges says they are consistent, not that they are right: this stage measures
validity. Each judge of `judge.judges` labels the validation items (judge.validation, every *.jsonl there);
the report gives, per language and half, per dimension, agreement with the reader (Wilson 95%), Cohen's
kappa and the confusion matrix. The data report shows it in its judge section. An LLM judge's calls go
through a cache of their own, so a rerun pays for nothing twice. A judge the judge stage runs on a sample
(judge.llm_max_candidates) is measured on a seeded sample of judge_eval.llm_items test-half items (the
half every report quotes) in the languages of judge_eval.llm_languages (empty: all), drawn the same way,
and the report says how many items it saw (0: not measured). Where a second reader labelled items blind
(judge.validation/second_reader, pipeline/judges/second_reader.py), the report gives the two readers'
agreement and the primary judge's on the same items.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from pipeline import paths
from pipeline.backends.cache import compacting
from pipeline.io import InputError, write_json
from pipeline.judges import cached_factory, make_judge, sampled_judge
from pipeline.judges.llm import sample_items
from pipeline.judges.second_reader import read_second_reader
from pipeline.judges.validation import composition, evaluate, judge_item, read_validation
from pipeline.stages import path_options, run, start
from pipeline.stages.judge import run_judge

log = logging.getLogger("judge_eval")


def validation_files(folder: Path) -> list[Path]:
    files = sorted(Path(folder).glob("*.jsonl"))
    if not files:
        raise InputError(folder, None, None, "no *.jsonl validation files (judge.validation names this folder)")
    return files


def main(argv: list[str] | None = None) -> None:
    args, params = start(__doc__, argv, path_options(out=paths.JUDGE_VALIDITY, cache_dir=paths.JUDGE_EVAL_CACHE))
    started = time.perf_counter()
    files = validation_files(Path(params.judge.validation))
    items = read_validation(files)
    judge_items = [judge_item(i) for i in items]
    # The primary judge (the first, which builds the pairs) is named: JSON objects keep no order.
    report: dict = {"files": [f.name for f in files], "set": composition(items),
                    "judge_order": list(params.judge.judges), "judges": {}}
    by_id = {it.id: it for it in items}
    # Read before any judge runs, so a bad line stops the stage before it pays for a call.
    second = read_second_reader(Path(params.judge.validation), by_id)
    primary: dict = {}
    with compacting(args.cache_dir):
        for spec in params.judge.judges:
            judge = make_judge(spec, params, cached_factory(params, Path(args.cache_dir)))
            todo = judge_items
            if sampled_judge(spec, params):
                if not params.judge_eval.llm_items:
                    log.info("%s not measured on the validation set (judge_eval.llm_items: 0)", spec)
                    report.setdefault("not_measured", []).append(spec)
                    continue
                languages = params.judge_eval.llm_languages
                pool = [j for j, it in zip(judge_items, items, strict=True)
                        if it.half == "test" and (not languages or it.language in languages)]
                if not pool:
                    raise InputError(args.params, None, "judge_eval.llm_languages",
                                     f"no test-half validation items in {languages} ({', '.join(f.name for f in files)})")
                todo = sample_items(pool, params.judge_eval.llm_items, params.seed)
                report.setdefault("samples", {})[spec] = len(todo)
                report["sample_languages"] = sorted(languages)
            labels = {lab.candidate_id: lab for lab in run_judge(judge, todo)}
            report["judges"][spec] = evaluate([by_id[j.candidate.id] for j in todo], labels)
            if spec == params.judge.judges[0]:
                primary = labels
    # A second reader's blind labels: how far two readers agree, and the primary judge on the same items.
    if second:
        shared = [by_id[i] for i in second if i in primary]
        report["second_reader"] = {"items": len(shared), "reader": evaluate(shared, second),
                                   "primary": evaluate(shared, primary), "judge": params.judge.judges[0]}
    write_json(args.out, report)
    summary = "; ".join(
        f"{spec}: " + " ".join(f"{d[:5]} {_share(s['dimensions'][d]['agreement'])}" for d in s["dimensions"]
                               if d != "completeness_when_correct")
        for spec, scopes in report["judges"].items() for scope, s in scopes.items() if scope == "all/test")
    print(f"judge_eval: {len(items)} validation items x {len(params.judge.judges)} judges; test half: {summary} "
          f"-> {args.out} ({time.perf_counter() - started:.1f}s)")


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    run(main)
