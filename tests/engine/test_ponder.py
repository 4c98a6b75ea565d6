"""Background searching: sliced runs with reports, pondering and its tree reuse, interrupts."""
import threading
import time

import pytest

from engine.board import BLACK, WHITE, Board
from engine.params import EngineParams, PlayoutParams, SearchParams, TimeParams
from engine.player import Player
from engine.ponder import Ponderer, Reporter, run_planned, run_sliced, stop_thread
from engine.search import Search
from engine.timecontrol import Plan, TimeControl
from tests.polling import wait_until


def make_player(ponder: bool, playouts: int = 200, size: int = 9, max_seconds: float = 0.0) -> Player:
    search = SearchParams(playouts=playouts, seed=3, ponder=ponder, resign_threshold=0.0, max_nodes=50_000)
    player = Player(EngineParams(search=search, time=TimeParams(max_time_per_move=max_seconds)))
    player.game.set_size(size)
    return player


def make_search(size: int = 7) -> tuple[Search, Board]:
    search = Search(SearchParams(seed=5, max_nodes=20_000), PlayoutParams())
    board = Board(size)
    search.set_root(board)
    return search, board


def test_run_sliced_stops_at_the_playout_limit_and_reports_between_slices():
    search, _ = make_search()
    reports = []
    done = run_sliced(search, playouts=3000, seconds=0.0, interval=0.001,
                      report=lambda: reports.append(search.root_visits()))
    assert done == 3000
    assert search.root_visits() == 3000
    assert len(reports) >= 2                   # a 1 ms slice holds far fewer than 3,000 playouts
    assert reports == sorted(reports) and reports[-1] == 3000


def test_run_sliced_without_limits_runs_until_stopped():
    search, _ = make_search()
    halt = threading.Event()
    result, slices = {}, []
    thread = threading.Thread(target=lambda: result.setdefault(
        "n", run_sliced(search, 0, 0.0, 0.02, lambda: slices.append(1), halt.is_set)))
    thread.start()
    wait_until(lambda: len(slices) >= 3, "three slices of the unlimited run")
    assert thread.is_alive()
    halt.set()
    stop_thread(thread, search.stop)
    assert result["n"] > 0 and result["n"] == search.root_visits()


def test_run_sliced_rejects_a_bad_interval():
    search, _ = make_search()
    with pytest.raises(ValueError):
        run_sliced(search, 10, 0.0, 0.0)


def test_ponderer_searches_until_stopped_and_stop_is_idempotent():
    search, board = make_search()
    ponderer = Ponderer(search)
    assert ponderer.stop() == 0                # nothing to stop
    ponderer.start(board)
    wait_until(lambda: ponderer.playouts, "the first slice of pondering")
    assert ponderer.is_pondering
    n = ponderer.stop()
    assert not ponderer.is_pondering and n > 0
    assert search.root_visits() == n
    visits = search.root_visits()
    time.sleep(0.05)                           # the check is that nothing happens: no playouts meanwhile
    assert search.root_visits() == visits      # really stopped
    assert ponderer.stop() == 0


def test_pondering_is_off_by_default():
    player = Player(EngineParams(search=SearchParams(playouts=50, seed=1)))
    player.game.set_size(7)
    player.genmove(BLACK)
    assert not player.ponderer.is_pondering


def test_ponder_tree_is_reused_when_the_opponent_plays_the_expected_move():
    player = make_player(ponder=True)
    player.genmove(BLACK)
    assert player.ponderer.is_pondering
    wait_until(lambda: player.ponderer.playouts, "the first slice of pondering")
    pondered = player.stop_pondering()
    assert pondered > 0
    # The ponder root is the position after our move, White to play (genmove's subtree of it, reused).
    assert player.search.root_visits() >= pondered
    expected = player.search.root_children()[0]
    player.game.play(WHITE, expected["move"])
    player.search.set_root(player.game.board, player.game.history_hashes())
    assert player.search.root_visits() == expected["visits"] > 0
    # genmove searches its playouts on top of the pondered subtree.
    player.genmove(BLACK)
    assert player.ponderer.is_pondering
    player.stop_pondering()


def test_every_player_search_stops_pondering_first():
    player = make_player(ponder=True, size=7)
    player.genmove(BLACK)
    assert player.ponderer.is_pondering
    player.final_score()
    assert not player.ponderer.is_pondering
    player.genmove(WHITE)
    player.clear()
    assert not player.ponderer.is_pondering and not player.game.moves


def test_interrupt_ends_an_unlimited_analysis_and_a_long_genmove():
    player = make_player(ponder=False, playouts=0, max_seconds=600.0)
    reports = []
    report = Reporter(0.02, lambda: reports.append(player.search.root_visits()))
    thread = threading.Thread(target=player.analyze, args=(BLACK,), kwargs={"report": report})
    thread.start()
    wait_until(lambda: reports, "a report of the analysis")
    assert thread.is_alive() and reports
    stop_thread(thread, player.interrupt)
    assert reports == sorted(reports)
    assert player.game.moves == []             # analysis plays nothing

    analysed = player.search.root_visits()
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("move", player.genmove(BLACK)))
    thread.start()                            # playouts=0, no clock, a 600 s cap: a 600 s search
    wait_until(lambda: player.search.root_visits() > analysed, "genmove's search to add playouts")
    start = time.monotonic()
    stop_thread(thread, player.interrupt)
    assert time.monotonic() - start < 60.0    # a guard far from the search's own end, not a speed bound
    assert player.game.moves == [(BLACK, result["move"])]
    # An old interrupt does not cut the next search short.
    assert player.analyze(WHITE, playouts=100) == 100



# Every command that searches, each called as its GTP command calls it.
SEARCHES = {"genmove": lambda p: p.genmove(BLACK), "genmove_cleanup": lambda p: p.genmove_cleanup(BLACK),
            "reg_genmove": lambda p: p.reg_genmove(BLACK),
            "restricted_genmove": lambda p: p.restricted_genmove(BLACK, [p.game.board.point(4, 4)]),
            "analyze": lambda p: p.analyze(BLACK, playouts=200)}


@pytest.mark.parametrize("name", SEARCHES)
def test_an_interrupt_left_by_the_last_command_cuts_no_next_search_short(name):
    player = make_player(ponder=False)
    player.interrupt()                          # what an interrupted genmove or view leaves set
    SEARCHES[name](player)
    assert player.search.root_visits() == 200   # a fresh tree: the search ran its whole budget


class ClockedSearch:
    """A stand-in search on a hand-driven clock: each slice adds `rate` playouts a second, `split` of
    them to the best child and the rest to the second, on top of the visits the tree already holds
    (pondering's, reused)."""

    def __init__(self, visits: tuple[int, int], split: float, rate: float = 1000.0):
        self.now, self.rate, self.split, self.visits = 0.0, rate, split, list(visits)

    def clock(self) -> float:
        return self.now

    def run(self, playouts: int = 0, seconds: float = 0.0) -> int:
        added = int(self.rate * seconds)
        self.now += seconds
        self.visits[0] += round(self.split * added)
        self.visits[1] += added - round(self.split * added)
        return added

    def root_visits(self) -> int:
        return sum(self.visits)

    def root_children(self) -> list[dict]:
        return [{"visits": self.visits[0], "winrate": 0.6}, {"visits": self.visits[1], "winrate": 0.4}]


@pytest.mark.parametrize("visits, split, stops_by", [
    ((0, 0), 0.55, (1.8, 2.05)),         # the best two stay close: extended (nearly) to the cap
    ((0, 0), 0.9, (0.5, 0.95)),          # one move dominates: stopped before the target
    ((4000, 100), 0.55, (0.0, 0.15)),    # pondering already settled it: one slice is enough
])
def test_timed_search_extends_stops_early_and_counts_pondered_visits(visits, split, stops_by):
    search = ClockedSearch(visits, split)
    run_planned(search, 0, Plan(1.0, 2.0), TimeControl().should_stop, start=0.0, clock=search.clock)
    low, high = stops_by
    assert low <= search.now <= high
