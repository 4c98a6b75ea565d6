"""The PBN fitting step of `python -m priors.training.train`: region samples from the archives, then one pyramid
per (region, s), with a progress bar counting models.

The run is resumable per model: each fitted pyramid is written to `<cache_dir>/pbn-models-<key>/<kind>-<s>.npz`
(the output's folder without a cache_dir) as soon as it is done (key: the data and hyperparameters),
and a run started again with the same config reads those back instead of fitting them. The samples themselves are cached under `cache_dir`
when the config sets one.

Each model is seeded by (seed, kind, s) and sees only its own samples, so with `n_workers` > 1 (or a Dask
scheduler) the models are fitted side by side, one per worker, and come out the same as fitted one by one.
That pays on a cluster; on one machine EM's matrix products already use every core through numpy's BLAS,
and two workers on 2 cores fitted slower than one (bench/RESULTS.md, PBN training).
"""
from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

import numpy as np
from tqdm import tqdm

from priors.pbn.em import Level, Network
from priors.pbn.model import PBNHyperparameters, PBNPrior, fit_stone_model, pyramid_for, samples_of
from priors.pbn.regions import KINDS, Samples
from priors.training.extraction import make_executor, merge_stats, run_chunks, split_dataset
from priors.training.trainconfig import DataConfig, TrainConfig

UNIT = "models"
SAMPLE_FIELDS = ("points", "stones", "moves", "seen")
NETWORK_FIELDS = ("prior2", "cpt2", "prior3", "cpt3", "move_prior", "psi")


@dataclass
class PBNData:
    """Region samples of the training games, and where the fitted models of this run are kept."""
    samples: dict[str, Samples]
    board_size: int
    stats: dict
    parts: Path
    n_workers: int = 1        # models fitted side by side on a process pool of this size ...
    scheduler: str = ""       # ... or on this Dask scheduler


def sample_chunk(data: DataConfig, split: str, hyper: PBNHyperparameters,
                 games: list[tuple[str, bytes]]) -> tuple[dict[str, Samples], object]:
    """The samples of each region kind in a chunk of games (runs in a worker process)."""
    ds = split_dataset(data, split, data.sample, None)
    positions = (ds.positions_of(gid, raw) for gid, raw in games)
    per_game = [samples_of(p, data.size, hyper) for p in positions if p]
    return {kind: Samples.concatenate([g[kind] for g in per_game]) for kind in KINDS}, ds.stats


def gather(data: DataConfig, split: str, max_games: int | None, hyper: PBNHyperparameters,
           n_workers: int = 1, chunk_games: int = 50, scheduler: str = "") -> tuple[dict[str, Samples], dict]:
    """Every sample of each region kind in the games of one split, and the games' stats."""
    ds = split_dataset(data, split, data.sample, max_games)
    executor = make_executor(TrainConfig(n_workers=n_workers), scheduler)
    parts = run_chunks(executor, partial(sample_chunk, data, split, hyper), ds.games(), chunk_games,
                       len(ds.game_ids()), f"{split} samples")
    if executor is not None:
        executor.shutdown()
    samples = {kind: Samples.concatenate([p[kind] for p, _ in parts]) for kind in KINDS}
    return samples, merge_stats([s for _, s in parts])


def _key(what: dict) -> str:
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]


def save_samples(path: Path, samples: dict[str, Samples], stats: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {f"{kind}_{f}": getattr(samples[kind], f) for kind in KINDS for f in SAMPLE_FIELDS}
    np.savez(path.with_suffix(".partial.npz"), stats=np.array(json.dumps(stats)), **arrays)
    path.with_suffix(".partial.npz").rename(path)


def load_samples(path: Path) -> tuple[dict[str, Samples], dict]:
    with np.load(path, allow_pickle=False) as f:
        samples = {kind: Samples(*(f[f"{kind}_{x}"] for x in SAMPLE_FIELDS)) for kind in KINDS}
        return samples, json.loads(str(f["stats"]))


def split_samples(config: TrainConfig, split: str, max_games: int | None, log=print,
                  scheduler: str = "") -> tuple[dict[str, Samples], dict]:
    """`gather`, or its result read back from `cache_dir` when the config sets one and it is there."""
    hyper = config.hyper
    regions = {k: getattr(hyper, k) for k in ("corner", "strip_depth", "max_stones")}
    path = Path(config.cache_dir).expanduser() / f"pbn-{split}-{_key([asdict(config.data), regions, max_games])}.npz"
    if config.cache_dir and path.exists():
        log(f"{split} samples read from the cache {path}")
        return load_samples(path)
    samples, stats = gather(config.data, split, max_games, hyper, config.n_workers, config.chunk_games, scheduler)
    if config.cache_dir:
        save_samples(path, samples, stats)
    return samples, stats


def training_data(config: TrainConfig, scheduler: str = "", log=print) -> PBNData:
    """The `priors.training.train` hook: samples of the training games instead of competitions."""
    samples, stats = split_samples(config, "train", config.data.max_games, log, scheduler)
    log(f"samples: {', '.join(f'{k} {len(s.moves)}' for k, s in samples.items())}; games {stats}")
    key = _key([asdict(config.data), asdict(config.hyper)])
    parts = Path(config.cache_dir or Path(config.output).parent).expanduser() / f"pbn-models-{key}"
    return PBNData(samples, config.data.size, stats, parts, config.n_workers, scheduler)


def save_network(path: Path, net: Network) -> None:
    arrays = dict(zip(NETWORK_FIELDS, (net.level2.prior, net.level2.cpt, net.level3.prior, net.level3.cpt,
                                       net.move_prior, net.psi)))
    np.savez(path.with_suffix(".partial.npz"), **arrays)
    path.with_suffix(".partial.npz").rename(path)


def load_network(path: Path) -> Network:
    with np.load(path, allow_pickle=False) as f:
        a = {k: f[k] for k in NETWORK_FIELDS}
    return Network(Level(a["prior2"], a["cpt2"], []), Level(a["prior3"], a["cpt3"], []), a["move_prior"], a["psi"])


def fit_apart(pyramid, samples: Samples, stones: int, hyper: PBNHyperparameters,
              kind: str) -> tuple[Network | None, float]:
    """One (kind, s) model and its fitting time in seconds (runs in a worker process)."""
    started = time.time()
    return fit_stone_model(pyramid, samples, stones, hyper, kind), time.time() - started


def fitted(hyper: PBNHyperparameters, data: PBNData):
    """Yield (kind, s, network, seconds, resumed) for every model, in order: read back from `data.parts`
    where a run kept it, else fitted (side by side when the run has workers) and kept there. A model is
    handed only the samples of its own stone count, which `subset` draws from alike."""
    todo = [(kind, s, data.parts / f"{kind}-{s}.npz") for kind in KINDS for s in range(hyper.max_stones + 1)]
    missing = [(kind, s) for kind, s, path in todo if not path.exists()]
    executor = make_executor(TrainConfig(n_workers=data.n_workers), data.scheduler) if missing else None
    try:
        results = {}
        for kind, s in missing:
            found = data.samples[kind]
            args = (pyramid_for(kind, data.board_size, hyper), found.select(np.flatnonzero(found.stones == s)), s,
                    hyper, kind)
            results[kind, s] = partial(fit_apart, *args) if executor is None else executor.submit(fit_apart, *args).result
        for kind, s, path in todo:
            if (kind, s) not in results:
                yield kind, s, load_network(path), 0.0, True
                continue
            net, seconds = results[kind, s]()
            if net is not None:
                save_network(path, net)
            yield kind, s, net, seconds, False
    finally:
        if executor is not None:
            executor.shutdown()


def fit(hyper: PBNHyperparameters, data: PBNData) -> tuple[PBNPrior, list[dict], dict]:
    """Fit (or read back) every (kind, s) model; a curve point per model."""
    data.parts.mkdir(parents=True, exist_ok=True)
    nets: dict[tuple[str, int], Network | None] = {}
    curve: list[dict] = []
    bar = tqdm(total=len(KINDS) * (hyper.max_stones + 1), desc="PBN", unit="model", file=sys.stderr,
               dynamic_ncols=True)
    for kind, stones, net, seconds, resumed in fitted(hyper, data):
        nets[kind, stones] = net
        n = int(min(np.sum(data.samples[kind].stones == stones), hyper.n_samples))
        curve.append({"model": f"{kind}{stones}", "samples": n, "seconds": round(seconds, 1), "resumed": resumed})
        bar.set_postfix(model=f"{kind}{stones}", n=n)
        bar.update(1)
    bar.close()
    prior = PBNPrior(hyper).fit_samples(data.samples, data.board_size, lambda kind, s: nets[kind, s])
    prior.info_.update(n_samples={k: len(s.moves) for k, s in data.samples.items()})
    return prior, curve, {"models": len(curve), "resumed": sum(p["resumed"] for p in curve)}
