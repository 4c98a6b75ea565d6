"""What plays: the move priors behind one interface, the features they share, and the tactical
solver's leaf priors; training apart, in `training/`.

A move prior maps a position to a probability per point (pass last). Each kind is a subpackage whose
class registers itself by name (`@register`), found by `priors.base.registered()` without any list:
a new prior is one folder here (its model, kernels and trainer) and one preset in `configs/`. This
package knows Go only through `engine.board` (and `engine.tactics` for the leaf priors' tables); it
knows nothing of the search, of GTP or of the benches. Modules, in dependency order:

- `modelfile`      `.npz` model files with a JSON header, read without pickles (every model kind)
- `base`           the `Prior` interface, its model-file header, `register`, the registry and its
                   discovery, `load_prior`
- `ladder`         a bounded, deterministic ladder reader (Cython, nogil)
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
- `leaf_priors`    the tactical solver's learned leaf priors (Beta, hierarchical Gaussian)

`models/` holds the trained model files the presets load.
"""
