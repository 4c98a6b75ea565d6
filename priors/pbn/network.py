"""The pyramid's layout: which nodes of one level each node of the level above sees.

A region of h x w points (level 1) is covered by 3x3 fields that overlap by one point (stride 2), and
the grid of level-2 nodes is covered the same way by level 3; the top node sees every level-3 node
(Michalowski et al. 2011, Sec. 4; Dean 2006). Along an axis of length L the fields start at 0, 2, 4, ...
and the last one is cut at the far edge, so 9 points give 4 fields, 5 give 2, 19 give 9, and a 4-wide
level-2 grid gives the level-3 fields {0,1,2} and {2,3}.

Fields are padded to the widest one so that a level is one array: `children[j, c]` is the c-th child
of node j, or -1 past the end of a cut field.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FIELD = 3          # a field is 3x3 ...
STRIDE = 2         # ... and neighbouring fields share one row or column


def windows(length: int) -> list[tuple[int, int]]:
    """[start, stop) of the fields along an axis of `length` nodes."""
    n = max(1, -(-(length - 1) // STRIDE))
    return [(STRIDE * i, min(STRIDE * i + FIELD, length)) for i in range(n)]


def fields(height: int, width: int) -> tuple[np.ndarray, tuple[int, int]]:
    """(children, grid): the padded child indices (row-major over the h x w level below) of each node
    of the level above, row-major over its `grid` of nodes."""
    rows, cols = windows(height), windows(width)
    groups = [[r * width + c for r in range(r0, r1) for c in range(c0, c1)] for r0, r1 in rows for c0, c1 in cols]
    children = np.full((len(groups), max(map(len, groups))), -1, dtype=np.int64)
    for j, group in enumerate(groups):
        children[j, :len(group)] = group
    return children, (len(rows), len(cols))


@dataclass(frozen=True)
class Pyramid:
    """The four levels over an h x w region: points, two hidden levels, the next move."""

    height: int
    width: int
    k2: int = 12            # values of a level-2 node
    k3: int = 7             # values of a level-3 node
    n_colors: int = 3       # values of a point: empty, own stone, opponent stone

    def __post_init__(self) -> None:
        l2, grid2 = fields(self.height, self.width)
        l3, grid3 = fields(*grid2)
        object.__setattr__(self, "l2", l2)            # (J2, C2): points under each level-2 node
        object.__setattr__(self, "l3", l3)            # (J3, C3): level-2 nodes under each level-3 node
        object.__setattr__(self, "grid2", grid2)
        object.__setattr__(self, "grid3", grid3)

    @property
    def n_points(self) -> int:
        return self.height * self.width

    def level_sizes(self) -> tuple[int, int, int, int]:
        """Nodes per level, bottom up: points, level 2, level 3, top."""
        return self.n_points, len(self.l2), len(self.l3), 1
