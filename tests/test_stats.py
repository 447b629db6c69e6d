"""Wilson intervals and exact McNemar p-values against independently computed references."""

from __future__ import annotations

import math

import pytest

from tfce_eval.scoring.summary import wilson_interval as summary_wilson
from tfce_eval.stats import (
    bootstrap_interval,
    mcnemar_exact_p,
    paired_randomization_p,
    paired_t_p,
    proportion_block,
    wilson_interval,
)

# Wilson score interval, z = 1.959964 (z^2 = 3.841459):
# - 0/n: the lower bound is 0 and the upper bound reduces to z^2 / (n + z^2);
#   0/10 -> 3.841459 / 13.841459 = 0.277533 (bc, scale 10).
# - n/n: the upper bound is 1 and the lower bound reduces to n / (n + z^2);
#   10/10 -> 10 / 13.841459 = 0.722467.
# - Between: Newcombe (1998), "Two-sided confidence intervals for the single proportion",
#   Statistics in Medicine 17, Table II, method 3 (Wilson score, no continuity correction):
#   81/263 -> 0.2553-0.3662, 15/148 -> 0.0624-0.1605, 0/20 -> 0-0.1611, 1/29 -> 0.0061-0.1718.
# - 7/10: centre (0.7 + 0.192073) / 1.384146 = 0.644493, half-width
#   1.959964 * sqrt(0.021 + 0.009604) / 1.384146 = 0.247715 -> 0.396778-0.892209.
# The tolerance is half a unit of the reference's last decimal.
WILSON_CASES = [
    (0, 10, 0.0, 0.277533, 5e-7),
    (10, 10, 0.722467, 1.0, 5e-7),
    (81, 263, 0.2553, 0.3662, 5e-5),
    (15, 148, 0.0624, 0.1605, 5e-5),
    (0, 20, 0.0, 0.1611, 5e-5),
    (1, 29, 0.0061, 0.1718, 5e-5),
    (7, 10, 0.396778, 0.892209, 5e-7),
]


@pytest.mark.parametrize(("correct", "total", "lo", "hi", "tol"), WILSON_CASES)
def test_wilson_matches_reference(
    correct: int, total: int, lo: float, hi: float, tol: float
) -> None:
    got_lo, got_hi = wilson_interval(correct, total)
    assert got_lo == pytest.approx(lo, abs=tol)
    assert got_hi == pytest.approx(hi, abs=tol)


@pytest.mark.parametrize("total", [1, 2, 5, 88, 300])
def test_wilson_is_pinned_at_the_extremes(total: int) -> None:
    assert wilson_interval(0, total)[0] == 0.0
    assert wilson_interval(total, total)[1] == 1.0
    if total > 1:
        lo, hi = wilson_interval(1, total)
        assert 0.0 < lo < hi < 1.0


def test_no_trials_have_no_interval() -> None:
    with pytest.raises(ValueError, match="no interval"):
        wilson_interval(0, 0)
    assert proportion_block(0, 0) == {"total": 0, "correct": 0, "accuracy": None, "ci95": None}
    with pytest.raises(ValueError, match="no interval"):
        bootstrap_interval([])


def test_summary_uses_the_same_interval() -> None:
    assert summary_wilson is wilson_interval


# Exact McNemar: p = min(1, 2 * sum_{k=0}^{min(b,c)} C(b+c, k) / 2^(b+c)).
# (0,0): no discordant pair -> 1.0.
# (1,0): 2 * C(1,0) / 2 = 1.0.
# (5,0): 2 * 1 / 32 = 0.0625.
# (6,1): 2 * (1 + 7) / 128 = 0.125.
# (10,2): 2 * (1 + 12 + 66) / 4096 = 158 / 4096 = 0.03857421875.
# (3,3): 2 * (1 + 6 + 15 + 20) / 64 = 84 / 64 -> capped at 1.0.
# (20,5): 2 * (1 + 25 + 300 + 2300 + 12650 + 53130) / 2^25 = 136812 / 33554432.
MCNEMAR_CASES = [
    (0, 0, 1.0),
    (1, 0, 1.0),
    (5, 0, 0.0625),
    (6, 1, 0.125),
    (10, 2, 0.03857421875),
    (3, 3, 1.0),
    (20, 5, 136812 / 33554432),
]


@pytest.mark.parametrize(("b", "c", "p"), MCNEMAR_CASES)
def test_mcnemar_exact_p(b: int, c: int, p: float) -> None:
    assert mcnemar_exact_p(b, c) == pytest.approx(p, rel=1e-12)
    assert mcnemar_exact_p(c, b) == pytest.approx(p, rel=1e-12)  # two-sided: symmetric


def test_mcnemar_is_rounded_to_four_places_as_quoted() -> None:
    assert round(mcnemar_exact_p(10, 2), 4) == 0.0386


def test_mcnemar_large_counts_are_exact() -> None:
    # (1000, 0): 2 * 1 / 2^1000, far below what a float sum of probabilities could resolve.
    assert mcnemar_exact_p(1000, 0) == pytest.approx(2.0**-999, rel=1e-12)
    assert math.isclose(mcnemar_exact_p(1500, 1500), 1.0)


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact_p(-1, 2)


def test_paired_t_p_is_the_paired_test_worked_by_hand() -> None:
    # Differences 1, 2, 3, 4: mean 2.5, sd sqrt(5/3), t = 2.5 / (sd / 2) = sqrt(15), df 3.
    # Student's t with 3 degrees of freedom has a closed-form CDF: with x = t / sqrt(3),
    # the two-sided p is 1 - (2 / pi) * (x / (1 + x^2) + atan(x)); here x = sqrt(5).
    x = math.sqrt(5)
    expected = 1 - (2 / math.pi) * (x / (1 + x * x) + math.atan(x))
    assert paired_t_p([2.0, 4.0, 6.0, 8.0], [1.0, 2.0, 3.0, 4.0]) == pytest.approx(
        expected, rel=1e-9
    )
    # The order of the runs does not change a two-sided p.
    assert paired_t_p([1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0]) == pytest.approx(expected)


def test_a_constant_difference_up_to_rounding_has_no_t_test() -> None:
    # 0.3 - 0.2 and 0.1 - 0.0 differ in the last bit: not a real spread (scipy says 1e-32).
    assert paired_t_p([0.3, 0.7, 0.1], [0.2, 0.6, 0.0]) is None
    assert paired_t_p([0.3, 0.7], [0.3 + 1e-17, 0.7]) == 1.0


def test_mcnemar_for_a_million_discordant_items_is_quick_and_agrees() -> None:
    from scipy.stats import binomtest

    for a, b in ((4_999, 5_001), (5_001, 5_100), (499_000, 501_000)):
        reference = binomtest(min(a, b), a + b).pvalue
        assert mcnemar_exact_p(a, b) == pytest.approx(reference, rel=1e-9)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_tests_refuse_values_that_are_not_finite(bad: float) -> None:
    with pytest.raises(ValueError, match="finite"):
        paired_randomization_p([bad, 0.5, 0.2], [0.1, 0.4, 0.3])
    with pytest.raises(ValueError, match="finite"):
        paired_t_p([bad, 0.5, 0.2], [0.1, 0.4, 0.3])
    with pytest.raises(ValueError, match="finite"):
        bootstrap_interval([bad, 0.5])


def test_a_count_that_is_not_a_proportion_is_refused() -> None:
    for correct, total in ((5, 3), (-1, 3)):
        with pytest.raises(ValueError, match="is not a proportion"):
            wilson_interval(correct, total)


def test_randomization_p_agrees_with_every_sign_assignment_counted() -> None:
    # Ten differences: all 2^10 sign assignments enumerated give the exact p-value; the
    # 10,000 seeded flips estimate it within a few standard errors (about 0.003).
    a = [0.9, 0.8, 0.75, 0.6, 0.55, 0.5, 0.4, 0.35, 0.3, 0.2]
    b = [0.5, 0.7, 0.8, 0.3, 0.5, 0.6, 0.1, 0.35, 0.1, 0.25]
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    observed = abs(sum(diffs)) / len(diffs)
    hits = 0
    for mask in range(1 << len(diffs)):
        flipped = sum(d if mask >> i & 1 else -d for i, d in enumerate(diffs))
        hits += abs(flipped) / len(diffs) >= observed - 1e-12
    exact = hits / (1 << len(diffs))
    assert 0.05 < exact < 0.2
    assert paired_randomization_p(a, b) == pytest.approx(exact, abs=0.015)


def test_randomization_p_counts_the_observed_assignment_so_is_never_zero() -> None:
    # Thirty differences of one sign: no random flip reaches them (odds 2 in 2^30), and
    # the p-value is (0 + 1) / (999 + 1), not 0.
    assert paired_randomization_p([1.0] * 30, [0.0] * 30, permutations=999) == 1 / 1000


def test_bootstrap_interval_is_the_central_95_percent() -> None:
    # The mean of 400 resampled 0/1 values with 120 ones is Binomial(400, 0.3) / 400:
    # its 2.5th and 97.5th percentiles are the interval (10,000 resamples: within about
    # 0.001; a 90 % interval would be 0.007 narrower on each side).
    from scipy.stats import binom

    lo, hi = bootstrap_interval([1.0] * 120 + [0.0] * 280)
    assert lo == pytest.approx(binom.ppf(0.025, 400, 0.3) / 400, abs=0.003)
    assert hi == pytest.approx(binom.ppf(0.975, 400, 0.3) / 400, abs=0.003)


def test_seed_0_is_numpys_default_rng_0_as_the_reports_say() -> None:
    # "10,000 resamples, seed 0": anyone can redraw the same resamples with numpy.
    import numpy as np

    data = np.array([0.2, 0.9, 0.4, 0.4, 1.0, 0.0, 0.7])
    draws = np.random.default_rng(0).integers(0, data.size, size=(10_000, data.size))
    lo, hi = np.percentile(data[draws].mean(axis=1), [2.5, 97.5])
    assert bootstrap_interval(data.tolist()) == (float(lo), float(hi))
    b = [0.1, 0.5, 0.4, 0.2, 0.3, 0.1, 0.6]
    diffs = data - np.array(b)
    signs = np.random.default_rng(0).integers(0, 2, size=(10_000, data.size), dtype=np.int8)
    means = np.abs(((signs * 2 - 1) * diffs).mean(axis=1))
    hits = int(np.count_nonzero(means >= abs(diffs.mean()) - 1e-12))
    assert paired_randomization_p(data.tolist(), b) == (hits + 1) / 10_001
