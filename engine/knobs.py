"""A knob: a parameter field that declares its default, bound and meaning once.

`engine.params` writes every field as `knob(default, doc, bound)`; everything else is derived from those
declarations: validation (`check`, which the YAML loader runs on every value it reads and some params
classes on construction), the generated `configs/default.yaml`, GoGui's parameter dialog (`runtime`
knobs) and the deprecation of keys that moved (`moved_from`).
"""
from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass(frozen=True)
class Bound:
    """Allowed range of a number (inclusive unless `low_open` / `high_open`) or set of strings; `says`
    replaces the generated rule in messages (`must be SAYS`), `low_says` only that of the lower end."""
    low: Optional[float] = None
    high: Optional[float] = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] = ()
    says: str = ""
    low_says: str = ""
    high_says: str = ""

    def check(self, value: Any) -> Optional[str]:
        """None if the value is allowed, else the rule it breaks (`must be >= 0`)."""
        if self.choices:
            return None if value in self.choices else f"must be {self.says or 'one of ' + ', '.join(self.choices)}"
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            rule = self.low_says or f"{'>' if self.low_open else '>='} {_number(self.low)}"
            return f"must be {self.says or rule}"
        if self.high is not None and (value >= self.high if self.high_open else value > self.high):
            rule = self.high_says or f"{'<' if self.high_open else '<='} {_number(self.high)}"
            return f"must be {self.says or rule}"
        return None

    def describe(self) -> str:
        """The range in short (`0..100`, `> 0`, `inv_sqrt | inv`) for the docs; '' when unbounded."""
        g = _number
        if self.choices:
            return " | ".join(self.choices)
        if self.low is not None and self.high is not None:
            if self.low_open or self.high_open:
                return f"{'(' if self.low_open else '['}{g(self.low)}, {g(self.high)}{')' if self.high_open else ']'}"
            return f"{g(self.low)}..{g(self.high)}"
        if self.low is not None:
            return f"{'>' if self.low_open else '>='} {g(self.low)}"
        if self.high is not None:
            return f"{'<' if self.high_open else '<='} {g(self.high)}"
        return ""


def _number(x: float) -> str:
    """A bound as written: 2**64 - 1 in full, 0.05 as such."""
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


RATE = Bound(0, 100)
NON_NEGATIVE = Bound(0)
NON_EMPTY = Bound()   # a string with a bound but no choices must not be blank


def knob(default: Any, doc: str, bound: Optional[Bound] = None, *, runtime: bool = False,
         moved_from: str = "") -> Any:
    """A dataclass field with its meaning (`doc`, one line or more), its bound, whether GoGui's parameter
    dialog may change it during a session (`runtime`), and the key it had before it moved (`moved_from`,
    still read with a deprecation message)."""
    return field(default=default, metadata={"doc": doc, "bound": bound, "runtime": runtime,
                                            "moved_from": moved_from})


def section(cls: type, doc: str = "") -> Any:
    """A nested parameter object (a YAML section) with its defaults; `doc` says what it configures."""
    return field(default_factory=cls, metadata={"doc": doc})


def like(cls: type, name: str, default: Any, bound: Optional[Bound] = None) -> Any:
    """The knob `name` of `cls` with another default (and bound): a subclass restates no meaning."""
    meta = next(f.metadata for f in dataclasses.fields(cls) if f.name == name)
    return knob(default, meta["doc"], bound or meta["bound"], runtime=meta["runtime"], moved_from=meta["moved_from"])


def check(params: Any) -> None:
    """Every knob's type and bound; a ValueError `NAME: RULE, got VALUE` at the first one broken (the
    YAML loader prefixes the section: `reading.NAME`)."""
    hints = _hints(type(params))
    for f in dataclasses.fields(params):
        if "doc" not in f.metadata or "bound" not in f.metadata:
            continue   # a section: checked when it was built
        value = getattr(params, f.name)
        problem = _type_problem(hints[f.name], value)
        bound = f.metadata["bound"]
        if problem is None and bound is not None:
            if isinstance(value, str) and not bound.choices:
                problem = None if value.strip() else "must not be empty"
            else:
                problem = bound.check(value)
        if problem:
            raise ValueError(f"{f.name}: {problem}, got {value!r}")


def _type_problem(kind: type, value: Any) -> Optional[str]:
    if kind is bool:
        return None if isinstance(value, bool) else "expected true or false"
    if kind is int:
        return None if isinstance(value, int) and not isinstance(value, bool) else "expected an integer"
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "expected a number"
        return None if math.isfinite(value) else "expected a finite number"
    if kind is str:
        if not isinstance(value, str):
            return "expected a string"
        return "must be a single line" if "\n" in value or "\r" in value else None
    return None


_HINTS: dict[type, dict[str, type]] = {}


def _hints(cls: type) -> dict[str, type]:
    """The resolved field types of a params class (its annotations are strings), cached per class."""
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]
