"""The hierarchical Gaussian leaf prior (Stern, Herbrich & Graepel 2007, §4.2).

Pattern values x_i along T_0 .. T_7 with x_{i+1} | x_i ~ N(x_i, beta_i^2), a move value y ~ N(x_7, 1)
and d = (y > 0), so P(TRUE) = Phi(mu_y / sigma_y). Nested templates make the patterns a tree, so belief
propagation is exact and costs O(8) per query; a solved node's d updates y by assumed-density
filtering (moment matching) and the message climbs the stack. `k_virtual` pseudo observations of
p = 0.5 per new pattern make the prior peaked, an over-fitting control (§5.2).
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from engine.tactics.leafkernel import PriorKernel
from engine.tactics.leafprior import N_SIZES, LeafPrior

_SQRT2 = math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


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
        tau_y, rho_y = self._message(stack, value)
        self._add_y(stack, tau_y, rho_y, weight)
        return tau_y, rho_y

    def _message(self, stack: list[int], value: bool) -> tuple[float, float]:
        """The ADF message (tau, rho) to y of an observed d, from the stack's present belief."""
        s = 1.0 if value else -1.0
        mu, var = self.belief(stack)
        sd = math.sqrt(var)
        t = s * mu / sd
        v = _v_ratio(t)
        w = min(max(v * (v + t), 0.0), 1.0 - 1e-12)
        mu_new = mu + s * sd * v
        var_new = var * (1.0 - w)
        return 1.0 / var_new - 1.0 / var, mu_new / var_new - mu / var

    def _add_y(self, stack: list[int], tau_y: float, rho_y: float, weight: float = 1.0) -> None:
        """A message to y, through y ~ N(x_7, 1), into b of the stack's largest pattern and up."""
        tau_x, rho_x = tau_y / (1.0 + tau_y), rho_y / (1.0 + tau_y)
        self._add(stack, N_SIZES - 1, weight * tau_x, weight * rho_x)

    def _virtual(self, stack: list[int]) -> None:
        """k_virtual observations of p = 0.5 (§5.2): each a TRUE and a FALSE whose messages are both taken
        from the same belief, so that neither goes first and the mean stays where it was (one after the
        other, the second would move it further: a FALSE after a TRUE leaves P(TRUE) below 0.5)."""
        for _ in range(self.k_virtual):
            up, down = self._message(stack, True), self._message(stack, False)
            self._add_y(stack, *up)
            self._add_y(stack, *down)

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
                self._virtual(stack)       # "as if p = 0.5 had been observed"
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
