"""Training positions drawn by hand and the `evaluate` contract, shared by the tests of the fitted priors
(mm, fbt). The diagrams themselves are in tests/positions.py."""
from __future__ import annotations

import numpy as np
import pytest

from engine.board import BLACK, PASS, WHITE, Board
from priors.dataset import Position
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


def assert_evaluate_contract(prior, color: int) -> tuple[Board, np.ndarray]:
    """`evaluate` on STONE_IN_ATARI: float32 probabilities per point and pass, summing to 1, zero exactly
    on the illegal points. Returns the board and the probabilities for further checks."""
    board = Board.from_ascii(STONE_IN_ATARI)
    p = prior.evaluate(board, color)
    assert p.dtype == np.float32 and p.shape == (50,)
    assert p.sum() == pytest.approx(1.0, abs=1e-5)
    legal = board.legal_points(color)
    assert np.all(p[:-1][~legal] == 0) and np.all(p[:-1][legal] > 0) and p[-1] > 0
    return board, p


def opening_board() -> Board:
    """OPENING after White's last move D2 (White C3 stays in atari, Black C2 is down to two liberties)."""
    board = Board.from_ascii(OPENING)
    board.play(board.point(1, 3), WHITE)
    return board
