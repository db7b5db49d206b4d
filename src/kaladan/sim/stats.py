"""Statistics for simulation summaries and balance studies (standard library only): Wilson
intervals, exact binomial and McNemar tests, Holm's adjustment, Newcombe's paired interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import exp, lgamma, log, sqrt

Z95 = 1.959964


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 1) for no trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def _log_pmf(k: int, n: int, p: float) -> float:
    if p <= 0.0:
        return 0.0 if k == 0 else float("-inf")
    if p >= 1.0:
        return 0.0 if k == n else float("-inf")
    return (lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)
            + k * log(p) + (n - k) * log(1 - p))


def binomial_test(successes: int, trials: int, p: float) -> float:
    """Two-sided exact binomial test of ``successes`` in ``trials`` against rate ``p``: the
    probability of every outcome no more likely than the one seen (as R's binom.test)."""
    if trials <= 0:
        return 1.0
    seen = _log_pmf(successes, trials, p) + log(1 + 1e-7)  # the relative tolerance R uses
    total = 0.0
    for k in range(trials + 1):
        lp = _log_pmf(k, trials, p)
        if lp <= seen:
            total += exp(lp)
    return min(1.0, total)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def mcnemar(only_first: int, only_second: int) -> float:
    """Exact McNemar test of paired binary outcomes from the discordant pairs."""
    return binomial_test(only_first, only_first + only_second, 0.5)


def paired_difference(both: int, only_second: int, only_first: int,
                      neither: int) -> tuple[float, float, float]:
    """The difference of two paired proportions (second minus first) with Newcombe's (1998)
    95% interval from Wilson intervals (his method 10, with the continuity-corrected phi)."""
    n = both + only_second + only_first + neither
    if n == 0:
        return 0.0, -1.0, 1.0
    p1, p2 = (both + only_second) / n, (both + only_first) / n
    l1, u1 = wilson(both + only_second, n)
    l2, u2 = wilson(both + only_first, n)
    rows = ((both + only_second) * (only_first + neither) * (both + only_first)
            * (only_second + neither))
    cross = both * neither - only_second * only_first
    if rows == 0:
        phi = 0.0
    elif cross > 0:
        phi = max(cross - n / 2, 0.0) / sqrt(rows)
    else:
        phi = cross / sqrt(rows)
    delta = sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    epsilon = sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    diff = p1 - p2
    return diff, max(-1.0, diff - delta), min(1.0, diff + epsilon)
