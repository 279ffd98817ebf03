"""pipeline.stats against independent references: hand-computed values, exact binomial sums, scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from pipeline import stats


def test_wilson_matches_hand_computed_values():
    # 8 of 10 at 95%: the commonly tabulated Wilson interval is [0.490, 0.943].
    iv = stats.wilson_interval(8, 10)
    assert iv.low == pytest.approx(0.4902, abs=1e-4)
    assert iv.high == pytest.approx(0.9433, abs=1e-4)
    # 0 of 20: lower bound exactly 0, upper = z^2 / (n + z^2).
    z = 1.959963984540054
    iv0 = stats.wilson_interval(0, 20)
    assert iv0.low == 0.0
    assert iv0.high == pytest.approx(z * z / (20 + z * z), rel=1e-12)


def test_wilson_is_the_inverted_score_test():
    # Independent definition: the interval ends are the p0 where (p - p0)^2 = z^2 p0 (1 - p0) / n.
    for k, n in [(3, 7), (45, 60), (1, 1000), (999, 1000)]:
        iv = stats.wilson_interval(k, n)
        p = k / n
        for p0 in (iv.low, iv.high):
            if 0.0 < p0 < 1.0:
                assert (p - p0) ** 2 == pytest.approx(stats.Z95**2 * p0 * (1 - p0) / n, rel=1e-9)
        assert iv.low <= p <= iv.high


def _exact_mcnemar_by_hand(b: int, c: int) -> float:
    n = b + c
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


def _table(n_both: int, n_base_only: int, n_sys_only: int, n_neither: int):
    base = [True] * n_both + [True] * n_base_only + [False] * n_sys_only + [False] * n_neither
    system = [True] * n_both + [False] * n_base_only + [True] * n_sys_only + [False] * n_neither
    return np.array(base), np.array(system)


@pytest.mark.parametrize("table", [(10, 1, 6, 3), (5, 4, 4, 0), (0, 0, 9, 1), (794, 150, 86, 570)])
def test_mcnemar_exact_against_binomial_sum_and_scipy(table):
    base, system = _table(*table)
    result = stats.mcnemar_exact(base, system)
    assert (result.b, result.c) == (table[1], table[2])
    assert result.p_value == pytest.approx(_exact_mcnemar_by_hand(table[1], table[2]), rel=1e-9)
    assert result.p_value == pytest.approx(sps.binomtest(table[1], table[1] + table[2]).pvalue, rel=1e-9)


def test_mcnemar_textbook_values():
    # b=1, c=6: p = 2 * (C(7,0) + C(7,1)) / 2^7 = 0.125.
    assert stats.mcnemar_exact(*_table(10, 1, 6, 3)).p_value == pytest.approx(0.125)
    # No discordant pairs: no evidence of a difference.
    assert stats.mcnemar_exact(*_table(5, 0, 0, 5)).p_value == 1.0
    # Agresti's approval ratings (b=150, c=86): chi-square 17.36 -> p ~ 3e-5; exact is the same order.
    assert 1e-5 < stats.mcnemar_exact(*_table(794, 150, 86, 570)).p_value < 1e-4


def test_bootstrap_interval_covers_true_mean_and_is_reproducible():
    rng = np.random.default_rng(0)
    values = rng.normal(loc=2.0, scale=1.0, size=400)
    iv = stats.bootstrap_interval(values, resamples=2000, seed=42)
    assert iv.low < 2.0 < iv.high
    # Width close to the normal-theory 95% interval 2 * 1.96 * sd / sqrt(n).
    expected = 2 * 1.96 * values.std(ddof=1) / math.sqrt(values.size)
    assert (iv.high - iv.low) == pytest.approx(expected, rel=0.15)
    assert stats.bootstrap_interval(values, 2000, 42) == iv
    assert stats.bootstrap_interval(values, 2000, 43) != iv


def test_bootstrap_coverage_over_repeated_samples():
    # A 95% interval should cover the true mean in most of 60 independent samples.
    rng = np.random.default_rng(1)
    covered = 0
    for i in range(60):
        sample = rng.exponential(scale=1.0, size=200)
        iv = stats.bootstrap_interval(sample, resamples=500, seed=i)
        covered += iv.low < 1.0 < iv.high
    assert covered >= 50


def test_paired_difference_interval():
    base, system = _table(50, 5, 25, 20)
    iv = stats.paired_difference_interval(base, system, resamples=2000, seed=42)
    true_diff = (25 - 5) / 100
    assert iv.low < true_diff < iv.high
    assert iv.low > 0.0
    with pytest.raises(ValueError):
        stats.paired_difference_interval(base, system[:-1], 10, 0)


def test_ties_count_as_wrong():
    chosen = np.array([1.0, 0.5, -np.inf, 2.0])
    rejected = np.array([0.0, 0.5, -np.inf, 3.0])
    assert stats.correct_from_scores(chosen, rejected).tolist() == [True, False, False, False]
    assert stats.prefer_longer([5, 4, 3], [4, 4, 9]).tolist() == [True, False, False]
    assert stats.prefer_shorter([5, 4, 3], [4, 4, 9]).tolist() == [False, False, True]


def test_length_controlled_mask_uses_the_ratio():
    mask = stats.length_controlled_mask([10, 10, 10, 0], [15, 16, 7, 3], ratio=1.5)
    assert mask.tolist() == [True, False, True, False]


