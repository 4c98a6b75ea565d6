"""B2's configurations and reference solvers, read from bench/configs/tactics/b2.yaml (engine.configfile)
and validated: an unknown name, key or bad value is a ConfigError that names the key."""
from __future__ import annotations

import dataclasses
import functools
import math
import re
from pathlib import Path
from typing import Any, Optional

from bench.tactics.results import ROOT
from bench.tactics.training import PriorConfig, new_prior
from engine.configfile import ConfigError, read_yaml
from engine.params import TacticsParams

CONFIG_FILE = ROOT / "bench" / "configs" / "tactics" / "b2.yaml"
NAME = re.compile(r"[a-z0-9_]+")
LEARN_MODES = ("all", "consistent", "priced", "consistent_priced")   # tactics.solve's, besides true
FIELDS = {f.name: f.default for f in dataclasses.fields(TacticsParams)}
SET_BY_B2 = ("method", "max_nodes", "max_store", "move_gen", "l_max")      # B2 sets these for every solver


@dataclasses.dataclass(frozen=True)
class B2Settings:
    configs: dict[str, PriorConfig]       # in the file's order
    references: dict[str, dict]           # name -> TacticsParams settings; "pns" always there
    heldout: Optional[Heldout] = None     # the fixed split of --b2-heldout


@dataclasses.dataclass(frozen=True)
class Heldout:
    """The fixed split of the pool into choosing and held-out problems (problems.heldout_split)."""
    salt: str
    every: int


@functools.cache
def b2_settings(path: Path = CONFIG_FILE) -> B2Settings:
    """The validated configuration file (read once)."""
    data = read_yaml(path)
    try:
        return parse_b2(data)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None


def parse_b2(data: Any) -> B2Settings:
    mapping = _mapping(data, "the file")
    _check_keys(mapping, ("configs", "references", "heldout"), "")
    configs = {_name(name, "configs"): _config(name, entry, f"configs.{name}")
               for name, entry in _mapping(mapping.get("configs"), "configs").items()}
    references = {_name(name, "references"): _settings(entry, f"references.{name}", SET_BY_B2[1:])
                  for name, entry in _mapping(mapping.get("references"), "references").items()}
    if "pns" not in references:
        raise ConfigError("references.pns: missing (every speed-up is measured against PNS)")
    return B2Settings(configs, references, _heldout(mapping.get("heldout")))


def _heldout(entry: Any) -> Optional[Heldout]:
    if entry is None:
        return None
    entry = _mapping(entry, "heldout")
    _check_keys(entry, ("salt", "every"), "heldout")
    salt, every = entry.get("salt"), entry.get("every")
    if not isinstance(salt, str) or not salt:
        raise ConfigError(f"heldout.salt: a non-empty string, got {salt!r}")
    if isinstance(every, bool) or not isinstance(every, int) or every < 2:
        raise ConfigError(f"heldout.every: an integer of at least 2 (one problem in `every` is held out), got {every!r}")
    return Heldout(salt, every)


def _name(name: Any, where: str) -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ConfigError(f"{where}.{name}: a name is lower-case letters, digits and '_'")
    return name


def _config(name: str, entry: Any, where: str) -> PriorConfig:
    entry = _mapping(entry, where)
    _check_keys(entry, [f.name for f in dataclasses.fields(PriorConfig) if f.name != "name"], where)
    if not isinstance(entry.get("prior"), str):
        raise ConfigError(f"{where}.prior: the leaf prior's name is missing")
    learn = entry.get("learn", True)
    if learn is not True and learn not in LEARN_MODES:
        raise ConfigError(f"{where}.learn: true or one of {', '.join(LEARN_MODES)}; got {learn!r}")
    passes = entry.get("passes")
    if passes is not None and (isinstance(passes, bool) or not isinstance(passes, int) or passes < 1):
        raise ConfigError(f"{where}.passes: a positive integer, got {passes!r}")
    learn_unsolved = entry.get("learn_unsolved", False)
    if not isinstance(learn_unsolved, bool):
        raise ConfigError(f"{where}.learn_unsolved: true or false, got {learn_unsolved!r}")
    config = PriorConfig(name, entry["prior"], _mapping(entry.get("params", {}), f"{where}.params"), learn,
                         passes, learn_unsolved, _settings(entry.get("search", {}), f"{where}.search", SET_BY_B2))
    try:
        new_prior(config)
    except ValueError as e:
        raise ConfigError(f"{where}: {e}") from None        # names the prior or the parameter
    return config


def _settings(entry: Any, where: str, excluded: tuple) -> dict:
    """TacticsParams settings, each of its field's type (an integer for a float field becomes a float)."""
    entry = _mapping(entry, where)
    _check_keys(entry, [k for k in FIELDS if k not in excluded], where)
    out = {}
    for key, value in entry.items():
        default = FIELDS[key]
        if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if type(value) is not type(default) or (isinstance(value, float) and not math.isfinite(value)):
            raise ConfigError(f"{where}.{key}: expected a {type(default).__name__}, got {value!r}")
        out[key] = value
    try:
        TacticsParams(**out)
    except ValueError as e:
        raise ConfigError(f"{where}.{e}") from None   # the message starts with the field name
    return out


def _mapping(value: Any, where: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a mapping, got {value!r}")
    return value


def _check_keys(mapping: dict, known, where: str) -> None:
    for key in mapping:
        if key not in known:
            raise ConfigError(f"{where + '.' if where else ''}{key}: unknown key (expected one of: {', '.join(known)})")
