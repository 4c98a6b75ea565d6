"""The prior interface, its hyperparameter contract, its model-file header, the registry and plugin
discovery.

A prior maps a position to a probability per point: `evaluate(board, color)` returns float32 of size
N*N+1, row-major from row 0 (index i is `board.point(i // N, i % N)`), pass last, zero on illegal
points, summing to one. The search calls it only when it expands a node.

Every model is a subpackage of `priors` whose class registers itself where it is defined
(`@register("name")`). The registry imports every subpackage the first time it is asked, so a new
folder is found without any list naming it. A model's hyperparameters are one frozen dataclass,
`Prior.Hyper`, filled by the training config's section of the model's name; fitted state ends in `_`.

A model file's header is written and read here, once for every kind (`Prior.header`,
`Prior.from_header`): the model's version, its hyperparameters under one key, the digest of its
arrays and the data split that chose its settings; a model writes only its arrays and its own keys.
"""
from __future__ import annotations

import hashlib
import importlib
import json
import pkgutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable

import numpy as np

from priors.modelfile import ModelError, load_model, read_model, save_model, settings_chosen_on

UNIFORM = "none"            # the prior that needs no model: the search then weighs every move alike


@dataclass(frozen=True)
class NoHyperparameters:
    """The hyperparameters of a prior that has none."""


def require(ok: bool, key: str, what: str, value: Any) -> None:
    """A hyperparameter check; `key` is spelled as in the training config (`fbt.k`)."""
    if not ok:
        raise ValueError(f"{key}: must be {what}, got {value!r}")


HYPERPARAMETERS = "hyperparameters"     # the header key of a model's hyperparameters (`Prior.Hyper`)
OLD_HYPERPARAMETERS = "hyper"           # the same, in dtree and pbn files written before the key was one
# The header keys the base writes and reads for every kind; the rest: the model's own, its training record.
BASE_KEYS = frozenset({"kind", "format_version", "model_version", HYPERPARAMETERS, OLD_HYPERPARAMETERS, "digest"})


def hyperparameter_record(hyper: Any) -> dict[str, Any]:
    """A Hyper dataclass as the JSON object of the header (tuples as lists)."""
    return json.loads(json.dumps(asdict(hyper)))


class Prior:
    """A move-prediction model. `Hyper` is its hyperparameter dataclass; fitted state ends in `_`.

    Its model file's header is written and read here, for every kind: the model's version, its
    hyperparameters under one key, the digest of its arrays and the data split that chose its settings,
    then the model's own keys (`metadata`, named in `HEADER_KEYS`) and the record of its training
    (`info_`: every other key)."""

    name: ClassVar[str] = ""
    Hyper: ClassVar[type] = NoHyperparameters
    MODEL_VERSION: ClassVar[int] = 1        # raised when the arrays or the model's own keys change meaning
    HEADER_KEYS: ClassVar[frozenset] = frozenset()        # the keys `metadata` writes (and older files' own keys)
    RETIRED_HYPERPARAMETERS: ClassVar[tuple] = ()         # keys older files record, no longer hyperparameters

    def __init__(self, hyper: Any = None):
        self.hyper = self.Hyper() if hyper is None else hyper
        if not isinstance(self.hyper, self.Hyper):
            raise TypeError(f"{type(self).__name__} takes a {self.Hyper.__name__}, got {type(hyper).__name__}")
        self.info_: dict[str, Any] = {}

    def fit(self, positions: Iterable, patterns: Any = None) -> "Prior":
        """Fit on positions (`priors.training.dataset.Position`) with an optional harvested `PatternSet`;
        the hook every prior offers, so that tests get a small fitted model of each kind."""
        return self

    def evaluate(self, board, color: int) -> np.ndarray:
        raise NotImplementedError

    def move_kernel(self, n_slots: int) -> Any:
        """An `engine.move_kernel.MoveKernel` giving exactly `evaluate`'s probabilities without the GIL,
        `n_slots` threads at once, or None: the search then calls `evaluate` under the GIL."""
        return None

    def arrays(self) -> dict[str, np.ndarray]:
        """The fitted arrays that `save` writes and `from_arrays` reads back."""
        return {}

    def metadata(self) -> dict[str, Any]:
        """The model's own header keys (its feature set, its fitting history), named in HEADER_KEYS."""
        return {}

    def header(self) -> dict[str, Any]:
        """The model file's header after its kind and format version."""
        split, note = settings_chosen_on(self.info_)
        return {"model_version": self.MODEL_VERSION, HYPERPARAMETERS: hyperparameter_record(self.hyper),
                "digest": self.digest(), "settings_chosen_on": split, "settings_note": note,
                **self.metadata(), **self.info_}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], metadata: dict[str, Any], hyper: Any) -> "Prior":
        """The fitted prior of a file's arrays, its header (for the model's own keys) and its `hyper`,
        read from the header; a ModelError says what is unusable."""
        return cls(hyper)

    def save(self, path: str | Path) -> None:
        save_model(path, self.name, self.arrays(), self.header())

    def digest(self) -> str:
        """Short hash of the fitted arrays, recorded with benchmark results."""
        h = hashlib.sha256()
        for key, value in sorted(self.arrays().items()):
            h.update(key.encode())
            h.update(np.ascontiguousarray(value).tobytes())
        return h.hexdigest()[:16]

    @classmethod
    def load(cls, path: str | Path) -> "Prior":
        arrays, metadata = load_model(path, cls.name)
        return cls._from_file(path, arrays, metadata)

    @classmethod
    def _from_file(cls, path: str | Path, arrays: dict[str, np.ndarray], metadata: dict[str, Any]) -> "Prior":
        try:
            return cls.from_header(arrays, metadata)
        except ModelError as err:
            raise ModelError(f"{path}: {err}") from None

    @classmethod
    def from_header(cls, arrays: dict[str, np.ndarray], metadata: dict[str, Any]) -> "Prior":
        """The prior a model file holds: its version checked, its hyperparameters read, its arrays
        read by the model (`from_arrays`), the rest of the header kept as `info_`."""
        if metadata.get("model_version") != cls.MODEL_VERSION:
            raise ModelError(f"not a usable {cls.name} model: model version {metadata.get('model_version')}, "
                             f"this Tesuji reads {cls.MODEL_VERSION}")
        prior = cls.from_arrays(arrays, metadata, cls.read_hyperparameters(metadata))
        prior.info_ = {k: v for k, v in metadata.items() if k not in BASE_KEYS | cls.HEADER_KEYS}
        return prior

    @classmethod
    def read_hyperparameters(cls, metadata: dict[str, Any]) -> Any:
        """The `Hyper` a header records (lists as tuples); a ModelError if it is not one."""
        record = metadata.get(HYPERPARAMETERS, metadata.get(OLD_HYPERPARAMETERS))
        if record is None:
            record = cls.old_hyperparameters(metadata)
        if not isinstance(record, dict):
            raise ModelError(f"not a usable {cls.name} model: no hyperparameters")
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in record.items()
                  if k not in cls.RETIRED_HYPERPARAMETERS}
        try:
            return cls.Hyper(**values)
        except (TypeError, ValueError) as err:
            raise ModelError(f"not a usable {cls.name} model: bad hyperparameters ({err})") from None

    @classmethod
    def old_hyperparameters(cls, metadata: dict[str, Any]) -> dict[str, Any] | None:
        """The hyperparameters of a file written before they had one key, where the model can tell them."""
        return {} if cls.Hyper is NoHyperparameters else None


_REGISTRY: dict[str, type[Prior]] = {}
_discovered = False


def register(name: str) -> Callable[[type[Prior]], type[Prior]]:
    """Class decorator: file the prior under `name` (its model files' `kind`)."""
    def add(cls: type[Prior]) -> type[Prior]:
        if _REGISTRY.get(name, cls) is not cls:
            raise ValueError(f"prior {name!r} is registered twice")
        cls.name = name
        _REGISTRY[name] = cls
        return cls
    return add


def registered() -> dict[str, type[Prior]]:
    """Every registered prior by name, after importing each subpackage of `priors` once."""
    global _discovered
    if not _discovered:
        _discovered = True
        package = importlib.import_module("priors")
        for module in pkgutil.iter_modules(package.__path__):
            if module.ispkg:
                importlib.import_module(f"priors.{module.name}")
    return _REGISTRY


def prior_class(name: str, key: str = "prior.name") -> type[Prior]:
    """The class registered under `name`; an unknown name is a ValueError naming `key`."""
    known = registered()
    if name not in known:
        raise ValueError(f"{key}: unknown prior {name!r}; known: {', '.join(sorted(known))}")
    return known[name]


def load_prior(name: str, model: str = "") -> Prior | None:
    """The prior a configuration names, loaded from its model file; None for `none` (uniform)."""
    cls = prior_class(name)
    if name == UNIFORM:
        return None
    if not model:
        raise ValueError(f"prior.model: the {name!r} prior needs a model file")
    return cls.load(resolve_model_path(model))


def load_file(path: str | Path) -> tuple[Prior, dict[str, Any]]:
    """(prior, header) of a model file of any registered kind, the class picked by the header's `kind`."""
    arrays, metadata = read_model(path)
    kind = metadata.get("kind")
    if kind not in registered():
        raise ModelError(f"{path}: holds a {kind!r} model, which no registered prior reads")
    return registered()[kind]._from_file(path, arrays, metadata), metadata


def resolve_model_path(model: str | Path) -> Path:
    """`~` is the user's home. A relative path is taken from the working directory, else from the
    project folder, so that presets naming `priors/models/mm.npz` work wherever the engine is started."""
    path = Path(model).expanduser()
    if path.is_absolute() or path.exists():
        return path
    shipped = Path(__file__).resolve().parent.parent / path
    return shipped if shipped.exists() else path
