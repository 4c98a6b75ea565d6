"""Shared helpers for tests that draw positions as ASCII (thin over `Board.from_ascii`).

Rows are written top (highest row) first: `X` black, `O` white, `.` or `+` empty, spaces ignored.
Moves in tests are GTP vertices ("D4", no letter I) converted with `vertex`.
"""
from __future__ import annotations

import textwrap

from engine.board import BLACK, PASS, WHITE, Board

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def board_from_ascii(text: str, komi: float = 0.0, to_play: int = BLACK) -> Board:
    """A board from a diagram; komi defaults to 0 so hand-counted scores stay simple."""
    board = Board.from_ascii(textwrap.dedent(text), komi=komi, to_play=to_play)
    board.check()
    return board


def vertex(board: Board, text: str) -> int:
    """The point of a GTP vertex such as "C3" ("pass" gives PASS)."""
    text = text.strip().upper()
    if text == "PASS":
        return PASS
    return board.point(int(text[1:]) - 1, COLUMNS.index(text[0]))


def to_ascii(board: Board) -> str:
    """The diagram of the stones, in from_ascii's notation, one row per line, top first."""
    symbols = {0: ".", BLACK: "X", WHITE: "O"}
    rows = board.stones()[::-1]
    return "\n".join(" ".join(symbols[int(x)] for x in row) for row in rows)


def normalize(text: str) -> str:
    rows = [" ".join(line.replace(" ", "").replace("+", ".")) for line in textwrap.dedent(text).strip().splitlines()]
    return "\n".join(r for r in rows if r)


def assert_stones(board: Board, text: str) -> None:
    """The board's stones equal the diagram, else a readable side-by-side failure."""
    want, got = normalize(text), to_ascii(board)
    assert got == want, f"board differs:\n{got}\n\nexpected:\n{want}"


def assert_position(board: Board, text: str, *, to_play: int | None = None, ko: str | None = "",
                    captures: tuple[int, int] | None = None) -> None:
    """Assert the whole state: stones, internal consistency and optionally side to move, ko and captures.

    ko="" skips the ko check, ko=None means no ko point, ko="C3" names it.
    """
    assert_stones(board, text)
    board.check()
    if to_play is not None:
        assert board.to_play == to_play, f"to_play {board.to_play}, expected {to_play}"
    if ko != "":
        want = 0 if ko is None else vertex(board, ko)
        assert board.ko_point == want, f"ko_point {board.ko_point}, expected {want}"
    if captures is not None:
        assert board.captures == captures, f"captures {board.captures}, expected {captures}"


def play_moves(board: Board, moves: str, first: int | None = None) -> Board:
    """Play space-separated vertices alternately, starting with `first` (default: to_play)."""
    color = board.to_play if first is None else first
    for v in moves.split():
        board.play(vertex(board, v), color)
        color = 3 - color
    return board


__all__ = ["board_from_ascii", "vertex", "to_ascii", "assert_stones", "assert_position", "play_moves",
           "BLACK", "WHITE", "PASS"]
