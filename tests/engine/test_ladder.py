"""The ladder reader: both ways, and a long ladder across 19x19. The playout policy's ladder rules, which
ask the same reader, are tested in test_playout_rules.py."""
import pytest

from engine.board import BLACK, Board
from engine.ladder import is_ladder_attack, is_ladder_caught
from tests.positions import ladder_c3 as ladder


def test_ladder_reader_both_ways():
    open_board = Board.from_ascii(ladder())
    blocked = Board.from_ascii(ladder(breaker=True))
    stone = open_board.point(2, 2)
    assert is_ladder_attack(open_board, stone)
    assert not is_ladder_attack(blocked, stone)
    for board, caught in ((open_board, True), (blocked, False)):
        board.play(board.point(3, 2), BLACK)
        assert is_ladder_caught(board, stone) == caught
    with pytest.raises(ValueError, match="liberties"):
        is_ladder_caught(Board.from_ascii(ladder()), stone)


def test_long_ladder_across_19x19():
    rows = ["." * 19 for _ in range(19)]
    board = Board.from_ascii("\n".join(rows))
    board.setup(black=[board.point(2, 1), board.point(1, 2), board.point(1, 3)], white=[board.point(2, 2)])
    assert is_ladder_attack(board, board.point(2, 2))           # runs 16 lines to the top edge
    board.setup(white=[board.point(17, 17)])
    assert not is_ladder_attack(board, board.point(2, 2))       # broken near the far corner
