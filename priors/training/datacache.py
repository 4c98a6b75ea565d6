"""The extracted training data kept under `cache_dir` and read back: patterns and competitions under a
key of everything they depend on (the data, pattern and validation settings and the features), so that
several models (MM, FBT and LFR with several k) fit the same data without extracting it again.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import asdict
from functools import partial
from pathlib import Path

from priors import features
from priors.patterns import load_patterns, save_patterns
from priors.training.competitions import load_competitions, save_competitions
from priors.training.extraction import TrainingData, extract
from priors.training.trainconfig import TrainConfig


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
    (the folder `extract` resumes from, which already holds the training levels)."""
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


def load_cache(folder: Path) -> TrainingData:
    """The cached data, the competitions' levels mapped read-only (they may not fit in memory)."""
    comps = partial(load_competitions, folder, mmap=True)
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
