"""The dtree step of `python -m priors.training.train`: grow the forest, build competitions with its columns,
fit the gammas by MM; a progress bar per stage and one curve point per MM sweep.

The trees grow from `growth_games` training games (a seeded choice of their own, `data.seed + 1`),
reading every position; the gammas are fitted on the config's `data` games and scored on its
`validation` games. Only the large patterns come from the shared extraction (`training_data`): the
competitions are dtree's own, with the tree columns, so the shared ones are never built. Each finished
stage (the patterns, the trees, then the competitions) is kept under `cache_dir` (see `stage_path`), so
that a rerun resumes after the last finished stage and the feature sets of one forest (`dtree.groups`)
share them.
"""
from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
from tqdm import tqdm

from priors import features
from priors.bradley_terry import sweep_recorder
from priors.dtree._kernels import Forest
from priors.dtree.model import DTreeHyperparameters, DTreePrior
from priors.training.competitions import Competitions, load_competitions, save_competitions
from priors.training.extraction import TrainingData, kept_harvest, make_executor, split_dataset, training_selection

UNIT = "sweeps"


def positions(dataset, bar: tqdm):
    for game_id, raw in dataset.games():
        yield from dataset.positions_of(game_id, raw)
        bar.update(1)


GROWTH_FIELDS = ("n_trees", "systems", "criterion", "growth_games", "growth_sample", "split_descents", "seed")


def stage_path(config, hyper: DTreeHyperparameters, stage: str) -> Path:
    """Where a finished stage is kept: under `cache_dir` (else next to the output), named by a hash of
    what it depends on. The trees depend on the growth settings and the data; the competitions also on
    the pattern and validation settings, not on the feature set fitted, so every set shares them."""
    what = {"growth": {k: getattr(hyper, k) for k in GROWTH_FIELDS}, "data": asdict(config.data)}
    if stage == "patterns":                # the harvest: the data and the pattern settings alone
        what = {"data": asdict(config.data), "patterns": asdict(config.patterns)}
    elif stage == "comps":
        what.update(patterns=asdict(config.patterns), validation=asdict(config.validation))
    digest = hashlib.sha256(json.dumps(what, sort_keys=True, default=list).encode()).hexdigest()[:16]
    folder = Path(config.cache_dir).expanduser() if config.cache_dir else Path(config.output).parent
    return folder / f"dtree-{stage}-{digest}"


def training_data(config, scheduler: str = "", log=print) -> TrainingData:
    """The large patterns of the training games and what the model file records of those games; no
    competitions (`fit` builds its own)."""
    train = split_dataset(config.data, "train", config.data.sample, config.data.max_games)
    selection = training_selection(config, train, log)
    executor = make_executor(config, scheduler)
    patterns, sizes = kept_harvest(config, executor, train, stage_path(config, config.hyper, "patterns"), log)
    if executor is not None:
        executor.shutdown()
    return TrainingData(None, None, patterns, {"training_data": {**selection, **sizes}}, config)


def grown_forest(prior: DTreePrior, config, log) -> None:
    """Grow the trees, or read them back from `<output>.forest.npz` written by the same settings."""
    path = stage_path(config, prior.hyper, "forest").with_suffix(".npz")
    if path.exists():
        saved = np.load(path, allow_pickle=False)
        prior.forest_ = Forest.from_arrays(saved["nodes"], saved["roots"], saved["systems"], saved["n_leaves"],
                                           prior.hyper.criterion, prior.hyper.split_descents)
        prior.finish_growth()
        prior.info_["growth"] = json.loads(str(saved["info"]))
        log(f"forest read from {path}")
        return
    hyper = prior.hyper
    games = split_dataset(replace(config.data, seed=config.data.seed + 1), "train", 1.0, hyper.growth_games)
    n_games = len(games.game_ids())
    started = time.time()
    prior.start_growth()
    with tqdm(total=n_games, desc="grow", unit="game", file=sys.stderr, dynamic_ncols=True) as bar:
        prior.grow(positions(games, bar))
    prior.finish_growth()
    prior.info_["growth"] = {"games": n_games, "positions": games.stats.positions,
                             "seconds": round(time.time() - started, 1),
                             "n_leaves": [int(n) for n in prior.forest_.n_leaves]}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, info=json.dumps(prior.info_["growth"]), **prior.forest_.arrays())
    log(f"forest: {sum(prior.forest_.n_leaves)} leaves in {hyper.n_trees} trees from {n_games} games "
        f"in {prior.info_['growth']['seconds']} s; kept in {path}")


def tree_competitions(prior: DTreePrior, config, data: TrainingData,
                      log) -> tuple[Competitions, Competitions | None, dict]:
    """Training and validation competitions with the tree columns and the training games' counts, or
    read back from their stage folder (folders written before the counts were kept have none)."""
    folder = stage_path(config, prior.hyper, "comps")
    if (folder / "done").exists():
        log(f"competitions read from {folder}")
        stats = json.loads((folder / "stats.json").read_text()) if (folder / "stats.json").exists() else {}
        return load_competitions(folder, "train"), load_competitions(folder, "val"), stats
    started = time.time()
    train = split_dataset(config.data, "train", config.data.sample, config.data.max_games)
    with tqdm(total=len(train.game_ids()), desc="features", unit="game", file=sys.stderr,
              dynamic_ncols=True) as bar:
        comps = prior.competitions(positions(train, bar), data.patterns)
    validation = None
    if config.validation.max_games > 0:
        val = split_dataset(config.data, "validation", config.validation.sample, config.validation.max_games)
        with tqdm(total=len(val.game_ids()), desc="validation", unit="game", file=sys.stderr,
                  dynamic_ncols=True) as bar:
            validation = prior.competitions(positions(val, bar), data.patterns)
    prior.info_["competition_seconds"] = round(time.time() - started, 1)
    folder.mkdir(parents=True, exist_ok=True)
    save_competitions(folder, "train", comps)
    if validation is not None:
        save_competitions(folder, "val", validation)
    stats = {"games": train.stats.games, "positions": train.stats.positions, "skipped": dict(train.stats.skipped)}
    (folder / "stats.json").write_text(json.dumps(stats))
    (folder / "done").write_text(json.dumps(prior.info_["competition_seconds"]))
    return comps, validation, stats


def fit(hyper: DTreeHyperparameters, data: TrainingData) -> tuple[DTreePrior, list[dict], dict]:
    """Grow, extract, then MM with a point per sweep; the model is the last sweep's."""
    config, log = data.config, (lambda text: print(text, file=sys.stderr))
    prior = DTreePrior(hyper)
    if hyper.n_trees:
        grown_forest(prior, config, log)
    comps, validation, stats = tree_competitions(prior, config, data, log)
    data.stats.update(stats)
    log(f"dtree competitions: {len(comps)} ({comps.nbytes() / 1e6:.0f} MB)")
    curve: list[dict] = []
    bar = tqdm(total=hyper.n_iterations, desc="MM", unit="sweep", file=sys.stderr, dynamic_ncols=True)
    started = time.time()
    prior.prepare(data.patterns)          # the gamma layout the validation competitions are scored in
    prior.fit_competitions(comps, data.patterns, sweep_recorder(validation, prior._offsets, curve, bar))
    bar.close()
    prior.info_["mm_seconds"] = round(time.time() - started, 1)
    return prior, curve, curve[-1] if curve else {}


def report(prior: DTreePrior, log=print) -> None:
    """Leaves per tree and the gammas of the small shared groups, level 1 first."""
    log(f"leaves per tree: {[int(n) for n in prior.forest_.n_leaves]}")
    for g in prior.trained_groups():
        if g < len(features.GROUPS) and features.GROUPS[g] not in ("pat3", "pattern"):
            o, n = prior._offsets[g], prior.level_counts_[g]
            log(f"  {features.GROUPS[g]:11s} " + " ".join(f"{x:.2f}" for x in prior.gammas_[o + 1:o + n]))
