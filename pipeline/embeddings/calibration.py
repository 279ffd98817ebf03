"""How well a model's cosines tell a paraphrase from a near-miss, per language (docs/method.md §11).

IRAC counts a field (or an analysis segment) as matching its reference when their cosine is >= tau, so
tau only means something against the spread of that model's cosines: e5's sit in a narrow high band,
MiniLM's and USE's are spread wider. The sets in calibration/<language>.json hold legal sentence pairs,
half paraphrases and half near-misses (same matter, another party, amount or outcome). For each model
and language this module gives the mean and sd of both groups' cosines, the threshold that classifies
the pairs best (accuracy) and that accuracy, and the accuracy at the tau in force.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

# two equally long text lists -> the cosine of each aligned pair
PairCosine = Callable[[list[str], list[str]], np.ndarray]

LANGUAGES = ("en", "zh")


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    paraphrase: bool


def load_pairs(language: str) -> list[Pair]:
    """The calibration pairs of `language` shipped in pipeline/embeddings/calibration/."""
    name = f"{language}.json"
    text = resources.files("pipeline.embeddings").joinpath("calibration", name).read_text(encoding="utf-8")
    pairs = []
    for n, item in enumerate(json.loads(text)["pairs"]):
        if not (isinstance(item.get("a"), str) and isinstance(item.get("b"), str) and isinstance(item.get("paraphrase"), bool)):
            raise ValueError(f"pipeline/embeddings/calibration/{name}: pairs[{n}] needs strings a, b and a boolean paraphrase")
        pairs.append(Pair(item["a"], item["b"], item["paraphrase"]))
    return pairs


def best_threshold(positive: Sequence[float], negative: Sequence[float]) -> tuple[float, float]:
    """(threshold, accuracy) of the rule "cosine >= threshold means paraphrase" that classifies the most
    pairs right. Candidates are midpoints between neighbouring cosines (and just outside both ends);
    among equally accurate ones the midpoint of the widest gap wins, the margin most likely to carry over."""
    values = np.sort(np.concatenate([np.asarray(positive, float), np.asarray(negative, float)]))
    if not len(values):
        raise ValueError("no pairs to calibrate on")
    pos, neg = np.asarray(positive, float), np.asarray(negative, float)
    candidates = [(values[0] - 1e-6, 0.0)] + [
        ((lo + hi) / 2, hi - lo) for lo, hi in zip(values[:-1], values[1:], strict=True) if hi > lo
    ] + [(values[-1] + 1e-6, 0.0)]
    best = max(candidates, key=lambda c: (accuracy(pos, neg, c[0]), c[1], -c[0]))
    return float(best[0]), accuracy(pos, neg, best[0])


def accuracy(positive: np.ndarray, negative: np.ndarray, threshold: float) -> float:
    right = int(np.sum(np.asarray(positive) >= threshold)) + int(np.sum(np.asarray(negative) < threshold))
    return right / (len(positive) + len(negative))


def summarise(cosines: np.ndarray, labels: Sequence[bool], tau: float | None) -> dict[str, Any]:
    """Mean/sd of both groups, the best threshold with its accuracy, and the accuracy at `tau`."""
    cos = np.asarray(cosines, dtype=float)
    lab = np.asarray(labels, dtype=bool)
    pos, neg = cos[lab], cos[~lab]
    threshold, acc = best_threshold(pos, neg)
    return {
        "pairs": int(len(cos)),
        "paraphrase": {"mean": round(float(pos.mean()), 4), "sd": round(float(pos.std(ddof=1)), 4)},
        "other": {"mean": round(float(neg.mean()), 4), "sd": round(float(neg.std(ddof=1)), 4)},
        "threshold": round(threshold, 4),
        "accuracy": round(acc, 4),
        "tau": tau,
        "accuracy_at_tau": None if tau is None else round(accuracy(pos, neg, tau), 4),
    }


def calibrate(
    cosine_for: Mapping[str, PairCosine], tau_for: Mapping[str, float | None], languages: Sequence[str] = LANGUAGES
) -> dict[str, dict[str, Any]]:
    """model -> {language: summary, ..., "all": summary of the languages pooled} (tau is one per model,
    so the pooled threshold is the one a model's tau is set from)."""
    sets = {lang: load_pairs(lang) for lang in languages}
    out: dict[str, dict[str, Any]] = {}
    for model, cosine in sorted(cosine_for.items()):
        rows: dict[str, Any] = {}
        pooled_cos, pooled_lab = [], []
        for lang, pairs in sets.items():
            cos = np.asarray(cosine([p.a for p in pairs], [p.b for p in pairs]), dtype=float)
            labels = [p.paraphrase for p in pairs]
            rows[lang] = summarise(cos, labels, tau_for.get(model))
            pooled_cos.append(cos)
            pooled_lab.extend(labels)
        rows["all"] = summarise(np.concatenate(pooled_cos), pooled_lab, tau_for.get(model))
        out[model] = rows
    return out


def pair_cosine(similarity: Callable[[list[str], list[str]], np.ndarray]) -> PairCosine:
    """Aligned-pair cosines from a cosine-matrix function (the IRAC stage's cached similarity)."""

    def cosine(a: list[str], b: list[str]) -> np.ndarray:
        return np.diagonal(np.asarray(similarity(a, b)))

    return cosine
