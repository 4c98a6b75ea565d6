"""The playout policy: each rule on a drawn position, the move permit, whole playouts and the 3x3 table."""
import numpy as np
import pytest

from engine.board import BLACK, EMPTY, PASS, WHITE, Board
from engine.params import PlayoutParams
from engine.playout import make_params, pat3_table, playout_move, run_playout, run_playouts
from tests.boards import board_from_ascii

ALL_OFF = PlayoutParams(capture_rate=0, save_rate=0, pattern_rate=0, self_atari_rate=0)
SEEDS = range(1, 21)


def only(**rates) -> PlayoutParams:
    """Every rule off except the given rates."""
    fields = dict(capture_rate=0, save_rate=0, pattern_rate=0, self_atari_rate=0)
    fields.update(rates)
    return PlayoutParams(**fields)


def moves_over_seeds(board: Board, params: PlayoutParams) -> list[int]:
    return [playout_move(board, params, seed=s) for s in SEEDS]


def after_white(text: str, row: int, col: int) -> Board:
    """The drawn position after White plays (row, col); Black to move."""
    board = board_from_ascii(text, komi=7.5, to_play=WHITE)
    board.play(board.point(row, col), WHITE)
    assert board.to_play == BLACK
    return board


# --- rule 1: capture ---------------------------------------------------------------------------------

def test_capture_takes_the_last_moves_group_in_atari():
    # White extends (3,4) from its stone at (4,4): the two stones have one liberty, (2,4).
    board = after_white("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . X O X . . .
        . . . X . X . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, 3, 4)
    target = board.point(2, 4)
    assert moves_over_seeds(board, only(capture_rate=100)) == [target] * len(SEEDS)
    # without the rule the same seeds rarely find it
    assert moves_over_seeds(board, ALL_OFF).count(target) <= 3


# --- rule 2: save ------------------------------------------------------------------------------------

def test_save_extends_a_group_that_can_escape():
    # White's (5,4) leaves Black's (4,4) one liberty; extending to (3,4) gives it three.
    board = after_white("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . O X O . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, 5, 4)
    target = board.point(3, 4)
    assert moves_over_seeds(board, only(save_rate=100)) == [target] * len(SEEDS)
    assert moves_over_seeds(board, ALL_OFF).count(target) <= 3


def test_save_does_not_extend_a_group_that_cannot_escape():
    # Extending to (3,4) would leave the two stones one liberty, (2,4): the rule keeps quiet. The
    # self-atari filter is off, so only the save rule itself can keep the policy from (3,4).
    board = after_white("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . O X O . . .
        . . . O . O . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, 5, 4)
    target = board.point(3, 4)
    assert moves_over_seeds(board, only(save_rate=100)).count(target) <= 3


def test_save_counter_captures_a_neighbour_in_atari():
    # Black's (4,4) is in atari and cannot extend (one liberty after (3,4)), but White's (4,3) next to
    # it is in atari too: take it at (3,3).
    board = after_white("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . X . . . . .
        . . X O X O . . .
        . . . . . O . . .
        . . . . O . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, 5, 4)
    target = board.point(3, 3)
    assert moves_over_seeds(board, only(save_rate=100)) == [target] * len(SEEDS)
    assert moves_over_seeds(board, ALL_OFF).count(target) <= 3


# --- rule 3: 3x3 patterns ----------------------------------------------------------------------------

def test_pattern_answers_an_attachment_with_hane_shapes():
    # White attaches at (5,4) to Black's (5,3). The four empty points touching both stones are
    # non-cutting hane shapes (X O . over an empty row) for one colour or the other, hence for both;
    # the three on the far side of the white stone touch one stone only and match nothing.
    board = after_white("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . X . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, 5, 4)
    targets = {board.point(r, c) for r in (4, 6) for c in (3, 4)}
    moves = moves_over_seeds(board, only(pattern_rate=100))
    assert set(moves) <= targets and len(set(moves)) > 1
    assert sum(m in targets for m in moves_over_seeds(board, ALL_OFF)) <= 4


def _rotate_codes(codes: np.ndarray) -> np.ndarray:
    """pat3 codes of the same neighbourhoods turned by 90 degrees."""
    order = [(1, -1), (1, 0), (1, 1), (0, -1), (0, 1), (-1, -1), (-1, 0), (-1, 1)]
    out = np.zeros_like(codes)
    for k, (dr, dc) in enumerate(order):
        out |= ((codes >> (2 * k)) & 3) << (2 * order.index((dc, -dr)))
    return out


def _swap_codes(codes: np.ndarray) -> np.ndarray:
    out = np.zeros_like(codes)
    for k in range(8):
        cell = (codes >> (2 * k)) & 3
        out |= np.where((cell == 1) | (cell == 2), 3 - cell, cell) << (2 * k)
    return out


def test_pattern_table_is_symmetric_and_colour_swapped():
    table = pat3_table()
    codes = np.arange(1 << 16, dtype=np.int64)
    assert table.shape == (1 << 16,) and 0 < np.count_nonzero(table) < 10000
    assert np.array_equal(table[_rotate_codes(codes)], table)
    swapped = table[_swap_codes(codes)]
    assert np.array_equal(swapped & BLACK, (table & WHITE) >> 1)
    assert np.array_equal(swapped & WHITE, (table & BLACK) << 1)


def test_pattern_table_agrees_with_the_boards_code():
    board = board_from_ascii("""
        . . . . .
        . X O X .
        . . . . .
        . . . . .
        . . . . .
    """)
    table = pat3_table()
    assert table[board.pat3(board.point(2, 2))] == BLACK | WHITE   # enclosing hane, either colour
    assert table[board.pat3(board.point(1, 2))] == 0                 # nothing next to it
    assert table[board.pat3(board.point(0, 0))] == 0                 # corner


# --- the permit --------------------------------------------------------------------------------------

def test_policy_passes_when_only_own_eyes_are_left():
    board = board_from_ascii("""
        X X X X X
        X . X . X
        X X X X X
        X . X . X
        X X X X X
    """)
    eyes = [board.point(r, c) for r in (1, 3) for c in (1, 3)]
    assert all(board.is_legal(p, BLACK) for p in eyes)   # legal, so only the eye rule refuses them
    assert moves_over_seeds(board, PlayoutParams()) == [PASS] * len(SEEDS)
    assert moves_over_seeds(board, ALL_OFF) == [PASS] * len(SEEDS)


SELF_ATARI = """
    X X . O .
    . O O O O
    O O . O O
    O . O O .
    O O O O O
"""


def test_bad_self_atari_of_two_stones_is_refused():
    # Black's only legal moves, (4,2) and (3,0), each leave its three stones in atari.
    board = board_from_ascii(SELF_ATARI)
    choices = {board.point(4, 2), board.point(3, 0)}
    assert moves_over_seeds(board, only(self_atari_rate=100)) == [PASS] * len(SEEDS)
    assert set(moves_over_seeds(board, only(self_atari_rate=0))) == choices


def test_single_stone_self_atari_is_allowed():
    # A lone stone in atari may be a throw-in or a nakade: the filter lets it through.
    board = board_from_ascii("""
        O O O O O
        O O O O O
        O O . . O
        O O O O O
        O O O O O
    """)
    choices = {board.point(2, 2), board.point(2, 3)}
    assert set(moves_over_seeds(board, only(self_atari_rate=100))) == choices


def play_policy_game(params: PlayoutParams, check_move) -> Board:
    """Play the policy's moves on an empty 9x9 until two passes, calling check_move(board, move, color)
    before each move is played."""
    board = Board(9, komi=7.0)
    previous = None
    for i in range(3 * 81):
        color = board.to_play
        move = playout_move(board, params, seed=i)
        check_move(board, move, color)
        board.play(move, color)
        if move == PASS and previous == PASS:
            break
        previous = move
    else:
        pytest.fail("the policy game did not end")
    board.check()
    return board


def test_policy_moves_are_legal_and_never_fill_own_eyes():
    def check(board, move, color):
        if move != PASS:
            assert board.is_legal(move, color)
            assert not board.is_eye(move, color)

    play_policy_game(PlayoutParams(), check)


def test_refused_self_ataris_never_appear_at_rate_100():
    def check(board, move, color):
        if move != PASS:
            assert board.self_atari_size(move, color) < 2

    play_policy_game(PlayoutParams(self_atari_rate=100), check)


# --- whole playouts ----------------------------------------------------------------------------------

def eyelike_score(board: Board) -> float:
    """Stones plus empty points whose on-board neighbours all have one colour, black - white - komi."""
    stones = board.stones()
    n = board.size
    total = float(np.count_nonzero(stones == BLACK) - np.count_nonzero(stones == WHITE))
    for r in range(n):
        for c in range(n):
            if stones[r, c] != EMPTY:
                continue
            nbrs = {int(stones[rr, cc]) for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                    if 0 <= rr < n and 0 <= cc < n}
            if nbrs == {BLACK}:
                total += 1
            elif nbrs == {WHITE}:
                total -= 1
    return total - board.komi


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_playout_from_empty_board_ends_with_two_passes_and_scores_consistently(seed):
    board = Board(9, komi=7.0)
    final, score, moves = run_playout(board, PlayoutParams(), seed=seed)
    assert 40 < len(moves) < 3 * 81
    assert moves[-2:] == [PASS, PASS]
    assert final.move_number == len(moves)
    assert score == pytest.approx(eyelike_score(final))
    final.check()
    assert board.move_number == 0 and not board.stones().any()   # the argument is untouched
    one = run_playouts(board, PlayoutParams(), 1, seed=seed)
    assert one["mean_score"] == pytest.approx(score) and one["mean_length"] == len(moves)


def test_playouts_from_empty_board_are_balanced_with_komi():
    result = run_playouts(Board(9, komi=7.0), PlayoutParams(), 2000, seed=7)
    assert result["n"] == 2000
    assert 0.2 < result["black_wins"] < 0.8
    assert 40 < result["mean_length"] < 3 * 81
    assert -40 < result["mean_score"] < 40


def test_light_playouts_end_too():
    result = run_playouts(Board(9, komi=7.0), ALL_OFF, 200, seed=7)
    assert 40 < result["mean_length"] < 3 * 81


def test_max_moves_caps_the_playout():
    final, _, moves = run_playout(Board(9), PlayoutParams(max_moves=10), seed=1)
    assert len(moves) == 10 and final.move_number == 10


def test_fixed_seed_repeats_and_other_seeds_differ():
    board = Board(9, komi=7.0)
    a = run_playouts(board, PlayoutParams(), 50, seed=11)
    b = run_playouts(board, PlayoutParams(), 50, seed=11)
    c = run_playouts(board, PlayoutParams(), 50, seed=12)
    del a["seconds"], b["seconds"], c["seconds"]
    assert a == b
    assert a != c
    assert run_playout(board, PlayoutParams(), seed=4)[2] == run_playout(board, PlayoutParams(), seed=4)[2]


def test_black_wins_a_decided_position():
    # Black's wall and eyes on the left, with a 4 x 5 open area; White's living group on the right.
    board = board_from_ascii("""
        . X . X . X O . O
        X X X X X X O O O
        . X . X . X O . O
        X X X X X X O O O
        X X X X X X O . O
        . . . . . X O O O
        . . . . . X O . O
        . . . . . X O O O
        . . . . . X O . O
    """, komi=7.5, to_play=WHITE)
    result = run_playouts(board, PlayoutParams(), 300, seed=5)
    assert result["black_wins"] >= 0.9   # White lives inside now and then: the policy is no expert
    assert result["mean_score"] > 10
    # the same position with White owning the left side loses for Black
    flipped = board_from_ascii("""
        . O . O . O X . X
        O O O O O O X X X
        . O . O . O X . X
        O O O O O O X X X
        O O O O O O X . X
        . . . . . O X X X
        . . . . . O X . X
        . . . . . O X X X
        . . . . . O X . X
    """, komi=7.5, to_play=BLACK)
    assert run_playouts(flipped, PlayoutParams(), 300, seed=5)["black_wins"] <= 0.1


# --- parameters and bad input ------------------------------------------------------------------------

def test_make_params_resolves_max_moves():
    assert make_params(PlayoutParams(), 9)["max_moves"] == 243
    assert make_params(PlayoutParams(max_moves=50), 9)["max_moves"] == 50
    assert make_params(PlayoutParams(), 19)["max_moves"] == 1000   # capped by the record size
    p = make_params(PlayoutParams(capture_rate=10, save_rate=20, pattern_rate=30, self_atari_rate=40), 9)
    assert (p["capture_rate"], p["save_rate"], p["pattern_rate"], p["self_atari_rate"]) == (10, 20, 30, 40)


@pytest.mark.parametrize("bad", [PlayoutParams(capture_rate=101), PlayoutParams(save_rate=-1),
                                 PlayoutParams(max_moves=-5), PlayoutParams(pattern_rate=2.5)])
def test_bad_params_are_rejected(bad):
    with pytest.raises(ValueError):
        run_playouts(Board(9), bad, 1)


def test_bad_arguments_are_rejected():
    with pytest.raises(TypeError):
        run_playouts("board", PlayoutParams(), 1)
    with pytest.raises(TypeError):
        playout_move(Board(9), object())
    with pytest.raises(ValueError):
        run_playouts(Board(9), PlayoutParams(), -1)
    with pytest.raises(ValueError):
        make_params(PlayoutParams(), 1)
