"""Leaf priors of the tactical solver: the interface, its shared machinery and the uniform prior
(Stern, Herbrich & Graepel 2007, §4).

A leaf prior gives p(d(l)), the belief that an unexplored node is TRUE (the attacker captures), as
log-odds. Learned priors look at the move that made the node: its stack pi(l) of 8 nested exact
patterns T_0 (the move point) .. T_7 (37 points), keyed by `engine.tactics.pattern_keys` (roles, not
colours; the mover's role is folded into every key, so attacker and defender statistics never mix).

Interface (what `engine.tactics.Solver` calls):

- `logodds(keys, role) -> float64 (n,)` for the (n, 8) uint64 stacks of one node's new children;
- `observe(keys, roles, values)` after a search ends solved, with every solved non-root node;
- `kernel() -> PriorKernel`: the model's table for the C search (the same log-odds to the bit,
  without a Python call per node), cached until the model changes.

Over-fitting controls shared by the learned models (§5.2, Fig. 8): `clip` (prior log-odds limited to
+-clip, so that no move is ever written off) and `weight_cap` (a search's many correlated observations
count as at most `weight_cap` in total).

Calibration for the search: the leaf log-odds the search uses are `scale * x + shift` of the model's
(clipped) x. A calibrated P(TRUE) is not the best leaf belief for best-first search, whose AND/OR
rules assume independent siblings and so grow over-confident at nodes with many moves: a lower
neutral belief (shift < 0, as a uniform prior of 0.1 beats 0.5) and damped differences (scale < 1)
counter that. The defaults (1, 0) are the paper's model.

Model files use `engine.modelfile` (header keys `params` and `info`).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, ClassVar, Optional

import numpy as np

from engine.modelfile import ModelError, load_model, save_model
from engine.tactics.leafkernel import PriorKernel

N_SIZES = 8
_KERNEL = -1          # the cached PriorKernel's slot in `_cache` (pattern keys are >= 0)


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


class UniformLeafPrior(LeafPrior):
    """p(d(l)) = p for every leaf (the paper's §5.1 uses 0.5)."""

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
