"""Statistics for simulation summaries."""

from __future__ import annotations

from math import sqrt


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
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
