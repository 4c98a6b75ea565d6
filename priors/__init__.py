"""Move-prediction priors behind one interface, with their shared features and training.

Every model maps a position to a probability per point (pass last) and is registered by name in
`priors.base.PRIORS`. The engine asks a prior only when it expands a node. This package knows Go only
through `engine.board`; it knows nothing of the search or of GTP. Modules, in dependency order:

- `base`          the `Prior` interface, the `none` (uniform) prior, the registry, `.npz` model files
- `dataset`       positions streamed from the expert game archives: split, sampling, symmetries
- `ladder`        a bounded, deterministic ladder reader (Cython, nogil)
- `features`      the move features shared by training and play (Cython, nogil)
- `patterns`      large circular patterns: harvesting and the matched set
- `competitions`  positions as generalized Bradley-Terry competitions, stored compactly
- `mm`            the `mm` prior: Coulom's minorization-maximization (kernels in `_mm`)
- `fbt`           the `fbt` prior: Xiao & Müller's factorization Bradley-Terry (kernels in `_fbt`)
- `train`         `python -m priors.train CONFIG.yaml`
- `evaluate`      `python -m priors.evaluate MODEL --data DIR`: prediction accuracy and speed
"""
from priors import base
from priors.fbt import FBTPrior
from priors.mm import MMPrior

base.PRIORS.setdefault("mm", MMPrior)
base.PRIORS.setdefault("fbt", FBTPrior)
