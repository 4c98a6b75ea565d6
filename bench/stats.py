"""Win rates with confidence intervals, their Elo equivalents, and summaries of paired ratios.

- Wilson score interval (Wilson 1927) for a binomial proportion: unlike the normal approximation
  it stays inside [0, 1] and behaves at 0 or n wins, which small matches often have.
- Elo difference of a score p: D = -400 log10(1/p - 1), the logistic Elo model (a 75% score is
  +190.8 Elo). Its interval is the Wilson interval mapped through the same (monotone) function,
  so a 10/10 score gives a finite lower bound and an infinite upper one.

Draws count as half a win, as in Elo ratings.

- Ratios of paired measurements (one solver's cost over another's on the same problem) are averaged
  on the log scale: the geometric mean treats x and 1/x alike, its interval is the normal one of the
  mean log, and the Wilcoxon signed-rank test asks whether the log ratios centre on 0.
"""
from __future__ import annotations

import math
import statistics
from typing import Optional, Sequence

Z95 = 1.959963984540054   # two-sided 95% normal quantile


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of the proportion wins / n; (0, 1) when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= wins <= n:
        raise ValueError(f"wins must be in 0..n, got {wins} of {n}")
    p = wins / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if wins == 0 else max(0.0, centre - half)
    high = 1.0 if wins == n else min(1.0, centre + half)    # exact, not 1 - 1e-16
    return low, high


def elo_difference(p: float) -> float:
    """Elo difference that gives an expected score p (0 -> -inf, 1 -> +inf)."""
    if not 0 <= p <= 1:
        raise ValueError(f"a score must be in [0, 1], got {p}")
    if p == 0:
        return -math.inf
    if p == 1:
        return math.inf
    return -400.0 * math.log10(1.0 / p - 1.0)


def elo_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float, float]:
    """(Elo difference, low, high) of a score of wins in n games; NaNs when n is 0."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    low, high = wilson_interval(wins, n, z)
    return elo_difference(wins / n), elo_difference(low), elo_difference(high)


def geometric_mean(ratios: Sequence[float]) -> float:
    """exp of the mean log of positive ratios."""
    return math.exp(statistics.fmean(math.log(x) for x in ratios))


def geometric_mean_interval(ratios: Sequence[float], z: float = Z95) -> tuple[float, float]:
    """exp(mean log -+ z sd / sqrt(n)) of two or more positive ratios (the normal interval of the mean log)."""
    logs = [math.log(x) for x in ratios]
    mean, half = statistics.fmean(logs), z * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean - half), math.exp(mean + half)


def signed_rank_p(differences: Sequence[float], min_n: int = 10) -> Optional[float]:
    """Two-sided p of the Wilcoxon signed-rank test that the paired differences centre on 0, zeros
    dropped; None below min_n non-zero differences or without scipy."""
    nonzero = [x for x in differences if x != 0]
    if len(nonzero) < min_n:
        return None
    try:
        from scipy.stats import wilcoxon
    except ImportError:
        return None
    return float(wilcoxon(nonzero).pvalue)
