"""Wiring of the irac stage: model systems and the grader behind the response cache, the cached
embedding similarity per language (checked to cover it) with its model's cosine threshold, the
calibration of those models on the paraphrase sets, and the metrics of every (system, mode) in one
JSON-ready dict, scored per (decision, party) and summarised overall, per case type and per language."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.backends import make_generator
from pipeline.backends.cache import CachedGenerator
from pipeline.data_sources import decision_sources
from pipeline.embeddings import builtin, calibration
from pipeline.irac import metrics as m
from pipeline.irac.llm import Grader, ModelSystem
from pipeline.irac.schema import field_specs
from pipeline.params import Params
from pipeline.records import Decision, IracGrade, IracOutput
from pipeline.retrieval.coverage import check_coverage
from pipeline.retrieval.dense import Embedder
from pipeline.stats import bootstrap_interval, wilson_interval

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


def embedding_model(params: Params, language: str) -> str:
    """The embedding model of a language: irac.embedding_models[language], else irac.embedding_model."""
    return params.irac.embedding_models.get(language, params.irac.embedding_model)


def tau(params: Params, model: str) -> float:
    """The cosine threshold of an embedding model: irac.tau[model], else the builtin model's default
    (params validation makes sure one of the two exists)."""
    value = params.irac.tau.get(model, builtin.default_tau(model))
    if value is None:
        raise KeyError(f"irac.tau has no threshold for embedding model {model!r}")
    return value


def taus(params: Params, languages: Sequence[str]) -> dict[str, float]:
    """language -> the threshold of that language's embedding model."""
    return {lang: tau(params, embedding_model(params, lang)) for lang in languages}


def calibrate(similarity_of: Mapping[str, Similarity], params: Params) -> dict[str, dict[str, Any]]:
    """The paraphrase / near-miss table (pipeline/embeddings/calibration.py) of each model (model -> its
    similarity, the stage's cached one); each row carries the model's tau in force and its accuracy."""
    cosine = {model: calibration.pair_cosine(sim) for model, sim in similarity_of.items()}
    return calibration.calibrate(cosine, {model: tau(params, model) for model in similarity_of})


def check_languages(decisions: Sequence[Decision], params: Params, tokenizer_for: Callable[[str], object] | None = None) -> dict[str, float]:
    """Unknown-token rate of each language's embedding model on that language's decisions (their reference
    values and a slice of their text); CoverageError when a model does not cover its language, unless
    irac.allow_uncovered_language. `tokenizer_for` (model -> tokenizer) is for tests."""
    cfg = params.irac
    rates = {}
    for language in sorted({d.language for d in decisions}):
        texts = []
        for d in decisions:
            if d.language == language:
                texts.append(d.text[:2000])
                texts.extend(v for _, ref in d.references() for v in ref.values() if v.strip())
        model = embedding_model(params, language)
        tokenizer = tokenizer_for(model) if tokenizer_for else None
        max_rate = 1.0 if cfg.allow_uncovered_language else cfg.max_unknown_token_rate
        rates[language] = check_coverage(
            model, language, texts[:500], max_rate, f"irac.embedding_models.{language}",
            "irac.allow_uncovered_language", tokenizer,
            f"irac.embedding_models.{language}" if language in cfg.embedding_models else "irac.embedding_model",
        )
    return rates


def similarities(decisions: Sequence[Decision], params: Params, cache_dir: Path | None) -> dict[str, Similarity]:
    """language -> cached similarity of its embedding model, after the coverage check."""
    check_languages(decisions, params)
    return {lang: cached_similarity(embedding_model(params, lang), cache_dir) for lang in {d.language for d in decisions}}


class CachedModelSystem(ModelSystem):
    """A model system whose generator calls go through the response cache; close() flushes it."""

    def __init__(self, spec: str, params: Params, cache_dir: Path):
        self._generator = CachedGenerator(make_generator(spec, params.generate), str(cache_dir / "responses"))
        cfg = params.irac
        super().__init__(self._generator, cfg.max_retries, cfg.decoding, params.seed, cfg.constrained,
                         cfg.value_max_chars, cfg.reasoning_max_new_tokens, cfg.fields_max_new_tokens)

    def close(self) -> None:
        self._generator.close()


def grade(outputs: Sequence[IracOutput], decisions: Sequence[Decision], params: Params, cache_dir: Path) -> list[IracGrade]:
    """A/B/C grades of every analysis by the irac.judge model (through the response cache)."""
    cfg = params.irac
    generator = CachedGenerator(make_generator(cfg.judge, params.generate), str(cache_dir / "responses"))
    try:
        grader = Grader(generator, cfg.max_retries, cfg.decoding, params.seed, cfg.constrained, cfg.reason_max_chars)
        analyses = [o for o in outputs if o.task == "analysis"]
        return grader.grade(analyses, {d.id: d for d in decisions}, field_specs(decisions))
    finally:
        generator.close()


def _key(output: IracOutput) -> str:
    return f"{output.system}/{output.mode}"


def _items(task: str, group: Sequence[IracOutput], by_id: Mapping[str, Decision]) -> list[tuple]:
    """Scoring items, one per (output, party it answers for): a fields output of a party is scored
    against that party's reference; an analysis (or a fields output for the whole decision) against
    every party's, so each (decision, party) is one case."""
    items = []
    for o in group:
        d = by_id[o.decision_id]
        payload = o.fields if task == "fields" else o.analysis
        for party, reference in d.references():
            if task == "fields" and o.party and party != o.party:
                continue
            items.append((d.id, d.case_type, payload, reference, d.field_kinds, d.field_types, party))
    return items


def _score(task: str, items: list[tuple], by_id: Mapping[str, Decision], similarity: Similarity | Mapping[str, Similarity], tau: Mapping[str, float]) -> list:
    """Cases in item order, each language's items scored with that language's similarity and threshold."""
    one = similarity if callable(similarity) else None
    per_language: Mapping[str, Similarity] = similarity if one is None else defaultdict(lambda: one)  # type: ignore[assignment,arg-type,return-value]
    score = m.score_fields_batch if task == "fields" else m.score_analysis_batch
    cases: list = [None] * len(items)
    for language in sorted({by_id[it[0]].language for it in items}):
        index = [i for i, it in enumerate(items) if by_id[it[0]].language == language]
        for i, case in zip(index, score([items[i] for i in index], per_language[language], tau[language]), strict=True):
            cases[i] = case
    return cases


def metrics(
    outputs: Sequence[IracOutput],
    grades: Sequence[IracGrade],
    decisions: Sequence[Decision],
    params: Params,
    similarity: Similarity | Mapping[str, Similarity],
) -> dict[str, Any]:
    """docs/method.md §11 metrics per (system, mode) for each task, overall, per case type and per language.
    `similarity` is one function for every language, or one per language; each language compares
    cosines with the tau of its embedding model."""
    cfg = params.irac
    by_id = {d.id: d for d in decisions}
    language_of = {d.id: d.language for d in decisions}
    groups: dict[tuple[str, str], list[IracOutput]] = defaultdict(list)
    for o in outputs:
        groups[(o.task, _key(o))].append(o)
    grade_of = {g.output_id: g for g in grades}
    languages = sorted(set(language_of.values()))
    tau_of = taus(params, languages)
    result: dict[str, Any] = {
        "decisions": len(decisions),
        "cases": sum(len(d.references()) for d in decisions),
        "case_types": dict(sorted(Counter(d.case_type for d in decisions).items())),
        "languages": dict(sorted(Counter(language_of.values()).items())),
        # What ran, for the report header: decisions by origin and language.
        "sources": decision_sources(decisions),
        "reference_fields": sum(len(ref) for d in decisions for _, ref in d.references()),
        "tau": tau_of,
        "embedding_model": cfg.embedding_model,
        "embedding_models": {lang: embedding_model(params, lang) for lang in languages},
        "judge": cfg.judge or None,
        "fields": {},
        "analysis": {},
    }
    boot = {"resamples": cfg.bootstrap_resamples, "seed": cfg.bootstrap_seed}
    per_case: dict[tuple[str, str], dict[tuple[str, str], dict[str, float]]] = {}
    for (task, key), group in sorted(groups.items()):
        group.sort(key=lambda o: o.id)
        items = _items(task, group, by_id)
        cases = _score(task, items, by_id, similarity, tau_of)
        summarise = m.summarise_fields if task == "fields" else m.summarise_analyses
        entry = summarise(cases, **boot)
        entry["by_case_type"] = {
            ct: summarise([c for c in cases if c.case_type == ct], **boot) for ct in result["case_types"]
        }
        entry["by_language"] = {
            lang: summarise([c for c in cases if language_of[c.decision_id] == lang], **boot) for lang in languages
        }
        if task == "fields":
            entry["per_field"] = {
                name: {"correct": c, "total": t} for name, (c, t) in sorted(m.per_field_accuracy(cases).items())
            }
        else:
            graded = [grade_of[o.id] for o in group if o.id in grade_of]
            entry["judge"] = m.judge_score([g.grade for g in graded], **boot) if graded else None
        entry["unparseable"] = sum(o.status == "unparseable" for o in group)
        entry["unparseable_share"] = _share(entry["unparseable"], len(group))
        entry["replies"] = replies(group)
        result[task][key] = entry
        per_case[(task, key)] = _case_values(task, cases, items, grade_of, group)
    result["against_rule"] = against_rule(per_case, **boot)
    if "analysis" in cfg.tasks:
        # Calibration: the whole decision text read as an "analysis" -- what copying everything would buy.
        copies = [
            (d.id, d.case_type, d.text, ref, d.field_kinds, d.field_types, party)
            for d in sorted(decisions, key=lambda d: d.id)
            for party, ref in d.references()
        ]
        cases = _score("analysis", copies, by_id, similarity, tau_of)
        result["analysis_whole_text"] = m.summarise_analyses(cases, **boot)
    return result


def _share(k: int, n: int) -> dict[str, Any]:
    """k of n with its Wilson 95% interval."""
    if not n:
        return {"k": k, "n": n, "share": None, "ci95": None}
    interval = wilson_interval(k, n)
    return {"k": k, "n": n, "share": k / n, "ci95": [interval.low, interval.high]}


def replies(group: Sequence[IracOutput]) -> dict[str, Any]:
    """How a system's replies were made: by constraint (llguidance, response_format, prompt alone, none),
    cut off at the token budget, and the reasoning call of a reasoning mode (its mean length, cut-offs)."""
    reasoning = [o.meta["reasoning"] for o in group if isinstance(o.meta.get("reasoning"), str)]
    return {
        "constrained": dict(sorted(Counter(str(o.meta.get("constrained", "n/a")) for o in group).items())),
        "cut_off": sum(o.meta.get("finish_reason") == "length" for o in group),
        "reasoning_calls": len(reasoning),
        "reasoning_mean_chars": float(np.mean([len(r) for r in reasoning])) if reasoning else None,
        "reasoning_cut_off": sum(o.meta.get("reasoning_finish_reason") == "length" for o in group),
    }


def _case_values(task: str, cases: Sequence, items: Sequence[tuple], grade_of: Mapping[str, IracGrade],
                 group: Sequence[IracOutput]) -> dict[tuple[str, str], dict[str, float]]:
    """(decision id, party) -> the per-case values a paired comparison uses."""
    out: dict[tuple[str, str], dict[str, float]] = {}
    if task == "fields":
        for case in cases:
            values = {"completeness": case.completeness}
            if case.overall is not None:
                values["overall_accuracy"] = case.overall
            out[(case.decision_id, case.party)] = values
        return out
    points = {o.decision_id: m.grade_points(grade_of[o.id].grade) for o in group if o.id in grade_of}
    for case in cases:
        values = {"recall": case.recall}
        if case.decision_id in points:
            values["judge_points"] = points[case.decision_id]
        out[(case.decision_id, case.party)] = values
    return out


# The comparisons against the rule baseline: the metric, and the task whose cases carry it.
_COMPARED = (("fields", "completeness"), ("fields", "overall_accuracy"), ("analysis", "recall"),
             ("analysis", "judge_points"))
RULE_KEY = "rule/standard"


def against_rule(per_case: Mapping[tuple[str, str], Mapping[tuple[str, str], Mapping[str, float]]],
                 resamples: int, seed: int) -> dict[str, dict[str, Any]]:
    """Every model system/mode against the rule baseline on the same cases: per metric, the mean
    difference (system - rule) with a paired bootstrap 95% interval over the cases both have a value for,
    and a verdict: "worse" or "better" when the interval excludes 0, else "no clear difference"."""
    out: dict[str, dict[str, Any]] = {}
    keys = sorted({key for _, key in per_case if key != RULE_KEY})
    for key in keys:
        row: dict[str, Any] = {}
        for task, metric in _COMPARED:
            base, system = per_case.get((task, RULE_KEY)), per_case.get((task, key))
            if not base or not system:
                continue
            shared = sorted(c for c in base if c in system and metric in base[c] and metric in system[c])
            if not shared:
                continue
            diffs = np.array([system[c][metric] - base[c][metric] for c in shared])
            interval = bootstrap_interval(diffs, resamples, seed) if resamples else None
            ci = [interval.low, interval.high] if interval else None
            verdict = "no clear difference"
            if ci and ci[1] < 0:
                verdict = "worse"
            elif ci and ci[0] > 0:
                verdict = "better"
            row[metric] = {"cases": len(shared), "system": float(np.mean([system[c][metric] for c in shared])),
                           "rule": float(np.mean([base[c][metric] for c in shared])),
                           "difference": float(diffs.mean()), "ci95": ci, "verdict": verdict}
        out[key] = row
    return out
