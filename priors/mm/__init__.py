"""The `mm` prior: Coulom's minorization-maximization over the shared features (the model, its fitting
and their kernel are `priors.bradley_terry`, which `dtree` shares).

- `model`     `MMPrior` (registered as "mm") and `MMHyperparameters`, the `mm` section of a training config
- `train`     the fitting step `priors.training.train` runs, with a progress bar per sweep
"""
from priors.mm.model import MMHyperparameters, MMPrior

__all__ = ["MMHyperparameters", "MMPrior"]
