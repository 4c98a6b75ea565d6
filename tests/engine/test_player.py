"""The player with the real search on small boards and few playouts."""
import random

import numpy as np
import pytest

from engine.board import BLACK, EMPTY, PASS, RESIGN, WHITE, Board
from engine.params import EngineParams, PlayoutParams, SearchParams
from engine.player import Player
from tests.positions import KO, SEKI


def make_player(playouts=200, seed=1, **search) -> Player:
    search.setdefault("resign_threshold", 0.0)
    search.setdefault("n_threads", 1)
    return Player(EngineParams(search=SearchParams(playouts=playouts, seed=seed, **search)))


def state(board: Board) -> tuple:
    return (board.stones().tobytes(), board.hash, board.ko_point, board.to_play, board.captures,
            board.last_move, board.move_number)


def random_move(board: Board, color: int, rng: random.Random, history: set) -> int:
    """A random legal move that fills no own eye and repeats no position; PASS when none is left."""
    points = [p for p in board.points() if board.is_legal(p, color) and not board.is_eye(p, color)]
    rng.shuffle(points)
    for p in points:
        if board.hash_after(p, color) not in history:
            return p
    return PASS


def check_genmove(player: Player, color: int) -> int:
    """genmove, asserting the move was legal and no superko repetition in the position before."""
    before = player.game.board.copy()
    history = set(player.game.history_hashes())
    n_moves = len(player.game.moves)
    move = player.genmove(color)
    if move == RESIGN:
        assert len(player.game.moves) == n_moves
        return move
    assert player.game.moves[-1] == (color, move)
    if move != PASS:
        assert before.is_legal(move, color)
        assert before.hash_after(move, color) not in history
    return move


@pytest.mark.parametrize("size,playouts", [(7, 200), (9, 200)])
def test_full_game_against_a_random_mover(size, playouts):
    player = make_player(playouts)
    player.game.set_size(size)
    rng = random.Random(size)
    for _ in range(3 * size * size):
        if player.game.is_over():
            break
        check_genmove(player, BLACK)
        if player.game.is_over():
            break
        board = player.game.board
        player.game.play(WHITE, random_move(board, WHITE, rng, set(player.game.history_hashes())))
    assert player.game.is_over()
    assert player.final_score().startswith("B+")      # 200 playouts beat a random mover
    player.game.board.check()


def test_engine_plays_both_colours_and_either_may_move():
    player = make_player(100)
    player.game.set_size(7)
    first = check_genmove(player, WHITE)              # White moves first: GTP allows it
    assert player.game.moves == [(WHITE, first)] and player.game.board.to_play == BLACK
    check_genmove(player, WHITE)
    assert [c for c, _ in player.game.moves] == [WHITE, WHITE]


def test_reg_genmove_leaves_the_game_alone():
    player = make_player(150)
    player.game.set_size(7)
    player.game.play(BLACK, player.game.board.point(3, 3))
    before = (state(player.game.board), list(player.game.moves), player.game.history_hashes())
    for color in (WHITE, BLACK):
        move = player.reg_genmove(color)
        assert move == PASS or player.game.board.is_legal(move, color)
        assert (state(player.game.board), list(player.game.moves), player.game.history_hashes()) == before


IN_ATARI = """
. . . . . . .
. . X X X . .
. X O O O . .
. . X X X . .
. . . . . . .
. . . . . . .
. . . . . . .
"""


def test_restricted_genmove_chooses_among_the_listed_moves_only():
    player = make_player(300)
    player.game.set_position(Board.from_ascii(IN_ATARI, komi=7.5, to_play=BLACK))
    board = player.game.board
    capture, corner, centre = board.point(4, 5), board.point(0, 0), board.point(1, 3)   # row 0 at the bottom
    assert board.color_at(board.point(4, 4)) == WHITE and board.liberties(board.point(4, 4)) == 1
    before = state(board)
    assert player.restricted_genmove(BLACK, [corner, capture]) == capture     # takes three stones
    assert player.restricted_genmove(BLACK, [corner, centre]) in (corner, centre)
    occupied = board.point(4, 2)
    assert player.restricted_genmove(BLACK, [occupied]) == PASS            # nothing listed is legal
    assert state(player.game.board) == before and player.game.moves == []


def test_genmove_is_repeatable_with_a_fixed_seed():
    moves = []
    for _ in range(2):
        player = make_player(150, seed=7)
        player.game.set_size(7)
        moves.append([player.genmove(c) for c in (BLACK, WHITE, BLACK)])
    assert moves[0] == moves[1]


HOPELESS = """
. O . O . O .
O O O O O O O
. O . O . O .
O O O O O O O
. . . . . . .
. . . X . . .
. . . . . . .
"""


def test_resigns_when_hopeless_only_with_a_threshold():
    player = make_player(400, resign_threshold=0.2, resign_min_visits=50)
    player.game.set_position(Board.from_ascii(HOPELESS, komi=7.5, to_play=BLACK))
    before = state(player.game.board)
    assert player.genmove(BLACK) == RESIGN
    assert state(player.game.board) == before and player.game.moves == []
    assert player.game.result == "W+R"
    player = make_player(400, resign_threshold=0.0)
    player.game.set_position(Board.from_ascii(HOPELESS, komi=7.5, to_play=BLACK))
    assert player.genmove(BLACK) != RESIGN


def test_no_resignation_early_nor_by_white_giving_stones_too_soon():
    board = Board.from_ascii(HOPELESS.replace("X", ".").replace("O", "X"), komi=7.5, to_play=WHITE)
    black = [p for p in board.points() if board.color_at(p) == BLACK]
    assert len(black) == 20
    player = make_player(400, resign_threshold=0.2, resign_min_visits=50)
    player.game.set_position(board)           # 20 setup stones: past a quarter of 49 points
    assert player.genmove(WHITE) == RESIGN
    player = make_player(400, resign_threshold=0.2, resign_min_visits=50)
    player.game.set_size(7)
    player.game.set_free_handicap(black)      # the same stones as a handicap: move 0 of the game
    assert player.genmove(WHITE) != RESIGN


def test_resign_threshold_by_move_colour_and_handicap():
    player = make_player(resign_threshold=0.1)     # 19x19: 361 points, a quarter is 90.25 moves
    for i in range(90):
        player.game.play(BLACK if i % 2 == 0 else WHITE, PASS)
    assert player.resign_threshold_now(BLACK) == player.resign_threshold_now(WHITE) == 0.0
    player.game.play(BLACK, PASS)
    assert player.resign_threshold_now(BLACK) == player.resign_threshold_now(WHITE) == 0.1
    player = make_player(resign_threshold=0.1)
    player.game.fixed_handicap(4)
    for i in range(91):
        player.game.play(WHITE if i % 2 == 0 else BLACK, PASS)
    # 91 moves: White's threshold is 91/216.6 of the way from 0.1/5 = 0.02 to 0.1, by hand 0.053610
    assert player.resign_threshold_now(WHITE) == pytest.approx(0.053610, abs=1e-6)
    assert player.resign_threshold_now(BLACK) == 0.1
    for i in range(126):                           # 217 moves: past 0.6 of the points
        player.game.play(WHITE if i % 2 == 0 else BLACK, PASS)
    assert player.resign_threshold_now(WHITE) == 0.1
    player = make_player(resign_threshold=0.0)
    player.game.set_position(Board.from_ascii(HOPELESS, komi=7.5))
    assert player.resign_threshold_now(BLACK) == 0.0


def test_handicap_komi_falls_linearly_over_the_moves():
    player = make_player(handicap_komi=7.0)        # 19x19: over 200 moves
    player.game.play(BLACK, PASS)
    assert player.extra_komi_now(WHITE) == 0.0     # an even game
    player = make_player(handicap_komi=7.0)
    player.game.fixed_handicap(3)
    assert player.extra_komi_now(WHITE) == 21.0    # 3 stones of 7 points
    for i in range(100):
        player.game.play(WHITE if i % 2 == 0 else BLACK, PASS)
    assert player.extra_komi_now(WHITE) == 10.5    # halfway
    player.analyze(WHITE, playouts=10)
    assert player.search.extra_komi == 10.5        # the search values its simulations with it
    for i in range(100):
        player.game.play(WHITE if i % 2 == 0 else BLACK, PASS)
    assert player.extra_komi_now(WHITE) == 0.0
    player = make_player(handicap_komi=7.0, handicap_komi_moves=10)
    player.game.set_size(9)
    player.game.fixed_handicap(2)
    player.game.play(WHITE, PASS)
    assert player.extra_komi_now(WHITE) == pytest.approx(14 * 9 / 10)
    assert make_player().extra_komi_now(WHITE) == 0.0    # off by default


def handicap_9x9(stones: int, moves: int, playouts: int = 200, **search) -> Player:
    """A 9x9 game with `stones` for Black at komi 0.5 and `moves` random moves played, White first."""
    player = make_player(playouts, **search)
    player.game.set_size(9)
    player.game.komi = 0.5
    player.game.fixed_handicap(stones)
    rng, history = random.Random(stones), set(player.game.history_hashes())
    for i in range(moves):
        color = WHITE if i % 2 == 0 else BLACK
        player.game.play(color, random_move(player.game.board, color, rng, history))
        history.add(player.game.board.hash)
    return player


@pytest.mark.parametrize("step", [5.0, 80.0])
def test_the_margin_asked_grows_while_well_ahead_and_drops_once_out_of_reach(step):
    player = handicap_9x9(5, 1, handicap_margin_step=step)
    margins = [0.0]
    for _ in range(6):
        assert check_genmove(player, BLACK) not in (PASS, RESIGN)
        rate, margin = player.search.winrate(), player.margin_asked(BLACK)
        if margins[-1] > 0 and margin == 0:        # dropped: the move was searched again without it
            assert player.search.extra_komi == 0.0
        else:
            assert margin == (margins[-1] + step if rate > 0.75 else margins[-1])
        assert player.extra_komi_now(BLACK) == margin    # taken off Black's score
        margins.append(margin)
        check_genmove(player, WHITE)
    assert margins[1] == step                      # five stones up: far ahead at komi 0.5
    if step == 80.0:                               # more than the board: no win, dropped every time
        assert margins[1:] == [80.0, 0.0] * 3
    else:
        assert margins[1:4] == [5.0, 10.0, 15.0]
    player.analyze(BLACK, playouts=10)
    assert player.search.extra_komi == player.margin_asked(BLACK)
    assert player.margin_asked(WHITE) == 0.0       # White, behind, asks nothing
    player.clear()
    assert player.margin_asked(BLACK) == 0.0


def test_no_margin_is_asked_in_an_even_game_or_with_a_step_of_0():
    player = make_player(200, handicap_margin_step=20.0)
    player.game.set_size(9)
    player.game.komi = -30.5                       # Black far ahead, but no handicap stones
    check_genmove(player, BLACK)
    assert player.search.winrate() > 0.75 and player.margin_asked(BLACK) == 0.0
    player = handicap_9x9(5, 1, handicap_margin_step=0.0)
    check_genmove(player, BLACK)
    assert player.search.winrate() > 0.75 and player.margin_asked(BLACK) == 0.0


def test_the_default_asks_a_point_a_move_while_well_ahead_in_a_handicap_game():
    player = handicap_9x9(5, 1)
    check_genmove(player, BLACK)
    assert player.search.winrate() > 0.75 and player.margin_asked(BLACK) == 1.0


def test_a_margin_out_of_reach_is_dropped_and_the_move_searched_again_for_the_win():
    player = handicap_9x9(5, 25, handicap_margin_step=80.0, resign_threshold=0.1, resign_min_visits=20)
    check_genmove(player, BLACK)                   # past a quarter of the points: resigning allowed
    assert player.margin_asked(BLACK) == 80.0
    board = player.game.board
    player.game.play(WHITE, random_move(board, WHITE, random.Random(1), set(player.game.history_hashes())))
    assert check_genmove(player, BLACK) != RESIGN  # no 80-point win on 9x9, but a win
    assert player.margin_asked(BLACK) == 0.0
    assert player.search.extra_komi == 0.0 and player.search.winrate() > 0.5


# Finished: White B4 is dead in Black's area, Black F3 in White's; both walls have two eyes or
# more. By hand, with komi 0.5: Black has columns A-D (28), White E-G (21): B+6.5.
FINISHED = """
. X . X O . O
X X X X O O O
. . . X O . .
. O . X O . .
. . . X O X .
X X X X O O O
. X . X O . O
"""
DEAD_WHITE = (3, 1)
DEAD_BLACK = (2, 5)


def finished_player(**search) -> Player:
    player = make_player(200, **search)
    player.game.set_position(Board.from_ascii(FINISHED, komi=0.5, to_play=BLACK))
    return player


def test_final_score_and_status_with_the_real_search():
    player = finished_player()
    board = player.game.board
    assert player.final_score() == "B+6.5"
    assert player.final_status_list("dead") == [[board.point(*DEAD_BLACK)], [board.point(*DEAD_WHITE)]]
    assert sorted(len(g) for g in player.final_status_list("alive")) == [13, 15]
    assert player.final_status_list("seki") == []
    with pytest.raises(ValueError):
        player.final_status_list("unknown")


class PassPrior:
    """Almost all the mass on pass: the search's simulations end in two passes inside the tree."""

    def evaluate(self, board: Board, color: int) -> np.ndarray:
        n = board.size * board.size
        p = np.full(n + 1, 0.01 / n, dtype=np.float32)
        p[n] = 0.99
        return p


@pytest.mark.parametrize("playouts,seed,prior",
                         [(50, 1, None), (5000, 3, PassPrior()), (10000, 5, PassPrior())])
def test_scoring_does_not_follow_the_search(playouts, seed, prior):
    # Ownership taken from the search counted its two-pass lines with the dead stones
    # standing, so the prior, the seed and the search size changed the score (W+17 for W+4).
    player = Player(EngineParams(search=SearchParams(playouts=playouts, seed=seed)), prior=prior)
    player.game.set_position(Board.from_ascii(FINISHED, komi=0.5, to_play=BLACK))
    player.game.play(BLACK, PASS)
    player.game.play(WHITE, PASS)
    board = player.game.board
    assert player.final_score() == "B+6.5"
    assert player.final_status_list("dead") == [[board.point(*DEAD_BLACK)], [board.point(*DEAD_WHITE)]]


def test_passes_after_the_opponent_when_won():
    player = finished_player()
    player.game.play(WHITE, PASS)
    assert player.genmove(BLACK) == PASS
    assert player.game.is_over()
    # Scoring after the two passes still plays the position out to find the dead stones.
    assert player.final_score() == "B+6.5"
    assert len(player.final_status_list("dead")) == 2


def test_a_search_that_likes_pass_does_not_pass_first_on_an_open_board():
    # White to move on an empty board wins by komi if both pass: the search's choice is pass.
    player = Player(EngineParams(search=SearchParams(playouts=200, seed=1, n_threads=1)), prior=PassPrior())
    board = Board(9, komi=7.5)
    board.to_play = WHITE
    player.game.set_position(board)
    move = player.genmove(WHITE)
    assert player.search.best_move() == PASS and player.search.winrate() >= 0.5
    assert move != PASS


def test_passes_first_when_the_board_is_settled_and_won():
    player = Player(EngineParams(search=SearchParams(playouts=200, seed=1, n_threads=1)), prior=PassPrior())
    player.game.set_position(Board.from_ascii(FINISHED, komi=0.5, to_play=BLACK))
    assert player.genmove(BLACK) == PASS


def test_cleanup_captures_dead_stones_before_passing():
    player = finished_player()
    dead = player.game.board.point(*DEAD_WHITE)
    r, c = DEAD_WHITE
    liberties = {player.game.board.point(*rc) for rc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))}
    player.game.play(WHITE, PASS)
    first = player.genmove_cleanup(BLACK)
    assert first in liberties
    for _ in range(10):
        if player.game.board.color_at(dead) == EMPTY:
            break
        player.game.play(WHITE, PASS)
        assert player.genmove_cleanup(BLACK) != PASS
    assert player.game.board.color_at(dead) == EMPTY


# White wins by its left half, unless Black's D9 D8 capture White's E9 E8 (in atari: E7). B8 is
# dead, in atari (B9).
THROW_IN = """
. . . X O X . . .
O X O X O X . . .
. O . . . X . . .
. . . . O X . . .
. . . . O X . . .
. . . . O X . . .
. . . . O X . . .
. . . . O X . . .
. . . . O X . . .
"""


def test_cleanup_answers_an_atari_before_taking_dead_stones():
    player = make_player(2000)
    player.game.set_position(Board.from_ascii(THROW_IN, komi=0.5, to_play=WHITE))
    board = player.game.board
    assert board.liberties(board.point(8, 4)) == 1 and board.liberties(board.point(7, 1)) == 1
    assert player.genmove_cleanup(WHITE) == board.point(6, 4)   # E7, not B9 (taking B8) first


def test_never_repeats_a_position():
    # Black took the ko at C3 and both passed: White's retake at B3 is legal under simple ko but
    # recreates the start, so the engine must not play it.
    for seed in (1, 2, 3):
        player = make_player(150, seed=seed)
        player.game.set_position(Board.from_ascii(KO, komi=0.5, to_play=BLACK))
        board = player.game.board
        player.game.play(BLACK, board.point(2, 2))
        retake = player.game.board.ko_point
        player.game.play(WHITE, PASS)
        player.game.play(BLACK, PASS)
        assert check_genmove(player, WHITE) != retake


def test_a_move_searched_again_after_a_dropped_margin_gets_its_target_again_within_its_cap(monkeypatch):
    player = handicap_9x9(5, 25, playouts=0, handicap_margin_step=80.0)
    player.time.set_kgs("absolute", 20)
    runs = []
    search_to_plan = player._run

    def run(playouts, plan, start, report=None):
        runs.append((plan, start))
        return search_to_plan(playouts, plan, start, report)
    monkeypatch.setattr(player, "_run", run)
    check_genmove(player, BLACK)                   # asks 80 points of Black next move
    runs.clear()
    board = player.game.board
    player.game.play(WHITE, random_move(board, WHITE, random.Random(1), set(player.game.history_hashes())))
    check_genmove(player, BLACK)                   # out of reach: dropped, searched again
    (first, start), (again, again_start) = runs
    assert player.margin_asked(BLACK) == 0.0 and again_start > start + first.target / 2   # timed anew
    assert first.cap == first.target                # under a margin: no extension past the target
    assert first.target / 2 < again.target == min(first.target, again.cap)   # not a slice: a search
    assert again.cap + (again_start - start) == pytest.approx(2 * first.target)   # the move's cap (extension 2)


def test_clock_is_charged_and_respected():
    player = make_player(0)                            # playouts 0: the clock decides
    player.game.set_size(7)
    player.time.set_kgs("absolute", 6)
    check_genmove(player, BLACK)
    left = player.time.clocks[BLACK].main
    assert 0 < left < 6
    player.time.time_left(WHITE, 0.1, 0)               # less than the safety margin: minimal search
    check_genmove(player, WHITE)
    player.clear()
    assert player.game.moves == [] and player.time.clocks[BLACK].main == 6


def test_a_new_game_forgets_the_last_good_replies():
    player = Player(EngineParams(search=SearchParams(playouts=300, n_threads=1, resign_threshold=0.0),
                                 playout=PlayoutParams(reply_rate=100)))
    player.game.set_size(7)
    check_genmove(player, BLACK)
    assert player.search.reply_count() > 0
    player.clear()
    assert player.search.reply_count() == 0


# SEKI by hand: Black 27, White 21, C1 neutral, komi 7.5: W+1.5.


def test_seki_with_the_real_search():
    player = make_player(200)
    player.game.set_position(Board.from_ascii(SEKI, komi=7.5, to_play=BLACK))
    assert [len(g) for g in player.final_status_list("seki")] == [4, 5]
    assert player.final_status_list("dead") == []
    assert player.final_score() == "W+1.5"
