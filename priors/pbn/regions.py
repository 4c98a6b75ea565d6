"""Board regions and training samples: the 9x9 corner and the 5x19 edge strip, seen in 8 orientations.

A region's canonical form is the top-left corner (rows 0-8, cols 0-8 on 19x19) or the top strip
anchored at the left corner (rows 0-4, all columns). The 8 symmetries of the board (`transform`) carry it
onto the 4 corners in both diagonal orientations, or onto the 4 sides anchored at either end: a view is
the array of board indices that the region's points read, row-major. Using all 8 views, in training
and in play, makes the whole-board prior symmetric by construction (cortigo.md Sec. 4.7: the corner
transpose as augmentation, on in production). On a small board a region is cut to half the board, so
the four corners stay apart (19x19: rows/cols 0-8; the centre row and column are in no corner).

Points are coded relative to the side to move: 0 empty, 1 own stone, 2 opponent stone (DESIGN.md),
so one model serves both colours and a colour swap changes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from priors.training.dataset import transform

KINDS = ("corner", "strip")
N_VIEWS = 8


def region_shape(kind: str, board_size: int, corner: int = 9, strip_depth: int = 5) -> tuple[int, int]:
    """(height, width) of the region `kind` on a board of `board_size`."""
    half = board_size // 2
    if kind == "corner":
        side = min(corner, half)
        return side, side
    return min(strip_depth, half), board_size


def views(height: int, width: int, board_size: int) -> np.ndarray:
    """(8, h * w): the row-major board index each region point reads, under each board symmetry."""
    return np.array([[r * board_size + c for r, c in (transform(i // width, i % width, board_size, sym)
                                                      for i in range(height * width))]
                     for sym in range(N_VIEWS)], dtype=np.int64)


def inverse_views(view: np.ndarray, board_size: int) -> np.ndarray:
    """(8, N*N + 1): the region point a board index (pass = N*N) falls on in each view, or -1."""
    inverse = np.full((len(view), board_size * board_size + 1), -1, dtype=np.int64)
    for v, row in enumerate(view):
        inverse[v, row] = np.arange(len(row))
    return inverse


def relative(stones: np.ndarray, to_play: np.ndarray | int) -> np.ndarray:
    """Board colours (EMPTY 0, BLACK 1, WHITE 2) as 0 empty, 1 own, 2 opponent for the side `to_play`."""
    stones = np.asarray(stones)
    own = np.asarray(to_play).reshape(np.shape(to_play) + (1,) * (stones.ndim - np.ndim(to_play)))
    return ((stones != 0) * (1 + (stones != own))).astype(np.uint8)


def stone_counts(points: np.ndarray) -> np.ndarray:
    """s: the stones of both colours in each region (last axis)."""
    return np.count_nonzero(points, axis=-1)


@dataclass
class Samples:
    """Training samples of one region kind: points (M, R) coded 0/1/2, stone count s (M,), move (M,)
    as a region point; `seen[s]` counts every view with s stones, the move in the region or not."""

    points: np.ndarray
    stones: np.ndarray
    moves: np.ndarray
    seen: np.ndarray

    @classmethod
    def empty(cls, n_points: int, max_stones: int) -> "Samples":
        return cls(np.zeros((0, n_points), np.uint8), np.zeros(0, np.int64), np.zeros(0, np.int64),
                   np.zeros(max_stones + 1, np.int64))

    def select(self, index: np.ndarray) -> "Samples":
        return Samples(self.points[index], self.stones[index], self.moves[index], self.seen)

    @staticmethod
    def concatenate(parts: list["Samples"]) -> "Samples":
        return Samples(np.concatenate([p.points for p in parts]), np.concatenate([p.stones for p in parts]),
                       np.concatenate([p.moves for p in parts]), sum(p.seen for p in parts))


def region_samples(boards: np.ndarray, to_play: np.ndarray, moves: np.ndarray, view: np.ndarray,
                   max_stones: int) -> Samples:
    """The samples of one region kind from positions: `boards` (P, N*N) colours, `to_play` (P,),
    `moves` (P,) row-major (N*N for pass). A view is kept iff the next move is inside the region
    and it holds at most `max_stones` stones (Michalowski et al. Sec. 4, "Sample generation")."""
    board_size = int(round(np.sqrt(boards.shape[1])))
    points = relative(boards, to_play)[:, view]                   # (P, 8, R)
    stones = stone_counts(points)
    where = inverse_views(view, board_size)[:, moves].T          # (P, 8): region point of the move
    small = stones <= max_stones
    keep = small & (where >= 0)
    seen = np.bincount(stones[small], minlength=max_stones + 1)
    return Samples(points[keep], stones[keep], where[keep], seen)


def position_arrays(positions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(boards (P, N*N), to_play (P,), moves (P,)) of `priors.training.dataset.Position`s of one board size."""
    positions = list(positions)
    if not positions:
        return np.zeros((0, 0), np.int8), np.zeros(0, np.int64), np.zeros(0, np.int64)
    boards = np.stack([p.board.stones().ravel() for p in positions])
    to_play = np.array([p.to_play for p in positions], dtype=np.int64)
    moves = np.array([p.move_index for p in positions], dtype=np.int64)
    return boards, to_play, moves
