"""Searching in the background: slices with reports, pondering, and stopping a searching thread.

- `run_sliced` runs a search in slices of `interval` seconds and calls a report after each slice:
  what an analysis stream (lz-analyze) and GoGui's live graphics need while the search goes on.
- `run_planned` runs a timed move's search in slices, asking the time control after each whether to
  stop (early when one move dominates, later when the best two are close) and reporting as above.
- `Ponderer` searches the position after our move on the opponent's time, in a thread of its own,
  until `stop()`; the next genmove finds that tree again through `Search.set_root`'s tree reuse when
  the opponent played one of the moves it looked at.
- `stop_thread` ends a thread that is running searches. `Search.run` clears its stop flag when it
  starts, so one `stop()` that lands between two slices would be lost: it is repeated until the
  thread has finished.
"""
from __future__ import annotations

import sys
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Callable, Optional, Sequence, TextIO

PONDER_SLICE = 0.1     # seconds per search slice while pondering
STOP_POLL = 0.005      # seconds between two stop() calls while waiting for a thread to end
CHECK_MIN, CHECK_MAX = 0.02, 0.1   # seconds between two looks at a timed search's root (run_planned)


@dataclass(frozen=True)
class Reporter:
    """Call `report()` every `interval` seconds while a search runs (in the searching thread)."""
    interval: float
    report: Callable[[], None]


def run_sliced(search, playouts: int, seconds: float, interval: float,
               report: Optional[Callable[[], None]] = None,
               is_stopped: Callable[[], bool] = lambda: False) -> int:
    """Search until `playouts` playouts were added (0: no limit), `seconds` passed (0: no limit) or
    `is_stopped()`, in slices of at most `interval` seconds with `report()` after each slice that
    was not stopped. With both limits 0 only `is_stopped` ends it. Returns the playouts done."""
    if interval <= 0:
        raise ValueError(f"interval must be > 0, got {interval}")
    start = time.monotonic()
    done = 0
    while not is_stopped():
        slice_playouts = 0
        if playouts:
            slice_playouts = playouts - done
            if slice_playouts <= 0:
                break
        slice_seconds = interval
        if seconds:
            left = seconds - (time.monotonic() - start)
            if left <= 0:
                break
            slice_seconds = min(interval, left)
        done += search.run(playouts=slice_playouts, seconds=slice_seconds)
        if is_stopped():
            break
        if report is not None:
            report()
    return done


def run_planned(search, playouts: int, plan, should_stop: Callable[..., bool], start: float,
                reporter: Optional[Reporter] = None, is_stopped: Callable[[], bool] = lambda: False,
                clock: Callable[[], float] = time.monotonic) -> int:
    """Search for a move that began at `start` (on `clock`) to its time plan (engine.timecontrol's
    Plan), at most `playouts` (0: no limit): in slices of a tenth of the target (CHECK_MIN to
    CHECK_MAX seconds), after each of which `should_stop(plan, elapsed, rate, root_children)`
    decides, and `reporter` reports when its interval has passed. Returns the playouts done."""
    began, visits = clock(), search.root_visits()
    last_report = [began]

    def stopped() -> bool:
        if is_stopped():
            return True
        added, now = search.root_visits() - visits, clock()
        if added <= 0 or now <= began:      # no playout yet: no rate to judge by
            return False
        return should_stop(plan, now - start, added / (now - began), search.root_children())

    def report() -> None:
        if clock() - last_report[0] >= reporter.interval:
            last_report[0] = clock()
            reporter.report()

    interval = min(CHECK_MAX, max(CHECK_MIN, plan.target / 10))
    seconds = max(CHECK_MIN, plan.cap - (began - start))
    return run_sliced(search, playouts, seconds, interval, report if reporter else None, stopped)


def stop_thread(thread: threading.Thread, stop: Callable[[], None], poll: float = STOP_POLL) -> None:
    """Call `stop()` until `thread` has ended (see the module docstring for why more than once)."""
    while thread.is_alive():
        stop()
        thread.join(poll)


class Ponderer:
    """Thinks on the opponent's time with the player's Search, in a background thread."""

    def __init__(self, search, log: Optional[TextIO] = None, slice_seconds: float = PONDER_SLICE):
        self.search = search
        self.log = log
        self.slice_seconds = slice_seconds
        self.playouts = 0                  # playouts of the last (or current) pondering
        self._thread: Optional[threading.Thread] = None
        self._halt = threading.Event()

    @property
    def is_pondering(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, board, history: Sequence[int] = (), extra_komi: float = 0.0) -> None:
        """Ponder on board (its side to move is the opponent) until stop(); extra_komi as set_root's."""
        self.stop()
        self.search.set_root(board, history, extra_komi)
        self.playouts = 0
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._main, args=(self._halt,), name="ponder", daemon=True)
        self._thread.start()

    def stop(self) -> int:
        """End pondering (no-op when not pondering); the playouts it added."""
        thread, self._thread = self._thread, None
        if thread is None:
            return 0
        self._halt.set()
        stop_thread(thread, self.search.stop)
        return self.playouts

    def _main(self, halt: threading.Event) -> None:
        try:
            while not halt.is_set():
                self.playouts += self.search.run(seconds=self.slice_seconds)
        except Exception:   # e.g. the prior failed: pondering ends, the next genmove reports it
            traceback.print_exc(file=self.log or sys.stderr)
