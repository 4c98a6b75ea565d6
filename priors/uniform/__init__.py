"""The `none` prior: every legal move and pass equally likely.

- `model`     `UniformPrior` (registered as "none")
"""
from priors.uniform.model import UniformPrior

__all__ = ["UniformPrior"]
