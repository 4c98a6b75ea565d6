import math

import pytest

from bench.stats import (Z95, elo_difference, elo_interval, geometric_mean, geometric_mean_interval, signed_rank_p,
                         wilson_interval)


def test_wilson_interval_of_7_in_10_matches_the_published_value():
    # Wilson (1927) score interval, z = 1.96: 7/10 -> [0.3968, 0.8922]
    low, high = wilson_interval(7, 10)
    assert low == pytest.approx(0.3968, abs=1e-4)
    assert high == pytest.approx(0.8922, abs=1e-4)


def test_wilson_interval_stays_inside_0_1_at_the_extremes():
    low, high = wilson_interval(10, 10)
    assert high == 1.0 and low == pytest.approx(0.7225, abs=1e-4)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_interval_takes_half_points_and_rejects_impossible_counts():
    low, high = wilson_interval(5.5, 10)
    assert low < 0.55 < high
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_elo_of_75_percent_is_190_8():
    assert elo_difference(0.75) == pytest.approx(400 * math.log10(3), abs=1e-9)
    assert elo_difference(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_difference(0.25) == pytest.approx(-190.85, abs=0.01)
    assert elo_difference(0.5) == 0


def test_elo_is_infinite_at_0_and_1_and_rejects_scores_outside():
    assert elo_difference(1.0) == math.inf
    assert elo_difference(0.0) == -math.inf
    with pytest.raises(ValueError):
        elo_difference(1.2)


def test_elo_interval_maps_the_wilson_bounds():
    elo, low, high = elo_interval(15, 20)
    w_low, w_high = wilson_interval(15, 20)
    assert elo == pytest.approx(190.85, abs=0.01)
    assert low == pytest.approx(elo_difference(w_low))
    assert high == pytest.approx(elo_difference(w_high))
    assert low < elo < high
    elo, low, high = elo_interval(10, 10)
    assert elo == math.inf and high == math.inf and math.isfinite(low) and low > 0
    assert all(math.isnan(x) for x in elo_interval(0, 0))


def test_ratios_average_on_the_log_scale():
    assert geometric_mean([4.0, 0.25, 1.0]) == pytest.approx(1.0)
    low, high = geometric_mean_interval([2.0, 8.0])          # logs ln 2, 3 ln 2: mean 2 ln 2, sd sqrt(2) ln 2
    half = Z95 * math.log(2.0)
    assert (low, high) == (pytest.approx(4.0 * math.exp(-half)), pytest.approx(4.0 * math.exp(half)))
    assert signed_rank_p([0.1] * 9) is None                   # too few
    assert signed_rank_p([0.0] * 20 + [0.1] * 9) is None      # zeros do not count
    assert signed_rank_p([0.1 * k for k in range(1, 13)]) < 0.01
