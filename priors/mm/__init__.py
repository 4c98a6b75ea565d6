"""The `mm` prior: Coulom's minorization-maximization over the shared features.

- `model`     `MMPrior` (registered as "mm") and `MMHyperparameters`, the `mm` section of a training config
- `_kernels`  the hot loops (Cython): team strengths, the per-group MM sums, scoring
- `train`     the fitting step `priors.training.train` runs, with a progress bar per sweep
"""
from priors.mm.model import MMHyperparameters, MMPrior

__all__ = ["MMHyperparameters", "MMPrior"]
