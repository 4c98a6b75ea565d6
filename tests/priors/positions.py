"""Hand-drawn training positions shared by the tests of the fitted priors (mm, fbt)."""
from __future__ import annotations

from engine.board import BLACK, PASS, WHITE, Board
from priors.dataset import Position

# A white stone in atari at D4 (row 4, col 3 from the bottom left): Black captures, White connects.
POSITION = """
. . . . . . .
. . X O . . .
. X O . O . .
. . X O . . .
. . . X . . .
. . . . . . .
. . . . . . .
"""


def hand_positions() -> list[Position]:
    """A few positions with expert moves: capture or save the stone in atari, a pass."""
    out = []
    for color in (BLACK, WHITE):
        board = Board.from_ascii(POSITION, to_play=color)
        out.append(Position(board, color, board.point(4, 3), 10, "hand"))
    board = Board(7)
    out.append(Position(board, BLACK, board.point(3, 3), 1, "hand"))
    out.append(Position(Board.from_ascii(POSITION), BLACK, PASS, 80, "hand"))
    return out
