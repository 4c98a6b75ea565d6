"""Turning expert games into training data, in chunks of games on a process pool or a Dask cluster:
the pattern harvest, then the training and validation competitions. Games are independent, so each
worker handles a chunk and returns compact arrays; a `ChunkStore` keeps finished chunks on disk so an
interrupted extraction resumes after them.
"""
from __future__ import annotations

import json
import sys
import time
from collections import Counter
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterator

from tqdm import tqdm

from priors.training.competitions import (Competitions, Joiner, build_competitions, load_competitions,
                                          save_competitions)
from priors.patterns import PatternCounter, PatternSet, count_patterns, load_patterns, save_patterns
from priors.training.dataset import DatasetStats, GameDataset, ids_digest, scale_mixture
from priors.training.trainconfig import DataConfig, TrainConfig, config_record

PATTERN_THRESHOLDS = (2, 5, 10, 20, 50, 100)   # harvest sizes logged and recorded: patterns seen >= k times


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


def chunks(games: Iterator[tuple[str, bytes]], size: int) -> Iterator[list[tuple[str, bytes]]]:
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
               desc: str, store: ChunkStore | None = None, sink: Callable[[Any], None] | None = None) -> list:
    """Apply fn to chunks of games, in order, with a progress bar counting games; with a store, chunks
    it holds are read back and the others saved as they finish. The results are returned in a list, or
    with `sink` handed to it one by one, in order, and not kept."""
    results: list = []
    keep = sink if sink is not None else results.append
    with tqdm(total=n_games, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True) as bar:
        pending: list[tuple[int, int, Callable[[], Any]]] = []

        def collect(index: int, n: int, result: Callable[[], Any]) -> None:
            done = result()
            if store is not None:
                store.save(index, done)
            keep(done)
            bar.update(n)

        for index, part in enumerate(chunks(games, chunk)):
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


def training_selection(config: TrainConfig, train_ds: GameDataset, log=print) -> dict:
    """What the model file records of its training games: the archives, the games per archive, a digest."""
    ids = train_ds.game_ids()
    selection = {"archives": list(config.data.archives), "games": train_ds.mixture(),
                 "games_digest": ids_digest(ids)}
    log(f"training games: {len(ids)} of the train split of {', '.join(config.data.archives)} "
        f"({', '.join(f'{name} {n}' for name, n in selection['games'].items())}; "
        f"digest {selection['games_digest']})")
    return selection


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


def kept_harvest(config: TrainConfig, executor: Executor | None, train_ds: GameDataset, folder: Path | None,
                 log=print) -> tuple[PatternSet | None, dict]:
    """`harvest_patterns`, kept in `folder` (when given) and read back from there by a rerun; no
    patterns where `patterns.min_count` is 0."""
    if folder is not None and (folder / "harvest.json").exists():
        patterns = load_patterns(folder)
        log(f"patterns: {len(patterns)} read back from {folder}")
        return patterns, json.loads((folder / "harvest.json").read_text())
    if config.patterns.min_count <= 0:
        return None, {}
    patterns, sizes = harvest_patterns(config, executor, train_ds, log)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        save_patterns(folder, patterns)
        (folder / "harvest.json").write_text(json.dumps(sizes))
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


def compete(executor: Executor | None, fn: Callable, games: Iterator, chunk: int, n_games: int, desc: str,
            store: ChunkStore | None, spill: Path | None = None) -> tuple[Competitions, dict]:
    """`run_chunks` of a compete_chunk: the chunks' competitions joined as they arrive (their levels
    into the file `spill` when given), and their stats."""
    joiner, stats = Joiner(spill), []

    def add(result: tuple[Competitions, dict]) -> None:
        joiner.add(result[0])
        stats.append(result[1])

    run_chunks(executor, fn, games, chunk, n_games, desc, store, sink=add)
    return joiner.build(), merge_stats(stats)


def extract(config: TrainConfig, scheduler: str = "", log=print, resume: Path | None = None) -> TrainingData:
    """Harvest patterns, then build the training and validation competitions. With `resume`, a folder,
    the harvest and each finished chunk of games are kept there and reused by a rerun, and the training
    levels are joined on disk there (`train_levels.npy`, mapped read-only: sets larger than memory)."""
    executor = make_executor(config, scheduler)
    stores = {phase: ChunkStore(resume, phase) if resume is not None else None for phase in ("train", "val")}
    train_ds = split_dataset(config.data, "train", config.data.sample, config.data.max_games)
    ids = train_ds.game_ids()
    selection = training_selection(config, train_ds, log)

    patterns, sizes = kept_harvest(config, executor, train_ds, resume, log)
    selection.update(sizes)

    comps, train_stats = compete(executor, partial(compete_chunk, config.data, "train", config.data.sample, patterns),
                                 train_ds.games(), config.chunk_games, len(ids), "features", stores["train"],
                                 resume / "train_levels.npy" if resume is not None else None)
    train_stats["training_data"] = selection
    release_memory()

    validation = None
    if config.validation.max_games > 0:
        val_ds = split_dataset(config.data, "validation", config.validation.sample, config.validation.max_games)
        n_val = len(val_ds.game_ids())
        validation, _ = compete(executor, partial(compete_chunk, config.data, "validation",
                                                  config.validation.sample, patterns),
                                val_ds.games(), config.chunk_games, n_val, "validation", stores["val"])
    if executor is not None:
        executor.shutdown()
    return TrainingData(comps, validation, patterns, train_stats)
