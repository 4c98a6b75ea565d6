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


# A 15x15 opening with a fight in the bottom left: large enough for the side-extension and
# corner-opening features, with a last move for the playout-policy flags.
OPENING = """
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . O . . . . . . . X . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . X O . . . . . . . O . . .
. X O . . . . . . . . . . . .
. . X . . . . . . . . . . . .
. . . . . . . . . . . . . . .
"""


def opening_board() -> Board:
    """OPENING after White's last move D2 (White C3 stays in atari, Black C2 is down to two liberties)."""
    board = Board.from_ascii(OPENING)
    board.play(board.point(1, 3), WHITE)
    return board
