"""Stage `judge`: one Label per candidate per configured judge -> data/interim/labels/<judge>.jsonl.

An LLM judge other than the primary labels a seeded sample of whole contexts when judge.llm_max_candidates
caps it (pipeline/judges/llm.py sample_items); its file then holds the labels of that sample only."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from pipeline import params as params_mod
from pipeline import paths
from pipeline.backends.cache import compacting
from pipeline.importers.candidates import imported_labels
from pipeline.io import atomic_dir, write_records
from pipeline.judges import Judge, JudgeItem, file_name, make_judge
from pipeline.judges.inputs import judge_items, load_interim
from pipeline.judges.llm import sample_items
from pipeline.records import Label
from pipeline.stages import run, start

log = logging.getLogger("judge")
BATCH = 256


def run_judge(judge: Judge, items: Sequence[JudgeItem], progress: bool = False) -> list[Label]:
    """Labels of `items` (batched so LLM judges see whole batches), sorted by candidate id."""
    labels: list[Label] = []
    batches = range(0, len(items), BATCH)
    for first in tqdm(batches, desc=judge.name, unit="batch", disable=not progress):
        chunk = items[first : first + BATCH]
        out = judge.judge(chunk)
        if [lab.candidate_id for lab in out] != [i.candidate.id for i in chunk]:
            raise RuntimeError(f"{judge.name}: labels do not match the candidates judged")
        labels.extend(out)
    return sorted(labels, key=lambda lab: lab.candidate_id)


def main(argv: list[str] | None = None) -> None:
    args, params = start(__doc__, argv)
    started = time.perf_counter()
    names = [file_name(j) for j in params.judge.judges]
    if not names or len(set(names)) != len(names):
        raise params_mod.ParamsError(
            f"{args.params}: judge.judges: need distinct judges, got {params.judge.judges}"
        )
    corpus = load_interim()
    items = judge_items(corpus, params.generate.refusal_by_language())
    log.info("judging %d candidates with %s", len(items), ", ".join(params.judge.judges))
    summary = []
    # DVC keeps this folder between runs (persist) and pushes it; only LLM judges write to it, and on
    # success it keeps exactly this run's calls.
    with compacting(paths.JUDGE_CACHE), atomic_dir(paths.LABELS) as tmp:
        for rank, spec in enumerate(params.judge.judges):
            todo = items
            if rank > 0 and spec.startswith("llm:") and params.judge.llm_max_candidates:
                todo = sample_items(items, params.judge.llm_max_candidates, params.seed)
                log.info("%s labels a sample of %d of %d candidates (judge.llm_max_candidates)", spec, len(todo), len(items))
            # Outside answers graded for this judge (generate.import_candidates) keep their grades; grades
            # for a judge not in judge.judges stop the stage before any judge is paid.
            outside = imported_labels(corpus.candidates, spec, params.judge.judges)
            judge = make_judge(spec, params)
            labels = run_judge(judge, todo, progress=True)
            labels = [outside.get(lab.candidate_id, lab) for lab in labels]
            generator = getattr(judge, "generator", None)
            if hasattr(generator, "close"):
                generator.close()
            write_records(Path(tmp) / file_name(spec), labels)
            counts = Counter(lab.behaviour if lab.status == "ok" else "unparseable" for lab in labels)
            sampled = f" (sample of {len(todo)})" if len(todo) < len(items) else ""
            summary.append(f"{spec}{sampled}: " + " ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    print(
        f"judge: {len(items)} candidates x {len(params.judge.judges)} judges in "
        f"{time.perf_counter() - started:.1f}s; " + "; ".join(summary)
    )


if __name__ == "__main__":
    run(main)
