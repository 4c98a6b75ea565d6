"""Training positions drawn by hand, shared by the tests of the fitted priors (mm, fbt). The diagrams
themselves are in tests/positions.py."""
from __future__ import annotations

from engine.board import BLACK, PASS, WHITE, Board
from priors.training.dataset import Position
from tests.positions import OPENING, STONE_IN_ATARI


def hand_positions() -> list[Position]:
    """A few positions with expert moves: capture or save the stone in atari, a pass."""
    out = []
    for color in (BLACK, WHITE):
        board = Board.from_ascii(STONE_IN_ATARI, to_play=color)
        out.append(Position(board, color, board.point(4, 3), 10, "hand"))
    board = Board(7)
    out.append(Position(board, BLACK, board.point(3, 3), 1, "hand"))
    out.append(Position(Board.from_ascii(STONE_IN_ATARI), BLACK, PASS, 80, "hand"))
    return out


def opening_board() -> Board:
    """OPENING after White's last move D2 (White C3 stays in atari, Black C2 is down to two liberties)."""
    board = Board.from_ascii(OPENING)
    board.play(board.point(1, 3), WHITE)
    return board
