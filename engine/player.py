"""A game plus a search: what the GTP front end asks for a move or a score.

`genmove` searches the current position for `params.search.playouts` playouts, fewer if the clock
demands it, and plays the most visited move that is legal under positional superko. It passes when
the opponent has just passed and the area score, dead stones removed, already wins
(`pass_when_won`); it resigns when the win rate is hopeless (`resign_threshold`, after
`resign_min_visits` visits of the best move), never in the first quarter of the game, and as White
giving handicap stones only at a lower win rate early on (`resign_threshold_now`). In a handicap game
the search may value its simulations with a dynamic komi: points for White early on (`handicap_komi`),
and a margin asked of the engine's own side while it is well ahead (`handicap_margin_step`), so that a
search near a win rate of 1 still tells a safe lead from a slack one (`extra_komi_now`).
`restricted_genmove` (GnuGo's) chooses among given moves only. `genmove_cleanup` (kgs-genmove_cleanup)
never passes while the ownership says dead opponent stones are still on the board: it plays on their
liberties.
`final_score`, `final_status_list` and the pass and cleanup decisions judge dead stones by
`engine.scoring.playout_ownership` (playouts alone, a fixed number: never the tree search, whose
ownership follows the prior and the search size in a decided position).

Client hooks (engine.ponder): with `search.ponder` the player thinks on the opponent's time after
each genmove until `stop_pondering()`, which every method here calls first; `analyze` searches the
current position without playing (analysis streams, GoGui views); a `Reporter` given to genmove or
analyze is called between search slices; `interrupt()` (thread-safe) makes a running genmove or
analyze finish at once with what it has.
"""
from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Callable, Optional, Sequence

import numpy as np

from engine import scoring
from engine.board import BLACK, EMPTY, PASS, RESIGN, WHITE, Board, IllegalMove
from engine.game import Game
from engine.params import EngineParams
from engine.ponder import Ponderer, Reporter, run_planned, run_sliced
from engine.search import Search
from engine.timecontrol import Plan, TimeControl

SHORT_PLAYOUTS = 500         # playouts of the quick look at ownership before passing, or in cleanup
FINAL_PLAYOUTS = 2000        # playouts behind final_score and final_status_list (whatever search.playouts)
NO_RESIGN_SHARE = 0.25       # no resignation while fewer moves than this share of the points are played
HANDICAP_RESIGN_SHARE = 0.6  # White giving stones: the resign threshold is full from this share on
MARGIN_GROW = 0.75           # the margin asked of a side grows while its root win rate is above this
MARGIN_DROP = 0.5            # ... and is dropped when the win rate under it falls below this
UNTIMED_SECONDS = 10.0       # thinking time when playouts = 0 ("clock only") and there is no clock
MIN_SECONDS = 0.01           # a search always gets this much, even with no time left


class Player:
    """Owns the game record, the search and the clock of one engine."""

    def __init__(self, params: EngineParams | None = None, prior=None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.params = params or EngineParams()
        self.prior = prior
        self.game = Game()
        self.search = Search(self.params.search, self.params.playout, prior)
        self.time = TimeControl(self.params.time)
        self._clock = clock
        self._scoring_cache: tuple[tuple, np.ndarray] | None = None
        self.ponderer = Ponderer(self.search)
        self._interrupted = threading.Event()
        self._margin = _no_margin()    # points each side's search asks of itself

    def clear(self) -> None:
        """A new game: empty board of the same size and komi, clocks back to the start."""
        self.stop_pondering()
        self.game.clear()
        self._margin = _no_margin()
        self.time.reset()
        self.search.clear_replies()

    # --- client hooks ---
    def stop_pondering(self) -> int:
        """End pondering if it runs; the playouts it added."""
        return self.ponderer.stop()

    def _begin(self) -> None:
        """Every search of a new command: pondering ends, an old interrupt is forgotten."""
        self.stop_pondering()
        self._interrupted.clear()

    def interrupt(self) -> None:
        """Make a running genmove or analyze finish now (thread-safe; GoGui's interrupt)."""
        self._interrupted.set()
        self.search.stop()

    def analyze(self, color: int, playouts: int = 0, seconds: float = 0.0,
                report: Optional[Reporter] = None) -> int:
        """Search the current position with `color` to move, playing nothing, for `playouts` /
        `seconds` (both 0: until interrupt()), reusing the tree; the results are in `self.search`."""
        board = self._query_board(color)
        self._set_root(board)
        interval = report.interval if report is not None else UNTIMED_SECONDS
        return run_sliced(self.search, playouts, seconds, interval, report.report if report else None,
                          self._interrupted.is_set)

    # --- moves ---
    def genmove(self, color: int, report: Optional[Reporter] = None) -> int:
        """Choose a move for `color` and play it; RESIGN is returned but not played."""
        return self._genmove(color, cleanup=False, report=report)

    def genmove_cleanup(self, color: int, report: Optional[Reporter] = None) -> int:
        """As genmove, but no pass while dead opponent stones remain (kgs-genmove_cleanup)."""
        return self._genmove(color, cleanup=True, report=report)

    def reg_genmove(self, color: int, report: Optional[Reporter] = None) -> int:
        """The move genmove would choose, without playing it or touching the clock."""
        board = self._query_board(color)
        return self._choose(board, color, cleanup=False, report=report)

    def restricted_genmove(self, color: int, among: Sequence[int], report: Optional[Reporter] = None) -> int:
        """GnuGo's restricted_genmove: the move of `among` the search likes best (most visits, then the
        order given) that the game allows, else PASS; nothing is played, no clock runs, no resignation."""
        board = self._query_board(color)
        playouts, plan = self._limits(color, board)
        self._set_root(board)
        self._run(playouts, plan, self._clock(), report)
        visits = {c["move"]: c["visits"] for c in self.search.root_children()}
        history = set(self.game.history_hashes())
        ranked = sorted(among, key=lambda m: -visits.get(m, 0))
        return next((m for m in ranked if self._is_allowed(board, color, m, history)), PASS)

    def _genmove(self, color: int, cleanup: bool, report: Optional[Reporter] = None) -> int:
        _check_color(color)
        start = self._clock()
        self._begin()
        board = self.game.board
        if board.to_play != color:      # GTP lets either colour move
            board.to_play = color
        move = self._choose(board, color, cleanup, report, adapt=True)
        if move == RESIGN:
            self.game.result = ("W" if color == BLACK else "B") + "+R"
        else:
            try:
                self.game.play(color, move, superko=True)
            except IllegalMove:         # never expected: _choose checked it; a pass is always legal
                move = PASS
                self.game.play(color, PASS)
        self.time.spend(color, self._clock() - start)
        if self.params.search.ponder and move != RESIGN and not self.game.is_over():
            self.ponderer.start(self.game.board, self.game.history_hashes(), self.extra_komi_now(color))
        return move

    def _choose(self, board: Board, color: int, cleanup: bool, report: Optional[Reporter] = None,
                adapt: bool = False) -> int:
        """The move for `color`; with `adapt` (genmove), the search's win rate also sets the margin its
        side asks of itself next move, and a margin found out of reach is dropped and the move searched
        again without it: no move or resignation is chosen by a search whose target cannot be met. On
        the clock a search under a margin stops at the move's target, which leaves the search again its
        target within the move's cap."""
        sp = self.params.search
        start = self._clock()
        playouts, plan = self._limits(color, board)
        dead: list[list[int]] = []
        moves = self.game.moves
        opponent_passed = bool(moves) and moves[-1] == (3 - color, PASS)
        if cleanup or (sp.pass_when_won and opponent_passed):
            own = self._ownership(board, SHORT_PLAYOUTS)
            dead = self._dead_opponent_groups(board, color, own)
            if sp.pass_when_won and opponent_passed and not (cleanup and dead):
                score = scoring.final_score(board, own)
                if (score > 0) == (color == BLACK) and score != 0:
                    return PASS
        self._set_root(board)
        asking = adapt and self.margin_asked(color) > 0
        self._run(playouts, plan.to_target() if asking else plan, start, report)
        if adapt and self._adapt_margin(color):
            self._set_root(board)
            again = self._clock()
            self._run(playouts, plan.rest(again - start, MIN_SECONDS), again, report)
        if not cleanup and self._should_resign(color):
            return RESIGN
        # Passing first only in a won position on a settled board: a losing engine plays on (or
        # resigns), and a small search that likes pass on an open board plays its next move.
        may_pass = opponent_passed or (self.search.winrate() >= 0.5 and
                                       (self.search.best_move() != PASS or self._pass_is_safe(board, color)))
        return self._pick(board, color, dead if cleanup else [], may_pass)

    def _query_board(self, color: int) -> Board:
        """The start of a search that plays nothing: a copy of the board with `color` to move, pondering
        ended and an old interrupt forgotten."""
        _check_color(color)
        self._begin()
        board = self.game.board.copy()
        board.to_play = color
        return board

    def _set_root(self, board: Board) -> None:
        """Root the search at `board`, or after two passes at its play-on position (the search would
        only score the root)."""
        self.search.set_root(scoring.play_on(board) if self.game.is_over() else board,
                             self.game.history_hashes(), self.extra_komi_now(board.to_play))

    def extra_komi_now(self, color: int) -> float:
        """The dynamic komi (points for White beyond the komi) of a search with `color` to move: in a
        handicap game `handicap_komi` points per stone at the start, falling linearly to 0 over
        `handicap_komi_moves` moves (Pachi's linear dynkomi), plus the margin Black asks of itself or
        less White's. Early on the giver is far behind on the board, and a search whose simulations
        nearly all lose (or, for the taker, all win) hardly tells its moves apart."""
        sp = self.params.search
        stones = len(self.game.handicap)            # 0, or at least 2
        margin = self._margin[color] if color == BLACK else -self._margin[color]
        if not stones or sp.handicap_komi <= 0:
            return margin
        span = sp.handicap_komi_moves or round(self.game.size ** 2 * 200 / 361)   # >= 2 from 2x2
        return sp.handicap_komi * stones * max(0, span - self.game.move_count()) / span + margin

    def margin_asked(self, color: int) -> float:
        """The points `color`'s search asks of its side beyond winning (handicap_margin_step)."""
        return self._margin[color]

    def _adapt_margin(self, color: int) -> bool:
        """After a genmove's search in a handicap game: a step more margin while `color` is well
        ahead under the margin asked (win rate above MARGIN_GROW), none once it is not likely to win
        with it (below MARGIN_DROP). Dropped at once, since a search that cannot reach its target
        values all moves alike; grown a step a move, since a lead is found over several searches.
        True when a margin was dropped."""
        step = self.params.search.handicap_margin_step
        if step <= 0 or not self.game.handicap:
            return False
        rate, asked = self.search.winrate(), self._margin[color]
        if rate > MARGIN_GROW:
            self._margin[color] += step
        elif rate < MARGIN_DROP:
            self._margin[color] = 0.0
        return asked > 0 and self._margin[color] == 0

    def _limits(self, color: int, board: Board) -> tuple[int, Plan]:
        """(playouts, time plan) for this move; playouts 0 means no limit, and so does a plan of 0
        seconds, never both."""
        playouts = self.params.search.playouts
        empty = int(np.count_nonzero(board.stones() == EMPTY))
        plan = self.time.plan(color, board.size, len(self.game.moves), empty)
        if plan is None:
            seconds = 0.0 if playouts else UNTIMED_SECONDS
            return playouts, Plan(seconds, seconds)
        return playouts, replace(plan, target=max(MIN_SECONDS, plan.target), cap=max(MIN_SECONDS, plan.cap))

    def _ownership(self, board: Board, playouts: int) -> np.ndarray:
        return scoring.playout_ownership(board, self.params.playout, playouts, self.params.search.seed)

    def _run(self, playouts: int, plan: Plan, start: float, report: Optional[Reporter] = None) -> int:
        """Search to the plan of a move that began at `start` (the clock's time), in slices when
        reporting or timed; nothing once interrupted."""
        if self._interrupted.is_set():
            return 0
        if plan.cap == 0:                   # untimed, at a playout count
            if report is None:
                return self.search.run(playouts=playouts)
            return run_sliced(self.search, playouts, 0.0, report.interval, report.report,
                              self._interrupted.is_set)
        return run_planned(self.search, playouts, plan, self.time.should_stop, start, report,
                           self._interrupted.is_set, self._clock)

    def _pass_is_safe(self, board: Board, color: int) -> bool:
        """Passing wins even if every point the playouts do not surely give us goes to the opponent."""
        return scoring.pessimistic_margin(board, self._ownership(board, SHORT_PLAYOUTS), color) > 0

    def _should_resign(self, color: int) -> bool:
        """Hopeless: the win rate is under the threshold now and the best move is well explored
        (resign_min_visits, or half the search when it was smaller)."""
        sp = self.params.search
        threshold = self.resign_threshold_now(color)
        if threshold <= 0 or self.search.winrate() >= threshold:
            return False
        children = self.search.root_children()
        best = self.search.best_move()
        visits = next((c["visits"] for c in children if c["move"] == best), 0)
        return visits >= min(sp.resign_min_visits, self.search.root_visits() // 2)

    def resign_threshold_now(self, color: int) -> float:
        """The win rate `color` resigns under at this point of the game: 0 (never) before a quarter of
        the board's points have been played; as White giving stones, resign_threshold / (1 + stones)
        blended linearly into resign_threshold by 0.6 of the points, since the taker of a handicap
        may still go wrong (Leela Zero's rule); else resign_threshold."""
        full = self.params.search.resign_threshold
        points = self.game.size * self.game.size
        moves = self.game.move_count()
        if full <= 0 or moves < NO_RESIGN_SHARE * points:
            return 0.0
        stones = len(self.game.handicap)
        if color != WHITE or not stones:
            return full
        blend = min(1.0, moves / (HANDICAP_RESIGN_SHARE * points))
        return blend * full + (1 - blend) * full / (1 + stones)

    def _pick(self, board: Board, color: int, dead: list[list[int]], may_pass: bool = True) -> int:
        """The search's choice if the game allows it, else the next most visited allowed move.
        With dead opponent groups given (cleanup), no pass and their liberties first, best first,
        after the search's choice where that is one of them or takes the last liberty of a group (a
        throw-in into a seki or an eye is answered before a dead stone elsewhere is taken).
        Without `may_pass`, pass comes last."""
        history = set(self.game.history_hashes())
        children = self.search.root_children()
        order = [self.search.best_move()] + [c["move"] for c in children]
        if not may_pass:
            order = [m for m in order if m != PASS]
        if dead:
            visits = {c["move"]: c["visits"] for c in children}
            cleanup = self._cleanup_moves(board, color, dead, visits)
            best = [m for m in order[:1] if m in cleanup or _takes_a_last_liberty(board, m)]
            order = [m for m in best + cleanup + order if m != PASS]
        for move in order:
            if self._is_allowed(board, color, move, history):
                return move
        return PASS

    def _is_allowed(self, board: Board, color: int, move: int, history: set[int]) -> bool:
        if move == PASS:
            return True
        if move == RESIGN or not board.is_legal(move, color):
            return False
        return board.hash_after(move, color) not in history

    def _dead_opponent_groups(self, board: Board, color: int, own: np.ndarray) -> list[list[int]]:
        return [g for g in scoring.classify(board, own)["dead"] if board.color_at(g[0]) == 3 - color]

    def _cleanup_moves(self, board: Board, color: int, dead: list[list[int]],
                       visits: dict[int, int]) -> list[int]:
        """Liberties of the dead groups, best first: captures now, not self-atari, the search's
        visits, then the target's fewest liberties."""
        ranked = {}
        for stones in dead:
            n_libs = board.liberties(stones[0])
            for p in stones:
                for q in scoring.neighbours(board, p):
                    if board.color_at(q) == EMPTY and board.is_legal(q, color):
                        key = (n_libs != 1, board.self_atari_size(q, color) > 0, -visits.get(q, 0), n_libs, q)
                        ranked[q] = min(key, ranked.get(q, key))
        return sorted(ranked, key=ranked.__getitem__)

    # --- scoring ---
    def final_score(self) -> str:
        """GTP final_score: area score with dead stones removed, "B+3.5" / "W+0.5" / "0"."""
        self._begin()
        return scoring.format_score(scoring.final_count(self.game.board, self._final_ownership()))

    def final_status_list(self, status: str) -> list[list[int]]:
        """GTP final_status_list: the groups (lists of points) that are alive, dead or in seki."""
        if status not in scoring.STATUSES:
            raise ValueError(f"unknown status {status!r} (alive, dead, seki)")
        self._begin()
        return scoring.final_classify(self.game.board, self._final_ownership())[status]

    def _final_ownership(self) -> np.ndarray:
        board = self.game.board
        key = (board.size, board.hash, len(self.game.moves), board.komi)
        if self._scoring_cache is not None and self._scoring_cache[0] == key:
            return self._scoring_cache[1]
        own = self._ownership(board, FINAL_PLAYOUTS)
        self._scoring_cache = (key, own)
        return own


def _takes_a_last_liberty(board: Board, move: int) -> bool:
    return move >= 0 and any(board.color_at(q) != EMPTY and board.liberties(q) == 1
                             for q in scoring.neighbours(board, move))


def _no_margin() -> dict[int, float]:
    return {BLACK: 0.0, WHITE: 0.0}


def _check_color(color: int) -> None:
    if color not in (BLACK, WHITE):
        raise ValueError(f"bad color {color!r}")
