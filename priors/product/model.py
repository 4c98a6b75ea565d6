"""A product of experts: each component prior's distribution raised to its weight, multiplied, and
normalised over the legal moves and pass. A weight of 0 leaves a component out; with one component at
weight 1 the product is that component. The weights are the maximum-likelihood ones on positions the
components did not learn from (`priors.product.fit` takes validation games); the log-likelihood is
concave in the weights, so scipy's L-BFGS-B finds its optimum. A model file holds every component whole
(its arrays under `<k>.<name>`, its header in `components`), so it reads back without other files.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from priors.base import Prior, prior_class, register, registered, require
from priors.modelfile import ModelError

FLOOR = 1e-12          # a component's zero on a legal move counts as this probability


@dataclass(frozen=True)
class ProductHyperparameters:
    components: tuple = ("mm", "fbt")    # the component priors `fit` trains on the same positions

    def __post_init__(self) -> None:
        names = tuple(self.components)
        require(len(names) >= 1 and all(n in registered() and n != "product" for n in names),
                "product.components", "one or more registered priors other than product", self.components)


@dataclass
class Case:
    """One position: each component's log-probabilities over the legal moves and pass (K, M), and the
    column of the expert move."""
    logs: np.ndarray
    expert: int


@register("product")
class ProductPrior(Prior):
    """Fitted: `components_` (the component priors) and `weights_` (one per component)."""

    Hyper = ProductHyperparameters
    HEADER_KEYS = frozenset({"components"})

    def __init__(self, hyper: ProductHyperparameters | None = None):
        super().__init__(hyper)
        self.components_: list[Prior] = []
        self.weights_ = np.zeros(0)

    @classmethod
    def of(cls, components: Sequence[Prior], weights: Sequence[float]) -> "ProductPrior":
        """The product of fitted components with these weights."""
        if len(components) == 0 or len(components) != len(weights):
            raise ValueError("a product needs a component, and one weight per component")
        if not all(np.isfinite(w) and w >= 0 for w in weights):
            raise ValueError(f"product weights must be finite and >= 0, got {list(weights)}")
        prior = cls(ProductHyperparameters(tuple(c.name for c in components)))
        prior.components_ = list(components)
        prior.weights_ = np.asarray(weights, dtype=np.float64)
        return prior

    # --- training ---
    def fit(self, positions: Iterable, patterns: Any = None) -> "ProductPrior":
        """Fit each component on the positions, then the weights on the same positions."""
        positions = list(positions)
        self.components_ = [prior_class(n)(prior_class(n).Hyper()).fit(positions, patterns)
                            for n in self.hyper.components]
        self.weights_ = fit_weights([case_of(self.components_, p.board, p.to_play, p.move_index)
                                     for p in positions])
        return self

    # --- prediction ---
    def evaluate(self, board, color: int) -> np.ndarray:
        legal, logs = log_tables(self.components_, board, color)
        z = np.where(legal, self.weights_ @ logs, -np.inf)
        p = np.exp(z - z[legal].max())
        return (p / p.sum()).astype(np.float32)

    # --- model file ---
    def arrays(self) -> dict[str, np.ndarray]:
        out = {"weights": self.weights_}
        for k, c in enumerate(self.components_):
            out.update({f"{k}.{name}": a for name, a in c.arrays().items()})
        return out

    def metadata(self) -> dict[str, Any]:
        return {"components": [{"kind": c.name, **c.header()} for c in self.components_]}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], metadata: dict[str, Any],
                    hyper: ProductHyperparameters) -> "ProductPrior":
        """The components from their own headers and arrays (`hyper` names them again)."""
        headers, weights = metadata.get("components"), arrays.get("weights")
        if not isinstance(headers, list) or not headers or weights is None or weights.shape != (len(headers),):
            raise ModelError("a product model needs its components and one weight for each")
        components = []
        for k, header in enumerate(headers):
            kind = header.get("kind") if isinstance(header, dict) else None
            if kind not in registered() or kind == "product":
                raise ModelError(f"product component {k} of kind {kind!r}, which no prior reads")
            own = {name[len(f"{k}."):]: a for name, a in arrays.items() if name.startswith(f"{k}.")}
            components.append(registered()[kind].from_header(own, header))
        try:
            prior = cls.of(components, weights)
        except ValueError as err:
            raise ModelError(str(err)) from None
        return prior


def log_tables(components: Sequence[Prior], board, color: int) -> tuple[np.ndarray, np.ndarray]:
    """(the legal moves and pass (N*N+1,), each component's log-probabilities over all of them (K, N*N+1))."""
    logs = np.log(np.maximum([c.evaluate(board, color) for c in components], FLOOR))
    return np.append(board.legal_points(color), True), logs


def case_of(components: Sequence[Prior], board, color: int, move_index: int) -> Case | None:
    """The components' log-tables of one position over its legal moves and pass; None if the expert
    move is not legal there."""
    legal, logs = log_tables(components, board, color)
    if not legal[move_index]:
        return None
    return Case(logs[:, legal], int(np.count_nonzero(legal[:move_index])))


def loglik(weights: np.ndarray, cases: Sequence[Case]) -> tuple[float, np.ndarray]:
    """Mean log-likelihood of the expert moves under the product, and its gradient in the weights."""
    total, grad = 0.0, np.zeros(len(weights))
    for case in cases:
        z = weights @ case.logs
        z = z - z.max()
        p = np.exp(z)
        s = p.sum()
        total += z[case.expert] - np.log(s)
        grad += case.logs[:, case.expert] - case.logs @ (p / s)
    return total / len(cases), grad / len(cases)


def top1(weights: np.ndarray, cases: Sequence[Case]) -> float:
    """Share of positions whose expert move alone has the highest probability (ties count against it)."""
    hits = sum(int(np.count_nonzero((z := weights @ c.logs) >= z[c.expert]) == 1) for c in cases)
    return hits / len(cases)


def fit_weights(cases: Sequence[Case | None]) -> np.ndarray:
    """The maximum-likelihood weights (all >= 0) over the cases, starting from all ones."""
    from scipy.optimize import minimize      # here: the engine loads every prior at start-up, and plays without it
    cases = [c for c in cases if c is not None]
    if not cases:
        raise ValueError("no positions to fit the product's weights on")
    k = cases[0].logs.shape[0]
    result = minimize(lambda w: tuple(-v for v in loglik(w, cases)), np.ones(k), jac=True,
                      method="L-BFGS-B", bounds=[(0.0, None)] * k)
    return result.x
