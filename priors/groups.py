"""The feature-group layout the models share: named group sets in configs, each group's block in a
flat parameter array, and the checks of a model file's feature set (files written before the later
groups existed included)."""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from priors import features
from priors.modelfile import ModelError
from priors.patterns import PATTERN_ARRAYS, PatternSet, patterns_from_arrays

# Named sets of feature groups a config may list in `groups`: the whole feature set, or the 12 groups
# that models written before side extensions, corner openings and the playout-policy flags have.
GROUP_SETS = {"all": features.GROUPS, "legacy": features.LEGACY_GROUPS}


def expand_groups(names: Iterable[str] | str, key: str = "groups") -> tuple:
    """Feature group names with the named sets of GROUP_SETS spelled out, repeats dropped; an empty
    list or an unknown name is a ValueError naming `key`."""
    if isinstance(names, str):
        names = [names]
    out: list[str] = []
    for name in names:
        for group in GROUP_SETS.get(name, (name,)):
            if group not in out:
                out.append(group)
    if not out or not set(out) <= set(features.GROUPS):
        raise ValueError(f"{key}: must be names from {', '.join(features.GROUPS)} or sets from "
                         f"{', '.join(GROUP_SETS)}, got {list(names)!r}")
    return tuple(out)


def group_offsets(level_counts: np.ndarray) -> np.ndarray:
    """Start of each group's block in the flat parameter array (levels 0..n-1 of group g)."""
    offsets = np.zeros(len(level_counts), dtype=np.int64)
    np.cumsum(level_counts[:-1], out=offsets[1:])
    return offsets


def stored_groups(recorded: Any) -> int:
    """How many feature groups a model file was written with: len(recorded) when its list is a prefix
    of `features.GROUPS` (files from before the later groups existed), else 0 (another feature set)."""
    n = len(recorded) if isinstance(recorded, list) else 0
    return n if 0 < n <= len(features.GROUPS) and tuple(recorded) == features.GROUPS[:n] else 0


def pad_groups(values: np.ndarray, counts: np.ndarray, n_stored: int, fill: float) -> np.ndarray:
    """Parameters stored for the first n_stored groups (one row per level), extended with `fill` for
    the levels of the later groups, so that they are part of the feature set but contribute nothing."""
    extra = int(counts[n_stored:].sum())
    if extra == 0:
        return values
    return np.concatenate([values, np.full((extra,) + values.shape[1:], fill, dtype=values.dtype)])


def unusable(kind: str, why: str) -> ModelError:
    return ModelError(f"not a usable {kind} model: {why}")


def check_feature_file(kind: str, groups_key: str, arrays: dict[str, np.ndarray], metadata: dict[str, Any],
                       needed: Iterable[str]) -> int:
    """The checks of a model file over the shared features: a feature set this one extends (the groups
    listed under `groups_key`, the Zobrist seed), and the `needed` arrays with the pattern set's.
    Returns how many feature groups the file holds."""
    n_stored = stored_groups(metadata.get(groups_key))
    if not n_stored or metadata.get("zobrist_seed") != features.ZOBRIST_SEED:
        raise unusable(kind, "written for another feature set")
    missing = {*needed, *PATTERN_ARRAYS} - set(arrays)
    if missing:
        raise unusable(kind, f"missing arrays {sorted(missing)}")
    return n_stored


def file_patterns(kind: str, arrays: dict[str, np.ndarray]) -> PatternSet | None:
    """The pattern set a model file holds."""
    try:
        return patterns_from_arrays(arrays)
    except ValueError as err:
        raise unusable(kind, str(err)) from None
