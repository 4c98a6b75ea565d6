"""Bradley-Terry ratings of a round robin: maximum-likelihood strengths from choix, Elo with 95% intervals.

The model: P(i beats j) = 1 / (1 + exp(theta_j - theta_i)); Elo = theta * 400 / ln 10, shifted so that
the anchor engine is at 0. Draws count half a win each way. The maximum-likelihood estimate exists only
when the graph of wins is strongly connected (every group of engines has both won and lost against the
rest); when it is not (an engine won or lost every game), the fit is regularised with choix's `alpha`
and `Ratings.regularised` says so: those ratings are bounds in spirit, not estimates. The intervals are
the normal ones from the observed Fisher information, relative to the anchor (whose own is zero).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import choix
import numpy as np
from scipy.sparse.csgraph import connected_components

from bench.stats import Z95

ELO_PER_NAT = 400.0 / math.log(10.0)
ALPHA = 0.01          # choix's regularisation, used only where the maximum-likelihood estimate does not exist


@dataclass(frozen=True)
class Rating:
    name: str
    elo: float
    low: float           # 95% interval
    high: float
    games: float         # decided games (draws included)
    score: float         # points / games, NaN without games


@dataclass(frozen=True)
class Ratings:
    anchor: str
    ratings: tuple[Rating, ...]      # strongest first; engines without games are left out
    regularised: bool


def fit(names: Sequence[str], points: np.ndarray, anchor: str, alpha: float = ALPHA) -> Ratings:
    """Ratings from points[i, j], the points engine i scored against engine j (a win 1, a draw 1/2)."""
    points = np.asarray(points, dtype=float)
    if points.shape != (len(names), len(names)) or (points < 0).any():
        raise ValueError("points must be a square non-negative matrix, one row per name")
    if anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not among the engines")
    played = [i for i in range(len(names)) if points[i].sum() + points[:, i].sum() > 0]
    if names.index(anchor) not in played:
        raise ValueError(f"anchor {anchor!r} has played no game")
    sub = points[np.ix_(played, played)]
    games = sub + sub.T
    n_parts, labels = connected_components(games > 0, connection="weak")
    if n_parts > 1:
        home = labels[played.index(names.index(anchor))]
        apart = [names[i] for k, i in enumerate(played) if labels[k] != home]
        raise ValueError(f"no chain of games links {', '.join(apart)} to the anchor {anchor!r}")
    regularised = connected_components(sub > 0, connection="strong")[0] > 1
    theta = choix.ilsr_pairwise_dense(sub, alpha=alpha if regularised else 0.0, max_iter=10_000)
    a = played.index(names.index(anchor))
    theta = theta - theta[a]
    half = Z95 * _standard_errors(theta, games, a)
    ratings = []
    for k, i in enumerate(played):
        n = games[k].sum()
        elo, spread = float(theta[k] * ELO_PER_NAT), float(half[k] * ELO_PER_NAT)
        ratings.append(Rating(names[i], elo, elo - spread, elo + spread, float(n),
                              float(sub[k].sum() / n) if n else math.nan))
    ratings.sort(key=lambda r: -r.elo)
    return Ratings(anchor, tuple(ratings), bool(regularised))


def _standard_errors(theta: np.ndarray, games: np.ndarray, anchor: int) -> np.ndarray:
    """Standard errors of theta - theta[anchor]: the inverse of the observed Fisher information
    sum_ij n_ij p_ij (1 - p_ij) (e_i - e_j)(e_i - e_j)^T with the anchor's row and column removed."""
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    w = games * p * (1.0 - p)
    info = np.diag(w.sum(axis=1)) - w
    keep = [i for i in range(len(theta)) if i != anchor]
    se = np.zeros(len(theta))
    se[keep] = np.sqrt(np.diag(np.linalg.inv(info[np.ix_(keep, keep)])))
    return se
