"""Coulom's (2007) generalized Bradley-Terry model and its minorization-maximization fitting, the one
home of what the `mm` and `dtree` priors share.

Every candidate move (each legal point, and pass) is a team of feature levels, one per feature group,
and its strength is the product of their gammas, gamma_move = prod_g gamma[g, level_g], with level 0
of every group fixed at gamma = 1. A position is a competition among its candidates:
P(move) = gamma_move / sum_t gamma_t.

Training is minorization-maximization (Hunter 2004, Coulom 2007), one feature group at a time, with
Coulom's prior of one virtual win and one virtual loss against an opponent of gamma 1:

    gamma_i <- (W_i + 1) / (sum_j C_ij / E_j + 2 / (gamma_i + 1))

where W_i counts the competitions won by a team containing i, E_j = sum_{t in j} gamma_t and
C_ij = sum_{t in j, t contains i} gamma_t / gamma_i. Levels of one group are never team-mates, so a whole
group is updated at once; team strengths are then rescaled before the next group. The hot loops are
in `priors._bradley_terry`.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from priors import _bradley_terry as _kernels
from priors.groups import group_offsets
from priors.training.competitions import Competitions


def strengths_of(levels: np.ndarray, gammas: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """gamma_t of every team: one row of feature levels per team (uint16 or int32)."""
    out = np.empty(len(levels), dtype=np.float64)
    _kernels.team_strengths(levels, offsets, gammas, out)
    return out


def team_strengths(comps: Competitions, gammas: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    return strengths_of(comps.levels, gammas, offsets)


def distribution(index: np.ndarray, strengths: np.ndarray, n_points: int) -> np.ndarray:
    """P(move) over the N*N points and pass (float32), from the candidates' row-major `index` (pass =
    N*N) and strengths; zero where there is no candidate."""
    p = np.zeros(n_points + 1, dtype=np.float32)
    _kernels.scatter_probabilities(index, strengths, p)
    return p


def score(comps: Competitions, gammas: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per competition: natural log-likelihood of the expert move and its pessimistic rank (ties
    counted against the expert)."""
    strengths = team_strengths(comps, gammas, offsets)
    loglik = np.empty(len(comps), dtype=np.float64)
    rank = np.empty(len(comps), dtype=np.int32)
    _kernels.competition_scores(comps.mult, comps.starts, comps.winners, strengths, loglik, rank)
    return loglik, rank


def fit_gammas(comps: Competitions, level_counts: np.ndarray, n_iterations: int = 100,
               tolerance: float = 1e-4, train_groups: Iterable[int] | None = None,
               callback: Callable[[int, float, np.ndarray], None] | None = None) -> np.ndarray:
    """Run MM sweeps over `comps` and return the flat gamma array (level 0 of each group = 1).

    Stops after `n_iterations` sweeps or when the mean log-likelihood per competition improves by
    less than `tolerance`. Groups not in `train_groups` keep gamma = 1. `callback(sweep, mean_loglik,
    gammas)` is called after each sweep with the log-likelihood measured at its start.
    """
    level_counts = np.asarray(level_counts, dtype=np.int64)
    if comps.n_groups != len(level_counts):
        raise ValueError(f"competitions have {comps.n_groups} groups, level_counts {len(level_counts)}")
    if len(comps) == 0:
        raise ValueError("no competitions to fit")
    if int(comps.levels.max(initial=0)) >= int(level_counts.max()):
        bad = [g for g in range(len(level_counts)) if comps.levels[:, g].max() >= level_counts[g]]
        raise ValueError(f"levels out of range in groups {bad}")
    offsets = group_offsets(level_counts)
    gammas = np.ones(int(level_counts.sum()), dtype=np.float64)
    groups = list(range(len(level_counts))) if train_groups is None else list(train_groups)
    wins = {g: comps.win_counts(g, level_counts[g]) for g in groups}
    previous = -np.inf
    for sweep in range(n_iterations):
        strengths = team_strengths(comps, gammas, offsets)
        loglik = None
        for g in groups:
            block = slice(offsets[g], offsets[g] + level_counts[g])
            denominators = np.zeros(level_counts[g], dtype=np.float64)
            ll = _kernels.accumulate_group(comps.levels, comps.mult, comps.starts, comps.winners, strengths,
                                           g, denominators)
            loglik = ll if loglik is None else loglik
            old = gammas[block].copy()
            new = (wins[g] + 1.0) / (denominators / old + 2.0 / (old + 1.0))
            new[0] = 1.0
            gammas[block] = new
            _kernels.rescale_group(comps.levels, g, new / old, strengths)
        mean = loglik / len(comps)
        if callback is not None:
            callback(sweep, mean, gammas)
        if mean - previous < tolerance:
            break
        previous = mean
    return gammas


def sweep_recorder(validation: Competitions | None, offsets: np.ndarray, curve: list[dict], bar: Any):
    """The MM callback of a trainer: it appends a curve point per sweep (validation top-1 and
    log-likelihood when there are validation competitions) and shows it on the progress bar (tqdm)."""
    def on_sweep(sweep: int, loglik: float, gammas: np.ndarray) -> None:
        point = {"sweep": sweep, "train_loglik": round(float(loglik), 5)}
        if validation is not None and len(validation):
            ll, rank = score(validation, gammas, offsets)
            point.update(val_loglik=round(float(ll.mean()), 5), val_top1=round(float((rank == 1).mean()), 5))
        curve.append(point)
        bar.set_postfix({k: v for k, v in point.items() if k != "sweep"})
        bar.update(1)
    return on_sweep
