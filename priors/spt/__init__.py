"""The `spt` prior: Tidwell's (2012) forests of spatial probability trees.

- `_kernels`  the hot loops (Cython): cell codes, summed-area tables, window counts, split scores, the
              forest's table of a board (nogil)
- `growth`    local examples and GrowSPT: one tree from a pool of positions
- `model`     `SPTPrior` (registered as "spt") and `SPTHyperparameters`, the `spt` section of a training config
- `train`     the growing step `priors.training.train` runs: the pool of training positions, a progress bar per
              tree, each tree kept on disk as it finishes so that a run resumes
- `scoring`   batch top-k of forests on a fixed sample of test positions (the thesis's parameter study,
              `python -m bench.spt_study`, scores with it)
"""
from priors.spt.model import SPTHyperparameters, SPTPrior

__all__ = ["SPTHyperparameters", "SPTPrior"]
