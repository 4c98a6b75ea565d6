"""The FBT/LFR fitting step of `python -m priors.training.train`: one progress-bar step and one curve
point per epoch."""
from __future__ import annotations

import sys

from tqdm import tqdm

from priors.fbt.model import FBTHyperparameters, FBTPrior
from priors.training.extraction import TrainingData

UNIT = "epochs"


def fit(hyper: FBTHyperparameters, data: TrainingData) -> tuple[FBTPrior, list[dict], dict]:
    """FBT or LFR with a point per epoch; early stopping keeps the best validation epoch, the point returned."""
    prior = FBTPrior(hyper)
    curve: list[dict] = []
    label = "FBT" if hyper.loss == "softmax" else "LFR"
    bar = tqdm(total=hyper.max_epochs, desc=f"{label}{hyper.k}", unit="epoch", file=sys.stderr,
               dynamic_ncols=True)

    def on_epoch(point: dict) -> None:
        point = {k: (round(v, 5) if isinstance(v, float) else v) for k, v in point.items()}
        curve.append(point)
        bar.set_postfix({k: v for k, v in point.items() if k != "epoch"})
        bar.update(1)

    validation = data.validation if data.validation is not None and len(data.validation) else None
    prior.fit_competitions(data.comps, data.patterns, validation, on_epoch)
    bar.close()
    return prior, curve, curve[prior.info_["best_epoch"] - 1] if curve else {}
