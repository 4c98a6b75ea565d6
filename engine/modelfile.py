"""Model files: `.npz` archives of plain arrays plus one JSON header, for every kind of learned model
(the tactical solver's leaf priors here, the move priors of `priors`, whose `priors.modelfile` builds
on this module).

The header is the string array `metadata`: a JSON object whose `kind` names the model and whose
`format_version` is FORMAT_VERSION, followed by the model's own keys. Files are read with
`allow_pickle=False`, so a model file can never run code; a missing, damaged or foreign file, or one
of another kind or version, raises `ModelError` naming the file.
"""
from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

FORMAT_VERSION = 1
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")     # how an .npz (a zip archive, maybe empty) begins


class ModelError(ValueError):
    """A model file that cannot be used: missing, damaged, or of another kind or version."""


def save_model(path: str | Path, kind: str, arrays: dict[str, np.ndarray], header: dict[str, Any]) -> None:
    """Write `arrays` and the JSON header {kind, format_version, **header} to an `.npz` file."""
    if "metadata" in arrays:
        raise ValueError("'metadata' is reserved for the JSON header")
    full = {"kind": kind, "format_version": FORMAT_VERSION, **header}
    np.savez_compressed(path, metadata=np.array(json.dumps(full)), **arrays)


def read_model(path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(arrays, header) of a model file of any kind, checked down to its format version."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"{path}: no such model file")
    # Anything but a zip archive is not a model file; numpy would try it as a pickle and say so.
    with path.open("rb") as f:
        if f.read(4) not in ZIP_MAGIC:
            raise ModelError(f"{path}: not a model file")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: data[key] for key in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        raise ModelError(f"{path}: damaged model file ({err})") from None
    try:
        header = json.loads(str(arrays.pop("metadata")))
    except (KeyError, ValueError):
        header = None
    if not isinstance(header, dict):
        raise ModelError(f"{path}: no valid metadata header; not a Tesuji model file")
    if header.get("format_version") != FORMAT_VERSION:
        raise ModelError(f"{path}: model format version {header.get('format_version')}, "
                         f"this Tesuji reads version {FORMAT_VERSION}")
    return arrays, header


def load_model(path: str | Path, kind: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(arrays, header) of a model file that must hold a model of `kind`."""
    arrays, header = read_model(path)
    if header.get("kind") != kind:
        raise ModelError(f"{path}: holds a {header.get('kind')!r} model, expected {kind!r}")
    return arrays, header
