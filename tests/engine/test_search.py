"""The UCT-RAVE search on drawn positions: tactics, determinism, threads, superko, reuse, bounds."""
import os
import threading
import time

import numpy as np
import pytest

from engine.board import BLACK, PASS, WHITE, Board
from engine.params import PlayoutParams, SearchParams
from engine.search import Search
from tests.boards import board_from_ascii, play_moves, vertex

# A 6-stone black group with one liberty, D4: Black saves it by connecting to the wall; White
# captures it there.
SIX_IN_ATARI = """
    . . O . X . .
    O O O . X . .
    X X X O X . .
    X X X . X . .
    O O O . X . .
    . . O . X . .
    . . O . X . .
"""

# A 6-stone white group whose only liberty is D2; Black's lower group is short of liberties too.
CAPTURE_5X5 = """
    . . . . .
    X X X . .
    O O O X .
    O O O . .
    X X X . .
"""

# Settled: Black owns columns A-B, White D-E (three eyes each); column C is neutral.
SETTLED = """
    . X . O .
    X X . O O
    . X . O .
    X X . O O
    . X . O .
"""


def search(playouts: int = 0, **fields) -> Search:
    """A search with the given SearchParams fields, on one thread unless they say otherwise."""
    return Search(SearchParams(**{"n_threads": 1, **fields}), PlayoutParams())


def run_on(board: Board, playouts: int, history=(), **fields) -> Search:
    s = search(**fields)
    s.set_root(board, history)
    assert s.run(playouts=playouts) == playouts
    return s


def moves_of(s: Search) -> list[int]:
    return [c["move"] for c in s.root_children()]


# --- tactics -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 2])
def test_captures_a_six_stone_group(seed):
    board = board_from_ascii(CAPTURE_5X5, to_play=BLACK)
    s = run_on(board, 1000, seed=seed)
    assert s.best_move() == vertex(board, "D2")
    assert s.winrate() > 0.8
    assert s.pv()[0] == vertex(board, "D2")


def test_white_captures_the_group_in_atari():
    board = board_from_ascii(SIX_IN_ATARI, to_play=WHITE)
    s = run_on(board, 1000, seed=3)
    assert s.best_move() == vertex(board, "D4")
    assert s.winrate() > 0.8


def test_black_saves_the_group_in_atari():
    board = board_from_ascii(SIX_IN_ATARI, to_play=BLACK)
    s = run_on(board, 1000, seed=4)
    assert s.best_move() == vertex(board, "D4")


def test_root_children_are_sorted_and_complete():
    board = board_from_ascii(CAPTURE_5X5, to_play=BLACK)
    s = run_on(board, 300, seed=1)
    kids = s.root_children()
    assert set(kids[0]) == {"move", "visits", "winrate", "prior", "amaf_visits", "amaf_winrate", "pv"}
    visits = [c["visits"] for c in kids]
    assert visits == sorted(visits, reverse=True)
    assert sum(visits) == s.root_visits() == 300     # the root is expanded before the first playout
    assert kids[0]["pv"][0] == kids[0]["move"]
    assert PASS in moves_of(s)
    # Legal points without own eyes, plus pass, each once; the prior is uniform without a model.
    legal = set(np.flatnonzero(board.legal_points(exclude_eyes=True)))
    assert {board.points()[i] for i in legal} | {PASS} == set(moves_of(s))
    assert all(c["prior"] == pytest.approx(1 / len(kids)) for c in kids)
    assert all(0.0 <= c["winrate"] <= 1.0 and 0.0 <= c["amaf_winrate"] <= 1.0 for c in kids)


# --- determinism and threads ---------------------------------------------------------------------------

def test_one_thread_with_a_fixed_seed_is_repeatable():
    board = Board(7)
    runs = [run_on(board, 800, seed=11) for _ in range(2)]
    assert runs[0].best_move() == runs[1].best_move()
    assert [(c["move"], c["visits"]) for c in runs[0].root_children()] == \
           [(c["move"], c["visits"]) for c in runs[1].root_children()]
    assert runs[0].n_nodes() == runs[1].n_nodes()


def test_other_seeds_search_differently():
    board = Board(7)
    a, b = run_on(board, 800, seed=11), run_on(board, 800, seed=12)
    assert [c["visits"] for c in a.root_children()] != [c["visits"] for c in b.root_children()]


def test_reply_rule_learns_in_the_search_and_forgets_with_a_new_game_or_size():
    replies = Search(SearchParams(n_threads=1, seed=5), PlayoutParams(reply_rate=100))
    replies.set_root(Board(7))
    replies.run(playouts=500)
    assert replies.reply_count() > 100
    plain = run_on(Board(7), 500, seed=5)
    assert plain.reply_count() == 0
    assert [c["visits"] for c in replies.root_children()] != [c["visits"] for c in plain.root_children()]
    replies.clear_replies()
    assert replies.reply_count() == 0
    replies.run(playouts=200)
    assert replies.reply_count() > 0
    replies.set_root(Board(9))                  # another size: the tables' points mean other places
    assert replies.reply_count() == 0


def test_ladder_rule_reads_in_every_search_thread():
    # Each thread owns a ladder reader: with the rule on, the same seed searches differently, and two
    # threads reading at once count every playout.
    ladders = Search(SearchParams(n_threads=1, seed=5), PlayoutParams(ladder_rate=100))
    ladders.set_root(Board(9))
    assert ladders.run(playouts=1000) == 1000
    plain = run_on(Board(9), 1000, seed=5)
    assert [c["visits"] for c in ladders.root_children()] != [c["visits"] for c in plain.root_children()]
    two = Search(SearchParams(n_threads=2, seed=5), PlayoutParams(ladder_rate=100))
    two.set_root(Board(19))
    assert two.run(playouts=2000) == 2000


def test_two_threads_count_every_playout_and_find_the_capture():
    board = board_from_ascii(SIX_IN_ATARI, to_play=WHITE)
    s = run_on(board, 2000, seed=5, n_threads=2)
    assert s.root_visits() == 2000
    assert sum(c["visits"] for c in s.root_children()) == 2000
    assert s.best_move() == vertex(board, "D4")


def test_zero_threads_means_one_per_core():
    assert SearchParams().thread_count() == len(os.sched_getaffinity(0))
    assert SearchParams(n_threads=3).thread_count() == 3
    board = board_from_ascii(SIX_IN_ATARI, to_play=WHITE)
    s = run_on(board, 2000, seed=5, n_threads=0)
    assert s.root_visits() == 2000 and s.best_move() == vertex(board, "D4")


def test_stop_from_another_thread_ends_a_long_run():
    s = search(seed=1, n_threads=2)
    s.set_root(Board(9))
    timer = threading.Timer(0.3, s.stop)
    start = time.monotonic()
    timer.start()
    done = s.run(seconds=600.0)
    elapsed = time.monotonic() - start
    timer.join()
    assert 0 < done and elapsed < 60.0         # a guard far from the run's own end, not a speed bound


def test_time_budget_ends_the_run():
    s = search(seed=1)
    s.set_root(Board(9))
    start = time.monotonic()
    done = s.run(seconds=0.2)                  # no playout limit: only the clock can end it
    assert done > 0 and time.monotonic() - start < 60.0


# --- superko at the root -----------------------------------------------------------------------------

def test_history_excludes_a_move_repeating_a_game_position():
    board = board_from_ascii(CAPTURE_5X5, to_play=BLACK)
    capture = vertex(board, "D2")
    history = [board.hash, board.hash_after(capture)]     # as if the position after D2 had occurred
    s = run_on(board, 500, history=history, seed=1)
    assert capture not in moves_of(s)
    assert s.best_move() != capture


def test_history_given_later_screens_a_reused_root():
    board = board_from_ascii(CAPTURE_5X5, to_play=BLACK)
    capture = vertex(board, "D2")
    s = run_on(board, 500, seed=1)
    assert s.best_move() == capture
    visits = s.root_visits()
    s.set_root(board, [board.hash_after(capture)])       # same position: the tree is kept
    assert s.root_visits() == visits
    assert capture not in moves_of(s) and s.best_move() != capture
    s.run(playouts=200)
    assert s.best_move() != capture


# --- tree reuse --------------------------------------------------------------------------------------

def test_reuse_keeps_the_subtree_of_the_move_and_the_reply():
    board = Board(7)
    s = run_on(board, 3000, seed=2)
    move = s.best_move()
    move_visits = s.root_children()[0]["visits"]
    after_move = board.copy()
    after_move.play(move)
    s.set_root(after_move, [board.hash])
    assert s.root_visits() == move_visits
    reply = s.root_children()[0]
    assert reply["visits"] > 0
    after_reply = after_move.copy()
    after_reply.play(reply["move"])
    s.set_root(after_reply, [board.hash, after_move.hash])
    assert s.root_visits() == reply["visits"]
    assert s.run(playouts=100) == 100
    assert s.root_visits() == reply["visits"] + 100

    # Two moves at once, from a fresh but identical search, reach the same node.
    t = run_on(board, 3000, seed=2)
    t.set_root(after_reply, [board.hash, after_move.hash])
    assert t.root_visits() == reply["visits"]


def test_reuse_compacts_a_store_more_than_half_full():
    board = Board(7)
    s = run_on(board, 3000, seed=2, max_nodes=6000)
    used = s.n_nodes()
    assert used > 3000
    move = s.best_move()
    after = board.copy()
    after.play(move)
    s.set_root(after)
    assert 0 < s.n_nodes() < used                   # only the kept subtree remains
    assert s.root_visits() > 0
    assert s.run(playouts=200) == 200


def test_unrelated_position_or_reuse_off_resets_the_tree():
    board = Board(7)
    s = run_on(board, 500, seed=2)
    other = play_moves(Board(7), "D4 C3 E5 C5")     # four moves away
    s.set_root(other)
    assert s.root_visits() == 0 and s.n_nodes() == 1
    t = run_on(board, 500, seed=2, reuse_tree=False)
    t.set_root(board)
    assert t.root_visits() == 0


def test_a_dynamic_komi_moved_by_more_than_a_point_resets_the_tree():
    board = Board(7)
    s = run_on(board, 500, seed=2)
    s.set_root(board, (), 1.0)                      # a point: the values are kept
    assert s.root_visits() == 500
    s.set_root(board, (), 2.5)                      # 1.5 points more: they were of another game
    assert s.root_visits() == 0 and s.extra_komi == 2.5


# --- the node store bound ----------------------------------------------------------------------------

def test_tiny_store_still_searches_within_its_bound():
    board = board_from_ascii(CAPTURE_5X5, to_play=BLACK)
    s = run_on(board, 500, seed=1, max_nodes=40)
    assert s.max_nodes == 40
    assert s.n_nodes() <= 40
    assert s.root_visits() == 500
    assert s.best_move() == vertex(board, "D2")


def test_store_without_room_for_the_root_children_falls_back_to_the_policy():
    board = board_from_ascii(CAPTURE_5X5, to_play=BLACK)
    s = run_on(board, 50, seed=1, max_nodes=1)
    assert s.n_nodes() == 1 and s.root_visits() == 50
    assert board.is_legal(s.best_move()) or s.best_move() == PASS


def test_bytes_per_node_is_reported():
    s = search()
    assert s.bytes_per_node() <= 64
    assert s.max_nodes == SearchParams().max_nodes


# --- ownership ---------------------------------------------------------------------------------------

def test_ownership_of_a_settled_position():
    board = board_from_ascii(SETTLED, to_play=BLACK)
    s = run_on(board, 400, seed=1)
    own = s.ownership()
    assert own.shape == (5, 5) and own.dtype == np.float32
    assert (own[:, :2] > 0.95).all()
    assert (own[:, 3:] < -0.95).all()
    assert (np.abs(own) <= 1.0).all()


# --- the prior hook ----------------------------------------------------------------------------------

class FixedPrior:
    """Puts most of the mass on one point; records the calls."""

    def __init__(self, point_index: int, size: int):
        self.index, self.size, self.calls = point_index, size, []

    def evaluate(self, board: Board, color: int) -> np.ndarray:
        self.calls.append((board.size, color, board.hash))
        p = np.full(self.size * self.size + 1, 0.1 / (self.size * self.size), dtype=np.float32)
        p[self.index] = 0.9
        return p


def test_without_a_prior_nothing_is_called_and_priors_are_uniform():
    board = Board(5)
    s = run_on(board, 100, seed=1)
    assert {round(c["prior"], 6) for c in s.root_children()} == {round(1 / 26, 6)}


def test_prior_is_asked_once_per_expansion_and_cached_in_the_children():
    board = Board(5)
    target = board.point(2, 2)
    prior = FixedPrior(2 * 5 + 2, 5)
    s = Search(SearchParams(seed=1, pw=False), PlayoutParams(), prior)
    s.set_root(board)
    s.run(playouts=300)
    kids = {c["move"]: c for c in s.root_children()}
    assert kids[target]["prior"] == pytest.approx(0.9, rel=1e-3)
    assert prior.calls[0] == (5, BLACK, board.hash)
    # Every expansion but the root's happens below it, so later calls see other positions.
    assert len(prior.calls) > 1 and all(h != board.hash for _, _, h in prior.calls[1:])
    expanded_children = s.n_nodes() - 1
    assert expanded_children >= len(prior.calls)


def test_progressive_widening_opens_children_in_prior_order():
    board = Board(5)
    target = board.point(0, 0)                           # a poor move the prior insists on
    prior = FixedPrior(0, 5)
    params = SearchParams(seed=1, pw=True, pw_init=1, pw_a=1000.0)  # the second child opens very late
    s = Search(params, PlayoutParams(), prior)
    s.set_root(board)
    s.run(playouts=200)
    visited = [c for c in s.root_children() if c["visits"] > 0]
    assert [c["move"] for c in visited] == [target]


def test_a_failing_prior_stops_the_run_with_its_error():
    class Broken:
        def evaluate(self, board, color):
            return np.zeros(3, dtype=np.float32)

    s = Search(SearchParams(seed=1), PlayoutParams(), Broken())
    s.set_root(Board(5))
    with pytest.raises(ValueError, match="expected 26"):
        s.run(playouts=100)


# --- bad input ---------------------------------------------------------------------------------------

def test_bad_input_gives_clear_errors():
    with pytest.raises(ValueError, match="n_threads"):
        search(n_threads=-1)
    with pytest.raises(ValueError, match="max_nodes"):
        search(max_nodes=0)
    with pytest.raises(TypeError, match="evaluate"):
        Search(SearchParams(), PlayoutParams(), prior=object())
    s = search()
    with pytest.raises(RuntimeError, match="set_root"):
        s.run(playouts=10)
    with pytest.raises(RuntimeError, match="set_root"):
        s.best_move()
    s.set_root(Board(5))
    with pytest.raises(ValueError):
        s.run(playouts=-1)
    no_budget = Search(SearchParams(playouts=0), PlayoutParams())
    no_budget.set_root(Board(5))
    with pytest.raises(ValueError, match="budget"):
        no_budget.run()


# --- statistics ----------------------------------------------------------------------------------------

def test_one_simulation_updates_mc_and_amaf_as_specified():
    board = Board(5)
    s = run_on(board, 1, seed=3)
    kids = s.root_children()
    played = kids[0]
    assert played["visits"] == 1 and all(c["visits"] == 0 for c in kids[1:])
    # The move played from the root is its own first play: the full distance weight 2.
    assert played["amaf_visits"] == pytest.approx(2.0)
    assert played["amaf_winrate"] == played["winrate"]
    # Later first plays by the same colour weigh between 1 and 2; pass never gets AMAF.
    later = [c for c in kids[1:] if c["amaf_visits"] > 0]
    assert later and all(1.0 < c["amaf_visits"] < 2.0 for c in later)
    assert all(c["amaf_winrate"] == played["winrate"] for c in later)
    assert next(c for c in kids if c["move"] == PASS)["amaf_visits"] == 0
    assert s.winrate() == played["winrate"]          # both for the side to move


def test_without_distance_weight_amaf_counts_one_per_first_play():
    board = Board(5)
    s = run_on(board, 1, seed=3, rave_distance_weight=False)
    weights = {c["amaf_visits"] for c in s.root_children()}
    assert weights == {0.0, 1.0}


def test_score_weight_grades_wins_and_losses_by_the_margin():
    # Settled: Black ends 25 to 35 points ahead at komi -30 (column C goes either way), behind at +30.
    def value(komi: float, **fields) -> float:
        return run_on(board_from_ascii(SETTLED, komi=komi, to_play=BLACK), 300, seed=1, **fields).winrate()

    assert value(-30.0) == 1.0 and value(30.0) == 0.0              # off: wins and losses only
    graded = {"score_weight": 0.2, "score_span": 100.0}
    win_30, win_20 = value(-30.0, **graded), value(-20.0, **graded)
    assert 1 - 0.2 * (1 - 0.25) <= win_30 <= 1 - 0.2 * (1 - 0.35)  # 1 - w (1 - margin / span)
    assert win_20 < win_30                                         # a bigger win is worth more
    assert 0.2 * (1 - 0.35) <= value(30.0, **graded) <= 0.2 * (1 - 0.25)   # w (1 - margin / span)
    assert value(-30.0, score_weight=0.2, score_span=10.0) == pytest.approx(1.0)   # clipped at the span


def test_extra_komi_values_simulations_as_a_komi_change_would():
    def value(komi: float, extra_komi: float) -> float:
        s = search(seed=1)
        s.set_root(board_from_ascii(SETTLED, komi=komi, to_play=BLACK), (), extra_komi)
        s.run(playouts=300)
        assert s.extra_komi == extra_komi
        return s.winrate()

    assert value(-30.0, 0.0) == 1.0 and value(-30.0, 60.0) == 0.0   # Black 25 to 35 ahead, then behind
    for komi, extra in [(-30.0, 30.0), (0.0, 5.0), (-5.0, 10.0), (20.0, -20.0)]:
        assert value(komi, extra) == value(komi + extra, 0.0)      # the same simulations, the same values


def test_additive_prior_term_decides_between_equal_moves():
    # Black wins whatever it plays (komi -30), so values tie and only the additive term separates them.
    board = board_from_ascii(SETTLED, komi=-30.0, to_play=BLACK)
    target = vertex(board, "C5")
    prior = FixedPrior(4 * 5 + 2, 5)
    s = Search(SearchParams(seed=1, additive=True, pw=False), PlayoutParams(), prior)
    s.set_root(board)
    s.run(playouts=200)
    kids = s.root_children()
    assert kids[0]["move"] == target and kids[0]["visits"] > 100
    assert all(c["winrate"] == 1.0 for c in kids if c["visits"])
    plain = run_on(board, 200, seed=1)                   # without the prior a tie-break decides
    assert plain.root_children()[0]["move"] != target


def test_virtual_wins_lead_the_search_to_the_prior_move_among_equal_moves():
    # Black loses whatever it plays (komi +30): values tie at 0, so only the virtual wins separate moves.
    board = board_from_ascii(SETTLED, komi=30.0, to_play=BLACK)
    target = vertex(board, "C5")
    prior = FixedPrior(4 * 5 + 2, 5)

    def root(virtual_wins: float) -> list[dict]:
        params = SearchParams(seed=1, n_threads=1, additive=False, pw=False, virtual_wins=virtual_wins)
        s = Search(params, PlayoutParams(), prior)
        s.set_root(board)
        s.run(playouts=300)
        assert all(c["winrate"] == 0.0 for c in s.root_children() if c["visits"])
        return s.root_children()

    led = root(40.0)
    assert led[0]["move"] == target and led[0]["visits"] > 150
    assert root(-1.0)[0]["move"] != target              # without them a tie-break decides


def visits_with(board: Board, knobs: dict, playouts: int) -> list[tuple[int, int]]:
    prior = FixedPrior((board.size // 2) * board.size + board.size // 2, board.size)   # the centre
    s = Search(SearchParams(seed=2, n_threads=1, **knobs), PlayoutParams(), prior)
    s.set_root(board)
    s.run(playouts=playouts)
    return [(c["move"], c["visits"]) for c in s.root_children()]


def test_virtual_wins_default_to_160_from_15x15_up_and_to_40_below():
    assert [SearchParams().virtual_wins_for(n) for n in (9, 13, 15, 19)] == [40.0, 40.0, 160.0, 160.0]
    assert SearchParams(virtual_wins=-1).virtual_wins_for(19) == 0.0
    assert SearchParams(virtual_wins=112).virtual_wins_for(9) == 112.0
    small, large = Board(9), Board(19)
    by_board, off = dict(additive=False), dict(additive=False, virtual_wins=-1)
    small_led = visits_with(small, by_board, 300)
    assert small_led == visits_with(small, dict(additive=False, virtual_wins=40), 300)
    assert small_led != visits_with(small, off, 300)
    led, plain = visits_with(large, by_board, 300), visits_with(large, off, 300)
    assert led == visits_with(large, dict(additive=False, virtual_wins=160), 300)
    assert led[0][0] == large.point(9, 9) and led[0][1] > 250 > plain[0][1]   # the prior's centre takes most


def test_virtual_wins_do_nothing_without_a_prior():
    board = Board(5)
    plain = Search(SearchParams(seed=3, n_threads=1), PlayoutParams())
    given = Search(SearchParams(seed=3, n_threads=1, virtual_wins=40.0), PlayoutParams())
    for s in (plain, given):
        s.set_root(board)
        s.run(playouts=300)
    assert plain.root_children() == given.root_children()


def test_reuse_follows_a_pass_reply():
    board = Board(7)
    s = run_on(board, 2000, seed=4)
    after_move = board.copy()
    after_move.play(s.best_move())
    s.set_root(after_move)
    pass_visits = next(c["visits"] for c in s.root_children() if c["move"] == PASS)
    after_pass = after_move.copy()
    after_pass.play(PASS)
    s.set_root(after_pass)
    assert s.root_visits() == pass_visits
    assert s.run(playouts=100) == 100
