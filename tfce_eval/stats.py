"""Interval and test statistics the summary and the report rely on.

Two questions a reader of an accuracy table asks: how sure is this figure (the Wilson score
interval of a proportion), and is the difference between two runs on the same items real
(the exact McNemar test on the items exactly one run got right). Both are computed exactly
from the counts with the standard library only.
"""

from __future__ import annotations

import math

#: The 97.5th percentile of the standard normal distribution (two-sided 95 %).
Z95 = 1.959963984540054


def wilson_interval(correct: int, total: int, z: float = Z95) -> tuple[float, float]:
    """95 % Wilson score interval for a proportion; (0, 0) when there are no trials.

    Unlike the normal approximation it stays inside [0, 1] and is not zero-width at 0/n or
    n/n, which matters for small categories and near-perfect models.
    """
    if total <= 0:
        return (0.0, 0.0)
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
    # Exact integers throughout: int / int true division rounds correctly even for huge n.
    term = 1  # C(n, 0)
    tail = 1
    for k in range(smaller):
        term = term * (n - k) // (k + 1)
        tail += term
    return min(1.0, (2 * tail) / (1 << n))
