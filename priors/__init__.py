"""What plays: the move priors behind one interface and the features they share; training apart, in
`training/`.

A move prior maps a position to a probability per point (pass last). Each kind is a subpackage whose
class registers itself by name (`@register`), found by `priors.base.registered()` without any list:
a new prior is one folder here (its model, kernels and trainer) and one preset in `configs/`. This
package knows Go only through `engine.board` (and `engine.ladder`, `engine.modelfile`); it knows nothing
of the search, of GTP or of the benches. The tactical solver's leaf priors live with the solver
(`engine.tactics`). Modules, in dependency order:

- `modelfile`      `engine.modelfile`'s `.npz` + JSON header files, and the fields trained priors add
- `base`           the `Prior` interface, its model-file header, `register`, the registry and its
                   discovery, `load_prior`
- `features`       the move features shared by training and play (Cython, nogil)
- `patterns`       large circular patterns: harvesting and the matched set
- `groups`         the feature-group layout the models share (named sets, parameter blocks)
- `training/`      the pipeline every trainer shares: positions from the archives, competitions, configs,
                   extraction and its cache; `python -m priors.training.train CONFIG.yaml`
- `bradley_terry`  Coulom's generalized Bradley-Terry model and its MM fitting (kernel: `_bradley_terry`),
                   shared by `mm/` and `dtree/`
- `uniform/`       the `none` prior: every legal move alike
- `mm/`            the `mm` prior: Coulom's minorization-maximization
- `dtree/`         the `dtree` prior: van Niekerk's decision forests, their leaves weighted by MM
- `fbt/`           the `fbt` prior: Xiao & Müller's factorization Bradley-Terry
- `spt/`           the `spt` prior: Tidwell's spatial probability trees
- `pbn/`           the `pbn` prior: Michalowski et al.'s pyramidal Bayes nets over corners and edges
- `product/`       the `product` prior: a product of experts over other priors, weights fitted on
                   validation games

`models/` holds the trained model files the presets load.
"""
