"""bench.sprt: LLR values, error rates and test lengths of the simulated SPRT, the Elo interval's coverage."""
import math

import numpy as np
import pytest

from bench import sprt
from bench.sprt import Pentanomial, SprtConfig, Trinomial, decide, elo_interval, llr, simulate, wald

WIDE = SprtConfig(0, 50)          # short tests: a few hundred games each
RUNS = 2000                       # error rates known to +-0.5% (one standard error at 5%)
NOISE = 3 * math.sqrt(0.05 * 0.95 / RUNS)


def binomial_llr(wins: int, losses: int, config: SprtConfig) -> float:
    """Two outcomes only: the hypotheses fix the distribution, so the LLR is the classical one."""
    s0, s1 = sprt.logistic_score(config.elo0), sprt.logistic_score(config.elo1)
    return wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))


def test_llr_without_draws_is_the_binomial_one():
    # 60 - 40 at 0 vs 50 Elo: 60 ln(0.5715/0.5) + 40 ln(0.4285/0.5) = 1.85; the absent draws weigh 1e-3
    assert binomial_llr(60, 40, WIDE) == pytest.approx(1.846, abs=1e-3)
    assert llr(Trinomial(60, 0, 40), WIDE) == pytest.approx(1.846, abs=0.01)


def test_pentanomial_of_whole_pair_results_is_the_binomial_one():
    # pairs of 2 or 0 points only: a binomial sample on the pair, mean score per game as the hypotheses
    assert llr(Pentanomial((30, 0, 0, 0, 50)), WIDE) == pytest.approx(binomial_llr(50, 30, WIDE), abs=0.01)


@pytest.mark.parametrize("counts, config, expected", [
    # (published reference values of the same test: fastchess's SPRT tests)
    (Trinomial(21404, 40708, 21184), SprtConfig(0.5, 2.5), -1.57),
    (Trinomial(57433, 106593, 57030), SprtConfig(0, 2), -2.59),
    (Trinomial(36433, 68692, 36027), SprtConfig(0, 2, model="normalized"), 0.92),
    (Trinomial(10871, 20431, 10650), SprtConfig(-1.75, 0.25, model="normalized"), 2.30),
    (Pentanomial((223, 9863, 21279, 10037, 246)), SprtConfig(0.5, 2.5), -3.07),
    (Pentanomial((871, 26175, 55983, 26678, 821)), SprtConfig(0, 2), -4.98),
    (Pentanomial((365, 16618, 36229, 16974, 390)), SprtConfig(0, 2, model="normalized"), 2.25),
    (Pentanomial((127, 4883, 10712, 5150, 104)), SprtConfig(-1.75, 0.25, model="normalized"), 3.01),
])
def test_llr_matches_reference_values(counts, config, expected):
    assert llr(counts, config) == pytest.approx(expected, abs=0.006)


def test_llr_at_the_null_mean_is_minus_the_divergence_to_h1():
    # the empirical mean is the H0 score: the H0 distribution is the empirical one, the LLR -N KL(p || p1)
    counts = Trinomial(30, 40, 30)
    config = SprtConfig(0, 20)
    assert llr(counts, config) < 0
    assert llr(Trinomial(0, 0, 0), config) == 0


def test_decide_and_bounds():
    config = SprtConfig(0, 50, alpha=0.05, beta=0.1)
    assert config.lower == pytest.approx(math.log(0.1 / 0.95))
    assert config.upper == pytest.approx(math.log(0.9 / 0.05))
    assert decide(Trinomial(150, 0, 100), config).result == "H1"
    assert decide(Trinomial(100, 0, 150), config).result == "H0"
    verdict = decide(Trinomial(6, 0, 4), config)
    assert verdict.result == "continue" and verdict.games == 10
    assert "continue" in str(verdict)


def test_a_paired_test_reports_its_counts_verdict_and_interval():
    counts = Pentanomial((2, 10, 40, 30, 18))
    verdict, estimate = decide(counts, SprtConfig(0, 50)), elo_interval(counts)
    assert list(counts.counts) == [2, 10, 40, 30, 18] and verdict.games == 200
    assert estimate.low < estimate.elo < estimate.high
    assert "pairs 0:2 0.5:10 1:40 1.5:30 2:18" in str(counts)
    assert elo_interval(Trinomial(5, 0, 0), WIDE.model).high == float("inf")


@pytest.mark.parametrize("kwargs, message", [
    (dict(elo0=10, elo1=0), "sprt.elo1"),
    (dict(elo0=0, elo1=10, alpha=0), "sprt.alpha"),
    (dict(elo0=0, elo1=10, beta=0.7), "sprt.beta"),
    (dict(elo0=0, elo1=10, model="bayes"), "sprt.model"),
    (dict(elo0="0", elo1=10), "sprt.elo0"),
])
def test_config_errors_name_the_key(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SprtConfig(**kwargs)


def test_config_from_mapping():
    assert SprtConfig.from_mapping({"elo0": 0, "elo1": 10}) == SprtConfig(0, 10)
    with pytest.raises(ValueError, match="sprt.elo2: unknown key"):
        SprtConfig.from_mapping({"elo0": 0, "elo1": 10, "elo2": 3})
    with pytest.raises(ValueError, match="sprt.elo1: missing"):
        SprtConfig.from_mapping({"elo0": 0})


def test_counts_are_validated():
    with pytest.raises(ValueError, match="trinomial"):
        Trinomial(1, -1, 0)
    with pytest.raises(ValueError, match="five counts"):
        Pentanomial((1, 2, 3))
    with pytest.raises(ValueError, match="pair scores"):
        Pentanomial.from_scores([2, 0.75])
    assert Pentanomial.from_scores([2, 1, 1, 0.5]).counts == (0, 1, 2, 0, 1)
    assert Trinomial.from_scores([1, 1, 0.5, 0]) == Trinomial(2, 1, 1)
    with pytest.raises(TypeError):
        llr((10, 0, 5), WIDE)


@pytest.mark.parametrize("pairs", [False, True])
def test_error_rates_and_mean_games_at_the_bounds(pairs):
    # at elo0, H1 is accepted at most alpha (plus noise); at elo1 at least 1 - beta (minus noise); the mean
    # games are Wald's expected sample number plus the overshoot of the bounds: within -5% .. +15%
    for true_elo, low, high in ((0, 0, 0.05 + NOISE), (50, 0.95 - NOISE, 1)):
        sim = simulate(true_elo, WIDE, RUNS, pairs=pairs, seed=7)
        assert low <= sim.accepted_h1 / RUNS <= high
        assert sim.capped == 0
        accept, games = wald(true_elo, WIDE, pairs=pairs, bias=0.5 if pairs else 0.0)
        assert accept == pytest.approx(0.05 if true_elo == 0 else 0.95, abs=0.01)
        assert 0.95 * games <= sim.mean_games <= 1.15 * games


def test_pentanomial_and_trinomial_agree_on_independent_pairs():
    games = simulate(50, WIDE, 1000, seed=3)
    pairs = simulate(50, WIDE, 1000, pairs=True, bias=0.0, seed=4)
    assert abs(games.accepted_h1 - pairs.accepted_h1) / 1000 < 0.03      # near 95%: sd 0.7% each
    assert pairs.mean_games == pytest.approx(games.mean_games, rel=0.1)   # sd of each mean about 2.5%
    # the same independent pairs counted both ways give nearly the same LLR and interval
    rng = np.random.default_rng(5)
    first, second = rng.random((2, 4000)) < sprt.logistic_score(50)
    scores = first.astype(float) + second
    penta = Pentanomial.from_scores(scores)
    tri = Trinomial(int(first.sum() + second.sum()), 0, int(8000 - first.sum() - second.sum()))
    assert llr(penta, WIDE) == pytest.approx(llr(tri, WIDE), rel=0.05)
    p, t = elo_interval(penta), elo_interval(tri)
    assert p.elo == pytest.approx(t.elo, abs=1e-9)
    assert p.high - p.low == pytest.approx(t.high - t.low, rel=0.05)


def test_pairs_with_opening_bias_save_games():
    games = simulate(50, WIDE, 1000, seed=8)
    pairs = simulate(50, WIDE, 1000, pairs=True, bias=1.0, seed=9)
    assert pairs.mean_games < 0.85 * games.mean_games


@pytest.mark.parametrize("pairs, n", [(False, 400), (True, 200)])
def test_elo_interval_covers_the_true_elo_at_95_percent(pairs, n):
    true_elo, samples = 60, 2000
    rng = np.random.default_rng(11)
    p = sprt.unit_distribution(sprt.logistic_score(true_elo), 0.1, pairs, 0.8)
    draws = rng.multinomial(n, p, size=samples)
    covered = 0
    for row in draws:
        counts = Pentanomial(tuple(row)) if pairs else Trinomial(row[2], row[1], row[0])
        estimate = elo_interval(counts)
        covered += estimate.low <= true_elo <= estimate.high
    assert 0.93 <= covered / samples <= 0.97        # sd 0.5%


def test_elo_interval_scales():
    est = elo_interval(Trinomial(60, 0, 40))
    assert est.elo == pytest.approx(-400 * math.log10(1 / 0.6 - 1))
    assert est.low < est.elo < est.high
    normalized = elo_interval(Trinomial(60, 0, 40), model="normalized")
    # no draws, unpaired: sigma = sqrt(0.6 * 0.4), nElo = 0.1 / sigma * 800 / ln 10
    assert normalized.elo == pytest.approx(0.1 / math.sqrt(0.24) * 800 / math.log(10))
    assert math.isnan(elo_interval(Pentanomial((0, 0, 0, 0, 0))).elo)
    assert elo_interval(Trinomial(10, 0, 0)).elo == math.inf


def test_normalized_simulation_keeps_the_error_rate():
    config = SprtConfig(0, 50, model="normalized")
    sim = simulate(0, config, 600, draw_rate=0.2, seed=2)
    assert sim.accepted_h1 / 600 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 600)


def test_cap_stops_runs_undecided():
    sim = simulate(25, WIDE, 200, pairs=True, cap=41, seed=1)
    assert sim.games.max() == 40 and sim.capped > 0


def test_simulate_command(capsys):
    code = sprt.main(["simulate", "--true-elo", "50", "--elo0", "0", "--elo1", "50", "--runs", "100", "--pairs"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert code == 0
    assert last.startswith("accept H1 in ") and " of 100 runs, mean games " in last
    assert sprt.main(["simulate", "--true-elo", "0", "--elo0", "0", "--elo1", "50", "--runs", "10",
                      "--draw-rate", "1.5"]) == 2
    assert "draw-rate" in capsys.readouterr().err


def test_the_variance_per_game_is_a_games_unpaired_and_twice_a_pairs_mean_paired():
    assert sprt.variance_per_game(sprt.Trinomial(wins=5, draws=0, losses=5)) == pytest.approx(0.25)
    assert sprt.variance_per_game(sprt.Pentanomial((0, 0, 7, 0, 0))) == 0          # every pair split: no noise
    assert sprt.variance_per_game(sprt.Pentanomial((3, 0, 0, 0, 3))) == pytest.approx(0.5)   # pairs as one game
    assert sprt.variance_per_game(sprt.Pentanomial((1, 0, 2, 0, 1))) == pytest.approx(0.25)  # independent games
    assert math.isnan(sprt.variance_per_game(sprt.Trinomial(0, 0, 0)))


def test_the_pair_variance_ratio_is_one_plus_the_correlation_within_a_pair():
    assert sprt.pair_variance_ratio([(1, 0), (0, 1)] * 5)[0] == 0          # the opening decides, the swap cancels it
    assert sprt.pair_variance_ratio([(1, 1), (0, 0)] * 5)[0] == pytest.approx(2)
    ratio, low, high = sprt.pair_variance_ratio([(1, 1), (1, 0), (0, 1), (0, 0)] * 10)
    assert ratio == pytest.approx(1) and low < 1 < high
    assert math.isnan(sprt.pair_variance_ratio([(1, 1)] * 4)[0])             # no variance to compare
