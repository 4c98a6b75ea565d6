"""The Beta leaf prior (Stern, Herbrich & Graepel 2007, §4.2, "Beta model"): Bernoulli leaf values
with a Beta prior on the largest pattern of the stack observed at least once; the predictive is
alpha / (alpha + beta), and every solved node adds one count to each of its 8 patterns. Large
alpha0 = beta0 make a peaked prior, an over-fitting control (§5.2).
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from engine.tactics.leafkernel import PriorKernel
from engine.tactics.leafprior import N_SIZES, LeafPrior


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
