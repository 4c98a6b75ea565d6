"""The `pbn` prior: Cortigo's pyramidal Bayes nets over board regions (Michalowski, Boddy & Neilsen 2011).

Modules in dependency order:
- `network`   the pyramid's layout: 3x3 fields overlapping by one point, padded per level
- `regions`   the corner and edge-strip regions in their 8 orientations; samples from positions
- `em`        latent-class EM per subnet and the bottom-up, level-by-level training of one pyramid
- `model`     `PBNPrior` (registered as "pbn"), `PBNHyperparameters`, `RegionModel` (inference)
- `train`     the fitting step of `python -m priors.training.train`: samples from the archives, one model per
              (region, s), resumable

The paper's prediction trends on held-out games are a bench: `python -m bench.pbn_trends`.
"""
from priors.pbn.model import PBNHyperparameters, PBNPrior

__all__ = ["PBNHyperparameters", "PBNPrior"]
