"""Training: the pipeline shared by every prior's trainer, from expert game archives to a model file.

`python -m priors.training.train CONFIG.yaml` fits whichever registered prior `model:` names; the
fitting step itself is that prior's own `train` module, in its subpackage, found by `trainconfig.trainer`
without a list naming it. Play never needs this package to evaluate a loaded model; the models' `fit`
hooks use its positions and competitions. It knows nothing of the search, GTP or the benches.
Modules, in dependency order:

- `dataset`       positions streamed from the expert game archives: split, sampling, symmetries
- `competitions`  positions as generalized Bradley-Terry competitions, stored compactly (and their files)
- `trainconfig`   training configs, checked key by key, and each prior's trainer module
- `extraction`    games to patterns and competitions, in chunks on a process pool or a Dask cluster
- `datacache`     the extracted training data kept under `cache_dir` and read back
- `train`         `python -m priors.training.train CONFIG.yaml`: extract, fit, write the model file (its
                  accuracy on unseen games: `python -m bench.predict`)
"""
