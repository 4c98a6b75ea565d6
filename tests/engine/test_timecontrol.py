"""Thinking budgets under every time system: never lose on time, and use the clock sensibly."""
import pytest

from bench.gameclock import GameClock, TimeSettings
from engine.board import BLACK, WHITE
from engine.params import TimeParams
from engine.timecontrol import Plan, TimeControl

FIXED = TimeParams(manager="fixed")
MARGIN = FIXED.safety_margin
LATENCY = 0.3          # per-move overhead the referee charges beyond the budget (< the fixed margin)
P = TimeParams()       # the adaptive manager's defaults
KEEP = 1 - P.reserve


def referee_clock(system, main=0, period=0, count=0):
    """The game clock as a server keeps it (the match harness's, written independently of TimeControl)."""
    counts = {"periods": count} if system == "byoyomi" else {"stones": count} if system == "canadian" else {}
    return GameClock(TimeSettings(system, main, period, **counts))


def simulate(tc, referee, n_moves, size=19, report=True, lag=LATENCY):
    """Play n_moves of ours; each uses its whole budget plus `lag`. Returns the budgets."""
    budgets = []
    for i in range(n_moves):
        if report:
            tc.time_left(BLACK, *referee.time_left_args())
        t = tc.budget(BLACK, size, 2 * i)
        assert t is not None and 0 <= t <= max(0.0, referee.most() - MARGIN)   # the margin is always kept
        budgets.append(t)
        referee.charge(t + lag)
        tc.spend(BLACK, t + lag)
        assert not referee.lost, f"lost on time at move {i} (budget {t:.2f})"
    return budgets


@pytest.mark.parametrize("report", [True, False])
def test_fixed_kgs_japanese_byoyomi_10_min_5x30(report):
    tc = TimeControl(FIXED)
    tc.set_kgs("byoyomi", 600, 30, 5)
    ref = referee_clock("byoyomi", 600, 30, 5)
    budgets = simulate(tc, ref, 200, report=report)
    assert ref.in_byoyomi and ref.count == 5            # byo-yomi reached, no period ever lost
    assert all(t <= 30 - MARGIN for t in budgets[-50:])
    assert budgets[-1] == pytest.approx((30 - MARGIN) * 0.8)
    assert budgets[0] > 600 / 150                  # main time is used, not hoarded


def test_fixed_kgs_byoyomi_time_left_counts_periods():
    tc = TimeControl(FIXED)
    tc.set_kgs("byoyomi", 600, 30, 5)
    tc.time_left(WHITE, 25.0, 3)                   # in byo-yomi: 25 s left of the period, 3 periods
    assert tc.budget(WHITE, 19, 200) == pytest.approx((25 - MARGIN) * 0.8)
    tc.time_left(WHITE, 400.0, 0)                  # main time
    assert 400 / 150 < tc.budget(WHITE, 19, 100) <= 400 + (30 - MARGIN) * 0.8


@pytest.mark.parametrize("report", [True, False])
def test_fixed_absolute_3_minutes_120_moves(report):
    tc = TimeControl(FIXED)
    tc.set_settings(180, 0, 0)                     # GTP: byo-yomi time 0 = absolute
    ref = referee_clock("absolute", 180)
    simulate(tc, ref, 120, report=report)          # never out of time: simulate checks the referee's clock
    assert ref.used > 60                           # a fair share of the clock was used


def test_fixed_absolute_with_less_than_the_margin_left_thinks_zero():
    tc = TimeControl(FIXED)
    tc.set_kgs("absolute", 60)
    tc.time_left(BLACK, 0.4, 0)
    assert tc.budget(BLACK, 9, 40) == 0.0


@pytest.mark.parametrize("report", [True, False])
def test_fixed_canadian_5_min_then_25_stones_in_5_min(report):
    tc = TimeControl(FIXED)
    tc.set_settings(300, 300, 25)
    ref = referee_clock("canadian", 300, 300, 25)
    budgets = simulate(tc, ref, 200, report=report)
    assert ref.in_byoyomi
    assert min(budgets[-50:]) >= 300 / 25 - MARGIN - 1e-9     # each stone gets its share


def test_fixed_canadian_budget_in_byoyomi():
    tc = TimeControl(FIXED)
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


def test_fixed_moves_left_shrinks_but_keeps_a_floor():
    tc = TimeControl(FIXED)
    assert tc.moves_left(19, 0) > tc.moves_left(19, 100) > FIXED.moves_left_min
    assert tc.moves_left(9, 200) == FIXED.moves_left_min


# --- the adaptive manager: explicit clock values, no wall time ---

def adaptive(system, *args, **params):
    tc = TimeControl(TimeParams(**params))
    tc.set_kgs(system, *args)
    return tc


def play_absolute(tc, main, size, n_moves, lag):
    """n_moves of ours, each its whole budget (spent on our clock) plus `lag` that only the
    controller's clock sees, reported with time_left before each. Returns the time left."""
    left = main
    for i in range(n_moves):
        tc.time_left(BLACK, left, 0)
        t = max(0.01, tc.budget(BLACK, size, 2 * i, empty=max(0, size * size - 2 * i)))
        tc.spend(BLACK, t)
        left -= t + lag
        assert left > 0, f"lost on time at move {i}"
    return left


def test_moves_left_from_the_board():
    tc = TimeControl()
    # 9x9 at the start: 0.6 * (81 - 0.25 * 81 + 0.7 * 81) / 4 = 18 own moves planned; emptier boards
    # and earlier moves, more
    assert tc.moves_left(9, 0, 81) == 18
    assert tc.moves_left(9, 20, 71) > tc.moves_left(9, 20, 61)      # captures left more to play
    assert tc.moves_left(9, 10, 71) > tc.moves_left(9, 30, 71)
    # a long game's end keeps a floor: moves_left_floor, or 5% of the points on a big board
    assert tc.moves_left(9, 200, 5) == P.moves_left_floor
    assert tc.moves_left(19, 600, 20) == round(0.05 * 361)


def test_absolute_budget_arithmetic():
    tc = adaptive("absolute", 20)
    # 18 moves planned, kept back: the reserve and the latency of a quarter of the points' moves (more
    # than those planned: a game may last longer)
    assert tc.budget(BLACK, 9, 0, 81) == pytest.approx((20 * KEEP - P.latency * 81 / 4) / 18)
    plan = tc.plan(BLACK, 9, 0, 81)
    assert plan.cap == pytest.approx(P.extension * plan.target)
    # the fixed manager keeps 0.5 s for each of at least 30 moves: a third of this
    fixed = TimeControl(FIXED)
    fixed.set_kgs("absolute", 20)
    assert fixed.budget(BLACK, 9, 0) < plan.target / 3


def test_absolute_margin_scales_with_the_time_left():
    tc = adaptive("absolute", 600)
    budgets = {}
    for left in (600, 60, 6):
        tc.time_left(BLACK, left, 0)
        budgets[left] = tc.budget(BLACK, 9, 40, 45)
    moves = tc.moves_left(9, 40, 45)
    for left, t in budgets.items():
        assert t == pytest.approx((left * KEEP - P.latency * 81 / 4) / moves)
    assert budgets[600] > 9 * budgets[60]               # the latency allowance is small and fixed


@pytest.mark.parametrize("main, n_moves", [(20, 32), (60, 32), (20, 25)])
def test_absolute_9x9_uses_most_of_the_clock_and_never_runs_out(main, n_moves):
    left = play_absolute(adaptive("absolute", main), main, 9, n_moves, lag=0.03)
    assert left < 0.3 * main                            # 70% or more of the clock used


@pytest.mark.parametrize("size, main, n_moves, lag", [(9, 20, 50, 0.05), (19, 180, 200, 0.2)])
def test_absolute_long_game_with_lag_never_runs_out(size, main, n_moves, lag):
    play_absolute(adaptive("absolute", main), main, size, n_moves, lag)


def test_latency_is_learned_from_the_clock_reports():
    tc = adaptive("absolute", 61)
    tc.time_left(BLACK, 60.5, 0)
    before = tc.budget(BLACK, 9, 10, 70)
    tc.spend(BLACK, 1.0)
    tc.spend(BLACK, 1.0)
    tc.time_left(BLACK, 57.5, 0)                       # the clock fell 3 s for 2 s of our moves
    assert tc.latency[BLACK] == pytest.approx(0.5) and tc.latency[WHITE] == P.latency
    assert tc.budget(BLACK, 9, 10, 70) < before * 57.5 / 60.5 - 0.3
    tc.spend(BLACK, 1.0)
    tc.time_left(BLACK, 56.5, 0)                       # no lag this time: the mean over three moves
    assert tc.latency[BLACK] == pytest.approx(1 / 3)
    tc.reset()
    assert tc.latency[BLACK] == P.latency


def test_whole_second_reports_are_not_lag():
    tc = adaptive("absolute", 20)
    left = 20.0
    tc.time_left(BLACK, 20, 0)
    for _ in range(15):
        tc.spend(BLACK, 0.7)
        left -= 0.71                                   # 0.01 s of lag a move, reported rounded down
        tc.time_left(BLACK, int(left), 0)
        assert tc.latency[BLACK] == P.latency


def test_japanese_byoyomi_5s_plus_3x1s():
    tc = adaptive("byoyomi", 5, 1, 3)
    byo = 1 * (1 - 2 * P.reserve) - P.latency         # a period keeps back twice the reserve
    plan = tc.plan(WHITE, 9, 1, 80)
    moves = tc.moves_left(9, 1, 80)
    assert plan.target == pytest.approx(5 * KEEP / moves + byo)      # main time shared, plus a period move
    assert plan.cap == pytest.approx(min(P.extension * plan.target, 5 + byo))
    tc.time_left(WHITE, 0.2, 0)                        # main time nearly gone: the cap is what is left + a period move
    assert tc.plan(WHITE, 9, 41, 40).cap == pytest.approx(0.2 + byo)
    tc.time_left(WHITE, 1, 2)                          # in byo-yomi, 2 periods left
    assert tc.plan(WHITE, 9, 51, 30) == Plan(pytest.approx(byo), pytest.approx(byo), True)   # never extended


def test_japanese_byoyomi_never_loses_a_period_with_lag():
    tc = adaptive("byoyomi", 5, 1, 3)
    ref = referee_clock("byoyomi", 5, 1, 3)
    simulate(tc, ref, 60, size=9, lag=0.15)            # three times the latency allowance
    assert ref.in_byoyomi and ref.count == 3


def test_japanese_byoyomi_lost_period_raises_the_latency():
    tc = adaptive("byoyomi", 0, 1, 3)
    tc.spend(WHITE, 0.7)                               # our clock: 0.7 s of the period
    tc.time_left(WHITE, 1, 2)                          # the server's: a period lost, so 0.3 s or more of lag
    assert tc.latency[WHITE] >= 0.3
    assert tc.budget(WHITE, 9, 30, 40) <= 1 - 0.3 - 0.15


def test_canadian_budget_and_cap():
    tc = adaptive("canadian", 0, 100, 10)
    per_stone = (100 * KEEP - P.latency * 10) / 10
    assert tc.plan(BLACK, 19, 0) == Plan(pytest.approx(per_stone), pytest.approx(P.extension * per_stone))
    tc.time_left(BLACK, 9, 1)                           # the period's last stone: no extension
    assert tc.plan(BLACK, 19, 100) == Plan(pytest.approx(9 * KEEP - P.latency),
                                           pytest.approx(9 * KEEP - P.latency), use_all=True)
    tc = adaptive("canadian", 300, 300, 25)
    simulate(tc, referee_clock("canadian", 300, 300, 25), 200)


def test_max_time_per_move_caps_the_plan():
    tc = adaptive("absolute", 3600, max_time_per_move=2.0)
    assert tc.plan(BLACK, 19, 0) == Plan(2.0, 2.0)


def children(*pairs):
    return [{"visits": v, "winrate": w} for v, w in pairs]


def test_should_stop_early_when_the_best_move_dominates():
    tc = TimeControl()
    plan = Plan(1.0, 2.0)
    # 5000 playouts a second, 0.2 s in: 9000 more to come before the cap; a lead of 9500 is final
    assert tc.should_stop(plan, 0.2, 5000, children((10000, 0.6), (500, 0.4)))
    assert not tc.should_stop(plan, 0.2, 5000, children((3000, 0.6), (500, 0.4)))
    # before the target: the lead beats what the target leaves, and the best two are not close
    assert tc.should_stop(plan, 0.8, 5000, children((3000, 0.6), (500, 0.4)))
    assert not tc.should_stop(plan, 0.8, 5000, children((3000, 0.6), (900, 0.59)))
    assert not tc.should_stop(plan, 0.001, 5000, children((40, 0.6), (0, 0.5)))   # too few visits to judge


def test_should_stop_extends_while_unsure_up_to_the_cap():
    tc = TimeControl()
    plan = Plan(1.0, 2.0)
    assert tc.should_stop(plan, 1.0, 5000, children((5000, 0.6), (1000, 0.5)))    # sure: stop at the target
    assert not tc.should_stop(plan, 1.0, 5000, children((5000, 0.6), (4000, 0.55)))   # close in visits
    assert not tc.should_stop(plan, 1.0, 5000, children((5000, 0.6), (1500, 0.61)))   # second's rate is higher
    assert tc.should_stop(plan, 2.0, 5000, children((5000, 0.6), (4000, 0.55)))   # the cap ends it


def test_a_period_is_used_to_its_plan_where_time_left_unspent_is_lost():
    tc = adaptive("byoyomi", 0, 10, 5)
    tc.time_left(BLACK, 10, 5)
    plan = tc.plan(BLACK, 19, 200, 100)
    assert plan.use_all and plan.target == plan.cap
    dominated = children((10000, 0.6), (10, 0.4))
    assert not tc.should_stop(plan, plan.target - 1, 5000, dominated)     # a lead no second can catch
    assert tc.should_stop(plan, plan.target, 5000, dominated)
    # In main time, or a Canadian period with stones to come, time saved is kept: a dominated search
    # stops early. The last stone of a Canadian period (one stone per 2 s, say) is a Japanese period.
    main = adaptive("byoyomi", 300, 10, 5).plan(BLACK, 19, 10, 340)
    canadian = adaptive("canadian", 0, 100, 10).plan(BLACK, 19, 0)
    for plan in (main, canadian):
        assert not plan.use_all and tc.should_stop(plan, plan.target - 1, 5000, dominated)
    last_stone = adaptive("canadian", 0, 2, 1).plan(BLACK, 19, 0)
    assert last_stone.use_all and last_stone.target == pytest.approx(2 * KEEP - P.latency)
    assert not tc.should_stop(last_stone, last_stone.target - 0.5, 5000, dominated)


def test_fixed_manager_stops_at_the_target_only():
    tc = TimeControl(FIXED)
    plan = Plan(1.0, 1.0)
    assert not tc.should_stop(plan, 0.5, 5000, children((10000, 0.6), (10, 0.4)))
    assert tc.should_stop(plan, 1.0, 5000, children((5000, 0.6), (4900, 0.6)))


def test_bad_time_params_name_the_key():
    for key, value in [("manager", "clever"), ("reserve", 1.0), ("extension", 0.5), ("moves_left_floor", 0),
                       ("latency", -1.0)]:
        with pytest.raises(ValueError, match=f"^{key}: "):
            TimeParams(**{key: value})


def test_a_plan_to_its_target_and_the_rest_of_a_plan_keep_to_its_cap():
    plan = Plan(2.0, 4.0)
    assert plan.to_target() == Plan(2.0, 2.0)
    assert plan.rest(2.5, 0.01) == Plan(1.5, 1.5) and plan.rest(1.0, 0.01) == Plan(2.0, 3.0)
    assert plan.rest(5.0, 0.01) == Plan(0.01, 0.01)            # past the cap: the least search
    assert Plan(3.0, 3.0, use_all=True).rest(1.0, 0.01) == Plan(2.0, 2.0, use_all=True)
    untimed = Plan(0.0, 0.0)                                   # playouts decide
    assert untimed.to_target() == untimed and untimed.rest(9.0, 0.01) == untimed
