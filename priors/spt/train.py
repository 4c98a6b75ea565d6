"""The training steps of `python -m priors.training.train` for `spt`: `training_data` reads the pool of
training positions (cell codes and expert moves of the train split's sampled positions, no patterns or
competitions), `fit` grows the trees with one progress-bar step each. Every finished tree is written to
`<cache_dir>/spt-trees/<key>/tree-<k>.npz` (`<output>.trees/<key>/` without a cache_dir), the key a digest of the data settings and the hyperparameters that
shape a tree, so that a run broken off resumes at the first missing tree, and a larger forest of the
same settings reuses the trees of a smaller one (tree k is grown from the generator seeded (seed, k)).
"""
from __future__ import annotations

import hashlib
import json
import sys
import time
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, fields
from functools import partial
from pathlib import Path
from typing import Any, Callable

import numpy as np
from tqdm import tqdm

from priors.spt.growth import Pool, Tree
from priors.spt.model import SPTHyperparameters, SPTPrior, pool_of
from priors.training.extraction import make_executor, merge_stats, run_chunks, split_dataset
from priors.training.trainconfig import DataConfig, TrainConfig

UNIT = "trees"


def pool_chunk(data: DataConfig, absolute: bool, games: list[tuple[str, bytes]]) -> tuple[Pool, Any]:
    """The pool of a chunk of training games (runs in a worker)."""
    ds = split_dataset(data, "train", data.sample, None)
    return pool_of((p for gid, raw in games for p in ds.positions_of(gid, raw)), absolute), ds.stats


def read_pool(data: DataConfig, executor: Executor | None, chunk: int, log=print,
              absolute: bool = False) -> tuple[Pool, dict]:
    """(pool, game stats) of the sampled positions of the train split's selected games, cell codes seen by
    the side to move (by Black if `absolute`)."""
    ds = split_dataset(data, "train", data.sample, data.max_games)
    ids = ds.game_ids()
    log(f"training games: {len(ids)} of the train split of {', '.join(data.archives)}")
    parts = run_chunks(executor, partial(pool_chunk, data, absolute), ds.games(), chunk, len(ids), "positions")
    pools = [p for p, _ in parts if len(p)]
    if not pools:
        raise ValueError("no training positions in the selected games")
    pool = Pool(np.concatenate([p.codes for p in pools]), np.concatenate([p.moves for p in pools]), pools[0].size)
    return pool, merge_stats([s for _, s in parts])


def tree_folder(config: TrainConfig) -> Path:
    """Where this run's trees are kept: a key of everything a tree depends on (not the forest size)."""
    shape = {k: v for k, v in asdict(config.hyper).items() if k not in ("n_trees", "floor")}
    what = json.dumps({"data": asdict(config.data), "spt": shape}, sort_keys=True, default=list)
    root = Path(config.cache_dir).expanduser() / "spt-trees" if config.cache_dir else Path(config.output + ".trees")
    return root / hashlib.sha256(what.encode()).hexdigest()[:16]


def save_tree(path: Path, tree: Tree) -> None:
    tmp = path.with_name(path.stem + ".partial.npz")
    np.savez(tmp, **{f.name: np.asarray(getattr(tree, f.name)) for f in fields(Tree)})
    tmp.rename(path)


def load_trees(folder: Path, n_trees: int) -> dict[int, Tree]:
    """The trees 0 .. n_trees - 1 already grown in `folder`."""
    out = {}
    for k in range(n_trees):
        path = folder / f"tree-{k}.npz"
        if path.exists():
            with np.load(path, allow_pickle=False) as z:
                out[k] = Tree(**{f.name: z[f.name] for f in fields(Tree) if f.name != "depth"},
                              depth=int(z["depth"]))
    return out


@dataclass
class SPTData:
    """What the growth reads: the pool of training positions, its games, and where the trees are kept."""
    pool: Pool
    stats: dict
    folder: Path


def training_data(config: TrainConfig, scheduler: str = "", log=print) -> SPTData:
    """The `priors.training.train` hook: the pool of the train split's sampled positions (no competitions)."""
    executor = make_executor(config, scheduler)
    pool, stats = read_pool(config.data, executor, config.chunk_games, log, config.hyper.colours == "absolute")
    if executor is not None:
        executor.shutdown()
    log(f"pool: {len(pool)} positions of {stats['games']} games")
    return SPTData(pool, stats, tree_folder(config))


def fit(hyper: SPTHyperparameters, data: SPTData) -> tuple[SPTPrior, list[dict], dict]:
    """Grow the forest, reading back the trees already grown; (prior, one curve point per tree, summary)."""
    data.folder.mkdir(parents=True, exist_ok=True)
    grown = load_trees(data.folder, hyper.n_trees)
    if grown:
        print(f"{len(grown)} of {hyper.n_trees} trees read back from {data.folder}")
    bar = tqdm(total=hyper.n_trees, initial=len(grown), desc="SPT", unit="tree", file=sys.stderr,
               dynamic_ncols=True)
    prior = SPTPrior(hyper)
    prior.fit_pool(data.pool, grown, _on_tree(data.folder, bar))
    bar.close()
    curve = [{"tree": k, "nodes": t.n_nodes, "leaves": len(t.tables), "depth": t.depth,
              "min_support": int(t.support.min())} for k, t in sorted(grown.items()) if k < hyper.n_trees]
    return prior, curve, {"n_trees": hyper.n_trees, "n_pool": len(data.pool), "seed": hyper.seed}


def _on_tree(folder: Path, bar: tqdm) -> Callable[[int, Tree], None]:
    start = [time.time()]

    def done(k: int, tree: Tree) -> None:
        save_tree(folder / f"tree-{k}.npz", tree)
        bar.set_postfix(nodes=tree.n_nodes, leaves=len(tree.tables), depth=tree.depth,
                        s=round(time.time() - start[0], 1))
        bar.update(1)
        start[0] = time.time()
    return done


def report(prior: SPTPrior) -> None:
    print(f"spt: {prior.info_['n_trees']} trees, leaves {prior.info_['leaves']}, depths {prior.info_['depths']}")
