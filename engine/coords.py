"""Vertex names <-> engine points: the board's own names for its points, the one place they are converted
(the GTP front end, the benches and the board's diagrams use it).

One point in every notation, on a 19x19 board (stride 21; columns skip the letter I, so Q is the
16th column):

    GTP vertex      Q16           letter = column from the left, number = row from the bottom
    (row, col)      (15, 15)      row 0 at the bottom, col 0 at the left (sgfmill's orientation)
    padded point    352           (row + 1) * stride + (col + 1) = 16 * 21 + 16
    SGF             pd            column letter, then row counted from the top (a = row 18)

and D4 = (3, 3) = 88 = SGF "dp". Vertices are case-insensitive; `pass` is PASS and `resign`
(a genmove answer only) is RESIGN. Boards go up to 25x25: A..Z without I gives 25 columns.
"""
from __future__ import annotations

import re

# Same values as engine/board.pxd; kept here so that names convert without a compiled module.
PASS = -1
RESIGN = -2
COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
MIN_SIZE, MAX_SIZE = 2, len(COLUMNS)

_VERTEX = re.compile(r"([A-HJ-Z])([1-9][0-9]?)")


class VertexError(ValueError):
    """Text that is not a vertex on this board."""


def point(row: int, col: int, size: int) -> int:
    """Padded point of (row, col) on a size x size board."""
    return (row + 1) * (size + 2) + col + 1


def coords(pt: int, size: int) -> tuple[int, int]:
    """(row, col) of an on-board padded point."""
    row, col = divmod(pt, size + 2)
    return row - 1, col - 1


def is_on_board(pt: int, size: int) -> bool:
    row, col = coords(pt, size)
    return 0 <= row < size and 0 <= col < size


def vertex_to_point(vertex: str, size: int) -> int:
    """`D4` -> padded point, `pass` -> PASS; VertexError for anything else (resign included)."""
    text = vertex.upper()
    if text == "PASS":
        return PASS
    m = _VERTEX.fullmatch(text)
    if m is None:
        raise VertexError(f"invalid vertex: {vertex!r}")
    col, row = COLUMNS.index(m.group(1)), int(m.group(2)) - 1
    if col >= size or row >= size:
        raise VertexError(f"vertex {vertex!r} is off the {size}x{size} board")
    return point(row, col, size)


def point_to_vertex(pt: int, size: int) -> str:
    """Padded point -> `D4`; PASS -> `pass`, RESIGN -> `resign`."""
    if pt == PASS:
        return "pass"
    if pt == RESIGN:
        return "resign"
    if not is_on_board(pt, size):
        raise VertexError(f"point {pt} is not on the {size}x{size} board")
    row, col = coords(pt, size)
    return f"{COLUMNS[col]}{row + 1}"
