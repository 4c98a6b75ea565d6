"""Bradley-Terry ratings against closed forms and simulated leagues of known strength."""
import math

import numpy as np
import pytest

from bench.ratings import ELO_PER_NAT, fit
from bench.stats import elo_difference, elo_interval


def expected(elo_i: float, elo_j: float) -> float:
    return 1.0 / (1.0 + 10 ** ((elo_j - elo_i) / 400.0))


def test_two_engines_get_the_elo_of_their_score_and_a_matching_interval():
    ratings = fit(["a", "b"], np.array([[0, 75.0], [25.0, 0]]), anchor="b")
    a, b = ratings.ratings
    assert (a.name, b.name) == ("a", "b")
    assert a.elo == pytest.approx(elo_difference(0.75), abs=1e-6)      # +190.8
    assert (b.elo, b.low, b.high) == (0.0, 0.0, 0.0)
    assert a.games == 100 and a.score == pytest.approx(0.75)
    _, low, high = elo_interval(75, 100)            # the Wilson interval, mapped to Elo
    assert a.low == pytest.approx(low, abs=15) and a.high == pytest.approx(high, abs=15)
    assert not ratings.regularised


def test_known_strengths_are_recovered_from_a_simulated_round_robin():
    truth = {"gnugo": 0.0, "none": -150.0, "mm": 250.0, "fbt": 320.0}
    names = list(truth)
    rng = np.random.default_rng(3)
    points = np.zeros((4, 4))
    for i in range(4):
        for j in range(i + 1, 4):
            wins = rng.binomial(400, expected(truth[names[i]], truth[names[j]]))
            points[i, j], points[j, i] = wins, 400 - wins
    ratings = {r.name: r for r in fit(names, points, anchor="gnugo").ratings}
    assert [r for r in ratings] == ["fbt", "mm", "gnugo", "none"]
    for name, elo in truth.items():
        assert ratings[name].low <= elo <= ratings[name].high, name
        assert abs(ratings[name].elo - elo) < 40, name
    assert 0 < ratings["mm"].high - ratings["mm"].low < 120


def test_more_games_narrow_the_intervals():
    def width(n):
        r = fit(["a", "b"], np.array([[0, 0.6 * n], [0.4 * n, 0]]), anchor="b").ratings[0]
        return r.high - r.low
    assert width(400) == pytest.approx(width(100) / 2, rel=0.02)


def test_an_engine_that_won_every_game_is_rated_with_regularisation_and_said_so():
    points = np.array([[0, 10, 8], [0, 0, 6], [0, 4, 0]], dtype=float)
    ratings = fit(["top", "b", "c"], points, anchor="b")
    assert ratings.regularised
    top = ratings.ratings[0]
    assert top.name == "top" and top.elo > 300 and math.isfinite(top.high)


def test_draws_count_half_a_win_each_way():
    ratings = fit(["a", "b"], np.array([[0, 5.0], [5.0, 0]]), anchor="a")
    assert [r.elo for r in ratings.ratings] == pytest.approx([0.0, 0.0], abs=1e-6)


def test_bad_tables_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="anchor 'x'"):
        fit(["a", "b"], np.array([[0, 1.0], [1.0, 0]]), anchor="x")
    with pytest.raises(ValueError, match="no chain of games links c, d"):
        fit(["a", "b", "c", "d"], np.array([[0, 2, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0.0]]), anchor="a")
    with pytest.raises(ValueError, match="square"):
        fit(["a", "b"], np.zeros((3, 3)), anchor="a")
    assert ELO_PER_NAT == pytest.approx(173.7, abs=0.1)
