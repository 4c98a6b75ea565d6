"""The playout rules that are off by default (ko, ladders, nakade, useful self-atari, fill board, last
good replies): each on a drawn position with only that rule on, against the policy without it."""
import pytest

from engine.board import BLACK, EMPTY, PASS, WHITE, Board
from engine.config import ConfigError, load_config
from engine.params import PlayoutParams
from engine.playout import ReplyTable, playout_move, run_playout, run_playouts
from tests.boards import board_from_ascii, vertex
from tests.engine.test_playout import ALL_OFF, SEEDS, after_white, moves_over_seeds, only

RULES = ("ko_rate", "ko_threat_rate", "ladder_rate", "nakade_rate", "useful_self_atari_rate",
         "nakade_self_atari_rate", "fill_board_rate", "reply_rate")
ALL_ON = PlayoutParams(**{name: 100 for name in RULES})


# --- ko ----------------------------------------------------------------------------------------------

KO = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . X O . . . .
    . . X . X O . . .
    . . . X O . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


def ko_moves(board: Board, params: PlayoutParams, moves: tuple) -> list[int]:
    return [playout_move(board, params, seed=s, moves=moves) for s in SEEDS]


def test_ko_is_retaken_after_a_threat_and_its_answer():
    # White takes the ko at (4,3); Black plays elsewhere, White answers elsewhere: Black retakes.
    board = board_from_ascii(KO, to_play=WHITE)
    moves = (board.point(4, 3), board.point(7, 7), board.point(7, 1))
    retake = board.point(4, 4)
    assert ko_moves(board, only(ko_rate=100), moves) == [retake] * len(SEEDS)
    assert ko_moves(board, ALL_OFF, moves).count(retake) <= 3


def test_ko_rule_waits_for_the_ban_and_forgets_old_kos():
    board = board_from_ascii(KO, to_play=WHITE)
    take, retake = board.point(4, 3), board.point(4, 4)
    assert retake not in ko_moves(board, only(ko_rate=100), (take,))          # banned: simple ko
    later = (take, board.point(7, 7), board.point(7, 1), board.point(0, 0), board.point(0, 8))
    assert ko_moves(board, only(ko_rate=100), later).count(retake) <= 3       # older than KO_AGE


# The ko of KO, and a White block of two liberties in the corner (A1-B1: liberties B2 and C1).
KO_AND_THREAT = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . X O . . . .
    . . X . X O . . .
    . . . X O . . . .
    . . . . . . . . .
    X . . . . . . . .
    O O . . . . . . .
"""


def test_a_lost_ko_is_answered_by_a_threat_elsewhere():
    # White takes the ko at D5: Black may not retake at E5 now, so it ataris A1-B1 (at B2 or C1).
    board = board_from_ascii(KO_AND_THREAT, to_play=WHITE)
    take = (vertex(board, "D5"),)
    threats = {vertex(board, "B2"), vertex(board, "C1")}
    moves = ko_moves(board, only(ko_threat_rate=100), take)
    assert set(moves) <= threats and len(set(moves)) == 2
    assert sum(m in threats for m in ko_moves(board, ALL_OFF, take)) <= 4


def test_a_threat_only_right_after_the_ko_was_taken():
    board = board_from_ascii(KO_AND_THREAT, to_play=WHITE)
    threats = {vertex(board, "B2"), vertex(board, "C1")}
    no_ko = ko_moves(board.copy(), only(ko_threat_rate=100), (vertex(board, "G8"),))     # White plays away
    later = ko_moves(board, only(ko_threat_rate=100), tuple(vertex(board, v) for v in ("D5", "H2", "H8")))
    assert sum(m in threats for m in no_ko) <= 4 and sum(m in threats for m in later) <= 4


def test_moves_given_to_the_hook_must_be_legal():
    board = board_from_ascii(KO, to_play=WHITE)
    with pytest.raises(ValueError):
        playout_move(board, ALL_OFF, moves=(board.point(4, 4),))             # occupied


# --- ladders -----------------------------------------------------------------------------------------

# The attacker's stones at (5,4), (4,3) and (3,3) around the defender's stone at (4,4). With a Black
# stone at (4,4) after White's (4,5), extending to (3,4) leaves two liberties and White's ataris drive
# the stones to the lower right edge. With White's stone played at (4,4) instead, Black's atari at
# (4,5) works the same way and the one at (3,4) does not. A stone of the defender at (1,7) breaks it.
CHASE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . {a} . . . .
    . . . {a} {d} . . . .
    . . . {a} . . . . .
    . . . . . . . . .
    . . . . . . . {breaker} .
    . . . . . . . . .
"""
LADDER = CHASE.replace("{a}", "O").replace("{d}", "X")
ATARI = CHASE.replace("{a}", "X").replace("{d}", ".")


def test_save_does_not_run_out_a_working_ladder():
    board = after_white(LADDER.format(breaker="."), 4, 5)
    extend = board.point(3, 4)
    assert moves_over_seeds(board, only(save_rate=100)) == [extend] * len(SEEDS)
    assert moves_over_seeds(board, only(save_rate=100, ladder_rate=100)).count(extend) <= 3


def test_save_runs_out_a_broken_ladder():
    board = after_white(LADDER.format(breaker="X"), 4, 5)
    extend = board.point(3, 4)
    assert moves_over_seeds(board, only(save_rate=100, ladder_rate=100)) == [extend] * len(SEEDS)


def test_atari_that_catches_the_last_move_in_a_ladder_is_played():
    board = after_white(ATARI.format(breaker="."), 4, 4)
    atari = board.point(4, 5)
    assert moves_over_seeds(board, only(ladder_rate=100)) == [atari] * len(SEEDS)
    assert moves_over_seeds(board, ALL_OFF).count(atari) <= 3


def test_atari_into_a_broken_ladder_is_not_played():
    board = after_white(ATARI.format(breaker="O"), 4, 4)
    assert moves_over_seeds(board, only(ladder_rate=100)).count(board.point(4, 5)) <= 3


def test_own_stone_that_a_ladder_would_catch_is_extended_first():
    # White's (4,3) leaves Black's (4,4) two liberties; White's atari at (4,5) would work, so Black
    # extends to (3,4) (three liberties) first.
    board = after_white("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . O . . . .
        . . . . X . . . .
        . . . O . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, 4, 3)
    extend = board.point(3, 4)
    assert moves_over_seeds(board, only(ladder_rate=100)) == [extend] * len(SEEDS)


# --- nakade ------------------------------------------------------------------------------------------

def nakade_board(rows: str, row: int, col: int) -> Board:
    """A 9x9 board whose bottom rows are drawn (White's wall), after White plays (row, col)."""
    empty = ". . . . . . . . .\n"
    text = empty * (9 - len(rows.strip().splitlines())) + rows
    return after_white(text, row, col)


@pytest.mark.parametrize("rows, last, vital", [
    ("O O . O O . . . .\nO . . . O . . . .\n", (1, 2), (0, 2)),                 # straight three
    ("O O O . . . . . .\n. . . O . . . . .\n. . . O . . . . .\n", (1, 2), (0, 1)),  # bulky five
    ("O O . . . . . . .\nO . . . . . . . .\n. . O . . . . . .\n", (1, 2), (0, 1)),  # bent three
])
def test_nakade_takes_the_vital_point(rows, last, vital):
    board = nakade_board(rows, *last)
    point = board.point(*vital)
    assert moves_over_seeds(board, only(nakade_rate=100)) == [point] * len(SEEDS)
    assert moves_over_seeds(board, ALL_OFF).count(point) <= 3


def test_nakade_leaves_a_straight_four_alone():
    # Two cut points: the owner lives whoever plays first, so there is no vital point to take.
    board = nakade_board("O O O . O O . . .\nO . . . . O . . .\n", 1, 3)
    moves = moves_over_seeds(board, only(nakade_rate=100))
    assert sum(m in (board.point(0, 2), board.point(0, 3)) for m in moves) <= 3


# --- useful self-atari -------------------------------------------------------------------------------

def choices(text: str, params: PlayoutParams) -> set[int]:
    return set(moves_over_seeds(board_from_ascii(text), params))


def points(text: str, *cells) -> set[int]:
    board = board_from_ascii(text)
    return {board.point(r, c) for r, c in cells}


# The plain permit (self-ataris of >= 2 stones refused) widened by nakade self-ataris only.
NAKADE_ONLY = only(self_atari_rate=100, nakade_self_atari_rate=100)


def test_pointless_lone_self_atari_is_refused():
    # (4,3) and (0,4) put a lone Black stone in atari next to a white group with many liberties.
    text = """
        . X O . .
        X X O O .
        . X O O .
        X X O O .
        . X O O .
    """
    free = points(text, (4, 4), (3, 4), (2, 4), (1, 4))
    assert choices(text, only(useful_self_atari_rate=100)) == free
    assert choices(text, only(self_atari_rate=100)) == free | points(text, (4, 3), (0, 4))
    assert choices(text, NAKADE_ONLY) == free | points(text, (4, 3), (0, 4))      # it only widens


def test_throw_in_is_allowed():
    # Black's (0,2) puts White's three stones in atari; White's capture at (0,3) is itself caught.
    text = """
        . X . X .
        X X X X X
        X X X X X
        X O O X .
        X O . . X
    """
    assert points(text, (0, 2)) <= choices(text, only(useful_self_atari_rate=100))


def test_nakade_self_atari_of_two_stones_is_allowed():
    # Black's (0,1) leaves (0,0) and (0,1) in atari inside White's three-point eye space: once taken
    # they leave one eye. The plain filter refuses it; the lone stone at (0,2) is allowed by all.
    text = """
        . O . O .
        O O O O O
        O O O O O
        O O O O O
        X . . O .
    """
    assert choices(text, only(self_atari_rate=100)) == points(text, (0, 2))
    assert choices(text, only(useful_self_atari_rate=100)) == points(text, (0, 1), (0, 2))
    assert choices(text, NAKADE_ONLY) == points(text, (0, 1), (0, 2))


def test_self_atari_that_leaves_a_living_shape_is_refused():
    # Black's (0,2) would leave four stones in a row in atari at (0,4): taken, they leave White a
    # straight four, two eyes. Black's (0,4) leaves two stones in atari at (0,2): one eye once taken.
    text = """
        . O . O O .
        O O O O O O
        O O O O O O
        O O O O O O
        O O O O O O
        X X . X . O
    """
    assert choices(text, only(useful_self_atari_rate=100)) == points(text, (0, 4))
    assert choices(text, NAKADE_ONLY) == points(text, (0, 4))
    assert choices(text, only(self_atari_rate=0)) == points(text, (0, 2), (0, 4))


def test_the_third_stone_in_a_square_four_is_allowed():
    # White's corner eye space A1 B1 A2 B2 holds two Black stones, and Black's other moves are its own
    # eyes. A third stone is a three-stone self-atari that also puts White in atari; once taken it
    # leaves a bent three, and White dies. The plain permit refuses it and Black passes.
    text = """
        . X X X . X
        X X X X X X
        X X X X X X
        O O O X X X
        . . O X X X
        X X O X X X
    """
    assert choices(text, only(self_atari_rate=100)) == {PASS}
    assert choices(text, NAKADE_ONLY) == points(text, (1, 0), (1, 1))


# --- fill board --------------------------------------------------------------------------------------

def test_fill_board_plays_in_open_space():
    # About half the empty points have 8 empty neighbours (pat3 code 0; never on the edge). The rule
    # looks at four random points and falls back to the random move when none is open.
    board = after_white("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . X .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, 6, 2)
    def n_open(params):
        return sum(board.pat3(m) == 0 for m in moves_over_seeds(board, params))
    assert n_open(only(fill_board_rate=100)) >= 17
    assert n_open(ALL_OFF) <= 13


# --- last good replies (LGRF-2) ---------------------------------------------------------------------

def points_of(board: Board, *names: str) -> list[int]:
    return [vertex(board, name) for name in names]


def reply_moves(board: Board, params: PlayoutParams, moves: tuple, table: ReplyTable) -> list[int]:
    return [playout_move(board, params, seed=s, moves=moves, replies=table) for s in SEEDS]


def test_the_winners_replies_are_stored_and_the_losers_forgotten():
    board = Board(9)
    c3, e5, g7, c7, e3 = points_of(board, "C3", "E5", "G7", "C7", "E3")
    table = ReplyTable()
    table.learn([c3, e5, g7, c7], [BLACK, WHITE, BLACK, WHITE], BLACK)
    assert table.replies(BLACK, e5, c3) == [g7]           # to C3-E5, and to E5 alone: the same move
    assert table.replies(BLACK, e5) == [g7]
    assert table.replies(WHITE, g7, e5) == []             # the loser's moves are not stored
    table.learn([e3, e5, c7], [BLACK, WHITE, BLACK], BLACK)
    assert table.replies(BLACK, e5, c3) == [g7, c7]       # the two-move reply first
    table.learn([c3, e5, g7], [BLACK, WHITE, BLACK], WHITE)
    assert table.replies(BLACK, e5, c3) == [c7]           # G7 lost after C3-E5: forgotten there only


def test_passes_and_draws_teach_nothing():
    board = Board(9)
    c3, e5 = points_of(board, "C3", "E5")
    table = ReplyTable()
    table.learn([c3, PASS, e5, PASS], [BLACK, WHITE, BLACK, WHITE], WHITE)
    table.learn([c3, e5], [BLACK, WHITE], EMPTY)
    assert table.replies(BLACK, c3) == [] and table.replies(WHITE, c3) == []
    with pytest.raises(ValueError):
        table.learn([c3, e5], [BLACK], BLACK)


def test_the_stored_reply_is_played():
    board = Board(9)
    c3, e5, g7, c7, e3 = points_of(board, "C3", "E5", "G7", "C7", "E3")
    table = ReplyTable()
    table.learn([c3, e5, g7], [BLACK, WHITE, BLACK], BLACK)
    table.learn([e3, e5, c7], [BLACK, WHITE, BLACK], BLACK)   # to E5 alone: C7 now
    assert reply_moves(board, only(reply_rate=100), (c3, e5), table) == [g7] * len(SEEDS)
    assert reply_moves(board, only(reply_rate=100), (g7, e5), table) == [c7] * len(SEEDS)
    assert reply_moves(board, ALL_OFF, (c3, e5), table).count(g7) <= 3


def test_a_capture_comes_before_the_reply():
    # White's E5 is in atari (its liberty E4); Black's stored reply to E5 is G7.
    board = board_from_ascii("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . X . X . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, to_play=WHITE)
    e5, e4, g7 = points_of(board, "E5", "E4", "G7")
    table = ReplyTable()
    table.learn([e5, g7], [WHITE, BLACK], BLACK)
    assert reply_moves(board, only(reply_rate=100), (e5,), table) == [g7] * len(SEEDS)
    assert reply_moves(board, only(reply_rate=100, capture_rate=100), (e5,), table) == [e4] * len(SEEDS)


def test_an_occupied_reply_falls_back_to_the_policy():
    board = Board(9)
    c3, e5, g7 = points_of(board, "C3", "E5", "G7")
    table = ReplyTable()
    table.learn([c3, e5, g7], [BLACK, WHITE, BLACK], BLACK)
    moves = reply_moves(board, only(reply_rate=100), (g7, PASS, c3, e5), table)
    assert g7 not in moves and len(set(moves)) > 10


# --- whole playouts with every rule on ---------------------------------------------------------------

@pytest.mark.parametrize("size", [9, 13])
def test_playouts_with_every_rule_end_consistently(size):
    for seed in range(1, 6):
        final, _, moves = run_playout(Board(size, komi=7.0), ALL_ON, seed=seed)
        assert moves[-2:] == [PASS, PASS]
        final.check()
    result = run_playouts(Board(size, komi=7.0), ALL_ON, 300, seed=3)
    assert 0.2 < result["black_wins"] < 0.8


def test_rules_off_by_default():
    assert all(getattr(PlayoutParams(), name) == 0 for name in RULES)   # test_config: default.yaml agrees


@pytest.mark.parametrize("name", RULES)
def test_rates_are_validated(name):
    with pytest.raises(ValueError, match=name):
        run_playouts(Board(9), PlayoutParams(**{name: 101}), 1)


@pytest.mark.parametrize("name", RULES)
def test_config_validates_the_rates(name):
    assert getattr(load_config(None, [f"playout.{name}=40"]).playout, name) == 40
    with pytest.raises(ConfigError, match=f"playout.{name}: must be <= 100"):
        load_config(None, [f"playout.{name}=101"])
