"""The MM fitting step of `python -m priors.training.train`: one progress-bar step and one curve point
per sweep."""
from __future__ import annotations

import sys

import numpy as np
from tqdm import tqdm

from priors import features
from priors.groups import group_offsets
from priors.mm.model import MMHyperparameters, MMPrior, score
from priors.training.extraction import TrainingData

UNIT = "sweeps"


def sweep_recorder(validation, offsets: np.ndarray, curve: list[dict], bar: tqdm):
    """The MM callback that appends a curve point per sweep (validation top-1 and log-likelihood when
    there are validation competitions) and shows it on the progress bar."""
    def on_sweep(sweep: int, loglik: float, gammas: np.ndarray) -> None:
        point = {"sweep": sweep, "train_loglik": round(float(loglik), 5)}
        if validation is not None and len(validation):
            ll, rank = score(validation, gammas, offsets)
            point.update(val_loglik=round(float(ll.mean()), 5), val_top1=round(float((rank == 1).mean()), 5))
        curve.append(point)
        bar.set_postfix({k: v for k, v in point.items() if k != "sweep"})
        bar.update(1)
    return on_sweep


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
