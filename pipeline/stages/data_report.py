"""Stage `data_report`: what the data lineage produced -> reports/data.md, reports/data_details.json (every
number) and reports/data_metrics.json (the headline numbers `dvc metrics` lists).

Corpus statistics, answer quality by variant and generator, pair counts, length by transition before
and after augmentation, judge validity against the validation set labelled by reading (stage judge_eval), judge agreement and
robustness, unparseable labels; and by question language:
labels by behaviour, pairs by dimension and BM25 vs dense gold recall@10 (is each language read at all?).
When an import is on: the records each import left out under `on_invalid: skip`, by reason, with the
first locations (file:line and JSON path), so a skip never hides how much of a published set was lost;
with a QA set imported, its label noise (pipeline.reporting.label_noise: questions made standalone or left
out, references failing the sanity checks, unanswerable contexts that hold the answer).
The header says what data ran, counted by language from the records themselves (`data_sources`).
The numbers come from pipeline.reporting.data_analysis and .provenance, the markdown from
pipeline.reporting.data_render; this module only reads and writes.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from pipeline import paths
from pipeline.agreement import agreement
from pipeline.importers import Skips, skipped_path
from pipeline.importers.pairs import OutsidePairRecord, read_outside_pairs
from pipeline.io import InputError, read_records, write_json, write_text
from pipeline.judges import labels_file, sampled_judge
from pipeline.judges.inputs import load_interim, load_labels
from pipeline.params import Params
from pipeline.records import Decision
from pipeline.reporting import judge_validity
from pipeline.reporting.data_analysis import build_metrics, headline_metrics, without_nan
from pipeline.reporting.data_render import render, render_skips  # noqa: F401 (tests/test_import_invalid.py)
from pipeline.reporting.label_noise import label_noise
from pipeline.reporting.optional import json_or
from pipeline.reporting.provenance import data_sources
from pipeline.stages import run, start

# The skipped-records summaries the import stages write beside their outputs (pipeline.importers).
SKIPPED = (skipped_path(paths.DECISIONS), skipped_path(paths.QAS), skipped_path(paths.CANDIDATES))


def import_skips(params: Params, root: Path = Path(".")) -> list[dict]:
    """The summary of every import that is on (see read_imports)."""
    return read_imports(params, root)[0]


def read_imports(params: Params, root: Path = Path(".")) -> tuple[list[dict], list[OutsidePairRecord]]:
    """The summary of every import that is on: the three import stages' files, and the outside pairs,
    which no data stage reads, checked here the way training reads them (train.external_pairs); and the
    valid outside pairs (none when they are off or stop on an invalid line)."""
    out: list[dict] = []
    for path in SKIPPED:
        if (root / path).exists():
            out += json.loads((root / path).read_text(encoding="utf-8"))["imports"]
    external = params.train.external_pairs
    pairs: list[OutsidePairRecord] = []
    if external.format != "none":
        skips = Skips("train.external_pairs", external.on_invalid)
        try:
            pairs = read_outside_pairs(root / external.path, skips)
            out.append(skips.summary())
        except InputError as exc:  # under stop, training stops on it; the report says why rather than failing
            out.append(skips.summary() | {"error": str(exc)})
    return out, pairs


def sampled_agreement(full: list, sampled: list) -> dict:
    """Per sampled judge: its sample size, unparseable count and, on the candidates of its sample, its
    agreement with each full judge and with all of them (pipeline/agreement.py, over the candidates
    every judge compared labelled)."""
    out = {}
    for name, labels in sampled:
        out[name] = {
            "labels": len(labels),
            "unparseable": sum(v.status != "ok" for v in labels.values()),
            "agreement_with": {other: agreement([others, labels]) for other, others in full},
            "agreement_all": agreement([*(lab for _, lab in full), labels]),
        }
    return out


def main(argv: list[str] | None = None) -> None:
    _, params = start(__doc__, argv)
    started = time.perf_counter()
    decisions = read_records(paths.DECISIONS, Decision)
    corpus = load_interim()
    # A sampled LLM judge (judge.llm_max_candidates) is measured on its sample, beside the full judges.
    loaded = [(j, load_labels(labels_file(j), corpus.candidates, complete=not sampled_judge(j, params)))
              for j in params.judge.judges]
    judges = [(j, labels) for j, labels in loaded if not sampled_judge(j, params)]
    pairs, pairs_aug = paths.read_pairs(paths.PAIRS), paths.read_pairs(paths.PAIRS_AUG)
    augment_meta = json_or(paths.AUGMENT_META, {})
    # The contexts stage's language counts (cross-language fill-in distractors); absent from older runs.
    context_stats = json_or(paths.CONTEXT_STATS, None)
    # The contexts stage's embedding cache is read as a cache only: the figures are the same without it.
    metrics = build_metrics(corpus, decisions, judges, pairs, pairs_aug, params, augment_meta,
                            paths.EMBEDDING_CACHE, context_stats)
    imports, outside_pairs = read_imports(params)
    metrics["data_sources"] = data_sources(decisions, corpus, outside_pairs)
    if imports:  # only when an import is on: the default's report stays as it was
        metrics["imports"] = imports
    if params.corpus.qa_import.format != "none":  # the imported set's label noise (and a baseline)
        metrics["label_noise"] = label_noise(corpus, decisions, imports, params)
    # Each judge against the validation set labelled by reading (stage judge_eval).
    metrics["validity"] = judge_validity.summary(json_or(paths.JUDGE_VALIDITY, None))
    sampled = [(j, labels) for j, labels in loaded if sampled_judge(j, params)]
    if sampled:
        metrics["sampled_judges"] = sampled_agreement(judges, sampled)
    metrics = without_nan(metrics)
    write_json(paths.REPORTS / "data_details.json", metrics)
    write_json(paths.REPORTS / "data_metrics.json",
               headline_metrics(metrics) | {"validity": judge_validity.headline(metrics["validity"])})
    write_text(paths.REPORTS / "data.md", render(metrics, params) + "\n")
    print(
        f"data_report: {len(pairs)} pairs, {metrics['pairs']['augmented']} rewritten, "
        f"{len(judges)} judges -> reports/data.md ({time.perf_counter() - started:.1f}s)"
    )


if __name__ == "__main__":
    run(main)
