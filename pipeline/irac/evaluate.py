"""Wiring of the irac stage: model systems and the grader behind the response cache, the cached
embedding similarity, and the metrics of every (system, mode) in one JSON-ready dict."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.backends import make_generator
from pipeline.irac import metrics as m
from pipeline.irac.llm import Grader, ModelSystem
from pipeline.irac.schema import field_specs
from pipeline.judges import CachedGenerator
from pipeline.params import Params
from pipeline.records import Decision, IracGrade, IracOutput
from pipeline.retrieval.dense import Embedder

Similarity = Callable[[list[str], list[str]], np.ndarray]


def cached_similarity(model: str, cache_dir: Path | None) -> Similarity:
    """Cosine matrix of two text lists through the embedding cache (the model loads only on a miss)."""
    embedder = Embedder(model, cache_dir)

    def similarity(a: list[str], b: list[str]) -> np.ndarray:
        if not a or not b:
            return np.zeros((len(a), len(b)), dtype=np.float32)
        vectors = embedder.embed(list(a) + list(b))
        return vectors[: len(a)] @ vectors[len(a) :].T

    return similarity


class CachedModelSystem(ModelSystem):
    """A model system whose generator calls go through the response cache; close() flushes it."""

    def __init__(self, spec: str, params: Params, cache_dir: Path):
        self._generator = CachedGenerator(make_generator(spec, params.generate), str(cache_dir / "responses"))
        cfg = params.irac
        super().__init__(self._generator, cfg.max_retries, cfg.decoding, params.seed)

    def close(self) -> None:
        self._generator.close()


def grade(outputs: Sequence[IracOutput], decisions: Sequence[Decision], params: Params, cache_dir: Path) -> list[IracGrade]:
    """A/B/C grades of every analysis by the irac.judge model (through the response cache)."""
    cfg = params.irac
    generator = CachedGenerator(make_generator(cfg.judge, params.generate), str(cache_dir / "responses"))
    try:
        grader = Grader(generator, cfg.max_retries, cfg.decoding, params.seed)
        analyses = [o for o in outputs if o.task == "analysis"]
        return grader.grade(analyses, {d.id: d for d in decisions}, field_specs(decisions))
    finally:
        generator.close()


def _key(output: IracOutput) -> str:
    return f"{output.system}/{output.mode}"


def metrics(
    outputs: Sequence[IracOutput],
    grades: Sequence[IracGrade],
    decisions: Sequence[Decision],
    params: Params,
    similarity: Similarity,
) -> dict[str, Any]:
    """SPEC 11 metrics per (system, mode) for each task, overall and per case type."""
    cfg = params.irac
    by_id = {d.id: d for d in decisions}
    groups: dict[tuple[str, str], list[IracOutput]] = defaultdict(list)
    for o in outputs:
        groups[(o.task, _key(o))].append(o)
    grade_of = {g.output_id: g for g in grades}
    result: dict[str, Any] = {
        "decisions": len(decisions),
        "case_types": dict(sorted(Counter(d.case_type for d in decisions).items())),
        "reference_fields": sum(len(d.fields) for d in decisions),
        "tau": cfg.tau,
        "embedding_model": cfg.embedding_model,
        "judge": cfg.judge or None,
        "fields": {},
        "analysis": {},
    }
    boot = {"resamples": cfg.bootstrap_resamples, "seed": cfg.bootstrap_seed}
    for (task, key), group in sorted(groups.items()):
        group.sort(key=lambda o: o.decision_id)
        items = [
            (o.decision_id, by_id[o.decision_id].case_type, o.fields if task == "fields" else o.analysis,
             by_id[o.decision_id].fields, by_id[o.decision_id].field_kinds)
            for o in group
        ]
        unparseable = sum(o.status == "unparseable" for o in group)
        if task == "fields":
            cases = m.score_fields_batch(items, similarity, cfg.tau)
            entry = m.summarise_fields(cases, **boot)
            entry["by_case_type"] = {
                ct: m.summarise_fields([c for c in cases if c.case_type == ct], **boot)
                for ct in result["case_types"]
            }
            entry["per_field"] = {
                name: {"correct": c, "total": t} for name, (c, t) in sorted(m.per_field_accuracy(cases).items())
            }
        else:
            cases = m.score_analysis_batch(items, similarity, cfg.tau)
            entry = m.summarise_analyses(cases, **boot)
            entry["by_case_type"] = {
                ct: m.summarise_analyses([c for c in cases if c.case_type == ct], **boot)
                for ct in result["case_types"]
            }
            graded = [grade_of[o.id] for o in group if o.id in grade_of]
            entry["judge"] = m.judge_score([g.grade for g in graded]) if graded else None
        entry["unparseable"] = unparseable
        result[task][key] = entry
    if "analysis" in cfg.tasks:
        # Calibration: the whole decision text read as an "analysis" -- what copying everything would buy.
        copies = [(d.id, d.case_type, d.text, d.fields, d.field_kinds) for d in sorted(decisions, key=lambda d: d.id)]
        result["analysis_whole_text"] = m.summarise_analyses(m.score_analysis_batch(copies, similarity, cfg.tau), **boot)
    return result
