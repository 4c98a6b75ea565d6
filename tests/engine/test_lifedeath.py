"""The local reading of enclosed blocks at the end of the game, on hand-drawn shapes in a 9x9 corner.

Each White corner group below is surrounded by a Black wall that reaches the open board (anchored);
the rows not drawn are empty."""
import numpy as np
import pytest

from engine import lifedeath, scoring
from engine.board import Board
from tests.positions import SEKI

EMPTY_ROW = ". . . . . . . . ."


def corner(*top: str) -> Board:
    return Board.from_ascii("\n".join(list(top) + [EMPTY_ROW] * (9 - len(top))))


def point(board: Board, vertex: str) -> int:
    return board.point(int(vertex[1:]) - 1, "ABCDEFGHJ".index(vertex[0]))


# The eye space is a square four: whatever White plays inside leaves a killable three.
SQUARE_FOUR = corner(". . O X . . . . .",
                     ". . O X . . . . .",
                     "O O O X . . . . .",
                     "X X X X . . . . .")
# A straight two: Black kills by throwing in (a self-atari White must capture, leaving one eye).
STRAIGHT_TWO = corner(". . O X . . . . .",
                      "O O O X . . . . .",
                      "X X X X . . . . .")
# A straight three whose vital point Black has taken: a nakade, dead whoever moves.
NAKADE = corner(". X . O X . . . .",
                "O O O O X . . . .",
                "X X X X X . . . .")
# A straight three with its vital point open: White lives by taking it, Black kills by taking it.
STRAIGHT_THREE = corner(". . . O X . . . .",
                        "O O O O X . . . .",
                        "X X X X X . . . .")
# Two one-point eyes.
TWO_EYES = corner(". O . O X . . . .",
                  "O O O O X . . . .",
                  "X X X X X . . . .")


@pytest.mark.parametrize("board, vertex", [(SQUARE_FOUR, "C9"), (STRAIGHT_TWO, "C9"), (NAKADE, "D9")],
                         ids=["square four", "throw-in", "nakade"])
def test_a_dead_shape_is_captured_even_with_its_side_moving_first(board, vertex):
    reader = lifedeath.Reader(board)
    block = point(board, vertex)
    assert reader.read(block, attacker_first=False) == lifedeath.KILL
    assert reader.status(block, dead_now=False) == "dead"
    assert reader.status(block, dead_now=True) is None     # the count's judgement already stands


def test_a_critical_shape_is_left_to_the_playouts():
    reader = lifedeath.Reader(STRAIGHT_THREE)
    block = point(STRAIGHT_THREE, "D9")
    assert reader.read(block, attacker_first=True) == lifedeath.KILL
    assert reader.read(block, attacker_first=False) == lifedeath.LIVE
    assert reader.status(block, dead_now=False) is None and reader.status(block, dead_now=True) is None


def test_two_eyes_live_even_with_the_attacker_first():
    reader = lifedeath.Reader(TWO_EYES)
    assert reader.status(point(TWO_EYES, "D9"), dead_now=True) == "alive"


def test_both_groups_of_a_seki_live():
    board = Board.from_ascii(SEKI)          # Black A2 B2 C2 B1 with the eye A1, White D1-F2 with E1, C1 shared
    reader = lifedeath.Reader(board)
    for vertex in ("A2", "D2"):
        block = board.point(1, "ABCDEFG".index(vertex[0]))
        assert reader.read(block, attacker_first=True) == lifedeath.LIVE
        assert reader.status(block, dead_now=True) == "alive"


def test_a_block_in_open_space_is_not_read():
    board = corner(". . O X . . . . .")     # White C9 next to the open board
    reader = lifedeath.Reader(board)
    assert reader.local_points(point(board, "C9")) is None
    assert reader.status(point(board, "C9"), dead_now=False) is None


def test_a_reading_past_its_budget_is_unknown():
    reader = lifedeath.Reader(SQUARE_FOUR, max_nodes=1)
    assert reader.read(point(SQUARE_FOUR, "C9"), attacker_first=False) == lifedeath.UNKNOWN


def test_the_final_count_reads_what_the_playouts_leave_alive():
    # The playouts keep White's square-four group alive (ownership -0.6 for its stones and eyes);
    # the count of the pass decisions (`classify`) follows them, the final count reads it dead.
    board = SQUARE_FOUR
    own = np.ones((9, 9), dtype=np.float32)
    for vertex in ("A9", "B9", "C9", "A8", "B8", "C8", "A7", "B7", "C7"):
        r, c = board.coords(point(board, vertex))
        own[r, c] = -0.6
    white = sorted(point(board, v) for v in ("C9", "C8", "A7", "B7", "C7"))
    assert white in scoring.classify(board, own)["alive"]
    assert scoring.final_classify(board, own)["dead"] == [white]
    assert scoring.final_count(board, own) == pytest.approx(81 - 7.5)
    assert scoring.final_score(board, own) == pytest.approx(72 - 9 - 7.5)     # White keeps 5 stones, 4 eyes


def test_the_final_count_takes_the_majority_of_the_playouts():
    # A White stone captured in 60% of the playouts: alive for the pass decisions, dead for the count.
    board = corner(". . . . . . . . .", ". . . . . . . . .", ". . . O . . . . .")
    own = np.full((9, 9), 0.2, dtype=np.float32)
    assert scoring.classify(board, own)["dead"] == []
    assert scoring.final_classify(board, own)["dead"] == [[point(board, "D7")]]
