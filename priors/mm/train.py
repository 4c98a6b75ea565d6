"""The MM fitting step of `python -m priors.training.train`: one progress-bar step and one curve point
per sweep."""
from __future__ import annotations

import sys

from tqdm import tqdm

from priors import features
from priors.bradley_terry import sweep_recorder
from priors.groups import group_offsets
from priors.mm.model import MMHyperparameters, MMPrior
from priors.training.extraction import TrainingData

UNIT = "sweeps"


def fit(hyper: MMHyperparameters, data: TrainingData) -> tuple[MMPrior, list[dict], dict]:
    """MM with a point per sweep; the model is the last sweep's, which is the point returned."""
    patterns, validation = data.patterns, data.validation
    prior = MMPrior(hyper)
    curve: list[dict] = []
    bar = tqdm(total=hyper.n_iterations, desc="MM", unit="sweep", file=sys.stderr, dynamic_ncols=True)
    offsets = group_offsets(features.level_counts(len(patterns) if patterns is not None else 0))
    # The callback scores the gammas at the end of each sweep; the last point is the saved model.
    prior.fit_competitions(data.comps, patterns, sweep_recorder(validation, offsets, curve, bar))
    bar.close()
    return prior, curve, curve[-1] if curve else {}


def report(prior: MMPrior, log=print) -> None:
    """The trained gammas of each small feature group, level 1 first."""
    log("gammas per level (level 1 first):")
    table = prior.gamma_table()
    for name in features.GROUPS:
        if name in ("pat3", "pattern") or name not in prior.hyper.groups:
            continue
        log(f"  {name:11s} " + " ".join(f"{g:.2f}" for g in table[name][1:]))
