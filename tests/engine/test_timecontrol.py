"""Thinking budgets under every time system: never lose on time, and use the clock sensibly."""
import pytest

from engine.board import BLACK, WHITE
from engine.params import TimeParams
from engine.timecontrol import TimeControl

MARGIN = TimeParams().safety_margin
LATENCY = 0.3          # per-move overhead the referee charges beyond the budget (< the margin)


class Referee:
    """The game clock as a server keeps it, written independently of TimeControl."""

    def __init__(self, system, main=0.0, period=0.0, count=0):
        self.system, self.period_time, self.count = system, period, count
        self.main, self.period, self.left = main, period, count   # left: stones or periods
        self.in_byo = main == 0 and system != "absolute"
        self.lost = False

    def charge(self, t):
        if not self.in_byo:
            if t <= self.main or self.system == "absolute":
                self.main -= t
                self.lost = self.main < 0
                return
            t -= self.main
            self.main, self.in_byo = 0.0, True
            self.period, self.left = self.period_time, self.count
        if self.system == "byoyomi":
            while t > self.period_time:      # each overrun costs a period
                t -= self.period_time
                self.left -= 1
            self.lost = self.lost or self.left <= 0
        else:
            self.period -= t
            self.lost = self.lost or self.period < 0
            self.left -= 1
            if self.left == 0:
                self.period, self.left = self.period_time, self.count

    def report(self):
        """What time_left would say: (seconds, stones)."""
        if self.in_byo:
            return (self.period, self.left)
        return (self.main, 0)


def simulate(tc, referee, n_moves, size=19, report=True):
    """Play n_moves of ours; each uses its whole budget plus latency. Returns the budgets."""
    budgets = []
    for i in range(n_moves):
        if report:
            tc.time_left(BLACK, *referee.report())
        t = tc.budget(BLACK, size, 2 * i)
        assert t is not None and t >= 0
        budgets.append(t)
        referee.charge(t + LATENCY)
        tc.spend(BLACK, t + LATENCY)
        assert not referee.lost, f"lost on time at move {i} (budget {t:.2f})"
    return budgets


@pytest.mark.parametrize("report", [True, False])
def test_kgs_japanese_byoyomi_10_min_5x30(report):
    tc = TimeControl()
    tc.set_kgs("byoyomi", 600, 30, 5)
    ref = Referee("byoyomi", 600, 30, 5)
    budgets = simulate(tc, ref, 200, report=report)
    assert ref.in_byo and ref.left == 5            # byo-yomi reached, no period ever lost
    assert all(t <= 30 - MARGIN for t in budgets[-50:])
    assert budgets[-1] == pytest.approx((30 - MARGIN) * 0.8)
    assert budgets[0] > 600 / 150                  # main time is used, not hoarded


def test_kgs_byoyomi_time_left_counts_periods():
    tc = TimeControl()
    tc.set_kgs("byoyomi", 600, 30, 5)
    tc.time_left(WHITE, 25.0, 3)                   # in byo-yomi: 25 s left of the period, 3 periods
    assert tc.budget(WHITE, 19, 200) == pytest.approx((25 - MARGIN) * 0.8)
    tc.time_left(WHITE, 400.0, 0)                  # main time
    assert 400 / 150 < tc.budget(WHITE, 19, 100) <= 400 + (30 - MARGIN) * 0.8


@pytest.mark.parametrize("report", [True, False])
def test_absolute_3_minutes_120_moves(report):
    tc = TimeControl()
    tc.set_settings(180, 0, 0)                     # GTP: byo-yomi time 0 = absolute
    ref = Referee("absolute", 180)
    left = 180.0
    for i in range(120):
        if report:
            tc.time_left(BLACK, left, 0)
        t = tc.budget(BLACK, 19, 2 * i)
        assert 0 <= t <= max(0.0, left - MARGIN)
        left -= t + LATENCY
        tc.spend(BLACK, t + LATENCY)
        assert left >= 0
    assert 180 - left > 60                         # a fair share of the clock was used


def test_absolute_with_less_than_the_margin_left_thinks_zero():
    tc = TimeControl()
    tc.set_kgs("absolute", 60)
    tc.time_left(BLACK, 0.4, 0)
    assert tc.budget(BLACK, 9, 40) == 0.0


@pytest.mark.parametrize("report", [True, False])
def test_canadian_5_min_then_25_stones_in_5_min(report):
    tc = TimeControl()
    tc.set_settings(300, 300, 25)
    ref = Referee("canadian", 300, 300, 25)
    budgets = simulate(tc, ref, 200, report=report)
    assert ref.in_byo
    assert min(budgets[-50:]) >= 300 / 25 - MARGIN - 1e-9     # each stone gets its share


def test_canadian_budget_in_byoyomi():
    tc = TimeControl()
    tc.set_kgs("canadian", 0, 300, 25)
    assert tc.budget(BLACK, 19, 0) == pytest.approx(300 / 25 - MARGIN)
    tc.time_left(BLACK, 60, 10)                   # 60 s for the last 10 stones of the period
    assert tc.budget(BLACK, 19, 150) == pytest.approx(60 / 10 - MARGIN)
    tc.time_left(BLACK, 3, 1)
    assert tc.budget(BLACK, 19, 150) == pytest.approx(3 - MARGIN)


def test_gtp_time_settings_systems():
    tc = TimeControl()
    assert tc.budget(BLACK, 19, 0) is None         # untimed by default
    tc.set_settings(0, 30, 0)                      # byo-yomi time > 0, 0 stones: no limit
    assert not tc.is_timed and tc.budget(BLACK, 19, 0) is None
    tc.set_settings(60, 0, 0)
    assert tc.system == "absolute"
    tc.set_settings(60, 30, 5)
    assert tc.system == "canadian" and tc.period_count == 5
    tc.set_kgs("none")
    assert tc.budget(WHITE, 9, 0) is None


def test_bad_settings_are_rejected():
    tc = TimeControl()
    for call in (lambda: tc.set_kgs("fischer", 60, 5), lambda: tc.set_kgs("absolute"),
                 lambda: tc.set_kgs("byoyomi", 60, 30), lambda: tc.set_settings(-1, 0, 0),
                 lambda: tc.set_settings(60, 30, 2.5), lambda: tc.set_kgs("canadian", 60, 30, 0),
                 lambda: tc.time_left(3, 10, 0), lambda: tc.time_left(BLACK, float("nan"), 0)):
        with pytest.raises(ValueError):
            call()


def test_own_clock_is_kept_without_time_left():
    tc = TimeControl()
    tc.set_kgs("byoyomi", 10, 30, 3)
    tc.spend(BLACK, 4)
    assert tc.clocks[BLACK].main == pytest.approx(6) and tc.clocks[WHITE].main == 10
    tc.spend(BLACK, 20)                            # main runs out; 14 s into the first period
    assert tc.clocks[BLACK].in_byoyomi and tc.clocks[BLACK].stones == 3
    tc.spend(BLACK, 65)                            # two periods overrun
    assert tc.clocks[BLACK].stones == 1
    tc = TimeControl()
    tc.set_kgs("canadian", 0, 100, 2)
    tc.spend(BLACK, 30)
    assert tc.clocks[BLACK].period == pytest.approx(70) and tc.clocks[BLACK].stones == 1
    tc.spend(BLACK, 30)                            # period done: a fresh one
    assert tc.clocks[BLACK].period == 100 and tc.clocks[BLACK].stones == 2
    tc.reset()
    assert tc.clocks[BLACK].period == 100


def test_max_time_per_move_caps_every_budget():
    tc = TimeControl(TimeParams(max_time_per_move=2.0))
    assert tc.budget(BLACK, 19, 0) == 2.0          # untimed: the cap is the budget
    tc.set_kgs("absolute", 3600)
    assert tc.budget(BLACK, 19, 0) == 2.0


def test_default_settings_come_from_params():
    tc = TimeControl(TimeParams(main_time=120))
    assert tc.system == "absolute" and tc.clocks[BLACK].main == 120
    tc = TimeControl(TimeParams(main_time=0, byo_yomi_time=10, byo_yomi_stones=5))
    assert tc.system == "canadian" and tc.clocks[WHITE].in_byoyomi


def test_moves_left_shrinks_but_keeps_a_floor():
    tc = TimeControl()
    assert tc.moves_left(19, 0) > tc.moves_left(19, 100) > TimeParams().moves_left_min
    assert tc.moves_left(9, 200) == TimeParams().moves_left_min
