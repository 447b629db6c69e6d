"""Interval and test statistics the summary and the report rely on.

Two questions a reader of an accuracy table asks: how sure is this figure (the Wilson score
interval of a proportion), and is the difference between two runs on the same items real
(the exact McNemar test on the items exactly one run got right). Both are computed exactly
from the counts with the standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

#: The 97.5th percentile of the standard normal distribution (two-sided 95 %).
Z95 = 1.959963984540054


def wilson_interval(correct: int, total: int, z: float = Z95) -> tuple[float, float]:
    """95 % Wilson score interval for a proportion of at least one trial.

    Unlike the normal approximation it stays inside [0, 1] and is not zero-width at 0/n or
    n/n, which matters for small categories and near-perfect models. No trials have no
    interval (a ValueError): summaries write null, as they do for the accuracy.
    """
    if total <= 0:
        raise ValueError("a proportion of no trials has no interval")
    if not 0 <= correct <= total:
        raise ValueError(f"{correct} correct of {total} is not a proportion")
    p = correct / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    # At the extremes the formula gives the bound up to rounding; pin it exactly.
    if correct == 0:
        lo = 0.0
    if correct == total:
        hi = 1.0
    return (lo, hi)


def proportion_block(correct: int, total: int) -> dict[str, Any]:
    """A proportion as every summary writes it: total, correct, accuracy and its Wilson
    interval, both None when there are no trials (an interval of nothing is not [0, 0])."""
    return {
        "total": total,
        "correct": correct,
        "accuracy": correct / total if total else None,
        "ci95": list(wilson_interval(correct, total)) if total > 0 else None,
    }


def mcnemar_exact_p(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value for paired yes/no outcomes.

    `only_a` and `only_b` are the discordant counts: items only the first, or only the
    second, run got right. Under "no difference" each discordant item is a fair coin, so the
    p-value is twice the binomial tail of the smaller count, capped at 1:
    p = min(1, 2 * sum_{k <= min(b, c)} C(b + c, k) / 2^(b + c)). Items both runs got right or
    both got wrong carry no information about the difference and do not enter.
    """
    if only_a < 0 or only_b < 0:
        raise ValueError("discordant counts cannot be negative")
    n = only_a + only_b
    if n == 0:
        return 1.0
    smaller = min(only_a, only_b)
    if n > _EXACT_SUM_LIMIT:
        # The exact sum below grows with n squared (a run of a million items would take
        # minutes); the binomial CDF in floating point has a relative error near 1e-15.
        from scipy.stats import binom

        return min(1.0, 2 * float(binom.cdf(smaller, n, 0.5)))
    # Exact integers throughout: int / int true division rounds correctly even for huge n.
    term = 1  # C(n, 0)
    tail = 1
    for k in range(smaller):
        term = term * (n - k) // (k + 1)
        tail += term
    return min(1.0, (2 * tail) / (1 << n))


#: Discordant pairs up to which McNemar's tail is summed in exact integers (0.01 s).
_EXACT_SUM_LIMIT = 10_000


def _finite_pairs(a: Sequence[float], b: Sequence[float]) -> None:
    """Refuse pairs of different lengths or holding NaN or an infinity: a test over them
    would report a p-value that means nothing (a NaN mean is never exceeded)."""
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    if not all(math.isfinite(x) for x in (*a, *b)):
        raise ValueError("paired samples must be finite numbers")


#: Differences this small are rounding, not a difference (measures lie in [0, 1]).
_ROUNDING = 1e-12

#: Permutations of the paired randomization test and resamples of the bootstrap.
RESAMPLES = 10_000


def paired_randomization_p(
    a: Sequence[float], b: Sequence[float], *, permutations: int = RESAMPLES, seed: int = 0
) -> float:
    """Two-sided p-value of the paired randomization (sign-flip) test on mean(a - b).

    Under "no difference" each query's pair could have come in either order, so the sign of
    each difference is a fair coin. The p-value is the share of `permutations` random sign
    assignments (seeded, so reruns agree) whose |mean| is at least the observed |mean|,
    counting the observed assignment itself: (hits + 1) / (permutations + 1).
    """
    import numpy as np

    _finite_pairs(a, b)
    diffs = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if diffs.size == 0 or not np.any(diffs):
        return 1.0
    observed = abs(float(diffs.mean()))
    rng = np.random.default_rng(seed)
    hits = 0
    done = 0
    # Blocks bound memory: 1,000 permutations of 10,000 queries is 80 MB of floats.
    block = max(1, min(permutations, 8_000_000 // max(1, diffs.size)))
    while done < permutations:
        n = min(block, permutations - done)
        signs = rng.integers(0, 2, size=(n, diffs.size), dtype=np.int8) * 2 - 1
        means = np.abs((signs * diffs).mean(axis=1))
        # A tolerance keeps permutations equal to the observed mean (up to rounding) as hits.
        hits += int(np.count_nonzero(means >= observed - 1e-12))
        done += n
    return (hits + 1) / (permutations + 1)


def paired_t_p(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Two-sided p-value of the paired t-test; 1.0 when every difference is zero.

    None when it is undefined: fewer than two pairs, or differences all equal but not zero
    (zero variance with a nonzero mean). "Equal" allows for rounding: 0.3 - 0.2 and
    0.7 - 0.6 differ in the last bit, which would otherwise give a p-value of 1e-32.
    """
    _finite_pairs(a, b)
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    scale = max((abs(d) for d in diffs), default=0.0)
    if scale <= _ROUNDING:
        return 1.0
    if len(diffs) < 2 or max(diffs) - min(diffs) <= _ROUNDING * max(1.0, scale):
        return None
    from scipy import stats as sps

    return float(sps.ttest_rel(list(a), list(b)).pvalue)


def bootstrap_interval(
    values: Sequence[float], *, resamples: int = RESAMPLES, seed: int = 0
) -> tuple[float, float]:
    """95 % percentile bootstrap interval of a mean (seeded); no values have no interval
    (a ValueError)."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("a mean of no values has no interval")
    if not np.all(np.isfinite(data)):
        raise ValueError("a bootstrap needs finite values")
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    block = max(1, min(resamples, 8_000_000 // data.size))
    done = 0
    while done < resamples:
        n = min(block, resamples - done)
        idx = rng.integers(0, data.size, size=(n, data.size))
        means[done : done + n] = data[idx].mean(axis=1)
        done += n
    lo, hi = np.percentile(means, [2.5, 97.5])
    return (float(lo), float(hi))
