"""The one YAML reader and the one ConfigError of every kind of configuration.

Engine presets, match, league, training, solver-bench and prediction-study configs are all read here
with `yaml.safe_load` (a tag never runs code) into a plain mapping; each kind then validates its own
keys and raises ConfigError with the key at fault, prefixed by the file where it helps
(`bench/configs/match/x.yaml: player.timeout: expected a positive number`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Union

import yaml


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file or the key."""


def read_yaml(path: Union[str, Path]) -> dict:
    """The mapping a YAML file holds ({} when it is empty); ConfigError naming the file otherwise."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read config file ({getattr(e, 'strerror', None) or e})") from None
    return parse_yaml(text, str(path))


def parse_yaml(text: str, source: str) -> dict:
    """The mapping a YAML text holds; `source` (a path, `preset NAME`) names it in errors."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or "syntax error"
        raise ConfigError(f"{source}: not valid YAML{where}: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of sections and keys")
    return data


def parse_value(key: str, text: str):
    """A `KEY=VALUE` override's value, read as YAML (`false`, `0.5`, `fbt`, `[9, 19]`); '' is None."""
    try:
        return yaml.safe_load(text) if text.strip() else None
    except yaml.YAMLError:
        raise ConfigError(f"{key}: cannot parse value {text!r}") from None


def parse_scalar(key: str, text: str):
    """A `KEY=VALUE` override's single value (a mapping or a list is an error)."""
    value = parse_value(key, text)
    if isinstance(value, (dict, list)):
        raise ConfigError(f"{key}: expected a single value, got {text!r}")
    return value
