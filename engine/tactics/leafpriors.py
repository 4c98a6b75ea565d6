"""The solver's leaf priors by name: the registry that `reading.prior` and the B2 bench choose from,
the calibrated settings of the untrained models, and a model file's prior of whichever kind.

Modules of the leaf priors, in dependency order: `leafprior` (the interface, the uniform prior),
`betaprior`, `gaussprior`, and this one.
"""
from __future__ import annotations

import math
from pathlib import Path

from engine.modelfile import ModelError, read_model
from engine.tactics.betaprior import BetaPrior
from engine.tactics.gaussprior import HierGaussPrior
from engine.tactics.leafprior import LeafPrior, UniformLeafPrior

__all__ = ["CALIBRATED", "LEAF_PRIORS", "BetaPrior", "HierGaussPrior", "LeafPrior", "UniformLeafPrior",
           "load_leaf_prior", "make_leaf_prior"]

LEAF_PRIORS: dict[str, type[LeafPrior]] = {"uniform": UniformLeafPrior, "beta": BetaPrior, "hier": HierGaussPrior}

# Search log-odds logit(0.1) + scale * (the model's log-odds): learned beliefs centred on the uniform leaf
# prior that suits best-first proof search and damped against the over-confidence that the independence
# of siblings adds. The best settings of B2 over 5 splits (`beta_1_cal` and `hier_cal_03` in the record
# bench/results/tactics/b2-local/), for the local move generator only: with the region generator (every
# empty point of the problem, tens of moves per node) these damped priors lose to the plain hierarchical
# model and to a sharper one (scale 1.5, no shift; bench/results/tactics/b2-region-sharp/). The study:
# bench/studies/tactics.md, B2.
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
