"""Dead stones, seki and final score from hand-drawn finished positions and ownership maps."""
import numpy as np
import pytest

from engine import scoring
from engine.board import BLACK, PASS, WHITE, Board
from engine.params import PlayoutParams
from tests.positions import SEKI


def ownership(text: str) -> np.ndarray:
    """Rows top first like Board.from_ascii; `+` is 1 (Black), `-` is -1 (White), else a number."""
    rows = [line.split() for line in text.strip().splitlines()]
    values = [[1.0 if t == "+" else -1.0 if t == "-" else float(t) for t in row] for row in rows]
    return np.array(values[::-1], dtype=np.float32)


# A dead white stone in Black's area (B5) and a dead black pair in White's area (F3 G3).
DEAD = """
. . . X O . .
. . . X O . .
. O . X O . .
. . . X O . .
. . . X O X X
. . . X O . .
. . . X O . .
"""
DEAD_OWN = """
+ + + + - - -
+ + + + - - -
+ .8 + + - - -
+ + + + - - -
+ + + + - -.9 -.7
+ + + + - - -
+ + + + - - -
"""

# A finished game: Black and White alive with eyes, a dead white stone at B5 and a dead black one at F4.
FINISHED = """
. X . X O . .
X X X X O O O
. O . X O . .
X X X X O X O
. X . X O O O
. X X X O . .
. X . X O . .
"""

# An ownership map for SEKI (tests/positions.py).
SEKI_OWN = """
- - - + + + +
- - - + + + +
- - - + + + +
- - - + + + +
- - - + + + +
.2 .2 .2 -.2 -.2 -.2 +
.3 .2 0 -.2 -.3 -.2 +
"""


def points(board, *vertices):
    cols = "ABCDEFGHJ"
    return sorted(board.point(int(v[1:]) - 1, cols.index(v[0])) for v in vertices)


def test_dead_groups_by_ownership():
    board = Board.from_ascii(DEAD, komi=0.5)
    status = scoring.classify(board, ownership(DEAD_OWN))
    assert status["dead"] == [points(board, "F3", "G3"), points(board, "B5")]
    assert status["seki"] == []
    assert sorted(len(g) for g in status["alive"]) == [7, 7]
    assert scoring.dead_stones(board, ownership(DEAD_OWN)) == points(board, "F3", "G3", "B5")


def test_final_score_removes_dead_stones():
    board = Board.from_ascii(DEAD, komi=0.5)
    # By hand: Black has columns A-D (28 points), White E-G (21), komi 0.5.
    assert scoring.final_score(board, ownership(DEAD_OWN)) == pytest.approx(28 - 21 - 0.5)
    assert scoring.format_score(scoring.final_score(board, ownership(DEAD_OWN))) == "B+6.5"
    assert board.color_at(points(board, "B5")[0]) == WHITE          # the board itself is untouched


@pytest.mark.parametrize("to_play", [BLACK, WHITE])
def test_playout_ownership_captures_dead_stones(to_play):
    board = Board.from_ascii(FINISHED, komi=0.5, to_play=to_play)
    own = scoring.playout_ownership(board, PlayoutParams(), 200, seed=1)
    assert scoring.dead_stones(board, own) == points(board, "B5", "F4")
    assert scoring.final_score(board, own) == pytest.approx(28 - 21 - 0.5)


def test_pessimistic_margin_gives_every_unsure_point_to_the_opponent():
    board = Board.from_ascii(DEAD, komi=0.5)
    own = ownership(DEAD_OWN)
    # Black owns all its 28 points surely (the dead white B5 at the threshold, 0.8): the area score.
    assert scoring.pessimistic_margin(board, own, BLACK) == pytest.approx(28 - 21 - 0.5)
    # White owns its dead black G3 at 0.7 only: unsure, so it counts for Black when White is pessimistic.
    assert scoring.pessimistic_margin(board, own, WHITE) == pytest.approx(20 - 29 + 0.5)
    own[2, 0] = 0.0                     # A3 unsure: Black gives it to White
    assert scoring.pessimistic_margin(board, own, BLACK) == pytest.approx(27 - 22 - 0.5)


def test_an_open_board_is_never_safe_to_pass():
    board = Board(9, komi=7.5)
    nobody = np.zeros((9, 9))
    assert scoring.pessimistic_margin(board, nobody, BLACK) == pytest.approx(-81 - 7.5)
    assert scoring.pessimistic_margin(board, nobody, WHITE) == pytest.approx(-81 + 7.5)


def test_a_finished_game_is_safe_to_pass_for_its_winner_only():
    board = Board.from_ascii(FINISHED, komi=0.5)
    own = scoring.playout_ownership(board, PlayoutParams(), 200, seed=1)
    assert scoring.pessimistic_margin(board, own, BLACK) == pytest.approx(28 - 21 - 0.5)
    assert scoring.pessimistic_margin(board, own, WHITE) < 0


def test_playout_ownership_after_two_passes_still_plays_out():
    # Playouts from the board as it stands would end at once, the dead stones on it.
    board = Board.from_ascii(FINISHED, komi=0.5)
    board.play(PASS, BLACK)
    board.play(PASS, WHITE)
    own = scoring.playout_ownership(board, PlayoutParams(), 50, seed=1)
    assert scoring.dead_stones(board, own) == points(board, "B5", "F4")


def test_playout_ownership_is_seeded_and_ignores_the_side_to_move():
    black, white = (Board.from_ascii(DEAD, komi=0.5, to_play=c) for c in (BLACK, WHITE))   # unsettled
    own = scoring.playout_ownership(black, PlayoutParams(), 40, seed=3)
    assert own.dtype == np.float32 and own.shape == (7, 7) and np.all(np.abs(own) <= 1)
    assert np.array_equal(own, scoring.playout_ownership(white, PlayoutParams(), 40, seed=3))
    assert not np.array_equal(own, scoring.playout_ownership(black, PlayoutParams(), 40, seed=4))


def test_play_on_keeps_stones_komi_and_side_to_move_and_forgets_passes():
    board = Board.from_ascii(FINISHED, komi=0.5)
    board.play(PASS, BLACK)
    board.play(PASS, WHITE)
    fresh = scoring.play_on(board)
    assert np.array_equal(fresh.stones(), board.stones())
    assert (fresh.komi, fresh.to_play) == (board.komi, board.to_play)
    assert fresh.hash == Board.from_ascii(FINISHED, komi=0.5).hash


def test_dead_threshold_is_half():
    board = Board.from_ascii(DEAD, komi=0.5)
    own = ownership(DEAD_OWN)
    r, c = board.coords(points(board, "B5")[0])
    own[r, c] = scoring.DEAD_THRESHOLD - 0.05       # not clearly Black's: the stone stays alive
    status = scoring.classify(board, own)
    assert points(board, "B5") in status["alive"]
    # Columns A-C now touch both colours and are neutral: Black keeps its 7 wall stones, White
    # has columns E-G (F3 G3 removed) and B5.
    assert scoring.final_score(board, own) == pytest.approx(7 - 22 - 0.5)


def test_seki_groups_and_neutral_shared_liberty():
    board = Board.from_ascii(SEKI, komi=7.5)
    status = scoring.classify(board, ownership(SEKI_OWN))
    assert status["seki"] == [points(board, "A2", "B2", "C2", "B1"),
                              points(board, "D1", "D2", "E2", "F2", "F1")]
    assert status["dead"] == []
    assert len(status["alive"]) == 2
    # By hand: Black 20 + 2 (G1 G2) + 5 (group and eye A1) = 27, White 15 + 6 = 21, C1 neutral.
    assert scoring.final_score(board, ownership(SEKI_OWN)) == pytest.approx(27 - 21 - 7.5)
    assert scoring.format_score(27 - 21 - 7.5) == "W+1.5"


def test_a_lost_semeai_is_dead_not_seki():
    board = Board.from_ascii(SEKI, komi=7.5)
    own = ownership(SEKI_OWN)
    own[:2, :3] = -0.9                              # the playouts say Black's inner group dies
    status = scoring.classify(board, own)
    assert status["dead"] == [points(board, "A2", "B2", "C2", "B1")]
    assert status["seki"] == []


def test_format_score():
    assert [scoring.format_score(s) for s in (3.5, -0.5, 0.0, 7.0, -12.0, 1e-9)] == \
        ["B+3.5", "W+0.5", "0", "B+7", "W+12", "0"]


def test_ownership_shape_must_match():
    board = Board.from_ascii(DEAD)
    with pytest.raises(ValueError, match="shape"):
        scoring.classify(board, np.zeros((9, 9)))


def test_groups_lists_every_group_once():
    board = Board.from_ascii(DEAD)
    found = scoring.groups(board)
    assert sum(len(g) for g in found) == int((board.stones() != 0).sum())
    assert len(found) == 4
    assert all(board.color_at(p) in (BLACK, WHITE) for g in found for p in g)
