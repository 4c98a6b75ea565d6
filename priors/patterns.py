"""Large circular patterns: harvesting from expert moves and the set a model matches against.

A pattern of size s (2..14) is every point within circular distance s of a move, coloured
empty/own/opponent/off-board, reduced to a canonical 64-bit Zobrist key under the 8 symmetries
(`priors.features`). Harvesting counts the keys of all 13 sizes at each expert move and keeps those
seen at least `min_count` times (Stern et al. 2006; the FBT spec keeps >= 10). Since a pattern's
smaller sizes occur at least as often as it does, the kept set is closed under shrinking, and the
matched feature is the largest kept size.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from engine.board import PASS
from priors import features


class PatternSet:
    """Harvested pattern keys; pattern i is feature level i + 1 of the `pattern` group."""

    def __init__(self, keys: np.ndarray, sizes: np.ndarray, counts: np.ndarray | None = None):
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        sizes = np.asarray(sizes, dtype=np.uint8)
        if keys.ndim != 1 or sizes.shape != keys.shape:
            raise ValueError("pattern keys and sizes must be 1-D arrays of the same length")
        if len(np.unique(keys)) != len(keys):
            raise ValueError("pattern keys must be distinct")
        if len(sizes) and not set(np.unique(sizes)) <= set(features.PATTERN_SIZES):
            raise ValueError(f"pattern sizes must be in {features.PATTERN_SIZES[0]}..{features.PATTERN_SIZES[-1]}")
        self.keys = keys
        self.sizes = sizes
        self.counts = (np.zeros(len(keys), dtype=np.int64) if counts is None
                       else np.asarray(counts, dtype=np.int64))
        self.table_keys, self.table_values = features.build_table(self.keys)

    def __len__(self) -> int:
        return len(self.keys)

    def size_histogram(self) -> dict[int, int]:
        return {int(s): int((self.sizes == s).sum()) for s in features.PATTERN_SIZES}


PATTERN_ARRAYS = ("pattern_keys", "pattern_sizes")     # what a model file must hold (counts optional)


def pattern_arrays(patterns: PatternSet | None) -> dict[str, np.ndarray]:
    """A model file's pattern arrays (empty for a model without large patterns)."""
    if patterns is None:
        return {"pattern_keys": np.zeros(0, np.uint64), "pattern_sizes": np.zeros(0, np.uint8),
                "pattern_counts": np.zeros(0, np.int64)}
    return {"pattern_keys": patterns.keys, "pattern_sizes": patterns.sizes, "pattern_counts": patterns.counts}


def patterns_from_arrays(arrays: dict[str, np.ndarray]) -> PatternSet | None:
    """The PatternSet of a model file's arrays, None when it has none; ValueError if they are unusable."""
    keys = arrays["pattern_keys"]
    return PatternSet(keys, arrays["pattern_sizes"], arrays.get("pattern_counts")) if len(keys) else None


class PatternCounter:
    """Counts canonical pattern keys of all sizes. Keys wait in a buffer and are folded into the
    sorted table in large batches, so that memory stays bounded and sorting cost stays linear-ish."""

    def __init__(self, chunk: int = 5_000_000):
        self.chunk = chunk                      # buffered keys that trigger a fold
        self._moves: list[np.ndarray] = []      # 13 keys per counted move
        self._parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []   # merged counters
        self._n_pending = 0
        self.keys = np.zeros(0, dtype=np.uint64)
        self.sizes = np.zeros(0, dtype=np.uint8)
        self.counts = np.zeros(0, dtype=np.int64)
        self.n_moves = 0
        self._size_column = np.asarray(features.PATTERN_SIZES, dtype=np.uint8)

    def add(self, keys: np.ndarray) -> None:
        """Count the 13 keys (sizes 2..14) of one move."""
        self._moves.append(keys)
        self._n_pending += len(keys)
        self.n_moves += 1
        if self._n_pending >= self.chunk:
            self.flush()

    def merge(self, other: "PatternCounter") -> None:
        """Add the counts of another counter (e.g. from a worker)."""
        other.flush()
        self._parts.append((other.keys, other.sizes, other.counts))
        self._n_pending += len(other.keys)
        self.n_moves += other.n_moves
        if self._n_pending >= self.chunk:
            self.flush()

    def flush(self) -> None:
        """Fold the pending keys into `keys`, `sizes` and `counts`."""
        if not self._moves and not self._parts:
            return
        keys, sizes, counts = [self.keys], [self.sizes], [self.counts]
        if self._moves:
            keys.append(np.concatenate(self._moves))
            sizes.append(np.tile(self._size_column, len(self._moves)))
            counts.append(np.ones(len(keys[-1]), dtype=np.int64))
        for k, s, c in self._parts:
            keys.append(k)
            sizes.append(s)
            counts.append(c)
        self._moves, self._parts, self._n_pending = [], [], 0
        all_keys = np.concatenate(keys)
        unique, first, inverse = np.unique(all_keys, return_index=True, return_inverse=True)
        self.sizes = np.concatenate(sizes)[first]
        self.counts = np.bincount(inverse.reshape(-1), weights=np.concatenate(counts),
                                  minlength=len(unique)).astype(np.int64)
        self.keys = unique

    def counts_at_least(self, thresholds: Iterable[int]) -> dict[int, int]:
        """How many distinct patterns were seen at least k times, for each k."""
        self.flush()
        return {int(k): int(np.count_nonzero(self.counts >= k)) for k in thresholds}

    def patterns(self, min_count: int) -> PatternSet:
        """The keys seen at least min_count times, ordered by size then key."""
        self.flush()
        keep = self.counts >= min_count
        keys, sizes, counts = self.keys[keep], self.sizes[keep], self.counts[keep]
        order = np.lexsort((keys, sizes))
        return PatternSet(keys[order], sizes[order], counts[order])


def count_patterns(positions: Iterable, counter: PatternCounter | None = None,
                   progress: Callable[[int], None] | None = None) -> PatternCounter:
    """Count the pattern keys at the expert move of every position (passes are skipped)."""
    counter = counter or PatternCounter()
    extractor = features.Extractor()
    for pos in positions:
        if pos.move != PASS:
            counter.add(extractor.pattern_keys(pos.board, pos.move, pos.to_play))
        if progress is not None:
            progress(1)
    counter.flush()
    return counter


def harvest(positions: Iterable, min_count: int = 10) -> PatternSet:
    """The patterns seen at expert moves at least `min_count` times."""
    if min_count < 1:
        raise ValueError(f"pattern_min_count: at least 1, got {min_count}")
    return count_patterns(positions).patterns(min_count)


def save_patterns(folder: Path, patterns: PatternSet) -> None:
    for name in ("keys", "sizes", "counts"):
        np.save(folder / f"patterns_{name}.npy", getattr(patterns, name))


def load_patterns(folder: Path) -> PatternSet:
    return PatternSet(*(np.load(folder / f"patterns_{n}.npy", allow_pickle=False) for n in ("keys", "sizes", "counts")))
