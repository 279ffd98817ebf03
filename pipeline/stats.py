"""Statistics of docs/method.md §9 for pairwise reward-model evaluation.

Inputs are plain arrays (one entry per pair, always aligned on the same pairs when two systems are
compared), so every function is testable without files. A prediction is correct iff
score(chosen) > score(rejected): ties count as wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

Z95 = float(sps.norm.ppf(0.975))
# Resamples drawn per block: bounds the index matrix to a few MB whatever the pair count.
_BOOT_BLOCK = 1000


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


def correct_from_scores(chosen: np.ndarray, rejected: np.ndarray) -> np.ndarray:
    """Strict comparison: a tie (including -inf == -inf) is a wrong prediction. The one definition: the
    score stage writes `correct` with it (pipeline/scoring/registry.py) and the report applies it to the
    same numbers, here where no model library has to load."""
    return np.asarray(chosen, dtype=np.float64) > np.asarray(rejected, dtype=np.float64)


def accuracy(correct: np.ndarray) -> float:
    correct = np.asarray(correct, dtype=bool)
    return float(correct.mean()) if correct.size else float("nan")


def wilson_interval(successes: int, n: int, z: float = Z95) -> Interval:
    """Wilson score interval for a binomial proportion (well-behaved at 0, 1 and small n)."""
    if n == 0:
        return Interval(float("nan"), float("nan"))
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Interval(max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class McNemar:
    # b: pairs the baseline got right and the system wrong; c: the reverse.
    b: int
    c: int
    p_value: float


def mcnemar_exact(baseline_correct: np.ndarray, system_correct: np.ndarray) -> McNemar:
    """Exact two-sided McNemar test: a binomial test of b against b + c at p = 0.5."""
    base = np.asarray(baseline_correct, dtype=bool)
    system = np.asarray(system_correct, dtype=bool)
    if base.shape != system.shape:
        raise ValueError(f"McNemar needs the same pairs: {base.shape} vs {system.shape}")
    b = int(np.sum(base & ~system))
    c = int(np.sum(~base & system))
    p = 1.0 if b + c == 0 else float(sps.binomtest(b, b + c, 0.5, alternative="two-sided").pvalue)
    return McNemar(b, c, min(1.0, p))


def bootstrap_interval(
    values: np.ndarray,
    resamples: int,
    seed: int,
    statistic: Callable[[np.ndarray], np.ndarray] | None = None,
    level: float = 0.95,
) -> Interval:
    """Percentile bootstrap interval of a statistic (default: the mean) over pairs.

    `statistic` maps a [resamples, n] matrix of resampled values to [resamples] statistics. The same
    seed and values give the same interval on every machine (numpy's PCG64 stream is portable).
    """
    values = np.asarray(values, dtype=np.float64)
    n = values.size
    if n == 0:
        return Interval(float("nan"), float("nan"))
    statistic = statistic or (lambda m: m.mean(axis=1))
    rng = np.random.default_rng(seed)
    out = np.empty(resamples, dtype=np.float64)
    for start in range(0, resamples, _BOOT_BLOCK):
        size = min(_BOOT_BLOCK, resamples - start)
        idx = rng.integers(0, n, size=(size, n))
        out[start : start + size] = statistic(values[idx])
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(out, [alpha, 1.0 - alpha])
    return Interval(float(low), float(high))


def paired_difference_interval(
    baseline_correct: np.ndarray, system_correct: np.ndarray, resamples: int, seed: int
) -> Interval:
    """Bootstrap interval of accuracy(system) - accuracy(baseline), resampling pairs jointly."""
    base = np.asarray(baseline_correct, dtype=np.float64)
    system = np.asarray(system_correct, dtype=np.float64)
    if base.shape != system.shape:
        raise ValueError(f"paired difference needs the same pairs: {base.shape} vs {system.shape}")
    return bootstrap_interval(system - base, resamples, seed)


def length_controlled_mask(chosen_tokens: np.ndarray, rejected_tokens: np.ndarray, ratio: float) -> np.ndarray:
    """Pairs whose two responses differ in length by at most `ratio` (longer / shorter)."""
    c = np.asarray(chosen_tokens, dtype=np.float64)
    r = np.asarray(rejected_tokens, dtype=np.float64)
    longer, shorter = np.maximum(c, r), np.minimum(c, r)
    return (shorter > 0) & (longer <= ratio * shorter)


def prefer_longer(chosen_tokens: np.ndarray, rejected_tokens: np.ndarray) -> np.ndarray:
    """The length baseline 'the longer response is better' (equal lengths are wrong)."""
    return np.asarray(chosen_tokens) > np.asarray(rejected_tokens)


def prefer_shorter(chosen_tokens: np.ndarray, rejected_tokens: np.ndarray) -> np.ndarray:
    return np.asarray(chosen_tokens) < np.asarray(rejected_tokens)


@dataclass(frozen=True)
class Summary:
    n: int
    correct: int
    accuracy: float
    wilson: Interval


def summarise(correct: np.ndarray) -> Summary:
    correct = np.asarray(correct, dtype=bool)
    k, n = int(correct.sum()), int(correct.size)
    return Summary(n, k, accuracy(correct), wilson_interval(k, n))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (step-down, monotone), in input order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def chance_test(picked: np.ndarray, chance: np.ndarray) -> float:
    """Exact two-sided test of picks against picking at random, paired per item: under the null, item i's
    pick is a success with its own probability chance[i] (the share of good options it had), so the count
    of successes follows a Poisson binomial law; p sums the probabilities of every count no likelier than
    the observed one (as scipy's binomtest does for equal probabilities)."""
    picked = np.asarray(picked, dtype=bool)
    chance = np.clip(np.asarray(chance, dtype=np.float64), 0.0, 1.0)
    if picked.shape != chance.shape:
        raise ValueError(f"chance test needs one chance per pick: {picked.shape} vs {chance.shape}")
    pmf = np.zeros(picked.size + 1)
    pmf[0] = 1.0
    for i, p in enumerate(chance, start=1):
        pmf[1 : i + 1] = pmf[1 : i + 1] * (1 - p) + pmf[:i] * p
        pmf[0] *= 1 - p
    observed = pmf[int(picked.sum())]
    return float(min(1.0, pmf[pmf <= observed * (1 + 1e-7)].sum()))
