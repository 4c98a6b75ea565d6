"""The prior interface, the uniform prior, the registry and the `.npz` model file format.

A prior maps a position to a probability per point: `evaluate(board, color)` returns float32 of size
N*N+1, row-major from row 0 (index i is `board.point(i // N, i % N)`), pass last, zero on illegal
points, summing to one. The search calls it only when it expands a node.

Model files are `.npz` archives of plain arrays plus one JSON string, `metadata`, that names the model
kind and version. They are read with `allow_pickle=False`, so a model file can never run code, and a
damaged file or one of another kind raises `ModelError` saying so.
"""
from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

FORMAT_VERSION = 1


class ModelError(ValueError):
    """A model file that cannot be used: missing, damaged, or of another kind or version."""


class Prior:
    """A move-prediction model. Hyperparameters are constructor keywords; fitted state ends in `_`."""

    name: ClassVar[str] = ""

    def evaluate(self, board, color: int) -> np.ndarray:
        raise NotImplementedError

    def arrays(self) -> dict[str, np.ndarray]:
        """The fitted arrays that `save` writes and `from_arrays` reads back."""
        return {}

    def metadata(self) -> dict[str, Any]:
        """Extra JSON metadata (hyperparameters, data digest, measured accuracy)."""
        return {}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], metadata: dict[str, Any]) -> "Prior":
        return cls()

    def save(self, path: str | Path) -> None:
        save_model(path, self.name, self.arrays(), self.metadata())

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
        return cls.from_arrays(arrays, metadata)


class UniformPrior(Prior):
    """Every legal move and pass equally likely: the trivial prior that tests and baselines lean on."""

    name = "none"

    def evaluate(self, board, color: int) -> np.ndarray:
        legal = board.legal_points(color)
        p = np.zeros(legal.size + 1, dtype=np.float32)
        p[:-1][legal] = 1.0
        p[-1] = 1.0
        return p / p.sum()


PRIORS: dict[str, type[Prior]] = {"none": UniformPrior}


def save_model(path: str | Path, kind: str, arrays: dict[str, np.ndarray], metadata: dict[str, Any]) -> None:
    """Write `arrays` and a JSON metadata string naming `kind` to an `.npz` file."""
    if "metadata" in arrays:
        raise ValueError("'metadata' is reserved for the JSON header")
    header = {"kind": kind, "format_version": FORMAT_VERSION, **metadata}
    np.savez_compressed(path, metadata=np.array(json.dumps(header)), **arrays)


def load_model(path: str | Path, kind: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Read a model file written by `save_model`; check that it holds a model of `kind`."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"{path}: no such model file")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: data[key] for key in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        raise ModelError(f"{path}: damaged or not an .npz model file ({err})") from None
    try:
        metadata = json.loads(str(arrays.pop("metadata")))
    except (KeyError, ValueError):
        raise ModelError(f"{path}: no valid metadata header; not a Tesuji model file") from None
    if metadata.get("kind") != kind:
        raise ModelError(f"{path}: holds a {metadata.get('kind')!r} model, expected {kind!r}")
    if metadata.get("format_version") != FORMAT_VERSION:
        raise ModelError(f"{path}: model format version {metadata.get('format_version')}, "
                         f"this Tesuji reads version {FORMAT_VERSION}")
    return arrays, metadata


def make_prior(name: str, model: str = "") -> Prior | None:
    """The prior a configuration names, loaded from its model file; None for `none` (uniform)."""
    if name not in PRIORS:
        raise ValueError(f"prior.name: unknown prior {name!r}; known: {', '.join(sorted(PRIORS))}")
    if name == "none":
        return None
    if not model:
        raise ValueError(f"prior.model: the {name!r} prior needs a model file")
    return PRIORS[name].load(resolve_model_path(model))


def resolve_model_path(model: str | Path) -> Path:
    """A relative path is taken from the working directory, else from the project folder, so
    that presets naming `priors/models/mm.npz` work wherever the engine is started."""
    path = Path(model)
    if path.is_absolute() or path.exists():
        return path
    shipped = Path(__file__).resolve().parent.parent / path
    return shipped if shipped.exists() else path
