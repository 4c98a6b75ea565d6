"""How long to think under no limit, absolute, Japanese byo-yomi and Canadian time.

The controller states the system once (GTP `time_settings` or `kgs-time_settings`) and may send the
clock before a move (`time_left`). Between those reports our own clock is kept by `spend`, which the
player calls with the wall time each move really took. `plan` then gives the seconds to think: a
`Plan` of the time the move is meant to take (`target`) and the most it may take when the search is
unsure (`cap`); `should_stop` is the rule the player applies between search slices.

The adaptive manager (`time.manager: adaptive`, the default):

- moves left: half the moves the game still needs, the mean of two estimates, one from the empty
  points (a game ends with about END_EMPTY of the board empty) and one from the move number (a
  game lasts about GAME_LENGTH moves per point), times PLAN_SHARE; at least `moves_left_floor` and
  FLOOR_SHARE of the board's points, so that a game longer than expected still finds time left;
- margin: `reserve` of the time left (main time, or the period) is never planned, plus `latency`
  seconds for every move still to play; the latency is raised to what the controller's reports show
  (the clock fell by more than our own moves took, whole-second rounding aside);
- absolute: `target = (left * (1 - reserve) - latency * max(moves, LATENCY_SHARE * points)) / moves`:
  the latency of a game much longer than expected is kept back as well;
- Japanese byo-yomi: in main time, that share of main time plus what a period move gets; in the
  periods `period * (1 - 2 * reserve) - latency`, never more, so no period is ever used up (a
  period lost all the same raises the latency to what it shows), and never less: a period's time
  left unspent is lost, so there is no early stop;
- Canadian byo-yomi: the period's time left shared over its stones left the same way; the period's
  last stone is planned like a Japanese period, with no early stop (what it leaves is lost);
- `cap`: `extension` times the target, never more than main time plus a period move (a period's
  stones share in Canadian time), and never beyond the target in a Japanese period;
- `should_stop`: stop early when the second-best move cannot catch up with the best in the time
  left at the present playout rate; at the target go on, up to the cap, while the best and the
  second best are close in visits or in win rate. Visits already in the tree (pondering, tree
  reuse) count: the target is a playout count at the measured rate as much as a time.

The fixed manager (`time.manager: fixed`) is the plan of before, kept for comparison: the main time
shared over at least `moves_left_min` moves with `safety_margin` seconds kept back for each, Japanese
periods `(period - margin) * 0.8`, Canadian `time / stones - margin`, and no extension or early stop.

Every budget is capped by `max_time_per_move`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from engine.board import BLACK, WHITE
from engine.params import TimeParams

NONE, ABSOLUTE, BYOYOMI, CANADIAN = "none", "absolute", "byoyomi", "canadian"
FIXED_BYOYOMI_FRACTION = 0.8   # fixed: share of a Japanese byo-yomi period a move may use
FIXED_GAME_LENGTH = 0.8        # fixed: expected moves of a whole game (both sides) per board point
GAME_LENGTH = 0.7              # expected moves of a whole game (both sides) per board point
END_EMPTY = 0.25               # share of the board still empty when a game ends (territory)
PLAN_SHARE = 0.6               # the clock is planned to last this share of the expected moves: many
                               # games end sooner (a resignation, a pass when won); the floor and the
                               # latency kept back cover a longer one
FLOOR_SHARE = 0.05             # own moves assumed left at least, per board point: a long game's end
LATENCY_SHARE = 0.25           # absolute: latency kept back for at least this many own moves per point
CLOSE_VISITS = 0.7             # unsure: the second best has at least this share of the best's visits ...
CLOSE_WINRATE = 0.02           # ... or its win rate is at most this much below the best's
MIN_SHARE = 0.2                # ... with at least this share of the best's visits (else its rate is noise)
MIN_VISITS = 50                # no early stop before the best move has this many visits


@dataclass
class Clock:
    """One side's clock. `stones` is what `time_left` reports: Canadian stones left in the
    period, or Japanese byo-yomi periods left; both are 0 while main time runs."""
    main: float = 0.0        # main time left
    period: float = 0.0      # time left in the current byo-yomi period
    stones: int = 0          # Canadian: stones left in the period; Japanese: periods left
    in_byoyomi: bool = False
    reported: float | None = None   # main time at the first time_left: the latency is measured from it
    spent: float = 0.0              # our moves' wall time since then ...
    n_moves: int = 0                # ... and their number
    last_move: float = 0.0          # the wall time of our last move


@dataclass(frozen=True)
class Plan:
    """A move's thinking time: meant to take `target` seconds, at most `cap` when unsure. `use_all`:
    time this move leaves unspent is lost (a Japanese byo-yomi period), so it never stops early."""
    target: float
    cap: float
    use_all: bool = False

    def to_target(self) -> Plan:
        """The plan without its extension: stop at the target."""
        return replace(self, cap=min(self.cap, self.target)) if self.cap else self

    def rest(self, elapsed: float, least: float) -> Plan:
        """What is left `elapsed` seconds into a timed move, as a plan of its own for a second search
        of it: the target again, within the rest of the cap (at least `least` seconds), so that the two
        searches keep to the move's cap. An untimed plan (cap 0) stays as it is."""
        if self.cap == 0:
            return self
        left = max(least, self.cap - elapsed)
        return replace(self, target=min(self.target, left), cap=left)


class TimeControl:
    """The time system, both sides' clocks and the thinking budget."""

    def __init__(self, params: TimeParams | None = None) -> None:
        self.params = params or TimeParams()
        p = self.params
        if p.main_time > 0 or p.byo_yomi_time > 0:
            self.set_settings(p.main_time, p.byo_yomi_time, p.byo_yomi_stones)
        else:
            self.set_kgs(NONE)

    @property
    def is_adaptive(self) -> bool:
        return self.params.manager == "adaptive"

    # --- settings ---
    def set_settings(self, main: float, byo_time: float, byo_stones: int) -> None:
        """GTP `time_settings` (Canadian). As GTP v2 section 4.2 says: byo_time > 0 with 0 stones
        means no time limit, and byo_time = 0 means absolute time (main time only)."""
        main, byo_time = _seconds(main), _seconds(byo_time)
        byo_stones = _count(byo_stones)
        if byo_time > 0 and byo_stones == 0:
            self._set(NONE)
        elif byo_time == 0:
            self._set(ABSOLUTE, main)
        else:
            self._set(CANADIAN, main, byo_time, byo_stones)

    def set_kgs(self, system: str, *args: float) -> None:
        """`kgs-time_settings none | absolute M | byoyomi M P N | canadian M P S`.

        byoyomi: N periods of P seconds each (Japanese); canadian: S stones in P seconds.
        """
        n_args = {NONE: 0, ABSOLUTE: 1, BYOYOMI: 3, CANADIAN: 3}
        if system not in n_args:
            raise ValueError(f"unknown time system {system!r} (none, absolute, byoyomi, canadian)")
        if len(args) != n_args[system]:
            raise ValueError(f"{system} takes {n_args[system]} arguments, got {len(args)}")
        if system == NONE:
            self._set(NONE)
        elif system == ABSOLUTE:
            self._set(ABSOLUTE, _seconds(args[0]))
        else:
            main, period, count = _seconds(args[0]), _seconds(args[1]), _count(args[2])
            if period == 0 or count == 0:
                if system == CANADIAN and period > 0:
                    raise ValueError("canadian byo-yomi needs at least one stone per period")
                self._set(ABSOLUTE, main)
            else:
                self._set(system, main, period, count)

    def _set(self, system: str, main: float = 0.0, period: float = 0.0, count: int = 0) -> None:
        self.system, self.main_time, self.period_time, self.period_count = system, main, period, count
        self.reset()

    def reset(self) -> None:
        """Both clocks, and the latency allowances, back to the start of a game."""
        self.clocks = {BLACK: self._fresh(), WHITE: self._fresh()}
        self.latency = {BLACK: self.params.latency, WHITE: self.params.latency}

    def _fresh(self) -> Clock:
        clock = Clock(main=self.main_time)
        if self.main_time <= 0 and self.system in (BYOYOMI, CANADIAN):
            self._enter_byoyomi(clock)
        return clock

    def _enter_byoyomi(self, clock: Clock) -> None:
        clock.main, clock.in_byoyomi = 0.0, True
        clock.period, clock.stones = self.period_time, self.period_count

    @property
    def is_timed(self) -> bool:
        return self.system != NONE

    # --- clock reports ---
    def time_left(self, color: int, seconds: float, stones: int) -> None:
        """GTP `time_left`: `stones` = 0 while in main time; in byo-yomi `seconds` is the time left
        in the period and `stones` the stones left in it (Canadian) or the periods left (KGS
        Japanese byo-yomi)."""
        _check_color(color)
        seconds, stones = _seconds(seconds), _count(stones)
        clock = self.clocks[color]
        in_main = self.system in (NONE, ABSOLUTE) or (stones == 0 and seconds > 0)
        if in_main:
            self._measure_latency(color, clock, seconds)
        else:
            if self.system == BYOYOMI and clock.in_byoyomi and stones < clock.stones and clock.n_moves:
                # A period lost that our own clock kept: the lag was at least what our last move left of it.
                self.latency[color] = max(self.latency[color], self.period_time - clock.last_move)
            clock.reported = None
        if self.system in (NONE, ABSOLUTE):
            clock.main = seconds
        elif stones > 0:
            clock.main, clock.in_byoyomi = 0.0, True
            clock.stones = stones
            clock.period = min(seconds, self.period_time) if self.system == BYOYOMI else seconds
        elif seconds > 0:
            clock.main, clock.in_byoyomi, clock.stones, clock.period = seconds, False, 0, 0.0
        else:                       # main time just ran out: byo-yomi starts afresh
            self._enter_byoyomi(clock)

    def _measure_latency(self, color: int, clock: Clock, seconds: float) -> None:
        """Set the latency allowance to what the reported clock lost beyond our own moves' wall time,
        per move, since the first report (never below `params.latency`). Controllers report whole
        seconds (GTP; kgsGtp): a second of rounding is not lag."""
        if clock.reported is None:
            clock.reported, clock.spent, clock.n_moves = seconds, 0.0, 0
            return
        if not clock.n_moves:
            return
        rounding = 1.0 if clock.reported.is_integer() and seconds.is_integer() else 0.0
        extra = (clock.reported - seconds - clock.spent - rounding) / clock.n_moves
        self.latency[color] = max(self.params.latency, extra)

    def spend(self, color: int, seconds: float) -> None:
        """Take a move's wall time off `color`'s clock, as the game clock would."""
        _check_color(color)
        clock = self.clocks[color]
        if self.system == NONE:
            return
        seconds = max(0.0, float(seconds))
        clock.spent, clock.n_moves, clock.last_move = clock.spent + seconds, clock.n_moves + 1, seconds
        if not clock.in_byoyomi:
            if seconds <= clock.main or self.system == ABSOLUTE:
                clock.main = max(0.0, clock.main - seconds)
                return
            seconds -= clock.main
            self._enter_byoyomi(clock)
        if self.system == BYOYOMI:
            # Each period overrun costs a period; the next period starts full.
            lost = int(seconds // self.period_time)
            clock.stones = max(0, clock.stones - lost)
            clock.period = self.period_time
        else:
            clock.period -= seconds
            clock.stones -= 1
            if clock.stones <= 0:
                clock.period, clock.stones = self.period_time, self.period_count

    # --- budget ---
    def budget(self, color: int, board_size: int, move_number: int, empty: int | None = None) -> float | None:
        """Seconds `color` is meant to think on this move; None if untimed (then
        `max_time_per_move`, if set, is the budget). `empty`: the board's empty points (default:
        one stone a move)."""
        plan = self.plan(color, board_size, move_number, empty)
        return None if plan is None else plan.target

    def plan(self, color: int, board_size: int, move_number: int, empty: int | None = None) -> Plan | None:
        """The move's Plan (see the module docstring); None if untimed and uncapped."""
        _check_color(color)
        limit = self.params.max_time_per_move
        if self.system == NONE:
            return Plan(limit, limit) if limit > 0 else None
        if empty is None:
            empty = max(0, board_size * board_size - move_number)
        clock = self.clocks[color]
        if self.is_adaptive:
            moves = self.moves_left(board_size, move_number, empty)
            plan = self._adaptive_plan(clock, self.latency[color], moves, board_size * board_size)
        else:
            t = self._fixed_budget(clock, board_size, move_number)
            plan = Plan(t, t)
        target, cap = max(0.0, plan.target), max(0.0, plan.cap, plan.target)
        if limit > 0:
            target, cap = min(target, limit), min(cap, limit)
        return Plan(target, cap, plan.use_all)

    def moves_left(self, board_size: int, move_number: int, empty: int | None = None) -> int:
        """Our moves still to play (see the module docstring)."""
        points = board_size * board_size
        if not self.is_adaptive:
            rest = FIXED_GAME_LENGTH * points - move_number
            return max(self.params.moves_left_min, int(rest / 2))
        if empty is None:
            empty = max(0, points - move_number)
        by_board = empty - END_EMPTY * points
        by_moves = GAME_LENGTH * points - move_number
        planned = round(PLAN_SHARE * (by_board + by_moves) / 4)
        return max(self.params.moves_left_floor, round(FLOOR_SHARE * points), planned)

    def _adaptive_plan(self, clock: Clock, latency: float, moves: int, points: int) -> Plan:
        keep = 1.0 - self.params.reserve
        ext = self.params.extension
        if self.system == ABSOLUTE:
            target = (clock.main * keep - latency * max(moves, LATENCY_SHARE * points)) / moves
            return Plan(target, ext * target)
        if self.system == BYOYOMI:
            # An overrun costs a whole period: a period keeps back twice the reserve.
            period = clock.period if clock.in_byoyomi else self.period_time
            byo = period * (1.0 - 2 * self.params.reserve) - latency
            if clock.in_byoyomi:
                return Plan(byo, byo, use_all=True)
        else:
            period, stones = ((clock.period, clock.stones) if clock.in_byoyomi
                              else (self.period_time, self.period_count))
            byo = (period * keep - latency * stones) / stones
            if clock.in_byoyomi:
                return Plan(byo, byo * min(ext, stones), use_all=stones == 1)
        # Main time with byo-yomi to follow: a share of main time on top of what a period move gets
        # (when main time runs out during this move, the period pays for the rest).
        byo = max(0.0, byo)
        target = clock.main * keep / moves + byo
        return Plan(target, min(ext * target, clock.main + byo))

    def _fixed_budget(self, clock: Clock, board_size: int, move_number: int) -> float:
        margin = self.params.safety_margin
        byo = self._fixed_byoyomi(clock) if self.system != ABSOLUTE else 0.0
        if clock.in_byoyomi:
            return byo
        moves_left = self.moves_left(board_size, move_number)
        share = clock.main / moves_left
        if self.system == ABSOLUTE:
            # Every move still to play costs latency on top of its thinking: keep a margin for each.
            return max(0.0, clock.main - margin * moves_left) / moves_left
        return min(max(share, byo), clock.main + byo)

    def _fixed_byoyomi(self, clock: Clock) -> float:
        margin = self.params.safety_margin
        if self.system == BYOYOMI:
            period = clock.period if clock.in_byoyomi else self.period_time
            return (period - margin) * FIXED_BYOYOMI_FRACTION
        if clock.in_byoyomi:
            return clock.period / max(1, clock.stones) - margin
        return self.period_time / self.period_count - margin

    # --- stopping ---
    def should_stop(self, plan: Plan, elapsed: float, rate: float, children: Sequence[dict]) -> bool:
        """Whether a search `elapsed` seconds into `plan`, adding `rate` playouts a second, should
        end now; `children` are the root's, most visited first (visits, winrate). The fixed manager
        stops at the target."""
        if elapsed >= plan.cap:
            return True
        if not self.is_adaptive or plan.use_all or len(children) < 2:
            return elapsed >= plan.target
        best, second = children[0], children[1]
        lead = best["visits"] - second["visits"]
        if best["visits"] >= MIN_VISITS and lead > rate * (plan.cap - elapsed):
            return True             # the second best cannot catch up, even with every playout left
        if elapsed < plan.target:
            return best["visits"] >= MIN_VISITS and lead > rate * (plan.target - elapsed) and not is_unsure(children)
        return not is_unsure(children)


def is_unsure(children: Sequence[dict]) -> bool:
    """The best two root children (most visited first) are close in visits, or the second's win
    rate is close to (or above) the best's with enough visits to mean something."""
    if len(children) < 2:
        return False
    best, second = children[0], children[1]
    if second["visits"] >= CLOSE_VISITS * best["visits"]:
        return True
    return second["visits"] >= MIN_SHARE * best["visits"] and second["winrate"] >= best["winrate"] - CLOSE_WINRATE


def _seconds(x: float) -> float:
    try:
        x = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"bad time {x!r}") from None
    if not x >= 0 or x == float("inf"):
        raise ValueError(f"bad time {x!r}: must be a number of seconds >= 0")
    return x


def _count(x: float) -> int:
    try:
        n = int(x)
    except (TypeError, ValueError):
        raise ValueError(f"bad count {x!r}") from None
    if n != x or n < 0:
        raise ValueError(f"bad count {x!r}: must be an integer >= 0")
    return n


def _check_color(color: int) -> None:
    if color not in (BLACK, WHITE):
        raise ValueError(f"bad color {color!r}")
