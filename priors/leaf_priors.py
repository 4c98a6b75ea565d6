"""Leaf priors of the tactical solver, learned from earlier searches (Stern, Herbrich & Graepel 2007, §4).

A leaf prior gives p(d(l)), the belief that an unexplored node is TRUE (the attacker captures), as
log-odds. Learned priors look at the move that made the node: its stack pi(l) of 8 nested exact
patterns T_0 (the move point) .. T_7 (37 points), keyed by `engine.tactics.pattern_keys` (roles, not
colours; the mover's role is folded into every key, so attacker and defender statistics never mix).

Interface (what `engine.tactics.Solver` calls):

- `logodds(keys, role) -> float64 (n,)` for the (n, 8) uint64 stacks of one node's new children;
- `observe(keys, roles, values)` after a search ends solved, with every solved non-root node;
- `kernel() -> engine.tactics.PriorKernel`: the model's table for the C search (the same log-odds to
  the bit, without a Python call per node), cached until the model changes.

Models:

- `UniformPrior(p)`: p(d(l)) = p everywhere (the paper's §5.1 uses 0.5).
- `BetaPrior(alpha0, beta0)`: Bernoulli leaf values with a Beta prior on the largest pattern of the
  stack observed at least once; the predictive is alpha / (alpha + beta), and every solved node adds
  one count to each of its 8 patterns (§4.2, "Beta model").
- `HierGaussPrior(mu0, sigma0_sq, beta_sq, k_virtual)`: the hierarchical Gaussian model (§4.2): pattern
  values x_i along T_0 .. T_7 with x_{i+1} | x_i ~ N(x_i, beta_i^2), a move value y ~ N(x_7, 1) and
  d = (y > 0), so P(TRUE) = Phi(mu_y / sigma_y). Nested templates make the patterns a tree, so belief
  propagation is exact and costs O(8) per query; a solved node's d updates y by assumed-density
  filtering (moment matching) and the message climbs the stack.

Over-fitting controls (§5.2, Fig. 8): peaked priors (large alpha0 = beta0; k_virtual pseudo
observations of p = 0.5 per new pattern), `clip` (prior log-odds limited to +-clip, so that no move is
ever written off) and `weight_cap` (a search's many correlated observations count as at most
`weight_cap` in total).

Calibration for the search: the leaf log-odds the search uses are `scale * x + shift` of the model's
(clipped) x. A calibrated P(TRUE) is not the best leaf belief for best-first search, whose AND/OR
rules assume independent siblings and so grow over-confident at nodes with many moves: a lower
neutral belief (shift < 0, as a uniform prior of 0.1 beats 0.5) and damped differences (scale < 1)
counter that. The defaults (1, 0) are the paper's model.

These are learned models, so they live with the other priors; `engine.tactics` only sees their
`PriorKernel` tables. Model files go through `priors.modelfile` (header keys `params` and `info`).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, ClassVar, Optional, Sequence

import numpy as np

from engine.tactics import PriorKernel
from priors.modelfile import ModelError, load_model, read_model, save_model

N_SIZES = 8
_KERNEL = -1          # the cached PriorKernel's slot in `_cache` (pattern keys are >= 0)
_SQRT2 = math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


class LeafPrior:
    """Base: a constant 0.5 prior that learns nothing. Subclasses override `logodds` and `observe`."""

    name: ClassVar[str] = ""
    source: Optional[str] = None          # the file the model was loaded from

    def logodds(self, keys: np.ndarray, role: int) -> np.ndarray:
        return np.zeros(len(keys), dtype=np.float64)

    def observe(self, keys: np.ndarray, roles: np.ndarray, values: np.ndarray) -> None:
        pass

    def kernel(self) -> PriorKernel:
        """The model as a C table for `engine.tactics.Solver`, rebuilt only after a change (any
        change clears `_cache`)."""
        cache = getattr(self, "_cache", None)
        if cache is None:
            return self._build_kernel()
        k = cache.get(_KERNEL)
        if k is None:
            k = cache[_KERNEL] = self._build_kernel()
        return k

    def _build_kernel(self) -> PriorKernel:
        return PriorKernel.constant(0.0)

    # --- helpers shared by the learned models ---

    def _cached_logodds(self, keys: np.ndarray) -> np.ndarray:
        """The search's log-odds of each key stack (`_calibrate` of `_stack_logodds`), cached by the largest
        template."""
        keys = self._check_keys(keys)
        out = np.empty(len(keys), dtype=np.float64)
        cache = self._cache
        for i, stack in enumerate(keys.tolist()):
            top = stack[-1]                  # >= 0: never the kernel's slot
            x = cache.get(top)
            if x is None:
                x = cache[top] = self._calibrate(self._stack_logodds(stack))
            out[i] = x
        return out

    @staticmethod
    def _check_keys(keys: np.ndarray) -> np.ndarray:
        keys = np.asarray(keys)
        if keys.ndim != 2 or keys.shape[1] != N_SIZES or keys.dtype != np.uint64:
            raise ValueError(f"keys must be a (n, {N_SIZES}) uint64 array, got {keys.dtype} {keys.shape}")
        return keys

    def _weight(self, n: int) -> float:
        cap = getattr(self, "weight_cap", None)
        return 1.0 if cap is None or n <= cap else cap / n

    def _calibrate(self, x: float) -> float:
        """The search's leaf log-odds from the model's: clipped to +-clip, then scale * x + shift."""
        c = getattr(self, "clip", None)
        if c is not None:
            x = min(c, max(-c, x))
        return getattr(self, "scale", 1.0) * x + getattr(self, "shift", 0.0)

    @staticmethod
    def _check_common(clip, weight_cap, scale, shift) -> None:
        if clip is not None and not clip > 0:
            raise ValueError("clip must be positive")
        if weight_cap is not None and not weight_cap > 0:
            raise ValueError("weight_cap must be positive")
        if not (math.isfinite(scale) and scale >= 0 and math.isfinite(shift)):
            raise ValueError("scale must be finite and >= 0, shift finite")

    # --- files ---

    def arrays(self) -> dict[str, np.ndarray]:
        return {}

    def params(self) -> dict[str, Any]:
        return {}

    def save(self, path: str | Path, info: Optional[dict] = None) -> None:
        """Write the model file; info (JSON-able: how it was trained) goes into its metadata."""
        header: dict[str, Any] = {"params": self.params()}
        if info:
            header["info"] = info
        save_model(path, self.name, self.arrays(), header)

    @classmethod
    def load(cls, path: str | Path) -> "LeafPrior":
        arrays, header = load_model(path, cls.name)
        return cls._from_file(path, header, arrays)

    @classmethod
    def _from_file(cls, path: str | Path, header: dict, arrays: dict[str, np.ndarray]) -> "LeafPrior":
        try:
            model = cls(**header.get("params", {}))
            model._set_arrays(arrays)
        except (KeyError, TypeError, ValueError) as e:
            raise ModelError(f"{path}: damaged {cls.name} prior ({e})") from None
        model.source = str(path)
        return model

    def _set_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        pass


class UniformPrior(LeafPrior):
    """p(d(l)) = p for every leaf."""

    name = "uniform"

    def __init__(self, p: float = 0.5):
        if not 0.0 < p < 1.0:
            raise ValueError(f"p must be in (0, 1), got {p!r}")
        self.p = float(p)

    def logodds(self, keys: np.ndarray, role: int) -> np.ndarray:
        return np.full(len(keys), math.log(self.p / (1.0 - self.p)), dtype=np.float64)

    def _build_kernel(self) -> PriorKernel:
        return PriorKernel.constant(math.log(self.p / (1.0 - self.p)))

    def params(self) -> dict[str, Any]:
        return {"p": self.p}


class BetaPrior(LeafPrior):
    """The paper's Beta model: counts per pattern, predictive from the largest pattern seen before."""

    name = "beta"

    def __init__(self, alpha0: float = 1.0, beta0: float = 1.0, clip: Optional[float] = None,
                 weight_cap: Optional[float] = None, scale: float = 1.0, shift: float = 0.0):
        if alpha0 <= 0 or beta0 <= 0:
            raise ValueError("alpha0 and beta0 must be positive")
        self._check_common(clip, weight_cap, scale, shift)
        self.alpha0, self.beta0 = float(alpha0), float(beta0)
        self.clip, self.weight_cap = clip, weight_cap
        self.scale, self.shift = float(scale), float(shift)
        self.counts_: dict[int, list[float]] = {}   # pattern key -> [TRUE count, FALSE count]
        self._cache: dict[int, float] = {}

    def predictive(self, stack: Sequence[int]) -> tuple[float, float, int]:
        """(alpha, beta, size) of the largest pattern of the stack with an observation; size -1 if none."""
        for size in range(N_SIZES - 1, -1, -1):
            c = self.counts_.get(int(stack[size]))
            if c is not None and c[0] + c[1] > 0:
                return self.alpha0 + c[0], self.beta0 + c[1], size
        return self.alpha0, self.beta0, -1

    def logodds(self, keys: np.ndarray, role: int) -> np.ndarray:
        return self._cached_logodds(keys)

    def _stack_logodds(self, stack: list[int]) -> float:
        a, b, _ = self.predictive(stack)
        return math.log(a / b)

    def observe(self, keys: np.ndarray, roles: np.ndarray, values: np.ndarray) -> None:
        keys = self._check_keys(keys)
        w = self._weight(len(keys))
        counts = self.counts_
        for stack, value in zip(keys.tolist(), np.asarray(values, dtype=bool).tolist()):
            slot = 0 if value else 1
            for key in stack:
                c = counts.get(key)
                if c is None:
                    c = counts[key] = [0.0, 0.0]
                c[slot] += w
        self._cache.clear()

    def _build_kernel(self) -> PriorKernel:
        keys = np.fromiter(self.counts_.keys(), dtype=np.uint64, count=len(self.counts_))
        counts = np.array(list(self.counts_.values()), dtype=np.float64).reshape(-1, 2)
        return PriorKernel.beta(keys, counts, self.alpha0, self.beta0, self.clip, self.scale, self.shift)

    def n_observations(self) -> float:
        """Total counts over all patterns (8 per observed node at weight 1)."""
        return sum(a + b for a, b in self.counts_.values())

    def params(self) -> dict[str, Any]:
        return {"alpha0": self.alpha0, "beta0": self.beta0, "clip": self.clip, "weight_cap": self.weight_cap,
                "scale": self.scale, "shift": self.shift}

    def arrays(self) -> dict[str, np.ndarray]:
        keys = np.array(list(self.counts_), dtype=np.uint64)
        counts = np.array(list(self.counts_.values()), dtype=np.float64).reshape(-1, 2)
        return {"keys": keys, "counts": counts}

    def _set_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        keys, counts = arrays["keys"], arrays["counts"]
        if keys.dtype != np.uint64 or counts.shape != (len(keys), 2):
            raise ValueError("keys and counts do not match")
        self.counts_ = {int(k): [float(a), float(b)] for k, (a, b) in zip(keys.tolist(), counts.tolist())}


# --- Gaussian helpers (natural parameters: tau = precision, rho = precision * mean) ---

def _erfcx(x: float) -> float:
    """exp(x^2) erfc(x), without overflow for large x (asymptotic series beyond 26)."""
    if x < 26.0:
        return math.exp(x * x) * math.erfc(x)
    inv = 1.0 / (x * x)
    return (1.0 - 0.5 * inv + 0.75 * inv * inv - 1.875 * inv ** 3) / (x * math.sqrt(math.pi))


def _log_ndtr(t: float) -> float:
    """ln Phi(t), stable in both tails."""
    if t > -5.0:
        return math.log(0.5 * math.erfc(-t / _SQRT2))
    return math.log(0.5 * _erfcx(-t / _SQRT2)) - 0.5 * t * t


def _v_ratio(t: float) -> float:
    """phi(t) / Phi(t), via erfcx so that it stays finite for very negative t."""
    return _SQRT_2_OVER_PI / _erfcx(-t / _SQRT2)


def _up(tau: float, rho: float, beta_sq: float) -> tuple[float, float]:
    """The message a Gaussian (tau, rho) on x_{i+1} sends to x_i through N(x_{i+1}; x_i, beta_sq)."""
    d = 1.0 + beta_sq * tau
    return tau / d, rho / d


def _down(tau: float, rho: float, beta_sq: float) -> tuple[float, float]:
    """A proper Gaussian (tau, rho) on x_i convolved with N(0, beta_sq): the belief it gives x_{i+1}."""
    var = 1.0 / tau + beta_sq
    return 1.0 / var, (rho / tau) / var


class HierGaussPrior(LeafPrior):
    """The hierarchical Gaussian pattern model with exact belief propagation along the stack.

    Each seen pattern stores b = (tau, rho), the natural parameters of every message it receives from
    below: the observations of y (level 7) or its children's messages (levels 0..6). Unseen patterns
    have b = 0 and so inherit their ancestors' belief with variance widened by the beta_i^2.
    """

    name = "hier"

    def __init__(self, mu0: float = 0.0, sigma0_sq: float = 1.0, beta_sq: Sequence[float] = (0.25,) * 7,
                 k_virtual: int = 0, clip: Optional[float] = None, weight_cap: Optional[float] = None,
                 scale: float = 1.0, shift: float = 0.0):
        beta_sq = [float(b) for b in beta_sq]
        if len(beta_sq) != N_SIZES - 1 or min(beta_sq) <= 0:
            raise ValueError(f"beta_sq must hold {N_SIZES - 1} positive variances")
        if sigma0_sq <= 0:
            raise ValueError("sigma0_sq must be positive")
        if k_virtual < 0:
            raise ValueError("k_virtual must be >= 0")
        self._check_common(clip, weight_cap, scale, shift)
        self.mu0, self.sigma0_sq = float(mu0), float(sigma0_sq)
        self.scale, self.shift = float(scale), float(shift)
        self.beta_sq = beta_sq
        self.k_virtual = int(k_virtual)
        self.clip, self.weight_cap = clip, weight_cap
        self.b_: dict[int, list[float]] = {}         # pattern key -> [tau, rho] from below
        self.parent_: dict[int, int] = {}            # pattern key -> its parent's key (level >= 1)
        self.level_: dict[int, int] = {}             # pattern key -> template size 0..7
        self._cache: dict[int, float] = {}

    # --- inference ---

    def belief(self, stack: Sequence[int]) -> tuple[float, float]:
        """(mu_y, sigma_y^2): the predictive Gaussian of the move value y for this stack."""
        tau, rho = 1.0 / self.sigma0_sq, self.mu0 / self.sigma0_sq
        b = self.b_
        zero = (0.0, 0.0)
        for i in range(N_SIZES):
            bi = b.get(int(stack[i]), zero)
            tau, rho = tau + bi[0], rho + bi[1]             # marginal of x_i
            if i == N_SIZES - 1:
                break
            child = b.get(int(stack[i + 1]), zero)
            mt, mr = _up(child[0], child[1], self.beta_sq[i])
            tau, rho = _down(tau - mt, rho - mr, self.beta_sq[i])   # cavity, then down the edge
        return rho / tau, 1.0 / tau + 1.0

    def p_true(self, stack: Sequence[int]) -> float:
        mu, var = self.belief(stack)
        return 0.5 * math.erfc(-mu / math.sqrt(var) / _SQRT2)

    def logodds(self, keys: np.ndarray, role: int) -> np.ndarray:
        return self._cached_logodds(keys)

    def _stack_logodds(self, stack: Sequence[int]) -> float:
        mu, var = self.belief(stack)
        t = mu / math.sqrt(var)
        return _log_ndtr(t) - _log_ndtr(-t)


    # --- learning ---

    def update(self, stack: Sequence[int], value: bool, weight: float = 1.0) -> tuple[float, float]:
        """One ADF step for an observed d (TRUE: y > 0). Returns the message (tau, rho) sent to y."""
        stack = [int(k) for k in stack]
        s = 1.0 if value else -1.0
        mu, var = self.belief(stack)
        sd = math.sqrt(var)
        t = s * mu / sd
        v = _v_ratio(t)
        w = min(max(v * (v + t), 0.0), 1.0 - 1e-12)
        mu_new = mu + s * sd * v
        var_new = var * (1.0 - w)
        tau_y = 1.0 / var_new - 1.0 / var
        rho_y = mu_new / var_new - mu / var
        tau_x, rho_x = tau_y / (1.0 + tau_y), rho_y / (1.0 + tau_y)   # through y ~ N(x_7, 1)
        self._add(stack, N_SIZES - 1, weight * tau_x, weight * rho_x)
        return tau_y, rho_y

    def _add(self, stack: list[int], level: int, dtau: float, drho: float) -> None:
        """Add (dtau, drho) to b of stack[level] and refresh the messages up to the root."""
        b = self.b_
        for i in range(level, -1, -1):
            key = stack[i]
            bi = b.get(key)
            if bi is None:
                bi = b[key] = [0.0, 0.0]
                self.level_[key] = i
                if i > 0:
                    self.parent_[key] = stack[i - 1]
            old = _up(bi[0], bi[1], self.beta_sq[i - 1]) if i > 0 else None
            bi[0] += dtau
            bi[1] += drho
            if i == 0:
                break
            new = _up(bi[0], bi[1], self.beta_sq[i - 1])
            dtau, drho = new[0] - old[0], new[1] - old[1]

    def observe(self, keys: np.ndarray, roles: np.ndarray, values: np.ndarray) -> None:
        keys = self._check_keys(keys)
        w = self._weight(len(keys))
        for stack, value in zip(keys.tolist(), np.asarray(values, dtype=bool).tolist()):
            if self.k_virtual and stack[-1] not in self.b_:
                for _ in range(self.k_virtual):   # "as if p = 0.5 had been observed": one TRUE, one FALSE
                    self.update(stack, True)
                    self.update(stack, False)
            self.update(stack, value, w)
        self._cache.clear()

    def _build_kernel(self) -> PriorKernel:
        n = len(self.b_)
        keys = np.fromiter(self.b_.keys(), dtype=np.uint64, count=n)
        b = np.array(list(self.b_.values()), dtype=np.float64).reshape(-1, 2)
        level = np.fromiter((self.level_[k] for k in self.b_), dtype=np.int64, count=n)
        return PriorKernel.hier(keys, b, level, self.mu0, self.sigma0_sq, self.beta_sq, self.clip, self.scale,
                                self.shift)

    def marginals(self) -> dict[int, tuple[float, float]]:
        """Posterior (mean, variance) of every stored pattern's latent value x (top-down pass)."""
        by_level: list[list[int]] = [[] for _ in range(N_SIZES)]
        for key, level in self.level_.items():
            by_level[level].append(key)
        marg: dict[int, tuple[float, float]] = {}     # natural parameters
        prior = (1.0 / self.sigma0_sq, self.mu0 / self.sigma0_sq)
        for level in range(N_SIZES):
            for key in by_level[level]:
                bt, br = self.b_[key]
                if level == 0:
                    down = prior
                else:
                    pt, pr = marg[self.parent_[key]]
                    mt, mr = _up(bt, br, self.beta_sq[level - 1])
                    down = _down(pt - mt, pr - mr, self.beta_sq[level - 1])
                marg[key] = (down[0] + bt, down[1] + br)
        return {k: (r / t, 1.0 / t) for k, (t, r) in marg.items()}

    def fit_beta_sq(self, floor: float = 1e-3) -> list[float]:
        """Method of moments for beta_i^2 (ours; the paper says "estimated empirically"): the mean
        squared difference between each level-(i+1) pattern's posterior mean and its parent's."""
        marg = self.marginals()
        out = []
        for i in range(N_SIZES - 1):
            diffs = [(marg[k][0] - marg[self.parent_[k]][0]) ** 2
                     for k, lv in self.level_.items() if lv == i + 1]
            out.append(max(floor, float(np.mean(diffs))) if diffs else self.beta_sq[i])
        return out

    def n_patterns(self) -> int:
        return len(self.b_)

    # --- files ---

    def params(self) -> dict[str, Any]:
        return {"mu0": self.mu0, "sigma0_sq": self.sigma0_sq, "beta_sq": self.beta_sq,
                "k_virtual": self.k_virtual, "clip": self.clip, "weight_cap": self.weight_cap,
                "scale": self.scale, "shift": self.shift}

    def arrays(self) -> dict[str, np.ndarray]:
        keys = list(self.b_)
        return {"keys": np.array(keys, dtype=np.uint64),
                "b": np.array([self.b_[k] for k in keys], dtype=np.float64).reshape(-1, 2),
                "level": np.array([self.level_[k] for k in keys], dtype=np.int8),
                "parent": np.array([self.parent_.get(k, 0) for k in keys], dtype=np.uint64)}

    def _set_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        keys, b, level, parent = arrays["keys"], arrays["b"], arrays["level"], arrays["parent"]
        n = len(keys)
        if keys.dtype != np.uint64 or b.shape != (n, 2) or level.shape != (n,) or parent.shape != (n,):
            raise ValueError("arrays do not match")
        if n and (level.min() < 0 or level.max() >= N_SIZES):
            raise ValueError("levels out of range")
        self.b_ = {int(k): [float(t), float(r)] for k, (t, r) in zip(keys.tolist(), b.tolist())}
        self.level_ = {int(k): int(lv) for k, lv in zip(keys.tolist(), level.tolist())}
        self.parent_ = {int(k): int(p) for k, p, lv in zip(keys.tolist(), parent.tolist(), level.tolist()) if lv > 0}


LEAF_PRIORS: dict[str, type[LeafPrior]] = {"uniform": UniformPrior, "beta": BetaPrior, "hier": HierGaussPrior}

# Search log-odds logit(0.1) + scale * (the model's log-odds): learned beliefs centred on the uniform leaf
# prior that suits best-first proof search and damped against the over-confidence that the independence
# of siblings adds. The best settings of B2 over 5 splits (bench/results/tactics_b2_5seeds_local.json), for
# the local move generator only: with the region generator (every empty point of the problem, tens of moves
# per node) these damped priors lose to the plain hierarchical model, and a sharper one (scale 1.5, no
# shift) does best (bench/results/tactics_b2_3seeds_region_hier_0obs-hier_consistent-hier_cal-
# hier_consistent_sharp.json).
CALIBRATED: dict[str, dict[str, float]] = {
    "beta": {"shift": math.log(0.1 / 0.9), "scale": 0.5},
    "hier": {"shift": math.log(0.1 / 0.9), "scale": 0.3},
}


def make_leaf_prior(name: str, **params) -> LeafPrior:
    """A leaf prior by registry name; unknown names and bad parameters are ValueErrors."""
    cls = LEAF_PRIORS.get(name)
    if cls is None:
        raise ValueError(f"unknown tactics prior {name!r}; choose one of {sorted(LEAF_PRIORS)}")
    try:
        return cls(**params)
    except TypeError as e:
        raise ValueError(f"bad parameters for the {name!r} prior: {e}") from None


def load_leaf_prior(path: str | Path) -> LeafPrior:
    """The leaf prior saved in a model file, of whichever kind it holds (`LeafPrior.save`)."""
    arrays, header = read_model(path)
    cls = LEAF_PRIORS.get(header.get("kind"))
    if cls is None:
        raise ModelError(f"{path}: holds a {header.get('kind')!r} model, not a leaf prior; "
                         f"expected one of {sorted(LEAF_PRIORS)}")
    return cls._from_file(path, header, arrays)
