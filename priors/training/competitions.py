"""Training cases in the generalized Bradley-Terry form: competitions between teams of feature levels.

One position is one competition. Each candidate move (every legal point, and pass) is a team: one
level per feature group, level 0 meaning "no level of this group applies" (its gamma is fixed at 1).
Identical teams of one competition are stored once with a multiplicity, which keeps the whole training
set in memory (Coulom's MM and its users hold every competition in RAM). The expert move's team is the
winner. A set larger than memory is joined into a .npy file instead and read memory-mapped.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np


@dataclass
class Competitions:
    """Competitions stored flat: team t is `levels[t]`, standing for `mult[t]` candidate moves;
    competition j owns teams `starts[j]:starts[j+1]` and was won by team `winners[j]`."""

    levels: np.ndarray        # (T, G) uint16 or int32: level of each feature group per team
    mult: np.ndarray          # (T,) int32: identical candidate moves the team stands for
    starts: np.ndarray        # (J + 1,) int64
    winners: np.ndarray       # (J,) int64: absolute index of the winning team
    move_numbers: np.ndarray  # (J,) int32: move number of the position (for per-phase figures)

    def __len__(self) -> int:
        return len(self.winners)

    @property
    def n_groups(self) -> int:
        return self.levels.shape[1]

    def win_counts(self, group: int, n_levels: int) -> np.ndarray:
        """W_i of Coulom (2007): competitions whose winning team has level i of `group`."""
        return np.bincount(self.levels[self.winners, group], minlength=n_levels).astype(np.float64)

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.levels, self.mult, self.starts, self.winners, self.move_numbers))


def radix_parts(level_counts: np.ndarray) -> list[tuple[slice, np.ndarray]]:
    """Runs of consecutive groups whose mixed-radix codes fit in int64, each as (columns, radix).
    One run unless the levels' product overflows (large pattern sets with many groups)."""
    counts = [int(n) for n in level_counts]
    parts, start, product = [], 0, 1
    for g, n in enumerate(counts):
        if g > start and product * n >= 2 ** 63:
            parts.append((slice(start, g), np.cumprod([1] + counts[start:g - 1], dtype=np.int64)))
            start, product = g, 1
        product *= n
    parts.append((slice(start, len(counts)), np.cumprod([1] + counts[start:len(counts) - 1], dtype=np.int64)))
    return parts


def team_keys(levels: np.ndarray, parts: list[tuple[slice, np.ndarray]]) -> np.ndarray:
    """An exact key per team (row of `levels`) that np.unique can sort: the int64 code when one run of
    groups holds it, else each row's codes viewed as one opaque item."""
    if len(parts) == 1:
        return levels @ parts[0][1]
    codes = np.ascontiguousarray(np.stack([levels[:, cols] @ radix for cols, radix in parts], axis=1))
    return codes.view(np.dtype((np.void, codes.itemsize * len(parts)))).reshape(-1)


class RowStore:
    """Rows appended a few at a time into large blocks, taken out as one array. The blocks are big
    enough to be the operating system's pages of their own, so that `take` hands each back as it copies
    it out: the peak memory is the rows once and one block, not the rows twice."""

    BLOCK_BYTES = 32 << 20

    def __init__(self, n_columns: int, dtype):
        self.n_columns, self.dtype = n_columns, np.dtype(dtype)
        self.block_rows = max(1, self.BLOCK_BYTES // (self.dtype.itemsize * max(1, n_columns)))
        self._blocks: list[np.ndarray] = []
        self._used = 0                  # rows of the last block in use

    def __len__(self) -> int:
        return max(0, len(self._blocks) - 1) * self.block_rows + self._used

    def append(self, rows: np.ndarray) -> None:
        i = 0
        while i < len(rows):
            if not self._blocks or self._used == self.block_rows:
                self._blocks.append(np.empty((self.block_rows, self.n_columns), dtype=self.dtype))
                self._used = 0
            n = min(len(rows) - i, self.block_rows - self._used)
            self._blocks[-1][self._used:self._used + n] = rows[i:i + n]
            self._used += n
            i += n

    def take(self) -> np.ndarray:
        """Every row, in order, as one C-contiguous array; the store is empty afterwards."""
        out = np.empty((len(self), self.n_columns), dtype=self.dtype)
        t = 0
        while self._blocks:
            block = self._blocks.pop(0)
            n = len(block) if self._blocks else self._used
            out[t:t + n] = block[:n]
            t += n
        self._used = 0
        return out


class NpyAppender:
    """Rows appended to a .npy file as they arrive: a RowStore on disk, for a training set larger than
    memory. The header has a fixed size, so `take` can write the final shape into it; it then maps the
    file back read-only, and the page cache holds as much of it as fits."""

    HEADER_BYTES = 128

    def __init__(self, path: Path, n_columns: int, dtype):
        self.path, self.n_columns, self.dtype = Path(path), n_columns, np.dtype(dtype)
        self._rows = 0
        self._file = open(self.path, "wb")
        self._file.write(self._header())

    def _header(self) -> bytes:
        fields = repr({"descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False,
                       "shape": (self._rows, self.n_columns)}).encode("latin1")
        size = self.HEADER_BYTES - 10                     # after the magic string, version and length
        return np.lib.format.magic(1, 0) + struct.pack("<H", size) + fields.ljust(size - 1) + b"\n"

    def __len__(self) -> int:
        return self._rows

    def append(self, rows: np.ndarray) -> None:
        self._file.write(np.ascontiguousarray(rows, dtype=self.dtype).tobytes())
        self._rows += len(rows)

    def take(self) -> np.ndarray:
        """Every row, in order, mapped from the finished file."""
        self._file.seek(0)
        self._file.write(self._header())
        self._file.close()
        return np.load(self.path, mmap_mode="r", allow_pickle=False)


class CompetitionBuilder:
    """Collects competitions one position at a time, merging identical teams within each."""

    def __init__(self, level_counts: Sequence[int], dtype=np.uint16):
        self.level_counts = np.asarray(level_counts, dtype=np.int64)
        self.n_groups = len(self.level_counts)
        self.dtype = np.dtype(dtype)
        if self.level_counts.max(initial=1) - 1 > np.iinfo(self.dtype).max:
            raise ValueError(f"levels up to {self.level_counts.max() - 1} do not fit in {self.dtype}")
        self._parts = radix_parts(self.level_counts)
        self._levels = RowStore(self.n_groups, self.dtype)
        self._mult: list[np.ndarray] = []
        self._sizes: list[int] = []
        self._winners: list[int] = []
        self._moves: list[int] = []

    def add(self, levels: np.ndarray, winner: int, move_number: int = 0) -> None:
        """Add one competition: `levels` (n_candidates, G), the expert move at row `winner`."""
        if levels.ndim != 2 or levels.shape[1] != self.n_groups:
            raise ValueError(f"levels must have shape (n, {self.n_groups}), got {levels.shape}")
        if not 0 <= winner < len(levels):
            raise ValueError(f"winner {winner} out of range for {len(levels)} candidates")
        if np.any(levels >= self.level_counts) or np.any(levels < 0):
            raise ValueError("a level is out of range for its group")
        _, first, inverse, counts = np.unique(team_keys(levels, self._parts), return_index=True,
                                              return_inverse=True, return_counts=True)
        self._levels.append(levels[first])
        self._mult.append(counts.astype(np.int32))
        self._winners.append(int(inverse.reshape(-1)[winner]))
        self._sizes.append(len(first))
        self._moves.append(move_number)

    def __len__(self) -> int:
        return len(self._winners)

    def build(self) -> Competitions:
        """The competitions added so far; the builder gives up their rows (build once)."""
        sizes = np.asarray(self._sizes, dtype=np.int64)
        starts = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=starts[1:])
        levels = self._levels.take()
        mult = np.concatenate(self._mult) if self._mult else np.zeros(0, dtype=np.int32)
        winners = starts[:-1] + np.asarray(self._winners, dtype=np.int64)
        return Competitions(levels, mult, starts, winners, np.asarray(self._moves, dtype=np.int32))


class Joiner:
    """Competition sets (e.g. the chunks of an extraction, as they arrive) joined into one. The teams
    go into a RowStore as each set is added, so that the sets need not be kept until the end; with
    `spill`, a file, into an NpyAppender there, and the joined levels are that file mapped read-only."""

    def __init__(self, spill: Path | None = None):
        self._spill = spill
        self._levels: RowStore | NpyAppender | None = None
        self._mult: list[np.ndarray] = []
        self._starts: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
        self._winners: list[np.ndarray] = []
        self._moves: list[np.ndarray] = []
        self._teams = 0

    def add(self, part: Competitions) -> None:
        if self._levels is None:
            store = RowStore if self._spill is None else partial(NpyAppender, self._spill)
            self._levels = store(n_columns=part.n_groups, dtype=part.levels.dtype)
        elif part.n_groups != self._levels.n_columns or part.levels.dtype != self._levels.dtype:
            raise ValueError(f"cannot join competitions of {part.n_groups} {part.levels.dtype} groups to "
                             f"{self._levels.n_columns} {self._levels.dtype} ones")
        self._levels.append(part.levels)
        self._mult.append(np.asarray(part.mult, dtype=np.int32))
        self._starts.append(part.starts[1:] + self._teams)
        self._winners.append(part.winners + self._teams)
        self._moves.append(np.asarray(part.move_numbers, dtype=np.int32))
        self._teams += len(part.levels)

    def build(self) -> Competitions:
        if self._levels is None:
            raise ValueError("nothing to concatenate")
        return Competitions(self._levels.take(), np.concatenate(self._mult), np.concatenate(self._starts),
                            np.concatenate(self._winners), np.concatenate(self._moves))


def concatenate(parts: list[Competitions]) -> Competitions:
    """Join competition sets into one. Empties `parts` as it copies, so that the peak memory is the
    result plus one part."""
    joiner = Joiner()
    while parts:
        joiner.add(parts.pop(0))
    return joiner.build()


def level_dtype(n_patterns: int):
    """The narrowest level dtype for a feature set with n_patterns large patterns."""
    from priors import features
    return np.uint16 if max(n_patterns + 1, features.N_PAT3 + 1) <= np.iinfo(np.uint16).max else np.int32


def build_competitions(positions: Iterable, patterns=None, progress=None, extra=None) -> Competitions:
    """One competition per position: the features of all its candidates, won by the expert move.

    Positions whose expert move is not a candidate (an illegal move: cannot happen with records that
    replay legally) are skipped. `extra`, when given, adds feature columns after the shared groups:
    `extra.extra_level_counts()` (levels per column, level 0 included) and
    `extra.extra_levels(board, color, index)` ((len(index), columns) int32 levels of the candidates).
    """
    from priors import features
    extractor = features.Extractor()
    n_patterns = len(patterns) if patterns is not None else 0
    counts = features.level_counts(n_patterns)
    if extra is not None:
        counts = np.concatenate([counts, np.asarray(extra.extra_level_counts(), dtype=counts.dtype)])
    dtype = level_dtype(n_patterns) if counts.max() - 1 <= np.iinfo(np.uint16).max else np.int32
    builder = CompetitionBuilder(counts, dtype)
    for pos in positions:
        index, levels = extractor.extract(pos.board, pos.to_play, patterns)
        if extra is not None:
            levels = np.concatenate([levels, extra.extra_levels(pos.board, pos.to_play, index)], axis=1)
        hit = np.flatnonzero(index == pos.move_index)
        if len(hit) == 1:
            builder.add(levels, int(hit[0]), pos.move_number)
        if progress is not None:
            progress(1)
    return builder.build()


# --- files: one .npy per array, read back without pickles ------------------------------------

FIELDS = ("levels", "mult", "starts", "winners", "move_numbers")


def save_competitions(folder: Path, prefix: str, comps: Competitions) -> None:
    """One .npy per array; an array mapped from its own file there (a spilled join) is already written."""
    for name in FIELDS:
        path, array = folder / f"{prefix}_{name}.npy", getattr(comps, name)
        if not (isinstance(array, np.memmap) and Path(array.filename).resolve() == path.resolve()):
            np.save(path, array)


def load_competitions(folder: Path, prefix: str, mmap: bool = False) -> Competitions | None:
    """Competitions saved under `prefix` in `folder`, or None when there are none; with `mmap`, the
    levels are mapped read-only rather than read."""
    if not all((folder / f"{prefix}_{n}.npy").exists() for n in FIELDS):
        return None
    return Competitions(*(np.load(folder / f"{prefix}_{n}.npy", allow_pickle=False,
                                  mmap_mode="r" if mmap and n == "levels" else None) for n in FIELDS))
