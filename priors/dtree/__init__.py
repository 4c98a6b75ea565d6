"""The `dtree` prior: decision forests over the stone and intersection graphs around a move, whose
leaves are feature levels weighted by MM with the shared features (van Niekerk 2014; the MM fitting is
`priors.bradley_terry`, shared with `mm`).

- `_kernels`  the graphs, the queries, descents and online growth of the trees (Cython)
- `model`     `DTreePrior` (registered as "dtree") and `DTreeHyperparameters`, the `dtree` section
              of a training config
- `train`     the growing and fitting step `priors.training.train` runs, with progress bars, resumable
"""
from priors.dtree.model import DTreeHyperparameters, DTreePrior

__all__ = ["DTreeHyperparameters", "DTreePrior"]
