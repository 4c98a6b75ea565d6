"""The sequential probability ratio test (SPRT) on Elo that chess engine testing uses, and its simulation.

    python -m bench.sprt simulate --true-elo E --elo0 A --elo1 B [--alpha 0.05] [--beta 0.05]
                                  [--draw-rate D] [--pairs [--opening-bias F]] [--normalized]
                                  --runs N [--seed S] [--cap GAMES]
    python -m bench.sprt variance RUN [RUN ...]

A match asks "is the change worth at least elo1 rather than at most elo0?" and stops as soon as the games
decide: H1 (the change gains elo1) is accepted when the log-likelihood ratio (LLR) reaches
log((1 - beta) / alpha), H0 (it gains elo0) when it falls to log(beta / (1 - alpha)). The probability of
accepting H1 is then at most about alpha when the true Elo is elo0, and at least about 1 - beta when it is
elo1 (Wald 1945), whatever the number of games it takes.

The test is the generalized SPRT of Stockfish's Fishtest (M. Van den Bergh): the results are a
multinomial sample over unit scores, the likelihood under each hypothesis is that of the maximum-likelihood
distribution among those meeting the hypothesis, and the LLR is the count of units times the mean log
ratio of the two. Units are

- games, trinomial model (`Trinomial(wins, draws, losses)`), scores 1, 1/2, 0, when the games are
  unpaired (from the empty board);
- game pairs, pentanomial model (`Pentanomial((n0, n1, n2, n3, n4))`, the counts of pairs scoring 0, 1/2,
  1, 3/2 and 2 points of 2), when each opening is played twice with colours swapped. A pair's two results
  are correlated (the opening favours one side), and this model counts that: the variance per pair is
  lower than twice a game's, and the test needs fewer games.

Counts that are zero are replaced by 1e-3 (as Fishtest does), so an unseen outcome has a small, not zero,
probability.

Two Elo scales (`SprtConfig.model`):

- "logistic" (the default; the Elo of rating lists): a score s per game means
  elo = -400 log10(1/s - 1). The hypotheses fix the expected score per game (per pair, half the pair's).
- "normalized": nElo = (s - 1/2) / sigma * 800 / ln 10, where sigma is the standard deviation of one game's
  score (a pair's divided by sqrt 2, so that pairs and games share the scale). It measures how fast a test
  resolves, whatever the draw rate or the pairing; the hypotheses fix this t-value. Without draws and
  unpaired, the two scales agree near 0 (both are 695 (s - 1/2) to first order).

The Elo estimate and its 95% interval (`elo_interval`) are the normal approximation of the mean unit
score, from the same model as the test, mapped to the chosen scale; after a sequential stop they are the
fixed-sample figures (not corrected for the stopping rule), as a match report gives them.

`simulate` runs N such tests on synthetic results of a known Elo (see `simulate` for the model of paired
games) and prints beside them what Wald's approximations predict; its last line is
`accept H1 in X of N runs, mean games G`.

`variance` gives, per match run folder (bench.match) and variant, the variance per game
(`variance_per_game`) counted game by game and, on an opening suite, per pair: their ratio on the same
pairs (`pair_variance_ratio`, with a bootstrap interval) is the share of games a test on pairs needs.
"""
from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Union

import numpy as np
from scipy.optimize import brentq

from bench.stats import Z95, elo_difference

NELO_PER_T = 800 / math.log(10)  # normalized Elo per unit of t-value (mean - 1/2) / sigma
REGULARIZE = 1e-3               # stands in for a zero count
MODELS = ("logistic", "normalized")
CHUNK_ROWS = 1 << 15             # simulation: (run, unit) rows whose LLR is computed at once


# -- configuration and counts -------------------------------------------------------------------------------

@dataclass(frozen=True)
class SprtConfig:
    """The hypotheses (elo0 < elo1, on the `model` scale) and the error rates the test is built for."""
    elo0: float
    elo1: float
    alpha: float = 0.05     # probability of accepting H1 when the Elo is elo0
    beta: float = 0.05      # probability of accepting H0 when the Elo is elo1
    model: str = "logistic"  # "logistic" or "normalized" Elo

    def __post_init__(self) -> None:
        for key in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"sprt.{key}: expected a finite number, got {value!r}")
        if self.elo1 <= self.elo0:
            raise ValueError(f"sprt.elo1: must be greater than sprt.elo0 ({self.elo0}), got {self.elo1}")
        for key in ("alpha", "beta"):
            if not 0 < getattr(self, key) < 0.5:
                raise ValueError(f"sprt.{key}: a probability in (0, 0.5), got {getattr(self, key)}")
        if self.model not in MODELS:
            raise ValueError(f"sprt.model: one of {', '.join(MODELS)}, got {self.model!r}")
        if self.model == "logistic" and max(abs(self.elo0), abs(self.elo1)) >= 2000:
            raise ValueError(f"sprt: logistic Elo bounds within (-2000, 2000), got {self.elo0}, {self.elo1}")

    @classmethod
    def from_mapping(cls, data: Mapping) -> "SprtConfig":
        """From a config's `sprt:` section; an unknown key is an error naming it."""
        if not isinstance(data, Mapping):
            raise ValueError(f"sprt: expected a mapping (elo0, elo1, alpha, beta, model), got {data!r}")
        known = {"elo0", "elo1", "alpha", "beta", "model"}
        for key in data:
            if key not in known:
                raise ValueError(f"sprt.{key}: unknown key; known: {', '.join(sorted(known))}")
        for key in ("elo0", "elo1"):
            if key not in data:
                raise ValueError(f"sprt.{key}: missing")
        return cls(**data)

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: log(beta / (1 - alpha))."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: log((1 - beta) / alpha)."""
        return math.log((1 - self.beta) / self.alpha)


def _check_counts(name: str, values: Iterable) -> tuple[int, ...]:
    out = tuple(values)
    for v in out:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"{name}: counts must be non-negative integers, got {list(out)}")
    return tuple(int(v) for v in out)


@dataclass(frozen=True)
class Trinomial:
    """Unpaired games: wins, draws and losses of the player under test."""
    wins: int
    draws: int
    losses: int

    games_per_unit = 1

    def __post_init__(self) -> None:
        _check_counts("trinomial", (self.wins, self.draws, self.losses))

    @classmethod
    def from_scores(cls, scores: Iterable[float]) -> "Trinomial":
        """From game scores 1, 0.5 or 0."""
        scores = list(scores)
        bad = [s for s in scores if s not in (0, 0.5, 1)]
        if bad:
            raise ValueError(f"trinomial: a game scores 0, 0.5 or 1, got {bad[0]!r}")
        return cls(scores.count(1), scores.count(0.5), scores.count(0))

    def array(self) -> np.ndarray:
        """Counts in the order of rising score (losses, draws, wins)."""
        return np.array([self.losses, self.draws, self.wins], dtype=float)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def __str__(self) -> str:
        return f"{self.wins}-{self.losses}-{self.draws} (W-L-D)"


@dataclass(frozen=True)
class Pentanomial:
    """Game pairs (one opening, colours swapped): how many pairs scored 0, 1/2, 1, 3/2 and 2 points."""
    counts: tuple[int, int, int, int, int]

    games_per_unit = 2

    def __post_init__(self) -> None:
        counts = _check_counts("pentanomial", self.counts)
        if len(counts) != 5:
            raise ValueError(f"pentanomial: five counts (pairs scoring 0, 0.5, 1, 1.5, 2), got {list(counts)}")
        object.__setattr__(self, "counts", counts)

    @classmethod
    def from_scores(cls, scores: Iterable[float]) -> "Pentanomial":
        """From pair scores 0, 0.5, 1, 1.5 or 2 (the points of the two games together)."""
        counts = [0] * 5
        for s in scores:
            if s not in (0, 0.5, 1, 1.5, 2):
                raise ValueError(f"pentanomial: a pair scores 0, 0.5, 1, 1.5 or 2, got {s!r}")
            counts[int(2 * s)] += 1
        return cls(tuple(counts))

    def array(self) -> np.ndarray:
        return np.array(self.counts, dtype=float)

    @property
    def games(self) -> int:
        return 2 * sum(self.counts)

    def __str__(self) -> str:
        return "pairs " + " ".join(f"{s}:{n}" for s, n in zip(("0", "0.5", "1", "1.5", "2"), self.counts))


Counts = Union[Trinomial, Pentanomial]


def _kind(counts: Counts) -> None:
    if not isinstance(counts, (Trinomial, Pentanomial)):
        raise TypeError(f"expected Trinomial or Pentanomial counts, got {type(counts).__name__}")


def unit_scores(k: int) -> np.ndarray:
    """The score per game of each outcome of a unit with k outcomes: 3 (a game) or 5 (a pair, halved)."""
    return np.linspace(0.0, 1.0, k)


# -- the maximum-likelihood distributions (vectorised over rows) ----------------------------------------------

def _secular(p: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The x of each row with f(x) = sum_i p_i b_i / (1 + x b_i) = 0, on the interval where every
    1 + x b_i > 0 (every row needs b of both signs).

    f falls monotonically from +inf to -inf there, and the root is often close to a pole (an outcome not
    yet seen). Each step solves a model with f's value and slope and the pole on the root's side,
    -c / (pole - x) + d, and falls back on bisection when that leaves the shrinking bracket."""
    shape = p.shape[:-1]
    p, b = p.reshape(-1, p.shape[-1]), np.broadcast_to(b, p.shape).reshape(-1, p.shape[-1])
    left, right = -1.0 / b.max(axis=-1), -1.0 / b.min(axis=-1)      # the poles
    lo, hi = left.copy(), right.copy()
    x = np.zeros(len(p))
    todo = np.arange(len(p))          # rows not yet converged: only they are computed
    for _ in range(200):
        pt, bt, xt = p[todo], b[todo], x[todo]
        d = 1.0 + xt[:, None] * bt
        f = (pt * bt / d).sum(axis=-1)
        df = -(pt * bt * bt / (d * d)).sum(axis=-1)
        up = f > 0
        lo[todo] = np.where(up, xt, lo[todo])
        hi[todo] = np.where(up, hi[todo], xt)
        gap = np.where(up, right[todo], left[todo]) - xt
        c = -df * gap * gap
        step = xt + gap - c / (f + c / gap)
        inside = (step >= lo[todo]) & (step <= hi[todo])
        new = np.where(f == 0, xt, np.where(inside, step, (lo[todo] + hi[todo]) / 2))
        x[todo] = new
        todo = todo[np.abs(new - xt) > 1e-14 * (1 + np.abs(xt))]
        if not todo.size:
            break
    return x.reshape(shape)


def _mle_mean(p: np.ndarray, a: np.ndarray, s: float) -> np.ndarray:
    """The distribution on scores a nearest to p (maximum likelihood) whose mean is s."""
    b = a - s
    x = _secular(p, b)
    return p / (1.0 + x[..., None] * b)


def _moments(p: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mu = (p * a).sum(axis=-1)
    var = (p * (a - mu[..., None]) ** 2).sum(axis=-1)
    return mu, var


def _mle_t(p: np.ndarray, a: np.ndarray, t: float) -> np.ndarray:
    """The distribution on scores a nearest to p whose t-value (mu - 1/2) / sigma is t: the fixed point of
    the mean-constrained problem with the constraint linearised at the current mu and sigma, from the
    uniform distribution (M. Van den Bergh, "Normalized Elo", section 4.1)."""
    shape = p.shape
    p = p.reshape(-1, shape[-1])
    q = np.full(p.shape, 1.0 / shape[-1])
    todo = np.arange(len(p))
    for _ in range(100):
        mu, var = _moments(q[todo], a)
        sigma = np.sqrt(var)[:, None]
        b = a - 0.5 - t * sigma * (1 + ((mu[:, None] - a) / sigma) ** 2) / 2
        x = _secular(p[todo], b)
        new = p[todo] / (1.0 + x[:, None] * b)
        moved = np.abs(new - q[todo]).max(axis=-1) > 1e-12
        q[todo] = new
        todo = todo[moved]
        if not todo.size:
            break
    return q.reshape(shape)


def _distribution(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(units, frequencies) of count rows, zero counts regularized."""
    c = np.where(counts > 0, counts, REGULARIZE)
    n = c.sum(axis=-1)
    return n, c / n[..., None]


def _hypotheses(config: SprtConfig, games_per_unit: int) -> tuple[float, float]:
    """The hypotheses' value of the constrained statistic: the mean score per game (logistic) or the
    t-value per unit (normalized; a pair's is sqrt 2 times a game's)."""
    if config.model == "logistic":
        return logistic_score(config.elo0), logistic_score(config.elo1)
    scale = math.sqrt(games_per_unit) / NELO_PER_T
    return config.elo0 * scale, config.elo1 * scale


def _projections(p: np.ndarray, config: SprtConfig, games_per_unit: int) -> tuple[np.ndarray, np.ndarray]:
    a = unit_scores(p.shape[-1])
    h0, h1 = _hypotheses(config, games_per_unit)
    mle = _mle_mean if config.model == "logistic" else _mle_t
    return mle(p, a, h0), mle(p, a, h1)


def llr_rows(counts: np.ndarray, config: SprtConfig, games_per_unit: int) -> np.ndarray:
    """The LLR of every row of unit counts (rising score order), vectorised for simulations."""
    n, p = _distribution(np.asarray(counts, dtype=float))
    p0, p1 = _projections(p, config, games_per_unit)
    out = n * (p * (np.log(p1) - np.log(p0))).sum(axis=-1)
    return np.where(np.asarray(counts).sum(axis=-1) > 0, out, 0.0)


# -- the public API ------------------------------------------------------------------------------------------

def logistic_score(elo: float) -> float:
    """The expected score per game of a player `elo` logistic Elo stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def logistic_elo(score: float) -> float:
    """The logistic Elo of a score per game, a score beyond [0, 1] taken as 0 or 1 (-inf, +inf)."""
    return elo_difference(min(max(score, 0.0), 1.0))


def llr(counts: Counts, config: SprtConfig) -> float:
    """The generalized log-likelihood ratio of H1 against H0 given the counts (0 for no games)."""
    _kind(counts)
    return float(llr_rows(counts.array()[None, :], config, counts.games_per_unit)[0])


@dataclass(frozen=True)
class Decision:
    """Where a test stands: the LLR, its bounds, and "H0", "H1" or "continue"."""
    llr: float
    lower: float
    upper: float
    result: str
    games: int

    def __str__(self) -> str:
        return f"LLR {self.llr:.2f} [{self.lower:.2f}, {self.upper:.2f}] after {self.games} games: {self.result}"


def decide(counts: Counts, config: SprtConfig) -> Decision:
    """The test's verdict on the counts so far: H1 at or above the upper bound, H0 at or below the lower."""
    value = llr(counts, config)
    result = "H1" if value >= config.upper else "H0" if value <= config.lower else "continue"
    return Decision(value, config.lower, config.upper, result, counts.games)


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its 95% interval (NaN without games; +-inf at a score of 0 or 1)."""
    elo: float
    low: float
    high: float
    model: str

    def __str__(self) -> str:
        unit = "nElo" if self.model == "normalized" else "Elo"
        return f"{self.elo:+.1f} {unit} [{self.low:+.1f}, {self.high:+.1f}]"


def elo_interval(counts: Counts, model: str = "logistic", z: float = Z95) -> EloEstimate:
    """The Elo estimate and its interval from the mean score per unit and its variance under the counts'
    own model (trinomial or pentanomial), on the logistic or normalized scale."""
    _kind(counts)
    if model not in MODELS:
        raise ValueError(f"model: one of {', '.join(MODELS)}, got {model!r}")
    c = counts.array()
    n = c.sum()
    if n == 0:
        return EloEstimate(math.nan, math.nan, math.nan, model)
    a = unit_scores(len(c))
    mu, var = _moments(c / n, a)
    half = z * math.sqrt(var / n)
    if model == "logistic":
        return EloEstimate(logistic_elo(mu), logistic_elo(mu - half), logistic_elo(mu + half), model)
    sigma = math.sqrt(var * counts.games_per_unit)   # per game
    if sigma == 0:
        inf = math.copysign(math.inf, mu - 0.5) if mu != 0.5 else math.nan
        return EloEstimate(inf, inf, inf, model)
    scale = NELO_PER_T / sigma
    return EloEstimate((mu - 0.5) * scale, (mu - half - 0.5) * scale, (mu + half - 0.5) * scale, model)


# -- synthetic results of a known Elo ---------------------------------------------------------------------

def unit_distribution(score: float, draw_rate: float = 0.0, pairs: bool = False,
                      bias: float = 0.0) -> np.ndarray:
    """Outcome probabilities (rising score) of a game of expected score `score` with `draw_rate` draws,
    or of a game pair under the opening model of `simulate` (the opening's shift d averaged out:
    E[d^2] = (bias * m)^2 / 3)."""
    win = score - draw_rate / 2
    loss = 1 - score - draw_rate / 2
    if min(win, loss) < -1e-12:
        raise ValueError(f"draw-rate: {draw_rate} is too high for a score of {score:.3f} "
                         f"(at most {2 * min(score, 1 - score):.3f})")
    win, loss = max(win, 0.0), max(loss, 0.0)
    if not pairs:
        return np.array([loss, draw_rate, win])
    d2 = (bias * min(win, loss)) ** 2 / 3
    return np.array([loss * loss - d2, 2 * draw_rate * loss, 2 * win * loss + 2 * d2 + draw_rate ** 2,
                     2 * draw_rate * win, win * win - d2])


def normalized_elo_of(p: np.ndarray, games_per_unit: int) -> float:
    """The normalized Elo of an outcome distribution."""
    mu, var = _moments(p, unit_scores(len(p)))
    return float((mu - 0.5) / math.sqrt(var * games_per_unit) * NELO_PER_T)


def true_score(elo: float, model: str, draw_rate: float = 0.0, pairs: bool = False, bias: float = 0.0) -> float:
    """The expected score per game of a player `elo` stronger on the `model` scale, under the simulation's
    draw rate and pairing (normalized Elo depends on them)."""
    if model == "logistic":
        return logistic_score(elo)
    if elo == 0:
        return 0.5
    edge = draw_rate / 2 + 1e-9

    def gap(s: float) -> float:
        return normalized_elo_of(unit_distribution(s, draw_rate, pairs, bias), 2 if pairs else 1) - elo
    return brentq(gap, edge, 1 - edge, xtol=1e-13) if gap(edge) * gap(1 - edge) < 0 else math.nan


def _play_units(rng: np.random.Generator, n: int, score: float, draw_rate: float, pairs: bool,
                bias: float) -> np.ndarray:
    """The outcome index (rising score) of n synthetic units."""
    win = score - draw_rate / 2
    loss = 1 - score - draw_rate / 2
    if not pairs:
        u = rng.random(n)
        return np.where(u < loss, 0, np.where(u < loss + draw_rate, 1, 2))
    shift = bias * min(win, loss) * rng.uniform(-1.0, 1.0, n)
    u1, u2 = rng.random(n), rng.random(n)
    first = np.where(u1 < loss - shift, 0, np.where(u1 < loss - shift + draw_rate, 1, 2))
    second = np.where(u2 < loss + shift, 0, np.where(u2 < loss + shift + draw_rate, 1, 2))
    return first + second


@dataclass(frozen=True)
class Simulation:
    """N tests on synthetic results: each run's verdict (+1 H1, -1 H0, 0 stopped at the cap) and games."""
    verdicts: np.ndarray
    games: np.ndarray

    @property
    def runs(self) -> int:
        return len(self.verdicts)

    @property
    def accepted_h1(self) -> int:
        return int((self.verdicts == 1).sum())

    @property
    def capped(self) -> int:
        return int((self.verdicts == 0).sum())

    @property
    def mean_games(self) -> float:
        return float(self.games.mean())


def simulate(true_elo: float, config: SprtConfig, runs: int, draw_rate: float = 0.0, pairs: bool = False,
             bias: float = 0.5, seed: int = 1, cap: int | None = None) -> Simulation:
    """`runs` tests on synthetic results of a player `true_elo` stronger (on the config's scale), all runs
    advanced together, a block of units (games or pairs) at a time.

    Games: a win with probability s - D/2, a draw with D, a loss otherwise (s the expected score of the
    true Elo, D the draw rate). Pairs: the opening of each pair shifts the first game's win probability by
    d and the second's (colours swapped) by -d, losses the other way, with d uniform in
    [-bias * m, bias * m] and m the smaller of the win and loss probabilities; the score per game stays s
    while the two games of a pair are anti-correlated, as with openings that favour one colour (bias 0:
    independent games). `cap` ends a run undecided after that many games (pairs: rounded down to pairs)."""
    if runs < 1:
        raise ValueError(f"runs: a positive number, got {runs}")
    if not 0 <= draw_rate < 1:
        raise ValueError(f"draw-rate: a probability in [0, 1), got {draw_rate}")
    if not 0 <= bias <= 1:
        raise ValueError(f"opening-bias: a share in [0, 1], got {bias}")
    if cap is not None and cap < 2:
        raise ValueError(f"cap: at least 2 games, got {cap}")
    score = true_score(true_elo, config.model, draw_rate, pairs, bias)
    if not 0 < score < 1 or math.isnan(score):
        raise ValueError(f"true-elo: {true_elo} is out of reach of this model")
    unit_distribution(score, draw_rate, pairs, bias)     # checks the draw rate against the score
    per_unit = 2 if pairs else 1
    max_units = cap // per_unit if cap is not None else None
    rng = np.random.default_rng(seed)
    k = 5 if pairs else 3
    counts = np.zeros((runs, k))
    verdicts = np.zeros(runs, dtype=int)
    units = np.zeros(runs, dtype=int)
    active = np.arange(runs)
    step = 0
    while active.size and (max_units is None or step < max_units):
        # A block of units per active run at once; a run's verdict is its first crossing in the block.
        block = max(1, CHUNK_ROWS // active.size)
        if max_units is not None:
            block = min(block, max_units - step)
        outcome = _play_units(rng, active.size * block, score, draw_rate, pairs, bias).reshape(-1, block)
        path = counts[active][:, None, :] + np.cumsum(np.eye(k)[outcome], axis=1)
        value = llr_rows(path.reshape(-1, k), config, per_unit).reshape(-1, block)
        crossed = (value >= config.upper) | (value <= config.lower)
        done = crossed.any(axis=1)
        first = np.where(done, crossed.argmax(axis=1), block - 1)
        rows = np.arange(active.size)
        counts[active] = path[rows, first]
        verdicts[active[done]] = np.where(value[rows, first][done] >= config.upper, 1, -1)
        units[active] = step + first + 1
        step += block
        active = active[~done]
    return Simulation(verdicts, units * per_unit)


def wald(true_elo: float, config: SprtConfig, draw_rate: float = 0.0, pairs: bool = False,
         bias: float = 0.5) -> tuple[float, float]:
    """Wald's approximations (no overshoot of the bounds): (probability of accepting H1, expected games).

    The test behaves like a classical SPRT between the two hypotheses' projections p0, p1 of the true
    outcome distribution p, whose LLR steps by z = log(p1/p0) per unit. With h != 0 the root of
    E_p[exp(h z)] = 1, H1 is accepted with probability (1 - B^h) / (A^h - B^h) (A, B = e^upper,
    e^lower), and the expected units are (P upper + (1 - P) lower) / E_p[z]."""
    score = true_score(true_elo, config.model, draw_rate, pairs, bias)
    p = unit_distribution(score, draw_rate, pairs, bias)
    p = np.where(p > 0, p, 0.0)
    per_unit = 2 if pairs else 1
    p0, p1 = _projections(np.where(p > 0, p, 1e-300)[None, :], config, per_unit)
    z = (np.log(p1) - np.log(p0))[0]
    drift = float((p * z).sum())
    a, b = config.upper, config.lower
    if abs(drift) < 1e-12:
        return -b / (a - b), per_unit * -a * b / float((p * z * z).sum())

    def mgf(h: float) -> float:
        return float(np.log((p * np.exp(h * z)).sum()))
    direction = -1.0 if drift > 0 else 1.0
    far = direction
    while mgf(far) < 0:
        far *= 2
    h = brentq(mgf, direction * 1e-9, far)
    accept = (1 - math.exp(h * b)) / (math.exp(h * a) - math.exp(h * b))
    return accept, per_unit * (accept * a + (1 - accept) * b) / drift


# -- the variance that pairs save --------------------------------------------------------------------------

def variance_per_game(counts: Counts) -> float:
    """The variance of the mean score per game times the games: what one game adds to the uncertainty.
    Unpaired, a game's score variance; paired, twice the variance of a pair's mean score (the pair is two
    games). The games a test needs are proportional to it, so paired / unpaired is the share of games
    that pairs on a balanced suite need (NaN without games)."""
    _kind(counts)
    c = counts.array()
    if c.sum() == 0:
        return math.nan
    _, var = _moments(c / c.sum(), unit_scores(len(c)))
    return float(var) * counts.games_per_unit


def pair_variance_ratio(pairs: np.ndarray, resamples: int = 2000, seed: int = 1) -> tuple[float, float, float]:
    """The variance per game counted per pair over that counted game by game, on the same complete pairs
    (rows of the two games' scores), with its 95% bootstrap interval (pairs resampled). It is 1 plus the
    correlation of a pair's two results: below 1 where the opening favours one colour and the swap cancels
    it, 1 for independent games. NaN where the games do not vary."""
    pairs = np.asarray(pairs, dtype=float).reshape(-1, 2)

    def ratio(p: np.ndarray) -> np.ndarray:       # p: (..., m, 2)
        single = p.reshape(*p.shape[:-2], -1).var(axis=-1)
        return np.divide(2 * p.mean(axis=-1).var(axis=-1), single, out=np.full(single.shape, np.nan),
                         where=single > 0)
    if len(pairs) < 2:
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    boot = ratio(pairs[rng.integers(0, len(pairs), (resamples, len(pairs)))])
    low, high = np.nanpercentile(boot, [2.5, 97.5]) if np.isfinite(boot).any() else (math.nan, math.nan)
    return float(ratio(pairs)), float(low), float(high)


def _variance_command(args: argparse.Namespace) -> int:
    """Per run folder and variant: the variance per game counted game by game, and on a suite per pair."""
    from bench.gamerecords import read_games     # the records' reader, only for this command
    from bench.records import RunError, read_run
    from bench.report import player_score
    for folder in args.runs:
        try:
            games = read_games(Path(folder))
        except (RunError, OSError, ValueError) as err:
            raise ValueError(f"{folder}: {err}") from None
        if not games:
            raise ValueError(f"{folder}: no games (a match run folder?)")
        paired = bool(read_run(Path(folder)).get("config", {}).get("openings"))
        for variant in sorted({v for v, _ in games}):
            scores = {i: player_score(r) for (v, i), r in games.items() if v == variant}
            single = Trinomial.from_scores(x for x in scores.values() if x is not None)
            line = (f"{folder} {variant}: {single.games} games, {single}; variance per game, game by game "
                    f"{variance_per_game(single):.4f}")
            if paired:
                both = np.array([(scores[i], scores[i + 1]) for i in sorted(scores) if i % 2 == 0
                                 and scores[i] is not None and scores.get(i + 1) is not None]).reshape(-1, 2)
                counts = Pentanomial.from_scores(both.sum(axis=1).tolist())
                ratio, low, high = pair_variance_ratio(both)
                line += (f"; per pair {variance_per_game(counts):.4f} ({len(both)} complete pairs, {counts}); "
                         f"on these pairs, per pair / game by game {ratio:.2f} [{low:.2f}, {high:.2f}]")
            print(line)
    return 0


# -- command line -------------------------------------------------------------------------------------------

def _simulate_command(args: argparse.Namespace) -> int:
    config = SprtConfig(args.elo0, args.elo1, args.alpha, args.beta,
                        "normalized" if args.normalized else "logistic")
    bias = args.opening_bias if args.pairs else 0.0
    sim = simulate(args.true_elo, config, args.runs, args.draw_rate, args.pairs, bias, args.seed, args.cap)
    unit = "nElo" if args.normalized else "Elo"
    model = f"pentanomial (pairs, opening bias {bias})" if args.pairs else "trinomial (games)"
    print(f"SPRT elo0 {config.elo0:g} elo1 {config.elo1:g} {unit}, alpha {config.alpha:g}, beta {config.beta:g}: "
          f"LLR bounds [{config.lower:.3f}, {config.upper:.3f}]")
    print(f"true {args.true_elo:g} {unit}, draw rate {args.draw_rate:g}, {model}, {sim.runs} runs, seed {args.seed}")
    accept, games = wald(args.true_elo, config, args.draw_rate, args.pairs, bias)
    print(f"Wald's approximation: accept H1 with probability {accept:.3f}, mean games {games:.1f}")
    print(f"accept H0 in {int((sim.verdicts == -1).sum())}, stopped at the cap in {sim.capped}; "
          f"games: median {np.median(sim.games):.0f}, 95th percentile {np.percentile(sim.games, 95):.0f}, "
          f"max {sim.games.max()}")
    print(f"accept H1 in {sim.accepted_h1} of {sim.runs} runs, mean games {sim.mean_games:.1f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sprt", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="run N SPRTs on synthetic results of a known Elo")
    sim.add_argument("--true-elo", type=float, required=True, help="the simulated player's Elo gain")
    sim.add_argument("--elo0", type=float, required=True)
    sim.add_argument("--elo1", type=float, required=True)
    sim.add_argument("--alpha", type=float, default=0.05)
    sim.add_argument("--beta", type=float, default=0.05)
    sim.add_argument("--draw-rate", type=float, default=0.0, help="share of drawn games (Go: 0 with a half-point komi)")
    sim.add_argument("--pairs", action="store_true", help="game pairs on openings, pentanomial statistics")
    sim.add_argument("--opening-bias", type=float, default=0.5,
                     help="with --pairs: how strongly an opening favours one colour, 0..1 (see simulate)")
    sim.add_argument("--normalized", action="store_true", help="elo0, elo1 and --true-elo in normalized Elo")
    sim.add_argument("--runs", type=int, required=True)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--cap", type=int, default=None, metavar="GAMES", help="stop a run undecided after GAMES games")
    var = sub.add_parser("variance", help="variance per game of match runs, game by game and per pair")
    var.add_argument("runs", nargs="+", metavar="RUN", help="match run folders (bench/results/match/<name>)")
    args = parser.parse_args(argv)
    try:
        return _variance_command(args) if args.command == "variance" else _simulate_command(args)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
