"""The harness's game clock: what each time system charges, reports and counts as available."""
import pytest

from bench.gameclock import GameClock, TimeSettings


def test_absolute_runs_out_below_zero():
    clock = GameClock(TimeSettings("absolute", 10))
    clock.charge(4.0)
    assert clock.time_left_args() == (6.0, 0) and clock.most() == 6.0 and not clock.lost
    clock.charge(6.0)
    assert not clock.lost                          # exactly zero is still on time
    clock.charge(0.01)
    assert clock.lost and clock.summary()["used"] == pytest.approx(10.01)
    assert clock.available == 10


def test_japanese_byoyomi_costs_a_period_per_whole_period_overrun():
    clock = GameClock(TimeSettings("byoyomi", 5, 1, 3))
    clock.charge(4.5)
    assert clock.time_left_args() == (0.5, 0) and clock.most() == pytest.approx(3.5)
    clock.charge(1.2)                              # main time ends, 0.7 s into the first period
    assert clock.in_byoyomi and clock.time_left_args() == (1, 3) and not clock.lost
    clock.charge(0.9)
    assert clock.time_left_args() == (1, 3)        # within a period: costs nothing
    clock.charge(2.5)                              # two whole periods overrun
    assert clock.time_left_args() == (1, 1) and clock.most() == 1 and not clock.lost
    assert clock.available == 5 + 3 * 1            # a period for each move in byo-yomi
    clock.charge(1.0)
    assert clock.lost


def test_canadian_period_renews_after_its_stones():
    clock = GameClock(TimeSettings("canadian", 0, 10, stones=2))
    assert clock.time_left_args() == (10, 2)
    clock.charge(6)
    assert clock.time_left_args() == (4, 1) and clock.most() == 4
    clock.charge(3)
    assert clock.time_left_args() == (10, 2) and not clock.lost
    assert clock.available == 10                   # two stones: a period's worth
    clock.charge(6)
    clock.charge(4.5)
    assert clock.lost
