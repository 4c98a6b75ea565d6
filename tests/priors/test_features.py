"""Move features on hand-drawn positions: every group and level, symmetry invariance (the ladder reader
they use: tests/engine/test_ladder.py)."""
import numpy as np
import pytest

from engine.board import BLACK, PASS, WHITE, Board
from priors import features
from priors.features import GROUPS, extract_features, pattern_keys_at
from priors.training.dataset import transform
from tests.positions import ladder_c3 as ladder


def levels_at(board, color, rc, patterns=None):
    """{group: level} of the non-zero levels of the move at (row, col) (None = pass) for color."""
    index, levels = extract_features(board, color, patterns)
    n = board.size
    want = n * n if rc is None else rc[0] * n + rc[1]
    rows = np.flatnonzero(index == want)
    assert len(rows) == 1, f"{rc} is not a candidate move"
    return {g: int(v) for g, v in zip(GROUPS, levels[rows[0]]) if v}


def tactical(board, color, rc):
    keep = {"pass", "capture", "extension", "self_atari", "atari"}
    return {g: v for g, v in levels_at(board, color, rc).items() if g in keep}


def swap(text):
    return text.replace("X", "x").replace("O", "X").replace("x", "O")


def test_candidates_are_legal_points_then_pass():
    board = Board.from_ascii("""
        . X O .
        X . X O
        . X O .
        O O . .
    """)
    index, levels = extract_features(board, BLACK)
    legal = np.flatnonzero(board.legal_points(BLACK))
    assert index.dtype == np.int32 and levels.shape == (len(index), len(GROUPS))
    assert index[:-1].tolist() == legal.tolist() and index[-1] == 16
    assert levels[-1].tolist() == [1] + [0] * (len(GROUPS) - 1)     # pass has only the pass feature
    white_index, _ = extract_features(board, WHITE)
    assert 5 not in white_index.tolist()                              # B3 is suicide for White


def test_pass_new_and_consecutive():
    board = Board(9)
    assert levels_at(board, BLACK, None) == {"pass": 1}
    board.play(board.point(4, 4), BLACK)
    assert levels_at(board, WHITE, None) == {"pass": 1}
    board.play(PASS, WHITE)
    assert levels_at(board, BLACK, None) == {"pass": 2}


def test_capture_levels_1_and_2():
    board = Board.from_ascii("""
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . X . . . .
        . X O . . . .
        . . X . . . .
        . . . . . . .
    """)
    assert tactical(board, BLACK, (2, 3)) == {"capture": 1}          # the stone could run away
    assert tactical(Board.from_ascii(ladder(atari_played=True)), BLACK, (2, 3)) == {"capture": 2}
    assert tactical(Board.from_ascii(ladder(True, True)), BLACK, (2, 3)) == {"capture": 1}


def test_capture_level_3_prevents_connection_to_last_move():
    board = Board.from_ascii("""
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . X . . . .
        . X O . . . .
        . . X . . . .
        . . . . . . .
    """, to_play=WHITE)
    board.play(board.point(2, 4), WHITE)        # threatens to connect at D3
    assert tactical(board, BLACK, (2, 3)) == {"capture": 3}


def test_capture_level_4_recaptures_last_move():
    board = Board.from_ascii("""
        . . . . . . .
        . . . . . . .
        . . . X . . .
        . . X . X . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """, to_play=WHITE)
    board.play(board.point(3, 3), WHITE)
    assert tactical(board, BLACK, (2, 3)) == {"capture": 4}


def test_capture_level_5_saves_own_chain_in_atari():
    board = Board.from_ascii("""
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . O X O . . .
        . X O . . . .
        . . X . . . .
        . . . . . . .
    """)
    assert tactical(board, BLACK, (2, 3)) == {"capture": 5}


def test_capture_level_6_takes_ten_stones():
    board = Board.from_ascii("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X X X X X X X
        O O O O O O O O O
        X X X X X X X X O
        O O O O O O O . .
        . . . . . . . . .
    """)
    assert len(board.group_stones(board.point(3, 0))) == 10
    assert tactical(board, BLACK, (1, 8)) == {"capture": 6}


def test_extension_levels():
    open_stone = Board.from_ascii(swap("""
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . X . . . .
        . X O . . . .
        . . X . . . .
        . . . . . . .
    """))
    assert tactical(open_stone, BLACK, (2, 3)) == {"extension": 1}
    assert tactical(Board.from_ascii(swap(ladder(atari_played=True))), BLACK, (2, 3)) == {"extension": 2}
    assert tactical(Board.from_ascii(swap(ladder(True, True))), BLACK, (2, 3)) == {"extension": 1}


def test_atari_levels():
    assert tactical(Board.from_ascii(ladder()), BLACK, (3, 2)) == {"atari": 3}    # into the ladder
    assert tactical(Board.from_ascii(ladder()), BLACK, (2, 3)) == {"atari": 1}    # chases it out
    assert tactical(Board.from_ascii(ladder(breaker=True)), BLACK, (3, 2)) == {"atari": 1}
    board = Board.from_ascii("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . O . . .
        . . . . O X . . .
        . . . . . . . . .
        . X O . . . . . .
        X O . O . . . . .
        . X O . . . . . .
    """)
    board.play(board.point(1, 2), BLACK)        # takes the ko
    assert board.ko_point == board.point(1, 1)
    assert tactical(board, WHITE, (3, 5)) == {"atari": 2}


def test_self_atari_levels():
    small = Board.from_ascii("""
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        O O O . . . .
        X X X O . . .
        . . X O . . .
    """)
    assert tactical(small, BLACK, (0, 1)) == {"self_atari": 1}
    large = Board.from_ascii("""
        . . . . . . .
        . . . . . . .
        . . . . . . .
        O O O O . . .
        X X X O . . .
        X X X O . . .
        . . O . . . .
    """)
    assert tactical(large, BLACK, (0, 1)) == {"self_atari": 2, "atari": 1}   # and ataris C1


def test_border_lines():
    board = Board(9)
    assert [levels_at(board, BLACK, (r, 4)).get("border", 0) for r in range(5)] == [1, 2, 3, 4, 0]
    assert levels_at(board, BLACK, (0, 0))["border"] == 1


def test_circular_distance_values():
    # The decision-forests spec's unit values: (1,0) -> 2, (1,1) -> 3, (2,0) -> 4, (2,1) -> 5, (3,3) -> 9.
    assert [features.circular_distance(*d) for d in ((1, 0), (1, 1), (2, 0), (2, 1), (3, 3))] == [2, 3, 4, 5, 9]


def test_distance_levels():
    board = Board(9)
    board.play(board.point(4, 4), BLACK)
    board.play(board.point(4, 6), WHITE)
    near = levels_at(board, BLACK, (4, 5))
    assert (near["dist_last"], near["dist_last2"], near["cfg_last"], near["cfg_last2"]) == (1, 2, 1, 2)
    corner = levels_at(board, BLACK, (0, 0))
    # d(4, 6) = 16 -> level 15; d(4, 4) = 12; CFG (graph) distances 10 (capped) and 8.
    assert (corner["dist_last"], corner["dist_last2"], corner["cfg_last"], corner["cfg_last2"]) == (15, 12, 10, 9)
    big = Board(19)
    big.play(big.point(18, 18), BLACK)
    big.play(big.point(0, 0), WHITE)
    far = levels_at(big, BLACK, (18, 0))
    assert (far["dist_last"], far["dist_last2"]) == (16, 17)      # the >= 17 buckets
    board.play(PASS, BLACK)                                         # after a pass: no last-move distance
    after_pass = levels_at(board, WHITE, (4, 5))
    assert "dist_last" not in after_pass and "cfg_last" not in after_pass
    assert (after_pass["dist_last2"], after_pass["cfg_last2"]) == (2, 2)     # from White's G5


def test_cfg_distance_follows_chains():
    board = Board.from_ascii("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . X X X X X X . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, to_play=BLACK)
    board.play(board.point(4, 7), BLACK)         # joins the chain at its right end
    far_end = levels_at(board, WHITE, (4, 0))    # circular distance 14, one step from the chain
    assert far_end["cfg_last"] == 1 and far_end["dist_last"] == 13


def test_second_last_move_point_replayed():
    board = Board.from_ascii("""
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . X X . . .
        . X O . X . .
        . . X . . . .
        . . . . . . .
    """, to_play=WHITE)
    board.play(board.point(2, 3), WHITE)         # self-atari of two stones
    board.play(board.point(1, 3), BLACK)         # captured: D3 is empty again
    again = levels_at(board, WHITE, (2, 3))
    assert again["dist_last2"] == 1 and again["cfg_last2"] == 1


def test_pat3_classes():
    # 954 interior and 135 edge classes (FBT spec, Burnside), plus 18 corner classes.
    assert features.N_PAT3 == 954 + 135 + 18
    board = Board(9)
    board.setup(black=[board.point(4, 5), board.point(5, 5)])
    own = levels_at(board, BLACK, (4, 4))["pat3"]
    assert levels_at(board, WHITE, (4, 4))["pat3"] != own               # own/opponent matter
    turned = Board(9)
    turned.setup(white=[turned.point(3, 4), turned.point(3, 3)])         # rotated, colours swapped
    assert levels_at(turned, WHITE, (4, 4))["pat3"] == own
    assert features.pat3_class(board.pat3(board.point(4, 4)), BLACK) == own - 1


def test_pattern_keys_are_invariant_under_symmetry_and_colour():
    text = """
        . . . . . . .
        . . . . . . .
        . . X O . . .
        . . . . . . .
        . . O . X . .
        . . . X . . .
        . . . . . . .
    """
    board = Board.from_ascii(text)
    keys = pattern_keys_at(board, board.point(3, 3), BLACK)
    assert keys.dtype == np.uint64 and len(keys) == 13 and len(set(keys.tolist())) == 13
    for t in range(8):
        moved = transformed(board, t)
        assert np.array_equal(pattern_keys_at(moved, moved.point(*transform(3, 3, 7, t)), BLACK), keys)
    swapped = Board.from_ascii(swap(text))
    assert np.array_equal(pattern_keys_at(swapped, swapped.point(3, 3), WHITE), keys)
    other = pattern_keys_at(board, board.point(3, 2), BLACK)
    assert not set(other.tolist()) & set(keys.tolist())


def test_pattern_level_is_largest_harvested_size():
    from priors.patterns import PatternSet
    board = Board.from_ascii("""
        . . . . . . .
        . . . . . . .
        . . X O . . .
        . . . . . . .
        . . O . X . .
        . . . X . . .
        . . . . . . .
    """)
    keys = pattern_keys_at(board, board.point(3, 3), BLACK)
    patterns = PatternSet(keys[:4], np.arange(2, 6))            # sizes 2..5 harvested
    assert levels_at(board, BLACK, (3, 3), patterns)["pattern"] == 4
    assert "pattern" not in levels_at(board, BLACK, (3, 3))     # no pattern set: group off
    assert "pattern" not in levels_at(board, WHITE, (3, 3), patterns)   # colours reversed


def transformed(board, t, swap_colours=False):
    n = board.size
    out = Board(n)
    stones = board.stones()
    black = [out.point(*transform(r, c, n, t)) for r in range(n) for c in range(n) if stones[r, c] == BLACK]
    white = [out.point(*transform(r, c, n, t)) for r in range(n) for c in range(n) if stones[r, c] == WHITE]
    if swap_colours:
        black, white = white, black
    out.setup(black, white)
    return out


MIDDLE_GAME = """
. . . . . . . . .
. . . O O X . . .
. . O X X . X . .
. . O X . . . . .
. . . O X X O . .
. . . O O X O . .
. X . . . O X . .
. . X . O . . . .
. . . . . . . . .
"""


@pytest.mark.parametrize("swap_colours", [False, True])
def test_all_features_are_invariant_under_the_8_symmetries(swap_colours):
    base = Board.from_ascii(MIDDLE_GAME)
    moves = [((5, 4), BLACK), ((6, 5), WHITE), ((2, 3), BLACK)]
    reference = None
    for t in range(8):
        board = transformed(base, t, swap_colours)
        for (r, c), color in moves:
            board.play(board.point(*transform(r, c, 9, t)), 3 - color if swap_colours else color)
        to_play = BLACK if swap_colours else WHITE
        index, levels = extract_features(board, to_play)
        by_point = {}
        for i, row in zip(index.tolist(), levels.tolist()):
            key = "pass" if i == 81 else sym_inverse(i // 9, i % 9, 9, t)
            by_point[key] = row
        if reference is None:
            reference = by_point
            groups_seen = np.flatnonzero(np.asarray(list(by_point.values())).any(axis=0))
            assert len(groups_seen) >= 10      # a position rich enough to test most groups
        assert by_point == reference, f"symmetry {t}"


def sym_inverse(row, col, n, t):
    for r in range(n):
        for c in range(n):
            if transform(r, c, n, t) == (row, col):
                return r, c
    raise AssertionError


def test_bad_arguments_are_clear_errors():
    board = Board(5)
    with pytest.raises(ValueError, match="color"):
        extract_features(board, 3)
    with pytest.raises(ValueError, match="not on the board"):
        pattern_keys_at(board, 0, BLACK)



# --- opening knowledge: side extensions and corner openings (boards >= 15) ------------------------

def group_points(board, color, group):
    """{(row, col): level} of the candidates of `color` with a non-zero level in `group`."""
    index, levels = extract_features(board, color)
    g = GROUPS.index(group)
    n = board.size
    return {(i // n, i % n): int(v) for i, v in zip(index[:-1].tolist(), levels[:-1, g].tolist()) if v}


# 15x15: a black stone on the 3-3 point C3 and a white one on the third line at L3.
SIDES = """
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . X . . . . . . . O . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
"""


@pytest.mark.parametrize("color", [BLACK, WHITE])
def test_side_extension_bonus_along_both_sides(color):
    for text in (SIDES, swap(SIDES)):
        side = group_points(Board.from_ascii(text), color, "side_extension")
        # G3: empty boxes at F3, E3 (D3's holds C3) and H3, J3 (K3's holds L3): 2 + 2 + 2 = 6.
        assert side[(2, 6)] == 6 - 2
        # C8 on the left side: C7, C6, C5 down (C4's box holds C3), C9..C14 up (C15's leaves the
        # board): 3 + 6 + 3 = 12.
        assert side[(7, 2)] == 12 - 2
        assert (2, 4) not in side                  # E3: D3's box holds C3, no room on the left
        assert (2, 2) not in side                  # the 3-3 point itself is no side extension
        assert (2, 10) not in side and (3, 6) not in side     # occupied, and not on line 3
        assert all(min(r, c, 14 - r, 14 - c) == 2 for r, c in side)
        assert all(3 <= level + 2 <= 20 for level in side.values())


def test_side_extension_is_capped_and_needs_a_large_board():
    side = group_points(Board(19), BLACK, "side_extension")
    assert side[(2, 9)] == 20 - 2                  # K3: 8 + 8 + 8 = 24, capped at 20
    assert side[(2, 3)] == 18 - 2                  # D3: 2 + 14 + 2
    assert side[(9, 16)] == side[(16, 9)] == side[(9, 2)] == 18
    assert group_points(Board(13), BLACK, "side_extension") == {}
    assert group_points(Board(13), BLACK, "corner_opening") == {}


def corner_set(points, n):
    """The points mapped into all 4 corners of an n x n board."""
    return {(rr, cc) for r, c in points for rr in (r, n - 1 - r) for cc in (c, n - 1 - c)}


CORNER_BOXES = {(r, c) for r in (2, 3, 4) for c in (2, 3, 4) if (r, c) != (4, 4)}   # {3,4,5}^2 but 5-5


@pytest.mark.parametrize("color", [BLACK, WHITE])
def test_corner_openings_on_an_empty_board(color):
    corner = group_points(Board(15), color, "corner_opening")
    assert set(corner) == corner_set(CORNER_BOXES, 15) and len(corner) == 32
    assert set(corner.values()) == {1}


# A black 4-4 stone D4 alone in its corner; a white one at M12 with a white neighbour at L11.
STARS = """
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . O . . .
. . . . . . . . . . O . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . X . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
"""


@pytest.mark.parametrize("color", [BLACK, WHITE])
def test_corner_openings_with_star_points(color):
    untouched = {(r, c) for r, c in corner_set(CORNER_BOXES, 15) if (r < 7) != (c < 7)}
    for text in (STARS, swap(STARS)):
        corner = set(group_points(Board.from_ascii(text), color, "corner_opening"))
        # Bottom left: every box touches D4, and the knight's moves C6 and F3 are added. Top right:
        # every box touches M12, and no knight's moves (K13, N10) since L11 touches the 4-4 stone.
        assert corner == untouched | {(5, 2), (2, 5)}


# --- flags of the playout policy ------------------------------------------------------------------

def played(text, moves):
    """The position of `text` after `moves`, a list of ((row, col), colour)."""
    board = Board.from_ascii(text)
    for (r, c), color in moves:
        board.play(board.point(r, c), color)
    return board


def both_colours(text, moves):
    """(board, colour to move) after `moves`, and the same for the colour-swapped position."""
    yield played(text, moves), 3 - moves[-1][1]
    yield played(swap(text), [(rc, 3 - c) for rc, c in moves]), moves[-1][1]


# White D2 (played last) is in atari with liberty D1; White F6 is in atari with liberty E6.
CAPTURES = """
. . . . . X .
. . . . . O X
. . . . . X .
. . . . . . .
. . . X . . .
. . X . X . .
. . . . . . .
"""


def test_atari_capture_and_capture_flags():
    for board, color in both_colours(CAPTURES, [((1, 3), WHITE)]):
        assert group_points(board, color, "playout_atari_capture") == {(0, 3): 1}
        assert set(group_points(board, color, "playout_capture")) == {(0, 3), (5, 4)}
        assert group_points(board, color, "playout_atari_defend") == {}


# White's last move D3 ataris Black C3: Black extends at C2 or captures White B3 at B2.
DEFENCE = """
. . . . . . .
. . . . . . .
. . . . . . .
. X O . . . .
X O X . . . .
. . . . . . .
. . . . . . .
"""


def test_atari_defence_extends_or_captures_an_attacker():
    for board, color in both_colours(DEFENCE, [((2, 3), WHITE)]):
        assert set(group_points(board, color, "playout_atari_defend")) == {(1, 2), (1, 1)}
        assert set(group_points(board, color, "playout_capture")) == {(1, 1)}
        assert group_points(board, color, "playout_atari_capture") == {}


# White's last move C3 ataris Black C2, whose extension C1 would be in atari again (only B1 left).
SELF_ATARI_DEFENCE = """
. . . . . .
. . . . . .
. . . . . .
. . . . . .
. O X O . .
. . . O . .
"""


def test_atari_defence_leaves_out_a_self_atari_extension():
    for board, color in both_colours(SELF_ATARI_DEFENCE, [((2, 2), WHITE)]):
        assert group_points(board, color, "playout_atari_defend") == {}
        assert (0, 2) in group_points(board, color, "self_atari")


# White's last move C2 has two liberties, C1 and D2, and would gain two more at either.
LOWLIB = """
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . X . . . .
. X . . . . .
. . . . . . .
"""


def test_lowlib_takes_the_liberties_where_the_block_would_gain():
    for board, color in both_colours(LOWLIB, [((1, 2), WHITE)]):
        assert set(group_points(board, color, "playout_lowlib")) == {(0, 2), (1, 3)}
    rows = LOWLIB.strip().splitlines()
    blocked = "\n".join(rows[:-1] + [". . . X . . ."])       # Black D1: C1 would gain one liberty only
    for board, color in both_colours(blocked, [((1, 2), WHITE)]):
        assert set(group_points(board, color, "playout_lowlib")) == {(1, 3)}


# White's last move C3 has two liberties, D3 and C2, both shared with White D2: a simple chain.
CHAIN = """
. . . . . . .
. . . . . . .
. . . . . . .
. . X . . . .
. X . . . . .
. . . O . . .
. . . . . . .
"""


def test_lowlib_leaves_a_simple_chain_alone():
    for board, color in both_colours(CHAIN, [((2, 2), WHITE)]):
        assert group_points(board, color, "playout_lowlib") == {}
    alone = CHAIN.replace(". . . O . . .", ". . . . . . .")
    for board, color in both_colours(alone, [((2, 2), WHITE)]):
        assert set(group_points(board, color, "playout_lowlib")) == {(2, 3), (1, 2)}


# A white wall around the straight three-point space B1-D1, closed by the last move.
NAKADE = """
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
O . . . O . .
O . . . O . .
"""


@pytest.mark.parametrize("last", [(1, 1), (1, 2), (1, 3)])
def test_nakade_plays_the_centre_of_three(last):
    wall = [(rc, WHITE) for rc in ((1, 1), (1, 2), (1, 3)) if rc != last] + [(last, WHITE)]
    for board, color in both_colours(NAKADE, wall):
        assert group_points(board, color, "playout_nakade") == {(0, 2): 1}


def test_no_nakade_in_a_four_point_space():
    four = NAKADE.replace("O . . . O . .", "O . . . . O .")
    wall = [((1, c), WHITE) for c in (1, 3, 4, 2)]
    for board, color in both_colours(four, wall):
        assert group_points(board, color, "playout_nakade") == {}


def test_pattern_flags_are_shape_moves_next_to_the_last_two_moves():
    from engine.playout import pat3_table
    table = pat3_table()
    text = """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . X . . . .
        . . O . . . .
        . . . . . . .
        . . . . . . .
    """
    for board, color in both_colours(text, [((1, 5), BLACK), ((3, 3), WHITE)]):
        flagged = set(group_points(board, color, "playout_pattern"))
        assert board.color_at(board.point(3, 2)) == color
        assert (2, 3) in flagged                        # the cut D3 (cut1: C4 own, D4 and C3 not)
        near = {(r + dr, c + dc) for r, c in ((3, 3), (1, 5)) for dr in (-1, 0, 1) for dc in (-1, 0, 1)}
        shape = {(r, c) for r, c in near if board.color_at(board.point(r, c)) == 0
                 and table[board.pat3(board.point(r, c))] & color}
        assert flagged == shape
    assert group_points(Board.from_ascii(text), BLACK, "playout_pattern") == {}     # no last move


# Black's eye B2 and the corner A1 are completely surrounded by Black; G1 touches both colours.
EYES = """
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
. X . . . . .
X . X . . . X
. X . . . O .
"""

# Black's eye C3 next to Black C2 in atari; and the same eye with no white stones.
EYE_IN_ATARI = """
. . . . . . .
. . . . . . .
. . . . . . .
. . X . . . .
. X . X . . .
. O X O . . .
. . O . . . .
"""
EYE_SAFE = """
. . . . . . .
. . . . . . .
. . . . . . .
. . X . . . .
. X . X . . .
. . X . . . .
. . . . . . .
"""


def test_random_pruned_marks_completely_surrounded_points():
    for text, own in ((EYES, BLACK), (swap(EYES), WHITE)):
        board = Board.from_ascii(text)
        assert set(group_points(board, own, "playout_random_pruned")) == {(1, 1), (0, 0)}
        assert group_points(board, 3 - own, "playout_random_pruned") == {}     # suicides there
    for swapped, own in ((False, BLACK), (True, WHITE)):
        atari, safe = (swap(t) if swapped else t for t in (EYE_IN_ATARI, EYE_SAFE))
        assert (2, 2) not in group_points(Board.from_ascii(atari), own, "playout_random_pruned")
        assert (2, 2) in group_points(Board.from_ascii(safe), own, "playout_random_pruned")


def test_new_groups_have_the_documented_levels():
    counts = features.level_counts(0)
    assert GROUPS[:12] == features.LEGACY_GROUPS and len(GROUPS) == 21
    assert counts[GROUPS.index("side_extension")] == 19                 # SIDE_EXTENSION_3..20
    flags = [g for g in GROUPS if g.startswith("playout_")] + ["corner_opening"]
    assert len(flags) == 8 and all(counts[GROUPS.index(g)] == 2 for g in flags)


def test_new_groups_are_invariant_under_the_8_symmetries():
    from tests.positions import OPENING
    base = Board.from_ascii(OPENING)
    legacy = len(features.LEGACY_GROUPS)
    reference = None
    for t in range(8):
        board = transformed(base, t)
        board.play(board.point(*transform(1, 3, 15, t)), WHITE)            # the last move of opening_board
        index, levels = extract_features(board, BLACK)
        by_point = {sym_inverse(i // 15, i % 15, 15, t): row[legacy:]
                    for i, row in zip(index[:-1].tolist(), levels[:-1].tolist())}
        if reference is None:
            reference = by_point
            assert np.count_nonzero(np.asarray(list(by_point.values())).any(axis=0)) >= 5
        assert by_point == reference, f"symmetry {t}"
