"""Train a prior from expert games: `python -m priors.train CONFIG.yaml [--set key=value ...]`.

Steps: harvest large patterns from the training games, turn sampled training and validation positions
into competitions, fit the model that `model:` names (any registered prior with a `train` module in
its subpackage; its hyperparameters come from the config's section of that name) with a progress bar
that shows the training and validation figures per sweep or epoch, and write the model file. Game
extraction runs in-process, or on a local process pool (`n_workers`), or on a Dask cluster
(`--scheduler ADDRESS`): games are independent, so each worker handles a chunk of them and returns
compact arrays.

With `cache_dir` set, the patterns and competitions are saved there under a key of the data, pattern
and validation settings, so that several models (MM, FBT and LFR with several k) fit the same data
without extracting it again, and an interrupted extraction resumes after its last finished chunk.

`data.games` trains on a mixture of archives (games per archive, each from its own split); the model
file records the training data (archives, games per archive, a digest of the game ids). `--harvest-only
RECORD` runs the pattern harvest alone and writes its counts.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import platform
import shutil
import sys
import time
from collections import Counter
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, fields, replace
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterable, Iterator

import numpy as np
import yaml
from tqdm import tqdm

from priors import features
from priors.base import Prior, prior_class, registered
from priors.competitions import Competitions, build_competitions, concatenate
from priors.dataset import (DEFAULT_ARCHIVES, DEFAULT_FRACTIONS, DatasetStats, GameDataset, ids_digest,
                            scale_mixture)
from priors.patterns import PatternCounter, PatternSet, count_patterns

PATTERN_THRESHOLDS = (2, 5, 10, 20, 50, 100)   # harvest sizes logged and recorded: patterns seen >= k times


@dataclass(frozen=True)
class DataConfig:
    data_dir: str = "../shared/data"       # archives directory (relative to the working directory)
    archives: tuple = DEFAULT_ARCHIVES     # .tar.xz files of SGF games
    fractions: tuple = DEFAULT_FRACTIONS   # train / validation / test shares of the games
    max_games: int = 2000                  # training games (a seeded choice from the train split)
    games: tuple = ()                      # training games per archive (the mixture), in place of max_games
    sample: float = 0.1                    # probability of keeping a training position
    augment: str = "none"                  # none | random (one symmetry per game) | all
    seed: int = 1
    size: int = 19                         # board size of the games used (others are skipped)


@dataclass(frozen=True)
class PatternConfig:
    min_count: int = 10                    # keep patterns seen this often at expert moves; 0 = none
    sample: float = 1.0                    # share of the training games' moves counted


@dataclass(frozen=True)
class ValidationConfig:
    max_games: int = 100                   # validation-split games scored after each sweep
    sample: float = 0.1


@dataclass(frozen=True)
class TrainConfig:
    data: DataConfig = field(default_factory=DataConfig)
    patterns: PatternConfig = field(default_factory=PatternConfig)
    model: str = ""                        # a registered prior with a train module (see `trainer`)
    hyper: Any = None                      # its Hyper, from the config's section named `model`
    validation: ValidationConfig = field(default_factory=ValidationConfig)
    output: str = ""                       # the model file; "" = priors/models/<model>.npz
    cache_dir: str = ""                    # where extracted competitions are kept for reuse; "" = none
    n_workers: int = 1                     # processes extracting games; 1 = in this process
    chunk_games: int = 50                  # games per task sent to a worker


def _build(cls, values: Any, where: str):
    """A config dataclass from a YAML mapping; unknown keys and wrong types name the key."""
    if values is None:
        values = {}
    if not isinstance(values, dict):
        raise ValueError(f"{where or 'config'}: expected a mapping, got {type(values).__name__}")
    known = {f.name: f for f in fields(cls) if f.name != "hyper"}
    kwargs = {}
    for key, value in values.items():
        name = f"{where}.{key}" if where else key
        if key not in known:
            raise ValueError(f"{name}: unknown key; known: {', '.join(known)}")
        default = getattr(cls(), key)
        if hasattr(default, "__dataclass_fields__"):
            kwargs[key] = _build(type(default), value, name)
        elif isinstance(default, tuple):
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, (list, tuple)):
                raise ValueError(f"{name}: expected a list, got {value!r}")
            kwargs[key] = tuple(value)
        elif isinstance(default, bool) or not isinstance(value, (int, float, str)) or \
                (isinstance(default, (int, float)) and isinstance(value, (bool, str))) or \
                (isinstance(default, str) and not isinstance(value, str)):
            raise ValueError(f"{name}: expected {type(default).__name__}, got {value!r}")
        elif isinstance(default, int) and not isinstance(value, int):
            raise ValueError(f"{name}: expected an integer, got {value!r}")
        else:
            kwargs[key] = type(default)(value)
    return cls(**kwargs)


def load_config(path: str | Path, overrides: Iterable[str] = ()) -> TrainConfig:
    """Read and validate a training config; `overrides` are `section.key=value` strings (YAML values)."""
    try:
        raw = yaml.safe_load(Path(path).read_text()) or {}
    except OSError as err:
        raise ValueError(f"{path}: cannot read config ({err.strerror})") from None
    except yaml.YAMLError as err:
        raise ValueError(f"{path}: not valid YAML ({err})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--set {item!r}: expected key=value")
        node = raw
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"--set {key}: {part} is not a section")
        node[leaf] = yaml.safe_load(value)
    # Every section named after a prior is checked against that prior's Hyper; the one `model` names is used.
    hypers = {name: _build(prior_class(name).Hyper, raw.pop(name), name)
              for name in list(raw) if name in registered()}
    config = _build(TrainConfig, raw, "")
    check(config)
    hyper = hypers.get(config.model) or prior_class(config.model).Hyper()
    return replace(config, hyper=hyper, output=config.output or f"priors/models/{config.model}.npz")


def trainable() -> list[str]:
    """The registered priors that `priors.train` can fit."""
    return sorted(name for name in registered() if trainer(name) is not None)


def trainer(name: str) -> ModuleType | None:
    """The `train` module of the prior's subpackage, or None for a prior that is not trained. The module
    has `UNIT` (what one curve point counts), `fit(hyper, data) -> (prior, curve, kept)`, an optional
    `report(prior)`, and its own `training_data(config, scheduler, log) -> data` where the model does
    not learn from competitions (spt: a pool of positions; pbn: region samples); without it, `data` is
    the competitions of this module's `training_data`. The data has `stats` and may have `patterns`."""
    package = prior_class(name).__module__.rpartition(".")[0]
    try:
        return importlib.import_module(f"{package}.train")
    except ModuleNotFoundError as err:
        if err.name != f"{package}.train":
            raise
        return None


def config_record(config: TrainConfig) -> dict[str, Any]:
    """The config as JSON data, the model's section under its name, as the YAML spells it."""
    record = json.loads(json.dumps(asdict(config)))
    record[config.model] = record.pop("hyper")
    return record


def check(c: TrainConfig) -> None:
    """Bounds and choices the dataclasses cannot express."""
    rules = [
        (c.data.max_games >= 1, "data.max_games", "at least 1"),
        (not c.data.games or (len(c.data.games) == len(c.data.archives) and
                              all(isinstance(n, int) and n >= 0 for n in c.data.games) and sum(c.data.games) > 0),
         "data.games", "one game count (0 or more, not all 0) per archive, or [] for max_games"),
        (0 < c.data.sample <= 1, "data.sample", "a probability in (0, 1]"),
        (c.data.augment in ("none", "random", "all"), "data.augment", "none, random or all"),
        (2 <= c.data.size <= 25, "data.size", "a board size in 2..25"),
        (c.patterns.min_count >= 0, "patterns.min_count", "0 (no large patterns) or more"),
        (0 < c.patterns.sample <= 1, "patterns.sample", "a probability in (0, 1]"),
        (c.model in trainable(), "model", f"one of {', '.join(trainable())}"),
        (c.validation.max_games >= 0, "validation.max_games", "0 (no validation) or more"),
        (0 < c.validation.sample <= 1, "validation.sample", "a probability in (0, 1]"),
        (c.n_workers >= 1, "n_workers", "at least 1"),
        (c.chunk_games >= 1, "chunk_games", "at least 1"),
        (len(c.data.fractions) == 3 and abs(sum(c.data.fractions) - 1) < 1e-9, "data.fractions",
         "three shares summing to 1"),
    ]
    for ok, key, what in rules:
        if not ok:
            raise ValueError(f"{key}: must be {what}")


# --- work on chunks of games (runs in worker processes) ---------------------------------------

def split_dataset(data: DataConfig, split: str, sample: float, max_games: int | None) -> GameDataset:
    """The games of one split; with a mixture (`data.games`), `max_games` games in its proportions
    (the training split: the mixture itself)."""
    mixture = None
    if data.games and max_games is not None:
        mixture = list(data.games) if split == "train" else scale_mixture(data.games, max_games)
        max_games = None
    return GameDataset(data.data_dir, data.archives, split, data.fractions, sample, data.augment,
                       data.seed, max_games, data.size, mixture)


def count_chunk(data: DataConfig, sample: float, games: list[tuple[str, bytes]]):
    ds = split_dataset(data, "train", sample, None)
    counter = count_patterns(p for gid, raw in games for p in ds.positions_of(gid, raw))
    return counter, ds.stats


def compete_chunk(data: DataConfig, split: str, sample: float, patterns: PatternSet | None,
                  games: list[tuple[str, bytes]]):
    ds = split_dataset(data, split, sample, None)
    comps = build_competitions((p for gid, raw in games for p in ds.positions_of(gid, raw)), patterns)
    return comps, ds.stats


def _chunks(games: Iterator[tuple[str, bytes]], size: int) -> Iterator[list[tuple[str, bytes]]]:
    chunk: list[tuple[str, bytes]] = []
    for game in games:
        chunk.append(game)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class ChunkStore:
    """The finished chunks of one extraction phase, kept on disk so that an interrupted run resumes
    after them: their games are read from the archive again but not replayed."""

    def __init__(self, folder: Path, phase: str):
        self.folder = folder / "chunks"
        self.phase = phase
        self.folder.mkdir(parents=True, exist_ok=True)

    def _stats(self, index: int) -> Path:
        return self.folder / f"{self.phase}{index:05d}.json"

    def load(self, index: int) -> tuple[Competitions, DatasetStats] | None:
        if not self._stats(index).exists():
            return None
        raw = json.loads(self._stats(index).read_text())
        comps = load_competitions(self.folder, f"{self.phase}{index:05d}")
        return comps, DatasetStats(raw["games"], raw["positions"], Counter(raw["skipped"]))

    def save(self, index: int, result: tuple[Competitions, DatasetStats]) -> None:
        if self._stats(index).exists():
            return
        comps, stats = result
        save_competitions(self.folder, f"{self.phase}{index:05d}", comps)
        self._stats(index).write_text(json.dumps({"games": stats.games, "positions": stats.positions,
                                                  "skipped": dict(stats.skipped)}))   # written last: done


def run_chunks(executor: Executor | None, fn: Callable, games: Iterator, chunk: int, n_games: int,
               desc: str, store: ChunkStore | None = None) -> list:
    """Apply fn to chunks of games, in order, with a progress bar counting games; with a store, chunks
    it holds are read back and the others saved as they finish."""
    results = []
    with tqdm(total=n_games, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True) as bar:
        pending: list[tuple[int, int, Callable[[], Any]]] = []

        def collect(index: int, n: int, result: Callable[[], Any]) -> None:
            results.append(result())
            if store is not None:
                store.save(index, results[-1])
            bar.update(n)

        for index, part in enumerate(_chunks(games, chunk)):
            kept = store.load(index) if store is not None else None
            if kept is not None:
                pending.append((index, len(part), lambda kept=kept: kept))
            elif executor is None:
                pending.append((index, len(part), lambda done=fn(part): done))
            else:
                pending.append((index, len(part), executor.submit(fn, part).result))
            while len(pending) > (4 if executor is not None else 0):     # bound the games held in memory
                collect(*pending.pop(0))
        for item in pending:
            collect(*item)
    return results


def release_memory() -> None:
    """Hand freed heap memory back to the system (glibc keeps the freed chunk buffers otherwise,
    which doubles the resident size during the long MM phase)."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def peak_rss_mb() -> int:
    """Peak resident memory of this process and its finished workers, in MB (Linux reports KiB)."""
    import resource
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return round(max(own, workers) / 1024)


def merge_stats(parts) -> dict:
    games = sum(s.games for s in parts)
    positions = sum(s.positions for s in parts)
    skipped: dict[str, int] = {}
    for s in parts:
        for key, value in s.skipped.items():
            skipped[key] = skipped.get(key, 0) + value
    return {"games": games, "positions": positions, "skipped": skipped}


# --- the run -------------------------------------------------------------------------------------

def make_executor(config: TrainConfig, scheduler: str) -> Executor | None:
    if scheduler:
        from dask.distributed import Client
        return Client(scheduler).get_executor()
    if config.n_workers > 1:
        return ProcessPoolExecutor(max_workers=config.n_workers)
    return None


@dataclass
class TrainingData:
    comps: Competitions
    validation: Competitions | None
    patterns: PatternSet | None
    stats: dict
    config: Any = None           # the run's TrainConfig, for trainers that also read games (dtree)


def harvest_patterns(config: TrainConfig, executor: Executor | None, train_ds: GameDataset,
                     log=print) -> tuple[PatternSet, dict]:
    """The patterns seen at least `patterns.min_count` times at the training games' counted moves, and
    the harvest's sizes: moves counted, patterns seen at least k times, kept patterns by size."""
    parts = run_chunks(executor, partial(count_chunk, config.data, config.patterns.sample),
                       train_ds.games(), config.chunk_games, len(train_ds.game_ids()), "harvest")
    counter = PatternCounter()
    while parts:
        counter.merge(parts.pop(0)[0])
    patterns = counter.patterns(config.patterns.min_count)
    sizes = {"pattern_moves": counter.n_moves, "patterns_at_least": counter.counts_at_least(PATTERN_THRESHOLDS),
             "patterns_by_size": patterns.size_histogram()}
    log(f"patterns: {len(patterns)} seen >= {config.patterns.min_count} times at {counter.n_moves} expert "
        f"moves; by size {sizes['patterns_by_size']}; seen >= k times {sizes['patterns_at_least']}")
    return patterns, sizes


def harvest_record(config: TrainConfig, scheduler: str = "", log=print) -> dict:
    """A harvest alone (no features, no fit): its games, sizes, time and peak memory, as a JSON record."""
    started = time.time()
    executor = make_executor(config, scheduler)
    train_ds = split_dataset(config.data, "train", config.data.sample, config.data.max_games)
    _, sizes = harvest_patterns(config, executor, train_ds, log)
    if executor is not None:
        executor.shutdown()
    return {"question": "how many large patterns a harvest gives", "config": config_record(config),
            "games": train_ds.mixture(), "games_digest": ids_digest(train_ds.game_ids()),
            "skipped": dict(train_ds.stats.skipped), **sizes,
            "seconds": round(time.time() - started, 1), "peak_rss_mb": peak_rss_mb()}


def extract(config: TrainConfig, scheduler: str = "", log=print, resume: Path | None = None) -> TrainingData:
    """Harvest patterns, then build the training and validation competitions. With `resume`, a folder,
    the harvest and each finished chunk of games are kept there and reused by a rerun."""
    executor = make_executor(config, scheduler)
    stores = {phase: ChunkStore(resume, phase) if resume is not None else None for phase in ("train", "val")}
    train_ds = split_dataset(config.data, "train", config.data.sample, config.data.max_games)
    ids = train_ds.game_ids()
    selection = {"archives": list(config.data.archives), "games": train_ds.mixture(),
                 "games_digest": ids_digest(ids)}
    log(f"training games: {len(ids)} of the train split of {', '.join(config.data.archives)} "
        f"({', '.join(f'{name} {n}' for name, n in selection['games'].items())}; "
        f"digest {selection['games_digest']})")

    patterns = None
    if resume is not None and (resume / "harvest.json").exists():
        patterns = load_patterns(resume)
        selection.update(json.loads((resume / "harvest.json").read_text()))
        log(f"patterns: {len(patterns)} read back from {resume}")
    elif config.patterns.min_count > 0:
        patterns, sizes = harvest_patterns(config, executor, train_ds, log)
        selection.update(sizes)
        if resume is not None:
            save_patterns(resume, patterns)
            (resume / "harvest.json").write_text(json.dumps(sizes))

    parts = run_chunks(executor, partial(compete_chunk, config.data, "train", config.data.sample, patterns),
                       train_ds.games(), config.chunk_games, len(ids), "features", stores["train"])
    train_stats = merge_stats([s for _, s in parts])
    train_stats["training_data"] = selection
    pieces = [c for c, _ in parts]
    del parts                        # let concatenate free each piece once copied
    comps = concatenate(pieces)
    release_memory()

    validation = None
    if config.validation.max_games > 0:
        val_ds = split_dataset(config.data, "validation", config.validation.sample, config.validation.max_games)
        n_val = len(val_ds.game_ids())
        parts = run_chunks(executor, partial(compete_chunk, config.data, "validation",
                                             config.validation.sample, patterns),
                           val_ds.games(), config.chunk_games, n_val, "validation", stores["val"])
        validation = concatenate([c for c, _ in parts])
    if executor is not None:
        executor.shutdown()
    return TrainingData(comps, validation, patterns, train_stats)


# --- the competitions cache --------------------------------------------------------------------

_COMP_FIELDS = ("levels", "mult", "starts", "winners", "move_numbers")


def cache_key(config: TrainConfig) -> str:
    """What the extracted data depends on: the data, pattern and validation settings and the features."""
    data = asdict(config.data)
    if not data["games"]:
        del data["games"]                # the keys of caches written before mixtures stay valid
    what = {"data": data, "patterns": asdict(config.patterns),
            "validation": asdict(config.validation), "groups": list(features.GROUPS),
            "levels": features.level_counts(0).tolist(), "zobrist": features.ZOBRIST_SEED}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]


def save_cache(folder: Path, data: TrainingData) -> None:
    """One .npy file per array (loaded back without pickles), written under a temporary name first
    (the folder `extract` resumes from)."""
    tmp = folder.with_name(folder.name + ".partial")
    tmp.mkdir(parents=True, exist_ok=True)
    for prefix, comps in (("train", data.comps), ("val", data.validation)):
        if comps is not None:
            save_competitions(tmp, prefix, comps)
    if data.patterns is not None:
        save_patterns(tmp, data.patterns)
    (tmp / "stats.json").write_text(json.dumps(data.stats))
    shutil.rmtree(tmp / "chunks", ignore_errors=True)
    tmp.rename(folder)


def save_patterns(folder: Path, patterns: PatternSet) -> None:
    for name in ("keys", "sizes", "counts"):
        np.save(folder / f"patterns_{name}.npy", getattr(patterns, name))


def load_patterns(folder: Path) -> PatternSet:
    return PatternSet(*(np.load(folder / f"patterns_{n}.npy", allow_pickle=False) for n in ("keys", "sizes", "counts")))


def save_competitions(folder: Path, prefix: str, comps: Competitions) -> None:
    for name in _COMP_FIELDS:
        np.save(folder / f"{prefix}_{name}.npy", getattr(comps, name))


def load_competitions(folder: Path, prefix: str) -> Competitions | None:
    """Competitions saved under `prefix` in `folder`, or None when there are none."""
    if not all((folder / f"{prefix}_{n}.npy").exists() for n in _COMP_FIELDS):
        return None
    return Competitions(*(np.load(folder / f"{prefix}_{n}.npy", allow_pickle=False) for n in _COMP_FIELDS))


def load_cache(folder: Path) -> TrainingData:
    comps = partial(load_competitions, folder)
    patterns = load_patterns(folder) if (folder / "patterns_keys.npy").exists() else None
    return TrainingData(comps("train"), comps("val"), patterns, json.loads((folder / "stats.json").read_text()))


def cache_folder(config: TrainConfig) -> Path:
    return Path(config.cache_dir).expanduser() / cache_key(config)


def training_data(config: TrainConfig, scheduler: str = "", log=print) -> TrainingData:
    """Extract the data, or read it back from the cache when `cache_dir` holds it."""
    folder = cache_folder(config) if config.cache_dir else None
    if folder is not None and (folder / "stats.json").exists():
        log(f"competitions read from the cache {folder}")
        data = load_cache(folder)
    elif folder is not None:
        data = extract(config, scheduler, log, resume=folder.with_name(folder.name + ".partial"))
        save_cache(folder, data)
        log(f"competitions cached in {folder}")
    else:
        data = extract(config, scheduler, log)
    comps = data.comps
    log(f"training competitions: {len(comps)} ({comps.nbytes() / 1e6:.0f} MB, "
        f"{len(comps.levels) / max(1, len(comps)):.0f} distinct teams each); games {data.stats}")
    data.config = config
    return data


# --- the run -------------------------------------------------------------------------------------

def train(config: TrainConfig, scheduler: str = "", log=print) -> Prior:
    """Fit the configured model; returns the fitted prior with its report in info_."""
    started = time.time()
    steps = trainer(config.model)
    data = getattr(steps, "training_data", training_data)(config, scheduler, log)
    fit_start = time.time()
    prior, curve, final = steps.fit(config.hyper, data)
    patterns = getattr(data, "patterns", None)
    stats, n_patterns = data.stats, len(patterns) if patterns is not None else 0
    stats = dict(stats) if isinstance(stats, dict) else stats
    prior.info_.update(
        config=config_record(config),
        training_data=stats.pop("training_data", None) if isinstance(stats, dict) else None,
        train_games=stats,
        validation=final,
        curve=curve,
        n_patterns=n_patterns,
        fit_seconds=round(time.time() - fit_start, 1),
        total_seconds=round(time.time() - started, 1),
        peak_rss_mb=peak_rss_mb(),
        machine=platform.node() + " " + platform.processor(),
        date=time.strftime("%Y-%m-%d %H:%M:%S"),
    )
    log(f"{config.model}: {len(curve)} {steps.UNIT} in {prior.info_['fit_seconds']} s; kept {final}; "
        f"peak resident memory {prior.info_['peak_rss_mb']} MB")
    return prior


def write_harvest_record(config: TrainConfig, args: argparse.Namespace, argv: list[str] | None) -> int:
    from priors.evaluate import commit
    record = {"command": "python -m priors.train " + " ".join(argv if argv is not None else sys.argv[1:]),
              "commit": commit(), "date": time.strftime("%Y-%m-%d %H:%M:%S"),
              **harvest_record(config, args.scheduler)}
    out = Path(args.harvest_only)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1))
    print(f"wrote {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m priors.train", description=__doc__.splitlines()[0])
    parser.add_argument("config", help="training config (YAML), e.g. configs/train-mm.yaml")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config value, e.g. --set data.max_games=500")
    parser.add_argument("--scheduler", default="", help="Dask scheduler address for game extraction")
    parser.add_argument("--output", default="", help="model file (overrides the config's output)")
    parser.add_argument("--harvest-only", default="", metavar="RECORD",
                        help="only harvest the patterns and write their counts to this JSON file")
    args = parser.parse_args(argv)
    try:
        config = load_config(args.config, args.set)
        if args.output:
            config = replace(config, output=args.output)
        if args.harvest_only:
            return write_harvest_record(config, args, argv)
        prior = train(config, args.scheduler)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    out = Path(config.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    prior.save(out)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB), digest {prior.digest()}")
    report = getattr(trainer(config.model), "report", None)
    if report is not None:
        report(prior)
    return 0


if __name__ == "__main__":
    sys.exit(main())
