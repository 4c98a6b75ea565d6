"""The game clock of a timed match: the time settings and each side's clock, kept by the harness.

A side's clock is charged the wall time of each of its `genmove` replies, as a server charges the
time between sending the move request and receiving the move. The systems are those kgsGtp sends:

- absolute   `main` seconds for the whole game; the clock below zero loses;
- byoyomi    Japanese: `main`, then `periods` periods of `period` seconds: a move within a period
             costs nothing, a move that overruns it costs one period per whole period overrun, and
             losing the last period loses;
- canadian   `main`, then `stones` moves in each period of `period` seconds; the period's time
             below zero loses, and after its last stone a fresh period starts.

`time_left_args` is what `time_left` reports, as kgsGtp does: `(main left, 0)` in main time, then
`(period seconds, periods left)` (Japanese) or `(seconds left in the period, stones left)` (Canadian).
`available` is the time the side could have used without losing: main time, plus a period for each
Japanese byo-yomi move, or a period's share (`period / stones`) for each Canadian one.
"""
from __future__ import annotations

from dataclasses import dataclass

SYSTEMS = ("absolute", "byoyomi", "canadian")


@dataclass(frozen=True)
class TimeSettings:
    system: str                  # absolute, byoyomi (Japanese) or canadian
    main: float                  # main time in seconds
    period: float = 0.0          # byo-yomi period in seconds
    periods: int = 0             # byoyomi: number of periods
    stones: int = 0              # canadian: moves to play in each period

    def gtp_time_settings(self) -> str:
        """GTP's `time_settings` (Canadian): Japanese periods as one stone per period, as kgsGtp does."""
        if self.system == "absolute":
            return f"time_settings {self.main:g} 0 0"
        stones = 1 if self.system == "byoyomi" else self.stones
        return f"time_settings {self.main:g} {self.period:g} {stones}"

    def kgs_time_settings(self) -> str:
        if self.system == "absolute":
            return f"kgs-time_settings absolute {self.main:g}"
        count = self.periods if self.system == "byoyomi" else self.stones
        return f"kgs-time_settings {self.system} {self.main:g} {self.period:g} {count}"

    def describe(self) -> str:
        if self.system == "absolute":
            return f"{self.main:g} s sudden death"
        if self.system == "byoyomi":
            return f"{self.main:g} s + {self.periods} x {self.period:g} s byo-yomi"
        return f"{self.main:g} s + {self.stones} stones in {self.period:g} s"


class GameClock:
    """One side's clock under `settings`."""

    def __init__(self, settings: TimeSettings):
        self.settings = settings
        self.main = settings.main
        self.in_byoyomi = False
        self.period_left = 0.0       # canadian: time left in the period
        self.count = 0               # byoyomi: periods left; canadian: stones left in the period
        self.used = 0.0
        self.available = settings.main
        self.lost = False
        if self.main <= 0 and settings.system != "absolute":
            self._enter_byoyomi()

    def _enter_byoyomi(self) -> None:
        s = self.settings
        self.main, self.in_byoyomi = 0.0, True
        self.period_left = s.period
        self.count = s.periods if s.system == "byoyomi" else s.stones

    def time_left_args(self) -> tuple[float, int]:
        if not self.in_byoyomi:
            return self.main, 0
        if self.settings.system == "byoyomi":
            return self.settings.period, self.count
        return self.period_left, self.count

    def most(self) -> float:
        """The longest the next move may take without losing on time."""
        s = self.settings
        if s.system == "absolute":
            return self.main
        if s.system == "byoyomi":
            return self.main + (self.count if self.in_byoyomi else s.periods) * s.period
        return self.main + (self.period_left if self.in_byoyomi else s.period)

    def charge(self, seconds: float) -> None:
        """A move that took `seconds`; sets `lost` when the clock ran out."""
        s = self.settings
        self.used += seconds
        if not self.in_byoyomi:
            if seconds <= self.main or s.system == "absolute":
                self.main -= seconds
                self.lost = self.main < 0
                return
            seconds -= self.main
            self._enter_byoyomi()
        if s.system == "byoyomi":
            self.available += s.period
            self.count -= int(seconds // s.period)
            self.lost = self.count <= 0
            return
        self.available += s.period / s.stones
        self.period_left -= seconds
        self.lost = self.period_left < 0
        self.count -= 1
        if self.count == 0 and not self.lost:
            self.period_left, self.count = s.period, s.stones

    def summary(self) -> dict:
        return {"used": round(self.used, 3), "available": round(self.available, 3), "lost": self.lost,
                "left": [round(self.time_left_args()[0], 3), self.time_left_args()[1]]}
