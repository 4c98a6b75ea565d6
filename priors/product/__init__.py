"""The `product` prior: a product of experts over other priors' model files, P(m) proportional to
prod_k P_k(m)^w_k over the legal moves and pass, the weights fitted on validation games.

- `model`  `ProductPrior` (registered as "product"): the weights and the components' files and digests
- `fit`    `python -m priors.product.fit MODEL MODEL ... --out FILE`: maximum likelihood weights on the
           validation split
"""
from priors.product.model import ProductPrior

__all__ = ["ProductPrior"]
