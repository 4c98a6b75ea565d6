"""The uniform prior: the trivial model that tests and baselines lean on. It has no hyperparameters
and fits nothing; its model file is a header alone."""
from __future__ import annotations

import numpy as np

from priors.base import Prior, register


@register("none")
class UniformPrior(Prior):
    """Every legal move and pass equally likely."""

    def evaluate(self, board, color: int) -> np.ndarray:
        legal = board.legal_points(color)
        p = np.zeros(legal.size + 1, dtype=np.float32)
        p[:-1][legal] = 1.0
        p[-1] = 1.0
        return p / p.sum()
