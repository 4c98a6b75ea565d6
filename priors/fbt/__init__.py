"""The `fbt` prior: Xiao & Müller's factorization Bradley-Terry over the shared features.

- `model`     `FBTPrior` (registered as "fbt") and `FBTHyperparameters`, the `fbt` section of a training config
- `_kernels`  the hot loops (Cython): energies, gradients, SGD epochs, scoring
- `train`     the fitting step `priors.training.train` runs, with a progress bar per epoch
"""
from priors.fbt.model import FBTHyperparameters, FBTPrior

__all__ = ["FBTHyperparameters", "FBTPrior"]
