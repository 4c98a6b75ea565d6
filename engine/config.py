"""Load and validate an engine configuration: YAML file plus `section.key=value` overrides.

The file's sections fill the dataclasses of `engine.params` (`search:` -> SearchParams, ...) and its
top-level keys the plain fields of EngineParams. Every problem is a `ConfigError` whose message
starts with the key at fault (`search.n_thread: unknown key`). Types and BOUNDS are checked here; a
section that checks itself (`reading:`, whose rules are TacticsParams') has its errors prefixed with the
section's name. Overrides are YAML scalars (`search.reuse_tree=false`, `prior.temperature=0.5`) checked
exactly as file values are, so the runtime option commands (`tesuji-param`, `bps_config`) use
`apply_override` as well.

Presets are the engine configurations shipped in the project's `configs/` folder, which an install
maps into the package data folder `engine/presets/` (setup.py). That folder holds presets only (experiment
configs live in bench/configs/), so every YAML file there is one: its name is the file's stem and its
description the file's first comment line, one whole sentence.
"""
from __future__ import annotations

import dataclasses
import importlib.resources
import math
import typing
from pathlib import Path
from typing import Any, Iterable, Optional

import yaml

from engine.params import (EngineParams, GtpParams, PlayoutParams, PriorParams, ReadingParams, SearchParams,
                           TimeParams)

SECTIONS = {"search": SearchParams, "playout": PlayoutParams, "time": TimeParams, "prior": PriorParams,
            "gtp": GtpParams, "reading": ReadingParams}


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the key."""


@dataclasses.dataclass(frozen=True)
class Bound:
    """Allowed range of a number (inclusive unless `low_open`) or set of strings."""
    low: Optional[float] = None
    high: Optional[float] = None
    low_open: bool = False
    choices: tuple[str, ...] = ()

    def check(self, value: Any) -> Optional[str]:
        """None if the value is allowed, else why not."""
        if self.choices:
            return None if value in self.choices else f"must be one of {', '.join(self.choices)}"
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return f"must be {'>' if self.low_open else '>='} {self.low:g}"
        if self.high is not None and value > self.high:
            return f"must be <= {self.high:g}"
        return None


RATE = Bound(0, 100)
NON_NEGATIVE = Bound(0)
BOUNDS: dict[str, Bound] = {
    "search.playouts": NON_NEGATIVE,
    "search.n_threads": Bound(0, 256),   # 0: one per core
    "search.expand_visits": Bound(1),
    "search.ucb_c": NON_NEGATIVE,
    "search.rave_equiv": NON_NEGATIVE,
    "search.even_visits": NON_NEGATIVE,
    "search.virtual_loss": NON_NEGATIVE,
    "search.score_weight": Bound(0, 0.5),
    "search.score_span": NON_NEGATIVE,
    "search.handicap_komi": Bound(0, 20),
    "search.handicap_komi_moves": NON_NEGATIVE,
    "search.handicap_margin_step": Bound(0, 20),
    "search.max_nodes": Bound(1000),
    "search.resign_threshold": Bound(0, 1),
    "search.resign_min_visits": NON_NEGATIVE,
    "search.seed": Bound(0, 2 ** 64 - 1),
    "playout.capture_rate": RATE,
    "playout.save_rate": RATE,
    "playout.pattern_rate": RATE,
    "playout.self_atari_rate": RATE,
    "playout.ko_rate": RATE,
    "playout.ko_threat_rate": RATE,
    "playout.ladder_rate": RATE,
    "playout.nakade_rate": RATE,
    "playout.useful_self_atari_rate": RATE,
    "playout.nakade_self_atari_rate": RATE,
    "playout.fill_board_rate": RATE,
    "playout.reply_rate": RATE,
    "playout.max_moves": Bound(0, 1000),   # engine/playout.pxd MAX_PLAYOUT_MOVES
    "time.main_time": NON_NEGATIVE,
    "time.byo_yomi_time": NON_NEGATIVE,
    "time.byo_yomi_stones": NON_NEGATIVE,
    "time.max_time_per_move": NON_NEGATIVE,
    "time.safety_margin": NON_NEGATIVE,
    "time.moves_left_min": Bound(1),
    "prior.temperature": Bound(0, low_open=True),
    "prior.floor": Bound(0, 1),
    "prior.additive_shape": Bound(choices=("inv_sqrt", "inv")),
    "prior.additive_scale": NON_NEGATIVE,
    "prior.additive_decay": NON_NEGATIVE,
    "prior.pw_init": Bound(1),
    "prior.pw_a": Bound(0, low_open=True),
    "prior.pw_b": Bound(1),
    "prior.pw_c": Bound(0, 1),
    "gtp.analyze_interval": Bound(1, 6000),      # 10 ms .. 1 min
    "gtp.live_gfx_interval": Bound(0.05, 60),
    "gtp.view_playouts": NON_NEGATIVE,
}   # reading.* is checked by ReadingParams itself (TacticsParams.__post_init__), which bench/ builds directly too
# Names are checked against the prior registry where priors are built; engine/ does not import priors/.
NON_EMPTY = ("name", "prior.name", "reading.prior")


def load_config(path: Optional[str], overrides: Iterable[str] = (), preset: Optional[str] = None) -> EngineParams:
    """EngineParams from a YAML file or a preset's name (neither: the defaults) and `section.key=value`
    overrides."""
    if path and preset:
        raise ConfigError("--config and --preset: give one or the other")
    params = _preset(preset) if preset else _build(_read_yaml(path) if path else {})
    for text in overrides:
        params = apply_override(params, text)
    return params


def apply_override(params: EngineParams, text: str) -> EngineParams:
    """`search.n_threads=2` applied to params (a new object); the value follows YAML scalar rules."""
    key, sep, value_text = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"{text}: expected key=value")
    try:
        value = yaml.safe_load(value_text) if value_text.strip() else None
    except yaml.YAMLError:
        raise ConfigError(f"{key}: cannot parse value {value_text!r}") from None
    if isinstance(value, (dict, list)):
        raise ConfigError(f"{key}: expected a single value, got {value_text!r}")
    section, dot, field = key.partition(".")
    if dot:
        if section not in SECTIONS:
            raise ConfigError(f"{section}: unknown key")
        sub = getattr(params, section)
        return dataclasses.replace(params, **{section: _replace(sub, {field: value}, section + ".")})
    if key in SECTIONS:
        raise ConfigError(f"{key}: is a section; set one of its keys ({key}.KEY=VALUE)")
    return _replace(params, {key: value}, "")


def presets() -> dict[str, str]:
    """Name -> one-line description of every preset file, sorted by name."""
    files = sorted(_preset_files(), key=lambda f: f.name)
    return {file.name[:-len(".yaml")]: _description(file.read_text(encoding="utf-8")) for file in files}


def preset_folder() -> importlib.resources.abc.Traversable:
    """The presets: the package data folder `engine/presets/` once installed, else (a source checkout) the
    project's `configs/` folder that setup.py maps there."""
    installed = importlib.resources.files("engine").joinpath("presets")
    return installed if installed.is_dir() else Path(__file__).resolve().parent.parent / "configs"


def _preset_files() -> list:
    return [f for f in preset_folder().iterdir() if f.name.endswith(".yaml")]


def _preset(name: str) -> EngineParams:
    """The preset `name`; the other files are read only to list the known ones when it is none."""
    file = preset_folder().joinpath(f"{name}.yaml")
    if not (name.replace("-", "").replace("_", "").isalnum() and file.is_file()):
        raise ConfigError(f"--preset {name}: unknown preset; known presets: {', '.join(presets())}")
    return _build(_parse_yaml(file.read_text(encoding="utf-8"), f"preset {name}"))


def _description(text: str) -> str:
    """The first comment line, without its `#`."""
    comments = (line.strip().lstrip("#").strip() for line in text.splitlines() if line.strip().startswith("#"))
    return next((c for c in comments if c), "")


def _read_yaml(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read config file ({getattr(e, 'strerror', None) or e})") from None
    return _parse_yaml(text, path)


def _parse_yaml(text: str, path: str) -> dict:
    """The mapping a YAML text holds; `path` names it in errors."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or "syntax error"
        raise ConfigError(f"{path}: invalid YAML{where}: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of sections and keys")
    return data


def _build(raw: dict) -> EngineParams:
    top: dict[str, Any] = {}
    sections: dict[str, Any] = {}
    for key, value in raw.items():
        if key in SECTIONS:
            if value is None:
                value = {}
            if not isinstance(value, dict):
                raise ConfigError(f"{key}: expected a mapping of keys")
            sections[key] = _replace(SECTIONS[key](), value, f"{key}.")
        else:
            top[key] = value
    return _replace(EngineParams(**sections), top, "")


def _replace(obj, values: dict, prefix: str):
    """dataclasses.replace with every value checked against the field's type and bounds."""
    hints = typing.get_type_hints(type(obj))
    fields = {f.name for f in dataclasses.fields(obj)}
    if not prefix:   # sections are filled by _build, never as top-level scalars
        fields -= set(SECTIONS)
    changes = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if not isinstance(key, str) or key not in fields:
            raise ConfigError(f"{name}: unknown key")
        changes[key] = _check(name, hints[key], value)
    try:
        return dataclasses.replace(obj, **changes)
    except ValueError as e:   # a dataclass's own check: `FIELD: rule, got VALUE`
        raise ConfigError(f"{prefix}{e}") from None


def _check(name: str, kind: type, value: Any) -> Any:
    if kind is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{name}: expected true or false, got {value!r}")
    elif kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{name}: expected an integer, got {value!r}")
    elif kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{name}: expected a number, got {value!r}")
        if not math.isfinite(value):
            raise ConfigError(f"{name}: expected a finite number, got {value!r}")
        value = float(value)
    elif kind is str:
        if not isinstance(value, str):
            raise ConfigError(f"{name}: expected a string, got {value!r}")
        if "\n" in value or "\r" in value:
            raise ConfigError(f"{name}: must be a single line")
        if name in NON_EMPTY and not value.strip():
            raise ConfigError(f"{name}: must not be empty")
    else:   # a nested section given a scalar
        raise ConfigError(f"{name}: expected a mapping of keys")
    bound = BOUNDS.get(name)
    problem = bound.check(value) if bound else None
    if problem:
        raise ConfigError(f"{name}: {problem}, got {value!r}")
    return value
