"""Load and validate an engine configuration: YAML file plus `section.key=value` overrides.

The file's sections fill the dataclasses of `engine.params` (`search:` -> SearchParams, ...) and its
top-level keys the plain fields of EngineParams. Every problem is a `ConfigError` whose message
starts with the key at fault (`search.n_thread: unknown key`). Types and bounds are the knobs' own
(engine.knobs), checked here on every value read, with the section's name put before the field's.
Overrides are YAML scalars (`search.reuse_tree=false`, `search.temperature=0.5`) checked exactly as file
values are, so the runtime option commands (`tesuji-param`, `bps_config`) use `apply_override` as well.
A key that moved (`prior.pw`, now `search.pw`) or a value renamed (`reading.prior: uniform`, now `none`)
is still read, with a deprecation message on stderr.

Presets are the engine configurations shipped in the project's `configs/` folder, which an install
maps into the package data folder `engine/presets/` (setup.py). That folder holds presets only (experiment
configs live in bench/configs/), so every YAML file there is one: its name is the file's stem and its
description the file's first comment line, one whole sentence. `configs/default.yaml` is generated from
the knobs: `python -m engine.config --write-default` (make default-config).
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib.resources
import sys
import textwrap
import typing
from pathlib import Path
from typing import Any, Iterable, Optional

from engine.configfile import ConfigError, parse_scalar, parse_yaml, read_yaml
from engine.knobs import check
from engine.params import (NO_PRIOR, EngineParams, GtpParams, PlayoutParams, PriorParams, ReadingParams,
                           SearchParams, TimeParams)

__all__ = ["ConfigError", "SECTIONS", "MOVED", "load_config", "apply_override", "current_keys", "presets",
           "preset_folder", "knobs", "default_yaml"]

SECTIONS = {"search": SearchParams, "playout": PlayoutParams, "time": TimeParams, "prior": PriorParams,
            "gtp": GtpParams, "reading": ReadingParams}


def knobs() -> dict[str, dataclasses.Field]:
    """`section.key` (or a top-level `key`) -> its field, whose metadata holds the default's meaning and
    bound, in the order of the generated default.yaml."""
    table = {f.name: f for f in dataclasses.fields(EngineParams) if f.name not in SECTIONS}
    for name, cls in SECTIONS.items():
        table.update({f"{name}.{f.name}": f for f in dataclasses.fields(cls)})
    return table


MOVED: dict[str, str] = {f.metadata["moved_from"]: key for key, f in knobs().items() if f.metadata["moved_from"]}
RENAMED_VALUES: dict[tuple[str, Any], Any] = {("reading.prior", "uniform"): NO_PRIOR}


def load_config(path: Optional[str], overrides: Iterable[str] = (), preset: Optional[str] = None) -> EngineParams:
    """EngineParams from a YAML file or a preset's name (neither: the defaults) and `section.key=value`
    overrides."""
    if path and preset:
        raise ConfigError("--config and --preset: give one or the other")
    params = _preset(preset) if preset else _build(read_yaml(path) if path else {}, path or "")
    for text in overrides:
        params = apply_override(params, text)
    return params


def apply_override(params: EngineParams, text: str) -> EngineParams:
    """`search.n_threads=2` applied to params (a new object); the value follows YAML scalar rules."""
    key, sep, value_text = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"{text}: expected key=value")
    value = parse_scalar(key, value_text)
    if key in MOVED:
        _deprecated(f"{key} is now {MOVED[key]}", "--set")
        key = MOVED[key]
    if isinstance(value, str) and (key, value) in RENAMED_VALUES:
        _deprecated(f"{key}: {value} is now {RENAMED_VALUES[key, value]}", "--set")
        value = RENAMED_VALUES[key, value]
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
    return _build(parse_yaml(file.read_text(encoding="utf-8"), f"preset {name}"), f"preset {name}")


def _description(text: str) -> str:
    """The first comment line, without its `#`."""
    comments = (line.strip().lstrip("#").strip() for line in text.splitlines() if line.strip().startswith("#"))
    return next((c for c in comments if c), "")


def _build(raw: dict, source: str) -> EngineParams:
    raw, notes = current_keys(raw)
    for note in notes:
        _deprecated(note, source)
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


def current_keys(raw: dict) -> tuple[dict, list[str]]:
    """A config file's mapping with each moved key (`prior: {pw: true}`) under its new name (`search: {pw:
    true}`) and each renamed value (`reading: {prior: uniform}`) in its new spelling, and a note on each;
    ConfigError naming the new key when the file gives both (bench.results compares presets this way)."""
    raw = {k: dict(v) if isinstance(v, dict) else v for k, v in raw.items()}
    notes = []
    moved = [(section, key) for section, keys in raw.items() if isinstance(keys, dict)
             for key in keys if f"{section}.{key}" in MOVED]
    for section, key in moved:
        new_section, new_key = MOVED[f"{section}.{key}"].split(".")
        target = raw.get(new_section) or {}
        if not isinstance(target, dict):
            raise ConfigError(f"{new_section}: expected a mapping of keys")
        if new_key in target:
            raise ConfigError(f"{section}.{key}: moved to {new_section}.{new_key}, which the file gives too; "
                              f"keep {new_section}.{new_key} only")
        notes.append(f"{section}.{key} is now {new_section}.{new_key}")
        target[new_key] = raw[section].pop(key)
        raw[new_section] = target
    for (name, old), new_value in RENAMED_VALUES.items():
        section, key = name.split(".")
        if isinstance(raw.get(section), dict) and raw[section].get(key) == old:
            notes.append(f"{name}: {old} is now {new_value}")
            raw[section][key] = new_value
    return raw, notes


def _deprecated(message: str, source: str) -> None:
    """One line on stderr: the old spelling still works, the new one is what to write."""
    where = f" ({source})" if source else ""
    print(f"tesuji: deprecated{where}: {message}; the old name will stop working", file=sys.stderr)


def _replace(obj, values: dict, prefix: str):
    """dataclasses.replace with every value checked by the knobs (engine.knobs.check), ints given for
    floats made floats."""
    hints = typing.get_type_hints(type(obj))
    fields = {f.name for f in dataclasses.fields(obj)}
    if not prefix:   # sections are filled by _build, never as top-level scalars
        fields -= set(SECTIONS)
    changes = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if not isinstance(key, str) or key not in fields:
            raise ConfigError(f"{name}: unknown key")
        if hints[key] is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        changes[key] = value
    try:
        result = dataclasses.replace(obj, **changes)
        check(result)
        return result
    except ValueError as e:   # the knobs' check: `FIELD: rule, got VALUE`
        raise ConfigError(f"{prefix}{e}") from None


# --- configs/default.yaml, generated from the knobs ---

DEFAULT_HEADER = """\
# The defaults, the strongest engine shipped: the FBT prior and one search thread per core.
# Generated from engine/params.py (python -m engine.config --write-default); edit the knobs there.
#   tesuji gtp --config configs/default.yaml --set search.n_threads=1
# A file may give any subset of these keys; the rest keep these defaults. Unknown keys are errors.
"""
SOURCE_DEFAULT = Path(__file__).resolve().parent.parent / "configs" / "default.yaml"
COMMENT_COLUMN = 30
LINE_WIDTH = 112


def default_yaml() -> str:
    """configs/default.yaml: every knob with its default, meaning and bound, section by section."""
    lines = DEFAULT_HEADER.splitlines() + [""]
    defaults = EngineParams()
    top = [f for f in dataclasses.fields(EngineParams) if f.name not in SECTIONS]
    lines += [_line(f.name, getattr(defaults, f.name), f.metadata, 0) for f in reversed(top)]
    for f in dataclasses.fields(EngineParams):
        if f.name in SECTIONS:
            lines += ["", _line(f.name, None, f.metadata, 0)]
            sub = getattr(defaults, f.name)
            lines += [_line(k.name, getattr(sub, k.name), k.metadata, 2) for k in dataclasses.fields(sub)]
    return "\n".join(lines) + "\n"


def _line(key: str, value: Any, meta: typing.Mapping, indent: int) -> str:
    """`  key: value   # meaning (bound)`, the comment wrapped at LINE_WIDTH under its first line."""
    head = " " * indent + f"{key}:" + ("" if value is None else f" {_scalar(value)}")
    doc = meta.get("doc", "")
    bound = meta.get("bound")
    if bound is not None and bound.describe() and not bound.choices:
        rule = bound.describe()
        doc += f"; {'in ' if rule[0] in '([' else ''}{rule}"
    if not doc:
        return head
    column = max(COMMENT_COLUMN, len(head) + 1)
    text = textwrap.wrap(doc, LINE_WIDTH - column - 2)
    pad = " " * column
    return "\n".join([head.ljust(column) + "# " + text[0]] + [pad + "# " + t for t in text[1:]])


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value if value and parse_scalar("", value) == value and ":" not in value else repr(value)
    return repr(value)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.config",
                                     description="Print, or write, configs/default.yaml generated from the knobs.")
    parser.add_argument("--write-default", metavar="FILE", nargs="?", const=str(SOURCE_DEFAULT),
                        help="write the generated file (default: the checkout's configs/default.yaml)")
    args = parser.parse_args(argv)
    if args.write_default is None:
        sys.stdout.write(default_yaml())
    else:
        Path(args.write_default).write_text(default_yaml(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
