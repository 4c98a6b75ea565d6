"""The `fbt` prior: Xiao & Müller's (2016) factorization Bradley-Terry model over the shared features.

Every candidate move (each legal point, and pass) is a group of active features: level l > 0 of
feature group g (`priors.features.GROUPS`) is the feature f = offsets[g] + l; level 0 has no
parameters. Each feature has a strength w_f and a factor vector v_f in R^k, and a move's strength is
Eq. (1), computed by the factorization-machine identity in O(|G| k):

    E = sum_f w_f + 1/2 sum_q [ (sum_f v_fq)^2 - sum_f v_fq^2 ].

A position is a competition among its candidates, P(move) = exp(E_move) / sum_t exp(E_t) (Eqs. 2-3);
with k = 0 this is Coulom's model with gamma_f = exp(w_f). Training is per-position SGD,
theta <- theta - alpha (grad + lambda theta), with lazy L2 on the features the position touches, a
fresh seeded order every epoch, and early stopping on validation top-1 accuracy (patience epochs,
the best epoch's weights kept). Losses:

- `softmax` (FBT): l_j = -E_expert + ln sum_t exp(E_t) (Eq. 4); the gradient is exact (Eq. 8, with the
  derivative h = S_q - v_sq of spec Erratum B) or sampled from M i.i.d. draws of P_j (Eq. 13).
- `binary` (LFR, Wistuba & Schmidt-Thieme 2013, the paper's baseline): the same E plus a global bias b,
  each candidate a logistic example (expert 1, every other move 0); one step per position on the summed
  gradient of its candidates. Play still ranks moves by the softmax of E (b cancels out of it).

The hot loops are in `priors.fbt._kernels`.
"""
from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

from priors import features
from priors.base import Prior, register, require
from priors.fbt import _kernels
from priors.groups import check_feature_file, expand_groups, file_patterns, group_offsets, pad_groups, unusable
from priors.patterns import PatternSet, pattern_arrays
from priors.training.competitions import Competitions, build_competitions

LOSSES = {"softmax": 0, "binary": 1}
GRADIENTS = ("full", "sampled")


# --- kernels' arguments --------------------------------------------------------------------------

def _parameters(w: np.ndarray, v: np.ndarray, offsets: np.ndarray, n_groups: int):
    """Checked (w, v flat, k, offsets, counts) for the kernels."""
    w = np.ascontiguousarray(w, dtype=np.float64)
    v = np.ascontiguousarray(v, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if w.ndim != 1 or len(w) == 0:
        raise ValueError(f"w must be a non-empty 1-D array, got shape {w.shape}")
    if v.ndim != 2 or v.shape[0] != len(w):
        raise ValueError(f"v must have shape ({len(w)}, k), got {v.shape}")
    if offsets.shape != (n_groups,):
        raise ValueError(f"offsets must have one entry per feature group ({n_groups}), got {offsets.shape}")
    counts = np.diff(np.append(offsets, len(w)))
    if offsets[0] != 0 or np.any(counts < 1):
        raise ValueError("offsets must start at 0 and increase within len(w)")
    return w, v.reshape(-1), v.shape[1], offsets, counts


def _competition_arrays(comps: Competitions):
    """The competition arrays in the kernels' types; `levels` is never copied."""
    levels = comps.levels
    if levels.ndim != 2 or levels.dtype not in (np.uint16, np.int32) or not levels.flags.c_contiguous:
        raise ValueError("competition levels must be a C-contiguous (teams, groups) uint16 or int32 array, "
                         f"got {levels.dtype} {levels.shape}")
    mult = np.ascontiguousarray(comps.mult, dtype=np.int32)
    starts = np.ascontiguousarray(comps.starts, dtype=np.int64)
    winners = np.ascontiguousarray(comps.winners, dtype=np.int64)
    if mult.shape != (len(levels),) or starts.shape != (len(winners) + 1,) or (
            len(starts) and (starts[0] != 0 or starts[-1] != len(levels))):
        raise ValueError("competition arrays are inconsistent (mult, starts, winners)")
    return levels, mult, starts, winners


def _check(error: int) -> None:
    if error:
        raise (MemoryError if error == -3 else ValueError)(_kernels.ERRORS.get(error, f"error {error}"))


def team_energies(comps: Competitions, w: np.ndarray, v: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """E_t of Eq. (1) for every team of `comps` (float64)."""
    w, vf, k, offsets, counts = _parameters(w, v, offsets, comps.n_groups)
    levels = _competition_arrays(comps)[0]
    out = np.empty(len(levels), dtype=np.float64)
    groups = np.arange(comps.n_groups, dtype=np.int64)
    _check(_kernels.team_energies(levels, offsets, counts, groups, w, vf, k, out))
    return out


def score(comps: Competitions, w: np.ndarray, v: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per competition: natural log-likelihood of the expert move under the softmax of E, and its
    pessimistic rank (1 + the candidate moves, multiplicity counted, with E >= the expert's; the
    expert's identical team-mates count against it), as `priors.bradley_terry.score` ranks."""
    w, vf, k, offsets, counts = _parameters(w, v, offsets, comps.n_groups)
    groups = np.arange(comps.n_groups, dtype=np.int64)
    return _score(comps, w, vf, k, offsets, counts, groups)


def _score(comps, w, vf, k, offsets, counts, groups):
    levels, mult, starts, winners = _competition_arrays(comps)
    loglik = np.empty(len(winners), dtype=np.float64)
    rank = np.empty(len(winners), dtype=np.int32)
    _check(_kernels.competition_scores(levels, mult, starts, winners, offsets, counts, groups, w, vf, k,
                                   loglik, rank))
    return loglik, rank


def gradient(comps: Competitions, w: np.ndarray, v: np.ndarray, offsets: np.ndarray, loss: str = "softmax",
             bias: float = 0.0, n_samples: int = 0, seed: int = 1) -> tuple[float, np.ndarray, np.ndarray, float]:
    """(summed loss, grad w, grad v, grad bias) over `comps`, exactly as one SGD step sees each
    competition (without regularization): Eq. (8), or Eq. (13) with `n_samples` draws (softmax only)."""
    w, vf, k, offsets, counts = _parameters(w, v, offsets, comps.n_groups)
    levels, mult, starts, winners = _competition_arrays(comps)
    gw = np.zeros_like(w)
    gv = np.zeros_like(vf)
    groups = np.arange(comps.n_groups, dtype=np.int64)
    total, gb, error = _kernels.gradient(levels, mult, starts, winners, offsets, counts, groups, w, vf, k, bias,
                                     LOSSES[loss], n_samples, seed, gw, gv)
    _check(error)
    return total, gw, gv.reshape(len(w), k), gb


# --- the prior -----------------------------------------------------------------------------------

def _is_int(x: Any) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _is_real(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


@dataclass(frozen=True)
class FBTHyperparameters:
    """The `fbt` section of a training config."""
    k: int = 10                            # length of the factor vectors; 0 is MM's model
    loss: str = "softmax"                  # softmax (FBT) | binary (LFR, Wistuba & Schmidt-Thieme)
    gradient: str = "full"                 # full (Eq. 8) | sampled (Eq. 13, FBT_S m)
    n_samples: int = 30                    # m, groups drawn per position by the sampled gradient
    learning_rate: float = 0.001           # alpha in epoch 1
    lr_decay: float = 0.0                  # step size learning_rate / (1 + lr_decay (epoch - 1)); 0 = constant
    lambda_w: float = 0.001                # L2 on w
    lambda_v: float = 0.002                # L2 on v
    init_std: float = 0.1                  # v ~ N(0, init_std^2) at the start, w = 0
    max_epochs: int = 30
    patience: int = 3                      # epochs without a better validation top-1 before stopping
    seed: int = 1
    groups: tuple = ("all",)               # feature groups trained (names or sets of GROUP_SETS); the
                                           # others stay inactive

    def __post_init__(self) -> None:
        rules = [
            (_is_int(self.k) and self.k >= 0, "k", "an integer >= 0"),
            (self.loss in LOSSES, "loss", f"one of {sorted(LOSSES)}"),
            (self.gradient in GRADIENTS, "gradient", f"one of {list(GRADIENTS)}"),
            (self.gradient == "full" or self.loss == "softmax", "gradient",
             "'full' with loss 'binary' (sampling draws from the softmax)"),
            (_is_int(self.n_samples) and self.n_samples >= 1, "n_samples", "an integer >= 1"),
            (_is_real(self.learning_rate) and self.learning_rate > 0, "learning_rate", "a finite number > 0"),
            (_is_real(self.lr_decay) and self.lr_decay >= 0, "lr_decay", "a finite number >= 0"),
            (_is_real(self.lambda_w) and self.lambda_w >= 0, "lambda_w", "a finite number >= 0"),
            (_is_real(self.lambda_v) and self.lambda_v >= 0, "lambda_v", "a finite number >= 0"),
            (_is_real(self.init_std) and self.init_std >= 0, "init_std", "a finite number >= 0"),
            (_is_int(self.max_epochs) and self.max_epochs >= 1, "max_epochs", "an integer >= 1"),
            (_is_int(self.patience) and self.patience >= 1, "patience", "an integer >= 1"),
            (_is_int(self.seed) and self.seed >= 0, "seed", "an integer >= 0"),
        ]
        for ok, key, what in rules:
            require(ok, f"fbt.{key}", what, getattr(self, key))
        object.__setattr__(self, "groups", expand_groups(self.groups, "fbt.groups"))


@register("fbt")
class FBTPrior(Prior):
    """Factorization Bradley-Terry (Xiao & Müller 2016) over the shared features, fitted by SGD.

    Fitted: `w_`, `v_` (level 0 of every group and untrained groups stay 0), `bias_` (binary loss
    only), `level_counts_`, `patterns_`, `history_` (one dict per epoch), `info_`.
    """

    Hyper = FBTHyperparameters
    HEADER_KEYS = frozenset({"feature_groups", "zobrist_seed", "history"})
    # Files written before the harvest threshold moved to the training config still record it.
    RETIRED_HYPERPARAMETERS = ("pattern_min_count",)

    def __init__(self, hyper: FBTHyperparameters | None = None):
        super().__init__(hyper)
        self.patterns_: PatternSet | None = None
        self.history_: list[dict[str, Any]] = []
        self._set_parameters(features.level_counts(0), None)
        self._extractor = features.Extractor()
        self._evaluator: _kernels.Evaluator | None = None     # evaluate's kernel, built for the parameters
        self._evaluator_key: tuple = ()                       # of this (w_, v_, patterns_)

    def _set_parameters(self, counts: np.ndarray, params: tuple | None) -> None:
        self.level_counts_ = np.asarray(counts, dtype=np.int64)
        self._offsets = group_offsets(self.level_counts_)
        self._counts = self.level_counts_.copy()
        self._groups = np.array([g for g, name in enumerate(features.GROUPS) if name in self.hyper.groups],
                                np.int64)
        n = int(self.level_counts_.sum())
        if params is None:
            params = (np.zeros(n), np.zeros((n, self.hyper.k)), 0.0)
        self.w_, self.v_, self.bias_ = params[0], params[1], float(params[2])

    # --- training ---
    def fit(self, positions: Iterable, patterns: PatternSet | None = None, validation: Iterable | None = None,
            callback: Callable[[dict], None] | None = None) -> "FBTPrior":
        """Fit on positions (`priors.training.dataset.Position`), validating on `validation` positions if given."""
        comps = build_competitions(positions, patterns)
        val = build_competitions(validation, patterns) if validation is not None else None
        return self.fit_competitions(comps, patterns, val, callback)

    def step_size(self, epoch: int) -> float:
        """The SGD step size in epoch 1, 2, ...: learning_rate / (1 + lr_decay (epoch - 1))."""
        return self.hyper.learning_rate / (1.0 + self.hyper.lr_decay * (epoch - 1))

    def fit_competitions(self, comps: Competitions, patterns: PatternSet | None = None,
                         validation: Competitions | None = None,
                         callback: Callable[[dict], None] | None = None) -> "FBTPrior":
        """SGD over competitions built with the same `patterns`; `callback(point)` after every epoch
        with keys epoch, train_loss, val_top1, val_loglik, seconds. Without (or with empty) validation
        it runs `max_epochs` and keeps the last weights."""
        counts = features.level_counts(len(patterns) if patterns is not None else 0)
        if len(comps) == 0:
            raise ValueError("no competitions to fit")
        for name, c in (("competitions", comps), ("validation", validation)):
            if c is not None:
                self._check_levels(name, c, counts)
        if validation is not None and len(validation) == 0:
            validation = None
        levels, mult, starts, winners = _competition_arrays(comps)
        offsets = group_offsets(counts)
        h = self.hyper
        groups = np.array([g for g, name in enumerate(features.GROUPS) if name in h.groups], np.int64)
        rng = np.random.default_rng(h.seed)
        w, v = self._initial(counts, offsets, groups, rng)
        bias = np.zeros(1)
        best = (w.copy(), v.copy(), 0.0)
        best_top1, best_epoch = -1.0, 0
        history: list[dict[str, Any]] = []
        n_samples = h.n_samples if h.gradient == "sampled" else 0
        for epoch in range(1, h.max_epochs + 1):
            start = time.perf_counter()
            order = rng.permutation(len(comps)).astype(np.int64)
            total, error = _kernels.sgd_epoch(levels, mult, starts, winners, order, offsets, counts, groups,
                                              w, v.reshape(-1), h.k, bias, LOSSES[h.loss], n_samples,
                                              int(rng.integers(2 ** 63)), self.step_size(epoch), h.lambda_w,
                                              h.lambda_v)
            _check(error)
            sgd_seconds = time.perf_counter() - start
            if not (math.isfinite(total) and np.all(np.isfinite(w)) and np.all(np.isfinite(v))):
                raise FloatingPointError(f"training diverged in epoch {epoch} (non-finite loss or weights); "
                                         "lower learning_rate")
            point: dict[str, Any] = {"epoch": epoch, "train_loss": total / len(comps),
                                     "val_top1": None, "val_loglik": None}
            if validation is not None:
                loglik, rank = _score(validation, w, v.reshape(-1), h.k, offsets, counts, groups)
                point["val_top1"] = float(np.mean(rank == 1))
                point["val_loglik"] = float(np.mean(loglik))
            point["seconds"] = time.perf_counter() - start
            point["sgd_seconds"] = sgd_seconds
            history.append(point)
            if callback is not None:
                callback(point)
            if validation is None:
                best, best_epoch = (w, v, float(bias[0])), epoch
                continue
            if point["val_top1"] > best_top1:
                best_top1, best_epoch = point["val_top1"], epoch
                best = (w.copy(), v.copy(), float(bias[0]))
            elif epoch - best_epoch >= h.patience:
                break
        # The model file holds float32 parameters (half the size); round now so that the fitted prior
        # and the one loaded from its file predict exactly alike.
        self._set_parameters(counts, (_float32(best[0]), _float32(best[1]), best[2]))
        self.patterns_ = patterns
        self.history_ = history
        for key in ("val_top1", "val_loglik"):
            self.info_.pop(key, None)
        self.info_.update(n_competitions=len(comps), n_teams=int(len(levels)), best_epoch=best_epoch,
                          epochs_run=len(history))
        if validation is not None:
            self.info_.update(val_top1=history[best_epoch - 1]["val_top1"],
                              val_loglik=history[best_epoch - 1]["val_loglik"])
        return self

    def _initial(self, counts, offsets, groups, rng) -> tuple[np.ndarray, np.ndarray]:
        """w = 0, v ~ N(0, init_std^2); level 0 and untrained groups stay at zero."""
        n = int(counts.sum())
        w = np.zeros(n)
        k = self.hyper.k
        v = rng.normal(0.0, self.hyper.init_std, (n, k)) if k else np.zeros((n, 0))
        trained = np.zeros(n, dtype=bool)
        for g in groups:
            trained[offsets[g] + 1:offsets[g] + counts[g]] = True
        v[~trained] = 0.0
        return w, v

    @staticmethod
    def _check_levels(name: str, comps: Competitions, counts: np.ndarray) -> None:
        if comps.n_groups != len(counts):
            raise ValueError(f"{name}: {comps.n_groups} feature groups, the feature set has {len(counts)}")
        _competition_arrays(comps)
        if len(comps.levels):
            top = comps.levels.max(axis=0)
            bad = [features.GROUPS[g] for g in range(len(counts)) if top[g] >= counts[g]]
            if bad:
                raise ValueError(f"{name}: levels out of range in groups {bad} "
                                 "(built with another pattern set?)")

    # --- prediction ---
    def strengths(self, board, color: int) -> tuple[np.ndarray, np.ndarray]:
        """(row-major index of each candidate, pass = N*N, and its strength E of Eq. 1) for `color`."""
        index, levels = self._extractor.extract(board, color, self.patterns_)
        out = np.empty(len(index), dtype=np.float64)
        _check(_kernels.team_energies(levels, self._offsets, self._counts, self._groups, self.w_,
                                      self.v_.reshape(-1), self.hyper.k, out))
        return index, out

    def evaluate(self, board, color: int) -> np.ndarray:
        """P(move) = softmax of E over the candidates (Eq. 2); float32 N*N+1, pass last, 0 if illegal."""
        key = (self.w_, self.v_, self.patterns_)
        if self._evaluator is None or any(a is not b for a, b in zip(key, self._evaluator_key)):
            self._evaluator, self._evaluator_key = self.move_kernel(1), key
        return self._evaluator.probabilities(board, color)

    def move_kernel(self, n_slots: int) -> _kernels.Evaluator:
        """The evaluation of `evaluate` without the GIL, for `n_slots` threads at once; it reads the
        current parameters in place."""
        return _kernels.Evaluator(self.w_, self.v_.reshape(-1), self.hyper.k, self._offsets, self._counts,
                                  self._groups, self.patterns_, n_slots)

    # --- model file ---
    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "w": self.w_.astype(np.float32),
            "v": self.v_.astype(np.float32),
            "bias": np.array(self.bias_, dtype=np.float64),
            "level_counts": self.level_counts_,
            **pattern_arrays(self.patterns_),
        }

    def metadata(self) -> dict[str, Any]:
        return {"feature_groups": list(features.GROUPS), "zobrist_seed": features.ZOBRIST_SEED,
                "history": self.history_}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], metadata: dict[str, Any],
                    hyper: FBTHyperparameters) -> "FBTPrior":
        n_stored = check_feature_file("fbt", "feature_groups", arrays, metadata, ("w", "v", "bias", "level_counts"))
        prior = cls(hyper)
        if not set(prior.hyper.groups) <= set(features.GROUPS[:n_stored]):
            raise unusable("fbt", "its groups name feature groups the file does not hold")
        counts = features.level_counts(len(arrays["pattern_keys"]))
        n = int(counts[:n_stored].sum())
        w, v, bias = arrays["w"], arrays["v"], arrays["bias"]
        if (not np.array_equal(arrays["level_counts"], counts[:n_stored]) or w.shape != (n,)
                or v.shape != (n, prior.hyper.k) or bias.shape != ()):
            raise unusable("fbt", "array shapes do not match the feature set")
        if any(a.dtype.kind != "f" for a in (w, v, bias)):
            raise unusable("fbt", "w, v and bias must be floating point")
        # A file from before the later groups existed: they get zero parameters and stay out of `groups`.
        w, v = (pad_groups(np.ascontiguousarray(a, dtype=np.float64), counts, n_stored, 0.0) for a in (w, v))
        bias = float(bias)
        if not (np.all(np.isfinite(w)) and np.all(np.isfinite(v)) and math.isfinite(bias)):
            raise unusable("fbt", "parameters must be finite")
        offsets = group_offsets(counts)
        if np.any(w[offsets] != 0) or np.any(v[offsets] != 0):
            raise unusable("fbt", "level 0 of every group must have zero parameters")
        patterns = file_patterns("fbt", arrays)
        prior._set_parameters(counts, (w, v, bias))
        prior.patterns_ = patterns
        history = metadata.get("history", [])
        prior.history_ = list(history) if isinstance(history, list) else []
        return prior


def _float32(a: np.ndarray) -> np.ndarray:
    """Values rounded to float32 precision, kept as float64 for the kernels."""
    return np.asarray(a, dtype=np.float32).astype(np.float64)
