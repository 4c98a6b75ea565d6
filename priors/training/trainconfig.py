"""Training configs: the YAML a `priors.training.train` run reads, checked key by key, and the trainer module of
each prior.

A config has a `data` section (archives, splits, the games and positions used), `patterns`, `validation`,
the run's own keys (`model`, `output`, `cache_dir`, `n_workers`, `chunk_games`, `settings_chosen_on`,
`settings_note`: the split that chose the settings, written to the model's header) and, for every
registered prior, a section of its name holding that prior's `Hyper`; `model` picks the one trained. An
unknown key or a value of the wrong type is a ConfigError (engine.configfile, which reads the file) naming
the key.
"""
from __future__ import annotations

import importlib
import json
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from types import ModuleType
from typing import Any, Iterable

from engine.configfile import ConfigError, parse_value, read_yaml
from priors.base import prior_class, registered
from priors.modelfile import SETTINGS_SPLITS
from priors.training.dataset import DEFAULT_ARCHIVES, DEFAULT_FRACTIONS


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
    settings_chosen_on: str = "unknown"    # the split whose figures chose these settings (SETTINGS_SPLITS)
    settings_note: str = ""                # what was chosen there, in a few words


def _build(cls, values: Any, where: str):
    """A config dataclass from a YAML mapping; unknown keys and wrong types name the key."""
    if values is None:
        values = {}
    if not isinstance(values, dict):
        raise ConfigError(f"{where or 'config'}: expected a mapping, got {type(values).__name__}")
    known = {f.name: f for f in fields(cls) if f.name != "hyper"}
    kwargs = {}
    for key, value in values.items():
        name = f"{where}.{key}" if where else key
        if key not in known:
            raise ConfigError(f"{name}: unknown key; known: {', '.join(known)}")
        default = getattr(cls(), key)
        if hasattr(default, "__dataclass_fields__"):
            kwargs[key] = _build(type(default), value, name)
        elif isinstance(default, tuple):
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, (list, tuple)):
                raise ConfigError(f"{name}: expected a list, got {value!r}")
            kwargs[key] = tuple(value)
        elif isinstance(default, bool) or not isinstance(value, (int, float, str)) or \
                (isinstance(default, (int, float)) and isinstance(value, (bool, str))) or \
                (isinstance(default, str) and not isinstance(value, str)):
            raise ConfigError(f"{name}: expected {type(default).__name__}, got {value!r}")
        elif isinstance(default, int) and not isinstance(value, int):
            raise ConfigError(f"{name}: expected an integer, got {value!r}")
        else:
            kwargs[key] = type(default)(value)
    return cls(**kwargs)


def load_config(path: str | Path, overrides: Iterable[str] = ()) -> TrainConfig:
    """Read and validate a training config; `overrides` are `section.key=value` strings (YAML values)."""
    raw = read_yaml(path)
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--set {item!r}: expected key=value")
        node = raw
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"--set {key}: {part} is not a section")
        node[leaf] = parse_value(key, value)
    # Every section named after a prior is checked against that prior's Hyper; the one `model` names is used.
    hypers = {name: _build(prior_class(name).Hyper, raw.pop(name), name)
              for name in list(raw) if name in registered()}
    config = _build(TrainConfig, raw, "")
    check(config)
    hyper = hypers.get(config.model) or prior_class(config.model).Hyper()
    return replace(config, hyper=hyper, output=config.output or f"priors/models/{config.model}.npz")


def trainable() -> list[str]:
    """The registered priors that `priors.training.train` can fit."""
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
        (c.settings_chosen_on in SETTINGS_SPLITS, "settings_chosen_on", f"one of {', '.join(SETTINGS_SPLITS)}"),
        (len(c.data.fractions) == 3 and abs(sum(c.data.fractions) - 1) < 1e-9, "data.fractions",
         "three shares summing to 1"),
    ]
    for ok, key, what in rules:
        if not ok:
            raise ConfigError(f"{key}: must be {what}")
