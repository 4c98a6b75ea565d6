"""Move-prediction priors behind one interface, with their shared features and training.

Every model maps a position to a probability per point (pass last) and is registered by name in
`priors.base.PRIORS`. The engine asks a prior only when it expands a node. Modules:

- `base`   the `Prior` interface, the `none` (uniform) prior, the registry, `.npz` model files
"""
