"""Learned models: the move priors behind one interface, their shared features and training.

A move prior maps a position to a probability per point (pass last). Each kind is a subpackage whose
class registers itself by name (`@register`), found by `priors.base.registered()` without any list:
a new prior is one folder here and one preset in `configs/`. This package knows Go only through
`engine.board` (and `engine.ladder`, `engine.modelfile`); it knows nothing of the search or of GTP. The
tactical solver's leaf priors live with the solver (`engine.tactics`). Modules, in dependency order:

- `modelfile`     `engine.modelfile`'s `.npz` + JSON header files, and the fields trained priors add
- `base`          the `Prior` interface, `register`, the registry and its discovery, `load_prior`
- `dataset`       positions streamed from the expert game archives: split, sampling, symmetries
- `features`      the move features shared by training and play (Cython, nogil)
- `groups`        the feature-group layout the models share (named sets, parameter blocks)
- `patterns`      large circular patterns: harvesting and the matched set
- `competitions`  positions as generalized Bradley-Terry competitions, stored compactly (and their files)
- `uniform/`      the `none` prior: every legal move alike
- `mm/`           the `mm` prior: Coulom's minorization-maximization
- `fbt/`          the `fbt` prior: Xiao & Müller's factorization Bradley-Terry
- `product/`      the `product` prior: a product of experts over other priors, weights fitted on validation games
- `trainconfig`   training configs, checked key by key, and each prior's trainer module
- `extraction`    games to patterns and competitions, in chunks on a process pool or a Dask cluster
- `datacache`     the extracted training data kept under `cache_dir` and read back
- `train`         `python -m priors.train CONFIG.yaml`, fitting whichever prior `model:` names (its accuracy
                  on unseen games: `python -m bench.predict`)
"""
