"""How long to think under no limit, absolute, Japanese byo-yomi and Canadian time.

The controller states the system once (GTP `time_settings` or `kgs-time_settings`) and may send the
clock before a move (`time_left`). Between those reports our own clock is kept by `spend`, which the
player calls with the wall time each move really took. `budget` then gives the seconds to think:

- main time: the time left shared over the moves still to play (at least `moves_left_min` of ours),
  plus, when byo-yomi follows, what a byo-yomi move may take anyway;
- Japanese byo-yomi: `(period - margin) * 0.8`, so a move never uses up a period;
- Canadian byo-yomi: `time in the period / stones left - margin`;
- absolute: never more than what is left minus the margin, so the clock never reaches zero.

Every budget keeps `safety_margin` seconds back for GTP and process latency and is capped by
`max_time_per_move`.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.board import BLACK, WHITE
from engine.params import TimeParams

NONE, ABSOLUTE, BYOYOMI, CANADIAN = "none", "absolute", "byoyomi", "canadian"
BYOYOMI_FRACTION = 0.8     # share of a Japanese byo-yomi period a move may use
GAME_LENGTH = 0.8          # expected moves of a whole game (both sides) per board point


@dataclass
class Clock:
    """One side's clock. `stones` is what `time_left` reports: Canadian stones left in the
    period, or Japanese byo-yomi periods left; both are 0 while main time runs."""
    main: float = 0.0        # main time left
    period: float = 0.0      # time left in the current byo-yomi period
    stones: int = 0          # Canadian: stones left in the period; Japanese: periods left
    in_byoyomi: bool = False


class TimeControl:
    """The time system, both sides' clocks and the thinking budget."""

    def __init__(self, params: TimeParams | None = None) -> None:
        self.params = params or TimeParams()
        p = self.params
        if p.main_time > 0 or p.byo_yomi_time > 0:
            self.set_settings(p.main_time, p.byo_yomi_time, p.byo_yomi_stones)
        else:
            self.set_kgs(NONE)

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
        """Both clocks back to the start of a game."""
        self.clocks = {BLACK: self._fresh(), WHITE: self._fresh()}

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

    def spend(self, color: int, seconds: float) -> None:
        """Take a move's wall time off `color`'s clock, as the game clock would."""
        _check_color(color)
        clock = self.clocks[color]
        if self.system == NONE:
            return
        seconds = max(0.0, float(seconds))
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
    def budget(self, color: int, board_size: int, move_number: int) -> float | None:
        """Seconds `color` may think on this move without losing on time; None if untimed
        (then `max_time_per_move`, if set, is the budget)."""
        _check_color(color)
        cap = self.params.max_time_per_move
        if self.system == NONE:
            return cap if cap > 0 else None
        t = self._raw_budget(self.clocks[color], board_size, move_number)
        if cap > 0:
            t = min(t, cap)
        return max(0.0, t)

    def moves_left(self, board_size: int, move_number: int) -> int:
        """Our moves still to play: half the expected rest of the game, at least moves_left_min."""
        rest = GAME_LENGTH * board_size * board_size - move_number
        return max(self.params.moves_left_min, int(rest / 2))

    def _raw_budget(self, clock: Clock, board_size: int, move_number: int) -> float:
        margin = self.params.safety_margin
        byo = self._byoyomi_budget(clock) if self.system != ABSOLUTE else 0.0
        if clock.in_byoyomi:
            return byo
        moves_left = self.moves_left(board_size, move_number)
        share = clock.main / moves_left
        if self.system == ABSOLUTE:
            # Every move still to play costs latency on top of its thinking: keep a margin for each.
            return max(0.0, clock.main - margin * moves_left) / moves_left
        # When main time runs out during this move, byo-yomi begins and pays for the rest.
        return min(max(share, byo), clock.main + byo)

    def _byoyomi_budget(self, clock: Clock) -> float:
        margin = self.params.safety_margin
        if self.system == BYOYOMI:
            period = clock.period if clock.in_byoyomi else self.period_time
            return (period - margin) * BYOYOMI_FRACTION
        if clock.in_byoyomi:
            return clock.period / max(1, clock.stones) - margin
        return self.period_time / self.period_count - margin


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
