"""Factorization Bradley-Terry: gradients, incremental strengths, sampling, SGD and the `fbt` prior's own
files (tests/priors/test_contract.py holds what every prior must do)."""
import dataclasses

import numpy as np
import pytest

from engine.board import BLACK, WHITE, Board
from engine.params import PlayoutParams, SearchParams
from engine.search import Search
from priors import features
from priors import bradley_terry
from priors.fbt import _kernels
from priors.fbt import model as fbt
from priors.base import load_prior
from priors.fbt.model import FBTHyperparameters, FBTPrior
from priors.groups import group_offsets
from priors.modelfile import ModelError, save_model
from priors.patterns import PatternSet
from priors.training.competitions import CompetitionBuilder
from tests.boards import play_moves
from tests.positions import STONE_IN_ATARI
from tests.priors.positions import hand_positions, opening_board

COUNTS = np.array([4, 5, 3, 6])          # a small feature set: levels per group, level 0 included
OFFSETS = group_offsets(COUNTS)


def fbt_prior(**hyper) -> FBTPrior:
    return FBTPrior(FBTHyperparameters(**hyper))


def random_competitions(rng, counts=COUNTS, n_competitions=6, sizes=(3, 9)):
    """Competitions of random teams with a random winner (duplicates merged into multiplicities)."""
    builder = CompetitionBuilder(counts)
    for _ in range(n_competitions):
        n = int(rng.integers(*sizes))
        levels = np.stack([rng.integers(0, c, n) for c in counts], axis=1)
        builder.add(levels, int(rng.integers(n)))
    return builder.build()


def random_parameters(rng, k, counts=COUNTS, scale=0.5):
    """w, v with level 0 of every group at zero, as the model keeps them."""
    n = int(counts.sum())
    w, v = rng.normal(0.0, scale, n), rng.normal(0.0, scale, (n, k))
    offsets = group_offsets(counts)
    w[offsets] = 0.0
    v[offsets] = 0.0
    return w, v


def active(team, offsets=OFFSETS):
    return [int(offsets[g] + level) for g, level in enumerate(team) if level > 0]


def naive_energies(comps, w, v, offsets=OFFSETS):
    """Eq. (1) as written: sum of w plus the O(|G|^2 k) sum over unordered pairs."""
    out = []
    for team in comps.levels:
        f = active(team, offsets)
        pairs = sum(v[f[i]] @ v[f[j]] for i in range(len(f)) for j in range(i + 1, len(f)))
        out.append(w[f].sum() + pairs)
    return np.array(out)


def naive_loss(comps, w, v, loss="softmax", bias=0.0):
    """Summed l_j of Eq. (4), or the logistic loss of LFR, from the naive strengths."""
    energy = naive_energies(comps, w, v)
    total = 0.0
    for j in range(len(comps)):
        a, b, win = comps.starts[j], comps.starts[j + 1], comps.winners[j]
        e, m = energy[a:b], comps.mult[a:b]
        if loss == "softmax":
            total += -energy[win] + np.log(np.sum(m * np.exp(e)))
        else:
            positive = (np.arange(a, b) == win).astype(float)
            total += np.sum(positive * np.logaddexp(0, -(bias + e)) + (m - positive) * np.logaddexp(0, bias + e))
    return total


def coefficients(comps, w, v, loss, bias):
    """dl/dE_t of every team (naive): P_t - [winner] or mult_t sigma(b + E_t) - [winner]."""
    energy = naive_energies(comps, w, v)
    c = np.zeros(len(energy))
    for j in range(len(comps)):
        a, b, win = comps.starts[j], comps.starts[j + 1], comps.winners[j]
        m = comps.mult[a:b]
        if loss == "softmax":
            p = m * np.exp(energy[a:b])
            c[a:b] = p / p.sum()
        else:
            c[a:b] = m / (1.0 + np.exp(-(bias + energy[a:b])))
        c[win] -= 1.0
    return c


# --- T1: gradient -----------------------------------------------------------------------------------

@pytest.mark.parametrize("loss", ["softmax", "binary"])
def test_full_gradient_matches_finite_differences(loss):
    rng = np.random.default_rng(11)
    comps = random_competitions(rng)
    k, bias = 3, -0.7
    w, v = random_parameters(rng, k)
    total, gw, gv, gb = fbt.gradient(comps, w, v, OFFSETS, loss=loss, bias=bias)
    assert total == pytest.approx(naive_loss(comps, w, v, loss, bias), rel=1e-12)
    h = 1e-5
    fw, fv = np.zeros_like(w), np.zeros_like(v)
    for f in range(len(w)):
        d = np.zeros_like(w)
        d[f] = h
        fw[f] = (naive_loss(comps, w + d, v, loss, bias) - naive_loss(comps, w - d, v, loss, bias)) / (2 * h)
        for q in range(k):
            d = np.zeros_like(v)
            d[f, q] = h
            fv[f, q] = (naive_loss(comps, w, v + d, loss, bias) - naive_loss(comps, w, v - d, loss, bias)) / (2 * h)
    assert np.linalg.norm(gw - fw) < 1e-6 * np.linalg.norm(fw)
    assert np.linalg.norm(gv - fv) < 1e-6 * np.linalg.norm(fv)
    assert np.all(gw[OFFSETS] == 0) and np.all(gv[OFFSETS] == 0)        # level 0 has no parameters
    if loss == "binary":
        fb = (naive_loss(comps, w, v, loss, bias + h) - naive_loss(comps, w, v, loss, bias - h)) / (2 * h)
        assert gb == pytest.approx(fb, rel=1e-6)

    # The paper's h_G(v_sq) = 1/2 sum_{t != s} v_tq (Erratum B) gives exactly half the true v-gradient.
    c = coefficients(comps, w, v, loss, bias)
    paper = np.zeros_like(v)
    for team, ct in zip(comps.levels, c):
        f = active(team)
        for s in f:
            paper[s] += ct * 0.5 * sum((v[t] for t in f if t != s), np.zeros(k))
    assert np.linalg.norm(paper - 0.5 * fv) < 1e-6 * np.linalg.norm(fv)
    assert np.linalg.norm(paper - fv) > 0.4 * np.linalg.norm(fv)


# --- T2: incremental strengths (Eqs. 10-12, corrected) ----------------------------------------------

def test_incremental_updates_equal_fresh_strengths():
    rng = np.random.default_rng(5)
    k = 4
    levels = np.stack([rng.integers(0, c, 300) for c in COUNTS], axis=1).astype(np.int32)
    w, v = random_parameters(rng, k)
    counts, groups = COUNTS.astype(np.int64), np.arange(len(COUNTS), dtype=np.int64)
    energy, sums = np.empty(len(levels)), np.empty(len(levels) * k)
    assert _kernels.team_sums(levels, OFFSETS, counts, groups, w, v.reshape(-1), k, energy, sums) == 0
    features_with_parameters = [f for f in range(len(w)) if f not in OFFSETS]
    vf = v.reshape(-1)
    for _ in range(10_000):
        f = int(rng.choice(features_with_parameters))
        q = int(rng.integers(-1, k))
        assert _kernels.update_parameter(levels, OFFSETS, counts, groups, w, vf, k, energy, sums, f, q,
                                     float(rng.normal(0.0, 0.5))) == 0
    fresh_energy, fresh_sums = np.empty_like(energy), np.empty_like(sums)
    _kernels.team_sums(levels, OFFSETS, counts, groups, w, vf, k, fresh_energy, fresh_sums)
    assert np.max(np.abs(energy - fresh_energy)) < 1e-9
    assert np.max(np.abs(sums - fresh_sums)) < 1e-9
    # a level-0 "feature" has no parameter to update
    assert _kernels.update_parameter(levels, OFFSETS, counts, groups, w, vf, k, energy, sums, int(OFFSETS[1]), 0,
                                     1.0) != 0


# --- T3: the sampled gradient is unbiased (Lemma 1) ------------------------------------------------

def test_sampled_gradient_mean_equals_full_gradient():
    rng = np.random.default_rng(2)
    comps = random_competitions(rng, n_competitions=1, sizes=(8, 9))
    w, v = random_parameters(rng, 2, scale=0.8)
    total, gw, gv, _ = fbt.gradient(comps, w, v, OFFSETS)
    full = np.concatenate([gw, gv.reshape(-1)])
    draws = []
    for seed in range(20_000):
        t, sw, sv, _ = fbt.gradient(comps, w, v, OFFSETS, n_samples=3, seed=seed)
        assert t == total                    # the loss does not depend on the draws
        draws.append(np.concatenate([sw, sv.reshape(-1)]))
    draws = np.array(draws)
    mean, se = draws.mean(axis=0), draws.std(axis=0, ddof=1) / np.sqrt(len(draws))
    varying = se > 1e-12                     # some coordinates are the same for every draw
    assert varying.sum() >= 10
    assert np.all(np.abs(mean - full)[varying] < 3 * se[varying])
    assert np.allclose(mean[~varying], full[~varying], atol=1e-12)
    assert not np.allclose(draws[0], full)   # one draw is not the full gradient


# --- T4: model sanity -------------------------------------------------------------------------------

def test_fm_identity_equals_naive_pair_sum():
    rng = np.random.default_rng(3)
    comps = random_competitions(rng, n_competitions=10)
    w, v = random_parameters(rng, 5)
    np.testing.assert_allclose(fbt.team_energies(comps, w, v, OFFSETS), naive_energies(comps, w, v),
                               rtol=1e-12, atol=1e-12)
    comps.levels = comps.levels.astype(np.int32)        # both level types are read
    np.testing.assert_allclose(fbt.team_energies(comps, w, v, OFFSETS), naive_energies(comps, w, v),
                               rtol=1e-12, atol=1e-12)


def test_k0_is_mm_likelihood_and_rank():
    rng = np.random.default_rng(4)
    comps = random_competitions(rng, n_competitions=40, sizes=(2, 30))
    w, _ = random_parameters(rng, 0, scale=1.0)
    loglik, rank = fbt.score(comps, w, np.zeros((len(w), 0)), OFFSETS)
    mm_loglik, mm_rank = bradley_terry.score(comps, np.exp(w), OFFSETS)
    np.testing.assert_allclose(loglik, mm_loglik, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(rank, mm_rank)
    assert np.any(comps.mult[comps.winners] > 1)        # ties within the winner team were counted


def test_score_breaks_ties_against_the_expert():
    builder = CompetitionBuilder([3])
    builder.add(np.array([[1], [1], [2], [0]]), winner=0)      # a tie with the other level-1 move
    comps = builder.build()
    w, v = np.array([0.0, np.log(2.0), np.log(0.5)]), np.zeros((3, 2))
    loglik, rank = fbt.score(comps, w, v, np.array([0]))
    assert rank.tolist() == [2]
    assert loglik[0] == pytest.approx(np.log(2.0 / 5.5))


def test_bad_levels_and_shapes_are_errors():
    rng = np.random.default_rng(0)
    comps = random_competitions(rng)
    w, v = random_parameters(rng, 2)
    with pytest.raises(ValueError, match="outside its feature group"):
        fbt.score(comps, w[:-2], v[:-2], OFFSETS)
    with pytest.raises(ValueError, match="shape"):
        fbt.team_energies(comps, w, v[:-1], OFFSETS)
    with pytest.raises(ValueError, match="one entry per feature group"):
        fbt.score(comps, w, v, OFFSETS[:2])
    comps.levels = comps.levels.astype(np.int64)
    with pytest.raises(ValueError, match="uint16 or int32"):
        fbt.score(comps, w, v, OFFSETS)


# --- SGD on synthetic competitions over the real feature set ----------------------------------------

REAL_COUNTS = features.level_counts(0)
USED_LEVELS = np.minimum(REAL_COUNTS, 5)     # synthetic teams use the first few levels of each group


def synthetic(truth_w, n_competitions, rng, sizes=(5, 30)):
    """Competitions over the real feature groups, won according to the k = 0 model with strengths w."""
    offsets = group_offsets(REAL_COUNTS)
    builder = CompetitionBuilder(REAL_COUNTS)
    for _ in range(n_competitions):
        n = int(rng.integers(*sizes))
        levels = np.stack([rng.integers(0, c, n) for c in USED_LEVELS], axis=1)
        energy = truth_w[offsets + levels].sum(axis=1)
        p = np.exp(energy - energy.max())
        builder.add(levels, int(rng.choice(n, p=p / p.sum())))
    return builder.build()


def true_strengths(rng):
    offsets = group_offsets(REAL_COUNTS)
    w = np.zeros(int(REAL_COUNTS.sum()))
    for g, c in enumerate(USED_LEVELS):
        w[offsets[g] + 1:offsets[g] + c] = rng.normal(0.0, 1.0, c - 1)
    used = np.concatenate([offsets[g] + np.arange(1, c) for g, c in enumerate(USED_LEVELS)])
    return w, used


@pytest.fixture(scope="module")
def synthetic_set():
    rng = np.random.default_rng(21)
    w, used = true_strengths(rng)
    return w, used, synthetic(w, 3000, rng), synthetic(w, 60, rng)


def test_sgd_recovers_the_ordering_of_known_strengths(synthetic_set):
    truth, used, comps, _ = synthetic_set
    prior = fbt_prior(k=0, learning_rate=0.02, max_epochs=8).fit_competitions(comps)
    assert np.corrcoef(prior.w_[used], truth[used])[0, 1] > 0.97
    losses = [p["train_loss"] for p in prior.history_]
    assert losses[-1] < losses[0] and len(losses) == 8
    assert np.all(prior.w_[prior._offsets] == 0)
    binary = fbt_prior(k=2, loss="binary", learning_rate=0.005, max_epochs=5, seed=3).fit_competitions(comps)
    assert np.corrcoef(binary.w_[used], truth[used])[0, 1] > 0.9
    assert binary.bias_ < -1.0                          # most candidates are negatives


def test_sampled_training_learns_too(synthetic_set):
    truth, used, comps, _ = synthetic_set
    prior = fbt_prior(k=3, gradient="sampled", n_samples=5, learning_rate=0.02, max_epochs=5)
    prior.fit_competitions(comps)
    assert np.corrcoef(prior.w_[used], truth[used])[0, 1] > 0.9
    assert prior.history_[-1]["train_loss"] < prior.history_[0]["train_loss"]


def test_training_is_repeatable_and_untrained_groups_stay_inactive(synthetic_set):
    _, _, small, _ = synthetic_set
    a = fbt_prior(k=2, max_epochs=2, seed=9, groups=["border", "dist_last"]).fit_competitions(small)
    b = fbt_prior(k=2, max_epochs=2, seed=9, groups=["border", "dist_last"]).fit_competitions(small)
    np.testing.assert_array_equal(a.w_, b.w_)
    np.testing.assert_array_equal(a.v_, b.v_)
    wide = dataclasses.replace(small, levels=small.levels.astype(np.int32))    # int32 levels train alike
    c = fbt_prior(k=2, max_epochs=2, seed=9, groups=["border", "dist_last"]).fit_competitions(wide)
    np.testing.assert_array_equal(a.w_, c.w_)
    np.testing.assert_array_equal(a.v_, c.v_)
    trained = np.zeros(len(a.w_), dtype=bool)
    for name in ("border", "dist_last"):
        g = features.GROUPS.index(name)
        trained[a._offsets[g] + 1:a._offsets[g] + REAL_COUNTS[g]] = True
    assert np.all(a.w_[~trained] == 0) and np.all(a.v_[~trained] == 0)
    assert np.any(a.w_[trained] != 0)


def test_early_stopping_keeps_the_best_epoch(synthetic_set):
    _, _, comps, validation = synthetic_set
    points = []
    prior = fbt_prior(k=2, learning_rate=0.05, max_epochs=30, patience=3, seed=4)
    prior.fit_competitions(comps, validation=validation, callback=points.append)
    assert points == prior.history_
    top1 = [p["val_top1"] for p in points]
    best = int(np.argmax(top1)) + 1                    # the first epoch reaching the best accuracy
    assert len(points) < 30 and len(points) == best + 3
    assert prior.info_["best_epoch"] == best
    loglik, rank = fbt.score(validation, prior.w_, prior.v_, prior._offsets)
    assert np.mean(rank == 1) == top1[best - 1]
    # The kept parameters are rounded to float32 (the model file's precision).
    assert np.mean(loglik) == pytest.approx(points[best - 1]["val_loglik"], rel=1e-6)
    assert np.array_equal(prior.w_, prior.w_.astype(np.float32))
    assert set(points[0]) >= {"epoch", "train_loss", "val_top1", "val_loglik", "seconds"}


def test_without_validation_all_epochs_run():
    rng = np.random.default_rng(1)
    w, _ = true_strengths(rng)
    prior = fbt_prior(k=1, max_epochs=4).fit_competitions(synthetic(w, 50, rng))
    assert [p["epoch"] for p in prior.history_] == [1, 2, 3, 4]
    assert all(p["val_top1"] is None for p in prior.history_)


def test_the_step_size_decays_by_epoch_and_is_what_the_kernel_gets(monkeypatch):
    prior = fbt_prior(learning_rate=0.01, lr_decay=0.5)
    assert [prior.step_size(e) for e in (1, 2, 3)] == pytest.approx([0.01, 0.01 / 1.5, 0.005])
    seen = []
    kernel = _kernels.sgd_epoch

    def spy(*args):
        seen.append(args[15])                     # the step size argument
        return kernel(*args)

    monkeypatch.setattr(_kernels, "sgd_epoch", spy)
    rng = np.random.default_rng(1)
    w, _ = true_strengths(rng)
    fbt_prior(k=1, max_epochs=3, learning_rate=0.01, lr_decay=0.5).fit_competitions(synthetic(w, 20, rng))
    assert seen == pytest.approx([0.01, 0.01 / 1.5, 0.005])


@pytest.mark.parametrize("key, value", [
    ("k", -1), ("k", 2.5), ("loss", "hinge"), ("gradient", "approximate"), ("n_samples", 0),
    ("learning_rate", 0.0), ("learning_rate", float("nan")), ("lambda_w", -1.0), ("lambda_v", "x"),
    ("init_std", -0.1), ("lr_decay", -0.5), ("max_epochs", 0), ("patience", 0), ("seed", -1),
    ("groups", ["telepathy"])])
def test_bad_hyperparameters_name_the_key(key, value):
    with pytest.raises(ValueError, match=f"^fbt.{key}: must be"):
        FBTHyperparameters(**{key: value})


def test_sampling_with_the_binary_loss_is_rejected():
    with pytest.raises(ValueError, match="^fbt.gradient:"):
        FBTHyperparameters(loss="binary", gradient="sampled")


def test_competitions_of_another_feature_set_are_rejected():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="feature groups"):
        fbt_prior().fit_competitions(random_competitions(rng))
    comps = synthetic(true_strengths(rng)[0], 5, rng)
    comps.levels[0, features.GROUPS.index("pattern")] = 3      # no pattern set was given
    with pytest.raises(ValueError, match="out of range in groups \\['pattern'\\]"):
        fbt_prior().fit_competitions(comps)


# --- the prior on real positions --------------------------------------------------------------------

@pytest.fixture(scope="module")
def fitted():
    board = Board.from_ascii(STONE_IN_ATARI)
    keys = features.pattern_keys_at(board, board.point(4, 3), BLACK)
    patterns = PatternSet(keys[:3], np.arange(2, 5), counts=[9, 7, 5])
    prior = fbt_prior(k=3, learning_rate=0.05, max_epochs=15, seed=2)
    return prior.fit(hand_positions() * 3, patterns=patterns, validation=hand_positions())


@pytest.mark.parametrize("color", [BLACK, WHITE])
def test_evaluate_is_the_softmax_of_the_energies(fitted, color):
    board = Board.from_ascii(STONE_IN_ATARI)
    p = fitted.evaluate(board, color)
    legal = board.legal_points(color)
    index, energy = fitted.strengths(board, color)
    assert index[-1] == 49 and len(index) == legal.sum() + 1
    expected = np.exp(energy - energy.max())
    np.testing.assert_allclose(p[index], expected / expected.sum(), rtol=1e-5)


def softmax_of_strengths(prior, board, color):
    """evaluate's probabilities the long way: the Python extractor, the energy kernel, the softmax."""
    index, energy = prior.strengths(board, color)
    p = np.zeros(board.size * board.size + 1, dtype=np.float32)
    _kernels.scatter_softmax(index, energy, p)
    return p


@pytest.mark.parametrize("color", [BLACK, WHITE])
def test_evaluate_and_the_kernel_give_the_long_way_bit_for_bit(fitted, color):
    boards = [Board.from_ascii(STONE_IN_ATARI), opening_board(), Board(9)]
    kernel = fitted.move_kernel(2)
    for board in boards:
        expected = softmax_of_strengths(fitted, board, color)
        assert fitted.evaluate(board, color).tobytes() == expected.tobytes()
        assert kernel.probabilities(board, color).tobytes() == expected.tobytes()


def test_evaluate_follows_new_parameters(fitted):
    prior = FBTPrior(fitted.hyper)
    prior._set_parameters(fitted.level_counts_, (fitted.w_, fitted.v_, fitted.bias_))
    prior.patterns_ = fitted.patterns_
    board = Board.from_ascii(STONE_IN_ATARI)
    before = prior.evaluate(board, BLACK)
    prior.w_ = 2 * fitted.w_
    after = prior.evaluate(board, BLACK)
    assert not np.array_equal(before, after)
    assert after.tobytes() == softmax_of_strengths(prior, board, BLACK).tobytes()


def test_a_pattern_set_larger_than_the_model_is_an_error_in_evaluate_and_in_the_search(fitted):
    board = Board.from_ascii(STONE_IN_ATARI)
    keys = features.pattern_keys_at(board, board.point(4, 3), BLACK)
    prior = FBTPrior(fitted.hyper)
    prior._set_parameters(fitted.level_counts_, (fitted.w_, fitted.v_, fitted.bias_))
    prior.patterns_ = PatternSet(keys[:6], np.arange(2, 8), counts=[9, 8, 7, 6, 5, 4])   # levels up to 6 of 4
    with pytest.raises(ValueError, match="outside its feature group"):
        prior.evaluate(board, BLACK)
    search = Search(SearchParams(seed=1, n_threads=2), PlayoutParams(), prior)
    search.set_root(board)
    with pytest.raises(ValueError, match="outside its feature group"):
        search.run(playouts=50)


class EvaluateOnly:
    """A prior without its kernel: the search calls its evaluate under the GIL."""

    def __init__(self, prior):
        self.prior = prior

    def evaluate(self, board: Board, color: int) -> np.ndarray:
        return self.prior.evaluate(board, color)


@pytest.fixture(scope="module")
def shipped():
    return load_prior("fbt", "priors/models/fbt.npz")


def test_a_prior_kernel_searches_exactly_as_its_evaluate(shipped):
    board = Board(9)
    play_moves(board, "C3 G7 C7")
    trees = []
    for prior in (shipped, EvaluateOnly(shipped)):
        s = Search(SearchParams(seed=3, n_threads=1), PlayoutParams(), prior)
        s.set_root(board)
        s.run(playouts=400)
        trees.append((s.n_nodes(), repr(s.root_children())))
    assert trees[0] == trees[1]


def test_threads_evaluate_a_prior_kernel_side_by_side(shipped):
    board = Board(9)
    play_moves(board, "C3 G7")
    one = Search(SearchParams(seed=3, n_threads=1), PlayoutParams(), shipped)
    two = Search(SearchParams(seed=3, n_threads=2), PlayoutParams(), shipped)
    for s in (one, two):
        s.set_root(board)
        assert s.run(playouts=800) == 800
    priors = [{c["move"]: c["prior"] for c in s.root_children()} for s in (one, two)]
    assert priors[0] == priors[1]
    assert sum(c["visits"] for c in two.root_children()) >= 799
    assert two.n_nodes() > 10 * len(priors[1])      # many nodes expanded by both threads


def test_fit_learns_the_expert_moves(fitted):
    board = Board.from_ascii(STONE_IN_ATARI)
    assert int(np.argmax(fitted.evaluate(board, BLACK))) == 4 * 7 + 3      # the capture always played
    assert fitted.history_[-1]["train_loss"] < fitted.history_[0]["train_loss"]
    assert fitted.info_["n_competitions"] == 12 and len(fitted.patterns_) == 3


def test_the_file_keeps_hyperparameters_patterns_and_history(fitted, tmp_path):
    path = tmp_path / "fbt.npz"
    fitted.save(path)
    again = FBTPrior.load(path)
    assert again.digest() == fitted.digest() and again.history_ == fitted.history_
    assert again.hyper == fitted.hyper
    assert again.patterns_.counts.tolist() == [9, 7, 5] and again.info_["best_epoch"] == fitted.info_["best_epoch"]


def broken(fitted, path, arrays=None, **metadata):
    save_model(path, "fbt", {**fitted.arrays(), **(arrays or {})}, {**fitted.header(), **metadata})
    return path


def test_inconsistent_files_are_rejected(fitted, tmp_path):
    path = tmp_path / "fbt.npz"
    cases = [
        ({"v": fitted.v_[:, :-1]}, {}, "shapes"),
        ({"w": fitted.w_[:-1]}, {}, "shapes"),
        ({"bias": np.zeros(2)}, {}, "shapes"),
        ({"w": np.where(np.arange(len(fitted.w_)) == 5, np.inf, fitted.w_)}, {}, "finite"),
        ({"w": fitted.w_ + 1.0}, {}, "level 0"),
        ({}, {"zobrist_seed": 1}, "another feature set"),
        ({}, {"hyperparameters": {**fitted.header()["hyperparameters"], "k": -3}}, "hyperparameters"),
        ({}, {"model_version": 99}, "version"),
    ]
    for arrays, metadata, message in cases:
        with pytest.raises(ModelError, match=message):
            FBTPrior.load(broken(fitted, path, arrays, **metadata))


# --- model files of the 12-group feature set -------------------------------------------------------

LEGACY = len(features.LEGACY_GROUPS)


def energies(prior, levels, groups):
    out = np.empty(len(levels))
    fbt._check(_kernels.team_energies(levels, prior._offsets, prior._counts, groups, prior.w_,
                                  prior.v_.reshape(-1), prior.hyper.k, out))
    return out


def test_a_12_group_model_files_scores_do_not_depend_on_the_new_groups(tmp_path):
    board = Board.from_ascii(STONE_IN_ATARI)
    keys = features.pattern_keys_at(board, board.point(4, 3), BLACK)
    patterns = PatternSet(keys[:3], np.arange(2, 5), counts=[9, 7, 5])
    legacy = fbt_prior(k=3, learning_rate=0.05, max_epochs=4, seed=2, groups=features.LEGACY_GROUPS)
    legacy.fit(hand_positions() * 3, patterns=patterns, validation=hand_positions())
    prior = FBTPrior.load(save_legacy(legacy, tmp_path / "old.npz"))
    assert set(prior.hyper.groups) <= set(features.LEGACY_GROUPS)
    assert np.array_equal(prior.level_counts_, features.level_counts(len(prior.patterns_)))
    first_new = prior._offsets[LEGACY]
    assert not prior.w_[first_new:].any() and not prior.v_[first_new:].any()
    board = opening_board()
    every = np.arange(len(features.GROUPS), dtype=np.int64)
    rng = np.random.default_rng(5)
    for color in (BLACK, WHITE):
        index, levels = features.extract_features(board, color, prior.patterns_)
        assert levels[:, LEGACY:].any()                 # the new groups are on here
        _, energy = prior.strengths(board, color)
        other = levels.copy()
        other[:, LEGACY:] = rng.integers(0, prior.level_counts_[LEGACY:], (len(levels), len(every) - LEGACY))
        for lv, groups in ((other, prior._groups), (levels, every), (other, every)):
            np.testing.assert_array_equal(energies(prior, lv, groups), energy)


@pytest.fixture(scope="module")
def legacy_fitted():
    """A small model trained on the 12 groups only (the later ones stay at zero)."""
    prior = fbt_prior(k=3, learning_rate=0.05, max_epochs=4, seed=2, groups=features.LEGACY_GROUPS)
    return prior.fit(hand_positions() * 3, validation=hand_positions())


def save_legacy(prior, path, **metadata):
    """`prior` written as a model file of the 12-group feature set."""
    n = int(prior.level_counts_[:LEGACY].sum())
    arrays = {**prior.arrays(), "w": prior.arrays()["w"][:n], "v": prior.arrays()["v"][:n],
              "level_counts": prior.level_counts_[:LEGACY]}
    save_model(path, "fbt", arrays, {**prior.header(), "feature_groups": list(features.LEGACY_GROUPS),
                                     **metadata})
    return path


def test_a_legacy_model_file_loads_with_the_new_groups_inactive(legacy_fitted, tmp_path):
    again = FBTPrior.load(save_legacy(legacy_fitted, tmp_path / "old.npz"))
    assert again.hyper.groups == features.LEGACY_GROUPS
    assert np.array_equal(again.level_counts_, features.level_counts(0))
    np.testing.assert_array_equal(again.w_, legacy_fitted.w_)
    for board in (Board.from_ascii(STONE_IN_ATARI), opening_board()):
        for color in (BLACK, WHITE):
            np.testing.assert_array_equal(again.evaluate(board, color), legacy_fitted.evaluate(board, color))
    again.save(tmp_path / "new.npz")                    # saved again: the full group list, same scores
    resaved = FBTPrior.load(tmp_path / "new.npz")
    assert resaved.metadata()["feature_groups"] == list(features.GROUPS)
    np.testing.assert_array_equal(resaved.evaluate(opening_board(), BLACK),
                                  legacy_fitted.evaluate(opening_board(), BLACK))


def test_a_file_of_another_feature_set_is_still_rejected(legacy_fitted, tmp_path):
    path = tmp_path / "bad.npz"
    shuffled = list(reversed(features.LEGACY_GROUPS))
    with pytest.raises(ModelError, match="another feature set"):
        FBTPrior.load(save_legacy(legacy_fitted, path, feature_groups=shuffled))
    hyper = {**legacy_fitted.header()["hyperparameters"], "groups": list(features.GROUPS)}
    with pytest.raises(ModelError, match="groups"):
        FBTPrior.load(save_legacy(legacy_fitted, path, hyperparameters=hyper))
