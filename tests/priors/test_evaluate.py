"""priors.evaluate's statistics on hand-made scores: pessimistic ranks, the bootstrap over games and the
paired comparison of two models on the same positions."""
from __future__ import annotations

import numpy as np
import pytest

from priors.evaluate import Scores, against_first, bootstrap_mean


def scores(table: list[tuple[list[float], int, int]]) -> Scores:
    """Scores of positions given as (probabilities, expert column, game)."""
    sc = Scores()
    for p, expert, game in table:
        sc.add(np.asarray(p), expert, 0.0, 1, game)
    return sc


def test_a_tie_with_the_expert_move_counts_against_the_model():
    sc = scores([([0.4, 0.4, 0.2], 1, 0), ([0.5, 0.3, 0.2], 0, 0), ([0.5, 0.3, 0.2], 2, 0)])
    assert sc.rank == [2, 1, 3]
    assert sc.loglik == pytest.approx([np.log(0.4), np.log(0.5), np.log(0.2)])


def test_the_bootstrap_resamples_whole_games():
    rng = np.random.default_rng(0)
    # every game alike: any resample of games has the same mean
    values, games = np.array([1, 0, 1, 0, 1, 0]), np.array([0, 0, 1, 1, 2, 2])
    assert bootstrap_mean(values, games, rng) == pytest.approx([0.5, 0.5])
    # games all hits or all misses: the interval spans most of [0, 1]
    values = np.array([1, 1, 0, 0] * 10)
    games = np.repeat(np.arange(20), 2)
    lo, hi = bootstrap_mean(values, games, rng)
    assert lo < 0.35 and hi > 0.65 and lo <= 0.5 <= hi


def test_the_comparison_counts_positions_only_one_model_predicts():
    expert = [(0, g) for g in range(10) for _ in range(3)]
    first = scores([([0.6, 0.4], e, g) for e, g in expert])                          # always right
    half = scores([([0.6, 0.4] if g % 2 else [0.3, 0.7], e, g) for e, g in expert])   # odd games only
    d = against_first(first, half, np.random.default_rng(1))
    assert (d["only_this_top1"], d["only_first_top1"]) == (0, 15)
    assert d["top1"] == pytest.approx(-0.5)
    assert d["top1_ci95"][0] < -0.5 < d["top1_ci95"][1] < 0
    assert d["loglik"] == pytest.approx((np.log(0.3) - np.log(0.6)) / 2)
    same = against_first(first, first, np.random.default_rng(1))
    assert (same["top1"], same["top1_ci95"], same["loglik"]) == (0.0, [0.0, 0.0], 0.0)


def test_a_zero_probability_expert_move_is_left_out_of_the_loglik_difference_only():
    first = scores([([0.5, 0.5], 0, 0), ([0.9, 0.1], 0, 1)])
    other = scores([([1.0, 0.0], 1, 0), ([0.8, 0.2], 0, 1)])
    d = against_first(first, other, np.random.default_rng(0))
    assert d["top1"] == 0.0 and d["only_first_top1"] == 0     # position 0 a miss for both: the tie, the zero
    assert d["loglik"] == pytest.approx(np.log(0.8) - np.log(0.9))
