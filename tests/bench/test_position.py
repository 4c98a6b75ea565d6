import numpy as np

from bench.position import Position, parse_vertex
from tests.boards import BLACK, WHITE, board_from_ascii
from tests.positions import KO


def position(diagram: str) -> Position:
    """A Position from a diagram in tests.boards' notation."""
    stones = board_from_ascii(diagram).stones()          # rows from the bottom, as Position counts them
    pos = Position(len(stones))
    black, white = ([tuple(p) for p in np.argwhere(stones == color).tolist()] for color in (BLACK, WHITE))
    pos.board.apply_setup(black, white, [])
    pos.history = {pos._key(pos.board)}
    return pos


def v(text: str, size: int = 5):
    return parse_vertex(text, size)


def test_occupied_points_and_suicide_are_illegal():
    pos = position("""
        . X . . .
        X . . . .
        . . . . .
        . O . . .
        O . O . .
    """)
    assert pos.illegal_reason(v("A5"), "w") == "suicide"
    assert pos.illegal_reason(v("A4"), "w") == "occupied"
    assert pos.illegal_reason(v("A5"), "b") is None
    assert pos.illegal_reason(v("B1"), "b") == "suicide"       # no liberty, captures nothing
    assert pos.illegal_reason(v("B1"), "w") is None
    assert pos.illegal_reason(None, "w") is None


def test_simple_ko_recapture_is_illegal_until_a_move_elsewhere():
    pos = position(KO)
    pos.play(v("C3"), "b")           # black captures B3
    assert pos.board.get(*v("B3")) is None
    assert pos.illegal_reason(v("B3"), "w") == "ko"
    pos.play(v("E5"), "w")
    pos.play(v("E1"), "b")
    assert pos.illegal_reason(v("B3"), "w") is None


def test_a_capture_that_recreates_an_earlier_position_is_superko():
    pos = position("""
        . . . . .
        . . . . .
        X X . . .
        O O X . .
        . . O X .
    """)
    assert pos.illegal_reason(v("A1"), "b") is None
    # Pretend the game went through the position that capturing at A1 now creates (as in a
    # triple ko): taking two stones is no simple ko, so the rule that forbids it is superko.
    after = pos.board.copy()
    after.play(*v("A1"), "b")
    pos.history.add(pos._key(after))
    assert pos.illegal_reason(v("A1"), "b") == "superko"


def test_area_score_counts_stones_and_surrounded_points_after_removing_dead_stones():
    pos = position("""
        . X O . .
        . X O . .
        . X O . O
        . X O . .
        . X O O .
    """)
    # Black: 5 stones + 5 points of column A = 10; White: 6 stones + 9 points = 15.
    assert pos.area_score() == 10 - 15
    # E3 white stone called dead: still White's area, nothing changes but the stone.
    assert pos.area_score([v("E3")]) == 10 - 15
    # The whole white wall dead: Black owns everything.
    dead = [v(f"C{r}") for r in range(1, 6)] + [v("D1"), v("E3")]
    assert pos.area_score(dead) == 25


def test_open_points_are_the_regions_reaching_both_colours_but_next_to_a_seki():
    pos = position("""
        . X . O .
        . X . O .
        X X . O O
        . . . . .
        . . . . .
    """)
    assert pos.open_points() == 13          # column C down to rows 1-2; A5 A4 and E5 E4 are one colour's
    assert pos.open_points(dead=[v("D5"), v("D4"), v("D3"), v("E3")]) == 0
    assert pos.open_points(seki=[v("B3")]) == 11            # less B2 and C3, beside a seki stone
