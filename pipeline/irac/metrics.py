"""docs/method.md §11 metrics as pure functions: field completeness and accuracy (task 1), IRAC recall of an
analysis (task 2), the A/B/C judge score, and their summaries with bootstrap intervals over cases.

Similarity is injected (`Similarity`: two lists of texts -> their cosine matrix), so the stage passes
one backed by the cached embedder and tests pass a deterministic one. Comparisons of many cases are
packed into few similarity calls (one for any stage-sized batch; see `_blocks`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from pipeline.irac.normalize import exact_match, mentions, normalize
from pipeline.language import count_tokens
from pipeline.stats import bootstrap_interval
from pipeline.text import split_sentences

Similarity = Callable[[list[str], list[str]], np.ndarray]

# Cells of one similarity matrix at most (16 MB of float32): stage batches fit in one call, and a
# very large batch is split instead of building an all-against-all matrix that does not fit.
_BLOCK_CELLS = 4_000_000


@dataclass(frozen=True)
class FieldCase:
    decision_id: str
    case_type: str
    reference_count: int  # fields the reference fills
    filled: int  # of those, fields the system filled
    spurious: int  # fields the system filled that the reference leaves empty
    exact_total: int  # overlap fields of kind exact
    exact_correct: int
    semantic_total: int  # overlap fields of kind semantic
    semantic_correct: int
    completeness: float
    overall: float | None  # None when the overlap is empty
    per_field: dict[str, bool]  # overlap field -> correct
    parseable: bool = True
    party: str = ""  # the party this case scores ("" = the decision as a whole)


@dataclass(frozen=True)
class AnalysisCase:
    decision_id: str
    case_type: str
    reference_count: int
    stated: int
    recall: float
    per_field: dict[str, bool]  # reference field -> stated
    tokens: int  # length of the analysis, to see a long copy of the decision next to its recall
    parseable: bool = True
    unstatable: int = 0  # yes/no reference fields, left out of reference_count (see score_analysis_batch)
    party: str = ""


# (decision_id, case_type, predicted fields or analysis (None = unparseable), reference fields, kinds
# [, declared field types [, party]]). Old data has no types: its values are compared untyped. A decision
# with several parties gives one item per party, so averages run over (decision, party).
FieldItem = tuple  # (str, str, dict[str, str] | None, dict[str, str], dict[str, str][, dict[str, str][, str]])
AnalysisItem = tuple  # (str, str, str | None, dict[str, str], dict[str, str][, dict[str, str][, str]])


def _unpack(item: tuple) -> tuple[str, str, object, dict[str, str], dict[str, str], dict[str, str], str]:
    decision_id, case_type, payload, reference, kinds = item[:5]
    types = item[5] if len(item) > 5 and item[5] else {}
    party = item[6] if len(item) > 6 else ""
    return decision_id, case_type, payload, reference, kinds, types, party


def _filled(value: str | None) -> bool:
    return bool(value and value.strip())


def _reference(decision_id: str, reference: dict[str, str]) -> dict[str, str]:
    filled = {k: v for k, v in reference.items() if _filled(v)}
    if not filled:
        raise ValueError(f"decision {decision_id}: the reference fills no field, so it cannot be scored")
    return filled


def _blocks(groups: Sequence[tuple[list[str], list[str]]], similarity: Similarity) -> list[np.ndarray]:
    """Each group's cosine block [len(a), len(b)], from as few similarity calls as the size cap allows.

    Groups are packed in order into calls whose (distinct a) x (distinct b) stays under _BLOCK_CELLS;
    texts repeated across groups are sent once per call.
    """
    out: list[np.ndarray] = [np.zeros((len(a), len(b))) for a, b in groups]
    pending = [i for i, (a, b) in enumerate(groups) if a and b]
    start = 0
    while start < len(pending):
        rows: dict[str, int] = {}
        cols: dict[str, int] = {}
        end = start
        while end < len(pending):
            a, b = groups[pending[end]]
            new_rows = len(rows) + len(set(a) - rows.keys())
            new_cols = len(cols) + len(set(b) - cols.keys())
            if end > start and new_rows * new_cols > _BLOCK_CELLS:
                break
            for t in a:
                rows.setdefault(t, len(rows))
            for t in b:
                cols.setdefault(t, len(cols))
            end += 1
        matrix = np.asarray(similarity(list(rows), list(cols)), dtype=np.float64)
        if matrix.shape != (len(rows), len(cols)):
            raise ValueError(f"similarity returned shape {matrix.shape}, expected {(len(rows), len(cols))}")
        for i in pending[start:end]:
            a, b = groups[i]
            out[i] = matrix[np.ix_([rows[t] for t in a], [cols[t] for t in b])]
        start = end
    return out


def score_fields_batch(items: Sequence[FieldItem], similarity: Similarity, tau: float) -> list[FieldCase]:
    """Task 1 scores, one FieldCase per item (decision_id, case_type, predicted, reference, kinds).

    Over the overlap (fields both filled), an exact field is correct when the values are equal after
    normalisation, a semantic one when they are equal after normalisation or their cosine >= tau. A
    field missing from `kinds` is semantic. `predicted` None (an unparseable output) fills nothing:
    completeness 0 and overall None, and the case is kept.
    """
    prepared = []
    semantic_pairs: list[tuple[list[str], list[str]]] = []
    for item in items:
        decision_id, case_type, predicted, reference, kinds, types, party = _unpack(item)
        ref = _reference(decision_id, reference)
        pred = {k: v for k, v in (predicted or {}).items() if _filled(v)}  # type: ignore[union-attr]
        overlap = sorted(ref.keys() & pred.keys())
        correct: dict[str, bool] = {}
        waiting: list[str] = []
        for name in overlap:
            if kinds.get(name, "semantic") == "exact":
                correct[name] = exact_match(pred[name], ref[name], types.get(name))
            elif exact_match(pred[name], ref[name], types.get(name)):
                correct[name] = True
            else:
                waiting.append(name)
                semantic_pairs.append(([pred[name]], [ref[name]]))
        prepared.append((decision_id, case_type, predicted is not None, ref, pred, kinds, correct, waiting, party))

    cosines = iter(_blocks(semantic_pairs, similarity))
    cases = []
    for decision_id, case_type, parseable, ref, pred, kinds, correct, waiting, party in prepared:
        for name in waiting:
            correct[name] = bool(next(cosines)[0, 0] >= tau)
        exact = [n for n in correct if kinds.get(n, "semantic") == "exact"]
        semantic = [n for n in correct if kinds.get(n, "semantic") != "exact"]
        cases.append(
            FieldCase(
                decision_id=decision_id,
                case_type=case_type,
                reference_count=len(ref),
                filled=len(correct),
                spurious=len(pred.keys() - ref.keys()),
                exact_total=len(exact),
                exact_correct=sum(correct[n] for n in exact),
                semantic_total=len(semantic),
                semantic_correct=sum(correct[n] for n in semantic),
                completeness=len(correct) / len(ref),
                overall=_overall(
                    len(exact),
                    sum(correct[n] for n in exact),
                    len(semantic),
                    sum(correct[n] for n in semantic),
                ),
                per_field=dict(sorted(correct.items())),
                parseable=parseable,
                party=party,
            )
        )
    return cases


def _overall(
    exact_total: int, exact_correct: int, semantic_total: int, semantic_correct: int
) -> float | None:
    """docs/method.md §11: exact share x exact accuracy + semantic share x semantic accuracy, over the overlap.

    Written as docs/method.md §11 states it; it equals (exact_correct + semantic_correct) / overlap.
    """
    overlap = exact_total + semantic_total
    if overlap == 0:
        return None
    value = 0.0
    if exact_total:
        value += exact_total / overlap * (exact_correct / exact_total)
    if semantic_total:
        value += semantic_total / overlap * (semantic_correct / semantic_total)
    return value


def segments(analysis: str) -> list[str]:
    """The pieces of an analysis a semantic field may match: sentences, split again at ';' and ':'
    (and after Chinese sentence ends, which need no following space)."""
    out = []
    for sentence in split_sentences(analysis):
        for piece in re.split(r"[;:；：]|(?<=[。！？])", sentence):
            piece = piece.strip()
            if piece:
                out.append(piece)
    return out


def score_analysis_batch(
    items: Sequence[AnalysisItem], similarity: Similarity, tau: float
) -> list[AnalysisCase]:
    """Task 2 IRAC recall, one AnalysisCase per item (decision_id, case_type, analysis, reference, kinds).

    An exact field is stated when the analysis mentions its value (normalize.mentions). A semantic
    field is stated when the analysis contains its canonical value, or some segment has cosine >= tau
    with it. An analysis of None (unparseable) states nothing and is kept.
    A yes/no field ("No" for "cold shoulder order made") has no value a text can contain: it is left
    out of the recall denominator and counted as `unstatable`, not scored as a miss of every analysis.
    """
    prepared = []
    groups: list[tuple[list[str], list[str]]] = []
    for item in items:
        decision_id, case_type, analysis, reference, kinds, types, party = _unpack(item)
        full = _reference(decision_id, reference)
        ref = {
            n: v for n, v in full.items() if types.get(n) != "yesno" and not normalize(v).startswith("yesno:")
        }
        text = analysis or ""
        stated: dict[str, bool] = {}
        waiting: list[str] = []
        for name, value in sorted(ref.items()):
            if text and mentions(text, value, types.get(name)):  # type: ignore[arg-type]
                stated[name] = True
            elif text and kinds.get(name, "semantic") != "exact":
                waiting.append(name)
            else:
                stated[name] = False
        pieces = segments(text) if waiting else []  # type: ignore[arg-type]
        groups.append((pieces, [ref[n] for n in waiting]))
        prepared.append((decision_id, case_type, analysis, ref, stated, waiting, len(full) - len(ref), party))

    blocks = _blocks(groups, similarity)
    cases = []
    for (decision_id, case_type, analysis, ref, stated, waiting, unstatable, party), block in zip(
        prepared, blocks, strict=True
    ):
        best = block.max(axis=0) if block.size else np.zeros(len(waiting))
        for name, cosine in zip(waiting, best, strict=True):
            stated[name] = bool(cosine >= tau)
        n_stated = sum(stated.values())
        cases.append(
            AnalysisCase(
                decision_id=decision_id,
                case_type=case_type,
                reference_count=len(ref),
                stated=n_stated,
                recall=n_stated / len(ref) if ref else 0.0,
                per_field=dict(sorted(stated.items())),
                tokens=count_tokens(analysis) if analysis else 0,
                parseable=analysis is not None,
                unstatable=unstatable,
                party=party,
            )
        )
    return cases


def _mean_ci(values: list[float], resamples: int, seed: int) -> dict:
    if not values:
        return {"mean": None, "ci95": None}
    interval = bootstrap_interval(np.asarray(values, dtype=np.float64), resamples, seed)
    return {"mean": float(np.mean(values)), "ci95": [interval.low, interval.high]}


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def pooled_ci(nums: Sequence[int], dens: Sequence[int], resamples: int, seed: int) -> list[float] | None:
    """Percentile bootstrap 95% interval of sum(nums) / sum(dens), resampling CASES (the fields of one case
    are not independent draws); resamples whose denominator is 0 are left out. None without data."""
    num = np.asarray(nums, dtype=np.float64)
    den = np.asarray(dens, dtype=np.float64)
    if not resamples or den.sum() == 0:
        return None
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(num), size=(resamples, len(num)))
    totals = den[idx].sum(axis=1)
    keep = totals > 0
    ratios = num[idx].sum(axis=1)[keep] / totals[keep]
    low, high = np.quantile(ratios, [0.025, 0.975])
    return [float(low), float(high)]


def summarise_fields(cases: Sequence[FieldCase], resamples: int = 1000, seed: int = 0) -> dict:
    """Task 1 over cases: completeness (every case, unparseable ones at 0) and overall accuracy (the
    cases with a non-empty overlap, counted in `overall_cases`), each with a percentile bootstrap 95%
    interval over cases; plus field counts and pooled exact / semantic accuracy."""
    overall = [c.overall for c in cases if c.overall is not None]
    exact_total = sum(c.exact_total for c in cases)
    semantic_total = sum(c.semantic_total for c in cases)
    return {
        "cases": len(cases),
        "unparseable": sum(not c.parseable for c in cases),
        "completeness": _mean_ci([c.completeness for c in cases], resamples, seed),
        "overall_accuracy": _mean_ci(overall, resamples, seed),
        "overall_cases": len(overall),
        "reference_fields": sum(c.reference_count for c in cases),
        "filled": sum(c.filled for c in cases),
        "spurious": sum(c.spurious for c in cases),
        "exact": {"correct": sum(c.exact_correct for c in cases), "total": exact_total,
                  "accuracy": _ratio(sum(c.exact_correct for c in cases), exact_total)},
        "semantic": {"correct": sum(c.semantic_correct for c in cases), "total": semantic_total,
                     "accuracy": _ratio(sum(c.semantic_correct for c in cases), semantic_total)},
        # The pooled accuracies' intervals, resampling cases.
        "exact_ci95": pooled_ci([c.exact_correct for c in cases], [c.exact_total for c in cases], resamples, seed),
        "semantic_ci95": pooled_ci([c.semantic_correct for c in cases], [c.semantic_total for c in cases],
                                   resamples, seed),
    }  # fmt: skip


def summarise_analyses(cases: Sequence[AnalysisCase], resamples: int = 1000, seed: int = 0) -> dict:
    """Task 2 over cases: mean IRAC recall (unparseable analyses at 0) with a bootstrap 95% interval
    over cases, pooled recall over all reference fields, and the mean analysis length in tokens."""
    stated = sum(c.stated for c in cases)
    reference = sum(c.reference_count for c in cases)
    return {
        "cases": len(cases),
        "unparseable": sum(not c.parseable for c in cases),
        "recall": _mean_ci([c.recall for c in cases], resamples, seed),
        "stated": stated,
        "reference_fields": reference,
        "unstatable_fields": sum(c.unstatable for c in cases),
        "pooled_recall": _ratio(stated, reference),
        "mean_tokens": float(np.mean([c.tokens for c in cases])) if cases else None,
    }


def judge_score(grades: Sequence[str | None], resamples: int = 0, seed: int = 0) -> dict:
    """docs/method.md §11 judge score: (A + 0.5 B) / n, where n counts EVERY graded analysis including the
    unparseable grades (a grade that could not be read earns nothing: conservative, and it keeps a
    judge that fails often from inflating the score). `score_parseable` divides by A + B + C instead.
    Anything other than "A", "B" or "C" (None included) is unparseable. With `resamples`, `ci95` is the
    percentile bootstrap 95% interval of the score over the graded analyses."""
    a = sum(g == "A" for g in grades)
    b = sum(g == "B" for g in grades)
    c = sum(g == "C" for g in grades)
    n = len(grades)
    points = a + 0.5 * b
    return {
        "A": a,
        "B": b,
        "C": c,
        "unparseable": n - a - b - c,
        "n": n,
        "score": points / n if n else None,
        "ci95": _mean_ci([grade_points(g) for g in grades], resamples, seed)["ci95"] if resamples and n else None,
        "score_parseable": points / (a + b + c) if a + b + c else None,
    }


def grade_points(grade: str | None) -> float:
    """What one grade adds to the judge score: A 1, B 0.5, C or unparseable 0."""
    return {"A": 1.0, "B": 0.5}.get(grade or "", 0.0)


def per_field_accuracy(cases: Sequence[FieldCase | AnalysisCase]) -> dict[str, tuple[int, int]]:
    """field -> (correct, total) across cases: over the overlap for FieldCase, over the reference
    fields (correct = stated) for AnalysisCase."""
    counts: dict[str, list[int]] = {}
    for case in cases:
        for name, ok in case.per_field.items():
            entry = counts.setdefault(name, [0, 0])
            entry[0] += int(ok)
            entry[1] += 1
    return {name: (c, t) for name, (c, t) in sorted(counts.items())}
