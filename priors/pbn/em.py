"""Learning one pyramid bottom up: EM per subnet, then posterior draws that feed the level above.

Each subnet is a latent-class model: a hidden parent with prior pi(k) and children that are
independent given it, theta_c(v | k) (cortigo.md Sec. 1). EM runs on the subnet's distinct child
patterns weighted by their counts (few, since a region holds at most 20 stones), from a random
Dirichlet start, keeping the best of `restarts` runs. The M step is the MAP estimate under
Dirichlet smoothing (alpha on pi, beta on theta), so the objective that never decreases is the
penalised log-likelihood  sum_n log P(x_n) + alpha sum_k log pi(k) + beta sum log theta.

Levels (Michalowski et al. 2011, Sec. 4, "sampling a posterior belief function"): level 2 learns from
the points; each training sample then draws `draws` values of every level-2 node from its posterior
given its field, level 3 learns from those draws, draws its own values the same way, and the top node
(observed: the next move) is fitted by counting over the draws.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from priors.pbn.network import Pyramid


@dataclass
class LatentClass:
    """A fitted subnet: pi (K,), theta (C, V, K), and the objective after every EM iteration."""

    prior: np.ndarray
    cpt: np.ndarray
    history: list[float] = field(default_factory=list)


def onehot(data: np.ndarray, n_values: int) -> np.ndarray:
    """Rows `data` (N, C) as indicator rows (N, C * V), so that sums over children are matrix products."""
    return (data[:, :, None] == np.arange(n_values)).reshape(len(data), -1).astype(np.float64)


def posterior(model: LatentClass, indicators: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P(k | x_n) as (N, K), log P(x_n) as (N,)) for rows given as `onehot` indicators."""
    resp, evidence = _e_step(model.prior[None], model.cpt[None], indicators)
    return resp[0], evidence[0]


def _e_step(prior: np.ndarray, cpt: np.ndarray, indicators: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The E step of R models at once (prior (R, K), cpt (R, C, V, K)): responsibilities (R, N, K)
    and log-evidence (R, N). One matrix product serves every restart."""
    n_runs, n_hidden = prior.shape
    log_cpt = np.log(cpt).transpose(1, 2, 0, 3).reshape(-1, n_runs * n_hidden)
    joint = (indicators @ log_cpt).reshape(-1, n_runs, n_hidden).transpose(1, 0, 2) + np.log(prior)[:, None]
    top = joint.max(axis=2, keepdims=True)
    evidence = top[..., 0] + np.log(np.exp(joint - top).sum(axis=2))
    return np.exp(joint - evidence[..., None]), evidence


def _m_step(indicators: np.ndarray, n_values: int, weights: np.ndarray, resp: np.ndarray, alpha: float,
            beta: float) -> tuple[np.ndarray, np.ndarray]:
    """MAP estimates (prior (R, K), cpt (R, C, V, K)) from responsibilities (R, N, K)."""
    n_runs, n_rows, n_hidden = resp.shape
    wr = weights[None, :, None] * resp
    nk = wr.sum(axis=1)
    prior = (nk + alpha) / (weights.sum() + n_hidden * alpha)
    counts = (indicators.T @ wr.transpose(1, 0, 2).reshape(n_rows, -1))
    counts = counts.reshape(-1, n_values, n_runs, n_hidden).transpose(2, 0, 1, 3)
    return prior, (counts + beta) / (nk[:, None, None, :] + n_values * beta)


def fit_latent_class(data: np.ndarray, weights: np.ndarray, n_hidden: int, n_values: int,
                     rng: np.random.Generator, alpha: float = 0.5, beta: float = 0.5,
                     max_iterations: int = 100, tolerance: float = 1e-5, restarts: int = 3) -> LatentClass:
    """EM for one subnet over distinct rows `data` (N, C) seen `weights` times; the best restart.

    The restarts run side by side; they stop when none gains more than `tolerance` per sample."""
    indicators = onehot(data, n_values)
    total = weights.sum()
    resp = rng.dirichlet(np.ones(n_hidden), size=(restarts, len(data)))
    history: list[np.ndarray] = []
    for _ in range(max_iterations):
        prior, cpt = _m_step(indicators, n_values, weights, resp, alpha, beta)
        resp, evidence = _e_step(prior, cpt, indicators)
        history.append(evidence @ weights + alpha * np.log(prior).sum(axis=1)
                       + beta * np.log(cpt).sum(axis=(1, 2, 3)))
        if len(history) > 1 and np.all(history[-1] - history[-2] < tolerance * total):
            break
    best = int(np.argmax(history[-1]))
    return LatentClass(prior[best], cpt[best], [float(h[best]) for h in history])


def distinct_rows(data: np.ndarray, n_values: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct rows, count of each, index of each input row's distinct row), via integer keys."""
    radix = n_values ** np.arange(data.shape[1], dtype=np.int64)
    keys, inverse, counts = np.unique(data.astype(np.int64) @ radix, return_inverse=True, return_counts=True)
    rows = (keys[:, None] // radix) % n_values
    return rows, counts.astype(np.float64), inverse.ravel()


def draw(probabilities: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One value per row of `probabilities` (N, K), drawn from that row."""
    u = rng.random(len(probabilities))[:, None]
    cumulative = np.cumsum(probabilities, axis=1)
    return np.minimum((cumulative < u * cumulative[:, -1:]).sum(axis=1), probabilities.shape[1] - 1)


@dataclass
class Level:
    """The fitted subnets of one hidden level, padded to the widest field: pi (J, K), theta (J, C, V, K)."""

    prior: np.ndarray
    cpt: np.ndarray
    history: list[list[float]]


def fit_level(values: np.ndarray, children: np.ndarray, n_hidden: int, n_values: int, draws: int,
              rng: np.random.Generator, **em) -> tuple[Level, np.ndarray]:
    """Fit every subnet of a level on `values` (N, nodes below) and draw `draws` values of each of its
    nodes per sample from their posteriors: (level, drawn (N * draws, J) in sample-major order)."""
    n_nodes, width = children.shape
    prior = np.empty((n_nodes, n_hidden))
    cpt = np.ones((n_nodes, width, n_values, n_hidden))       # a padded child weighs 1 for every value
    out = np.empty((len(values), draws, n_nodes), dtype=np.int64)
    histories = []
    for j, row in enumerate(children):
        kids = row[row >= 0]
        rows, counts, inverse = distinct_rows(values[:, kids], n_values)
        subnet = fit_latent_class(rows, counts, n_hidden, n_values, rng, **em)
        prior[j], cpt[j, :len(kids)] = subnet.prior, subnet.cpt
        histories.append(subnet.history)
        post = posterior(subnet, onehot(rows, n_values))[0][inverse]
        out[:, :, j] = draw(np.repeat(post, draws, axis=0), rng).reshape(len(values), draws)
    return Level(prior, cpt, histories), out.reshape(len(values) * draws, n_nodes)


@dataclass
class Network:
    """One fitted pyramid: its two hidden levels and the top node P(m) (R,), psi (J3, K3, R)."""

    level2: Level
    level3: Level
    move_prior: np.ndarray
    psi: np.ndarray


def fit_network(pyramid: Pyramid, points: np.ndarray, moves: np.ndarray, rng: np.random.Generator,
                draws: int = 4, top_alpha: float = 0.1, top_beta: float = 0.1, **em) -> Network:
    """Bottom-up training of one pyramid on `points` (N, R) in {0, 1, 2} and `moves` (N,) in 0..R-1."""
    level2, z = fit_level(points, pyramid.l2, pyramid.k2, pyramid.n_colors, draws, rng, **em)
    level3, y = fit_level(z, pyramid.l3, pyramid.k3, pyramid.k2, draws=1, rng=rng, **em)
    n_moves = pyramid.n_points
    move_prior = (np.bincount(moves, minlength=n_moves) + top_alpha) / (len(moves) + top_alpha * n_moves)
    m = np.repeat(moves, draws)
    counts = np.zeros((y.shape[1], pyramid.k3, n_moves))
    for k in range(y.shape[1]):
        np.add.at(counts[k], (y[:, k], m), 1.0)
    psi = (counts + top_beta) / (counts.sum(axis=1, keepdims=True) + pyramid.k3 * top_beta)
    return Network(level2, level3, move_prior, psi)
