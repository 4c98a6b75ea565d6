"""The `pbn` prior: pyramidal Bayes nets over the board's corners and edges (Michalowski et al. 2011).

One `RegionModel` per region kind (9x9 corner, 5x19 strip) holds a fitted pyramid for every stone count
s = 0..max_stones in the region, stacked along a first axis of length max_stones + 1. Its inference
passes lambda messages up the pyramid (cortigo.md Sec. 1, "Inference"):

    lambda_j(z) = prod_{i in F_j} theta_{j,i}(x_i | z)
    lambda_k(y) = prod_{j in F_k} sum_z phi_{k,j}(z | y) lambda_j(z)
    P(m | x)   ∝ P(m) prod_k sum_y psi_k(y | m) lambda_k(y)

for the 8 views of a region at once, in a Cython kernel (`_kernels.predict`; `_kernels.board_scores` also
adds the views up on the board). `sample_moves` is the Monte-Carlo alternative (draw z then y as
in training and average P(m | y)). The whole-board prior pools the region distributions linearly, each
view weighted by P(next move in the region | s), counted in training (the spec's linear pool with
empirical weights, Sec. 4.10-11), averaged over the region's two orientations; points no active region
covers, and pass, get `eps`; illegal points get 0.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

from priors.base import Prior, register, require
from priors.modelfile import ModelError
from priors.pbn import _kernels
from priors.pbn.em import Network, fit_network
from priors.pbn.network import Pyramid
from priors.pbn.regions import KINDS, Samples, position_arrays, region_samples, region_shape, relative, \
    stone_counts, views


@dataclass(frozen=True)
class PBNHyperparameters:
    """The `pbn` section of a training config (cortigo.md Sec. 4 for the defaults)."""
    corner: int = 9                  # side of the corner region (cut to half a smaller board)
    strip_depth: int = 5             # depth of the edge strip; its length is the board's
    max_stones: int = 20             # one model per s = 0..max_stones; a region with more gives nothing
    n_samples: int = 5000            # training samples per (region, s) model at most (a seeded subset)
    hidden2: int = 12                # values of a level-2 node
    hidden3: int = 7                 # values of a level-3 node
    draws: int = 4                   # posterior draws per sample passed up a level (S)
    restarts: int = 3                # EM runs per subnet; the best penalised likelihood is kept
    max_iterations: int = 100
    tolerance: float = 1e-5          # EM stops when the objective gains less per sample
    alpha: float = 0.5               # Dirichlet smoothing of the hidden subnets
    top_alpha: float = 0.1           # smoothing of P(m) and psi (small: 81 classes, 30 samples)
    eps: float = 1e-4                # the weight of a point no active region covers, and of pass
    seed: int = 1

    def __post_init__(self) -> None:
        for key in ("corner", "strip_depth", "n_samples", "hidden2", "hidden3", "draws", "restarts",
                    "max_iterations"):
            value = getattr(self, key)
            require(isinstance(value, int) and value >= 1, f"pbn.{key}", "an integer >= 1", value)
        require(isinstance(self.max_stones, int) and 0 <= self.max_stones <= 80, "pbn.max_stones",
                "an integer in 0..80", self.max_stones)
        for key in ("tolerance", "alpha", "top_alpha", "eps"):
            value = getattr(self, key)
            require(isinstance(value, (int, float)) and value > 0, f"pbn.{key}", "a number > 0", value)

    def em(self) -> dict[str, Any]:
        """The EM settings `fit_network` passes to every subnet."""
        return dict(alpha=self.alpha, beta=self.alpha, max_iterations=self.max_iterations,
                    tolerance=self.tolerance, restarts=self.restarts)


# The arrays of one region kind, stacked over s: name -> shape after the s axis.
PARAMETERS = ("prior2", "cpt2", "prior3", "cpt3", "move_prior", "psi")


class RegionModel:
    """The pyramids of one region kind for s = 0..max_stones, and their inference over 8 views."""

    def __init__(self, kind: str, pyramid: Pyramid, board_size: int, params: dict[str, np.ndarray],
                 n_train: np.ndarray, seen: np.ndarray, inside: np.ndarray):
        self.kind, self.pyramid, self.board_size = kind, pyramid, board_size
        self.params = {k: np.asarray(params[k], dtype=np.float32) for k in PARAMETERS}
        self.n_train = np.asarray(n_train, dtype=np.int64)      # samples each s model was fitted on
        self.seen = np.asarray(seen, dtype=np.int64)            # views with s stones in training
        self.inside = np.asarray(inside, dtype=np.int64)        # ... of which the move was inside
        self.views = views(pyramid.height, pyramid.width, board_size)
        self.weight = np.where(self.seen > 0, self.inside / np.maximum(self.seen, 1), 0.0)
        self._log = {k: np.log(self.params[k]) for k in ("cpt2", "move_prior")}
        self._tables = (self.params["cpt2"], pyramid.l2, self.params["cpt3"], pyramid.l3, self.params["psi"],
                        self.params["move_prior"])
        self._l2 = np.where(pyramid.l2 >= 0, pyramid.l2, pyramid.n_points)   # a cut field reads a dummy
        self._l3 = np.maximum(pyramid.l3, 0)                   # the Monte-Carlo pass reads a cut field's
        self._l3_real = pyramid.l3 >= 0                       # first child and weighs it 0

    @property
    def max_stones(self) -> int:
        return len(self.n_train) - 1

    def active(self, stones: np.ndarray) -> np.ndarray:
        """Views whose stone count has a fitted model (more than max_stones: none, as in the paper)."""
        return (stones <= self.max_stones) & (self.n_train[np.minimum(stones, self.max_stones)] > 0)

    def _level2(self, points: np.ndarray, stones: np.ndarray) -> np.ndarray:
        """lambda_j(z), scaled to max 1: (A, J2, K2) for points (A, R) of models `stones` (A,)."""
        padded = np.concatenate([points, np.zeros((len(points), 1), points.dtype)], axis=1)
        x = padded[:, self._l2]                                                  # (A, J2, C2)
        log_theta = self._log["cpt2"][stones]                                    # (A, J2, C2, V, K2)
        log_lam = np.take_along_axis(log_theta, x[..., None, None].astype(np.int64), axis=3)[..., 0, :].sum(axis=2)
        return np.exp(log_lam - log_lam.max(axis=2, keepdims=True))

    def predict(self, points: np.ndarray, stones: np.ndarray) -> np.ndarray:
        """P(m | x) over the region's points (A, R) for views `points` (A, R) with fitted models."""
        out = np.empty((len(points), self.pyramid.n_points))
        _kernels.predict(np.ascontiguousarray(points, dtype=np.uint8), np.ascontiguousarray(stones, dtype=np.int64),
                         *self._tables, out)
        return out

    def sample_moves(self, points: np.ndarray, stones: np.ndarray, n_draws: int,
                     rng: np.random.Generator) -> np.ndarray:
        """P(m | x) by Monte Carlo: z ~ P(z | x_F), y ~ P(y | z_F) as in training, mean of P(m | y)."""
        lam2 = self._level2(points, stones) * self.params["prior2"][stones]
        z = _draw(np.repeat(lam2, n_draws, axis=0), rng)                          # (A * S, J2)
        rep = np.repeat(stones, n_draws)
        cpt3 = self.params["cpt3"][rep]                                          # (A*S, J3, C3, K2, K3)
        chosen = np.take_along_axis(cpt3, z[:, self._l3][..., None, None], axis=3)[..., 0, :]
        log_y = (np.log(chosen) * self._l3_real[None, :, :, None]).sum(axis=2) + np.log(self.params["prior3"][rep])
        y = _draw(np.exp(log_y - log_y.max(axis=2, keepdims=True)), rng)          # (A * S, J3)
        psi = self.params["psi"][rep]                                            # (A*S, J3, K3, R)
        log_m = np.log(np.take_along_axis(psi, y[..., None, None], axis=2)[:, :, 0, :]).sum(axis=1)
        log_m += self._log["move_prior"][rep]
        p = _normalised(np.exp(log_m - log_m.max(axis=1, keepdims=True)))
        return p.reshape(len(points), n_draws, -1).mean(axis=1)

    def view_distributions(self, colors: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(active views (A,), their weight on each region point (A, R)): P(move in region | s) P(m | x) / 2
        (a region's two orientations share it), each view renormalised over its legal points."""
        points = colors[self.views]
        stones = stone_counts(points)
        on = np.flatnonzero(self.active(stones))
        if not len(on):
            return on, np.zeros((0, self.pyramid.n_points))
        p = self.predict(points[on], stones[on]) * legal[self.views[on]]
        total = p.sum(axis=1, keepdims=True)
        p = np.divide(p, total, out=np.zeros_like(p), where=total > 0)
        return on, p * (self.weight[stones[on]] / 2)[:, None]

    def board_scores(self, colors: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The summed weight of the active views on every board point (N*N,): `view_distributions` added
        up in one kernel call, as the search asks for it at every node expansion."""
        out = np.zeros(self.board_size ** 2)
        _kernels.board_scores(np.ascontiguousarray(colors, dtype=np.uint8),
                              np.ascontiguousarray(legal, dtype=np.float64), self.views, self.n_train,
                              self.weight, *self._tables, out)
        return out

    def arrays(self) -> dict[str, np.ndarray]:
        out = {f"{self.kind}_{k}": v for k, v in self.params.items()}
        out.update({f"{self.kind}_n_train": self.n_train, f"{self.kind}_seen": self.seen,
                    f"{self.kind}_inside": self.inside})
        return out


def _normalised(p: np.ndarray) -> np.ndarray:
    return p / p.sum(axis=-1, keepdims=True)


def _draw(weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One index per row along the last axis of unnormalised `weights`."""
    cumulative = np.cumsum(weights, axis=-1)
    u = rng.random(weights.shape[:-1] + (1,)) * cumulative[..., -1:]
    return np.minimum((cumulative < u).sum(axis=-1), weights.shape[-1] - 1)


def stack_networks(pyramid: Pyramid, networks: list[Network | None]) -> dict[str, np.ndarray]:
    """The parameters of one kind stacked over s; an s without a model keeps uniform tables."""
    j2, c2 = pyramid.l2.shape
    j3, c3 = pyramid.l3.shape
    k2, k3, v, r = pyramid.k2, pyramid.k3, pyramid.n_colors, pyramid.n_points
    shapes = {"prior2": (j2, k2), "cpt2": (j2, c2, v, k2), "prior3": (j3, k3), "cpt3": (j3, c3, k2, k3),
              "move_prior": (r,), "psi": (j3, k3, r)}
    out = {k: np.ones((len(networks),) + s) for k, s in shapes.items()}
    for s, net in enumerate(networks):
        if net is not None:
            out["prior2"][s], out["cpt2"][s] = net.level2.prior, net.level2.cpt
            out["prior3"][s], out["cpt3"][s] = net.level3.prior, net.level3.cpt
            out["move_prior"][s], out["psi"][s] = net.move_prior, net.psi
    return out


def subset(samples: Samples, stones: int, limit: int, rng: np.random.Generator) -> Samples:
    """At most `limit` of the samples with `stones` stones, a seeded random choice."""
    index = np.flatnonzero(samples.stones == stones)
    if len(index) > limit:
        index = np.sort(rng.choice(index, limit, replace=False))
    return samples.select(index)


def fit_stone_model(pyramid: Pyramid, samples: Samples, stones: int, hyper: PBNHyperparameters,
                    kind: str) -> Network | None:
    """The pyramid for one (kind, s), seeded by (seed, kind, s) so that each can be fitted apart."""
    rng = np.random.default_rng([hyper.seed, KINDS.index(kind), stones])
    chosen = subset(samples, stones, hyper.n_samples, rng)
    if len(chosen.moves) == 0:
        return None
    return fit_network(pyramid, chosen.points, chosen.moves, rng, hyper.draws, hyper.top_alpha, hyper.top_alpha,
                       **hyper.em())


def pyramid_for(kind: str, board_size: int, hyper: PBNHyperparameters) -> Pyramid:
    return Pyramid(*region_shape(kind, board_size, hyper.corner, hyper.strip_depth), hyper.hidden2, hyper.hidden3)


def samples_of(positions: Iterable, board_size: int, hyper: PBNHyperparameters) -> dict[str, Samples]:
    """The training samples of each region kind from positions of one board size."""
    boards, to_play, moves = position_arrays(positions)
    return {kind: region_samples(boards, to_play, moves, views(*region_shape(kind, board_size, hyper.corner,
                                                                              hyper.strip_depth), board_size),
                                 hyper.max_stones)
            for kind in KINDS}


@register("pbn")
class PBNPrior(Prior):
    """Cortigo: pyramidal Bayes nets over the corners and edge strips, one per stone count s.

    Fitted: `regions_` (kind -> RegionModel) and `size_`, the board size the regions were cut for."""

    Hyper = PBNHyperparameters
    HEADER_KEYS = frozenset({"board_size"})

    def __init__(self, hyper: PBNHyperparameters | None = None):
        super().__init__(hyper)
        self.regions_: dict[str, RegionModel] = {}
        self.size_ = 0

    # --- training ---
    def fit(self, positions: Iterable, patterns: Any = None) -> "PBNPrior":
        """Fit every (kind, s) model on positions of one board size (`patterns` is not used)."""
        positions = list(positions)
        size = positions[0].board.size if positions else 19
        return self.fit_samples(samples_of(positions, size, self.hyper), size)

    def fit_samples(self, samples: dict[str, Samples], board_size: int,
                    fit_one: Callable[[str, int], Network | None] | None = None) -> "PBNPrior":
        """Fit from extracted samples; `fit_one(kind, s)` may supply a model (a resumed run's)."""
        self.size_ = board_size
        for kind in KINDS:
            pyramid = pyramid_for(kind, board_size, self.hyper)
            found = samples[kind]
            nets = [(fit_one or (lambda k, s: fit_stone_model(pyramid, found, s, self.hyper, k)))(kind, s)
                    for s in range(self.hyper.max_stones + 1)]
            n_train = np.minimum(np.bincount(found.stones, minlength=self.hyper.max_stones + 1),
                                 self.hyper.n_samples)
            n_train[[i for i, net in enumerate(nets) if net is None]] = 0
            inside = np.bincount(found.stones, minlength=self.hyper.max_stones + 1)
            self.regions_[kind] = RegionModel(kind, pyramid, board_size, stack_networks(pyramid, nets),
                                              n_train, found.seen, inside)
        return self

    # --- prediction ---
    def evaluate(self, board, color: int) -> np.ndarray:
        n = board.size
        legal = board.legal_points(color).astype(np.float64)     # once for both regions' kernels
        p = np.zeros(n * n + 1, dtype=np.float64)
        p[:-1] = self.hyper.eps * legal
        p[-1] = self.hyper.eps
        if n == self.size_:          # the regions were cut for one board size; others get eps alone
            colors = relative(board.stones().ravel(), color)
            for region in self.regions_.values():
                p[:-1] += region.board_scores(colors, legal)
        return (p / p.sum()).astype(np.float32)

    # --- model file ---
    def arrays(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for region in self.regions_.values():
            out.update(region.arrays())
        return out

    def metadata(self) -> dict[str, Any]:
        return {"board_size": self.size_}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], metadata: dict[str, Any],
                    hyper: PBNHyperparameters) -> "PBNPrior":
        try:
            size = int(metadata["board_size"])
        except (KeyError, TypeError, ValueError) as err:
            raise ModelError(f"pbn header: {err}") from None
        prior = cls(hyper)
        prior.size_ = size
        for kind in KINDS:
            pyramid = pyramid_for(kind, size, hyper)
            try:
                params = {k: arrays[f"{kind}_{k}"] for k in PARAMETERS}
                counts = [arrays[f"{kind}_{k}"] for k in ("n_train", "seen", "inside")]
            except KeyError as err:
                raise ModelError(f"pbn model lacks the array {err}") from None
            expected = stack_networks(pyramid, [None] * (hyper.max_stones + 1))
            if any(params[k].shape != expected[k].shape for k in PARAMETERS):
                raise ModelError(f"pbn {kind} arrays do not match a {pyramid.height}x{pyramid.width} pyramid")
            if any(not np.all(params[k] > 0) or not np.all(np.isfinite(params[k])) for k in PARAMETERS):
                raise ModelError(f"pbn {kind} probabilities must be finite and positive")
            prior.regions_[kind] = RegionModel(kind, pyramid, size, params, *counts)
        return prior
