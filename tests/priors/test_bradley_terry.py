"""Coulom's generalized Bradley-Terry model and its MM fitting (`priors.bradley_terry`) on synthetic
competitions, and the one fitting shared by the `mm` and `dtree` priors."""

import numpy as np
import pytest

from engine.board import BLACK, Board
from priors.bradley_terry import fit_gammas, score
from priors.dtree import DTreeHyperparameters, DTreePrior
from priors.groups import group_offsets
from priors.mm import MMHyperparameters, MMPrior
from priors.training.competitions import CompetitionBuilder
from tests.positions import STONE_IN_ATARI
from tests.priors.positions import hand_positions


def synthetic(true_log_gammas, n_competitions, rng, sizes=(5, 40)):
    """Competitions drawn from the generalized Bradley-Terry model with known gammas."""
    counts = [len(t) for t in true_log_gammas]
    builder = CompetitionBuilder(counts)
    for _ in range(n_competitions):
        n = int(rng.integers(*sizes))
        levels = np.stack([rng.integers(0, c, n) for c in counts], axis=1)
        strength = sum(t[levels[:, g]] for g, t in enumerate(true_log_gammas))
        p = np.exp(strength - strength.max())
        builder.add(levels, int(rng.choice(n, p=p / p.sum())))
    return builder.build()


def test_mm_recovers_known_gammas():
    rng = np.random.default_rng(7)
    counts = (4, 6, 9, 3)
    truth = [np.concatenate([[0.0], rng.normal(0.0, 1.0, c - 1)]) for c in counts]
    comps = synthetic(truth, 4000, rng)
    history = []
    gammas = fit_gammas(comps, np.array(counts), n_iterations=200, tolerance=1e-7,
                           callback=lambda sweep, ll, g: history.append(ll))
    fitted = np.log(gammas)
    assert np.corrcoef(fitted, np.concatenate(truth))[0, 1] > 0.99
    assert np.max(np.abs(fitted - np.concatenate(truth))) < 0.3
    assert all(b >= a - 1e-12 for a, b in zip(history, history[1:]))    # MM never lowers the likelihood
    offsets = group_offsets(np.array(counts))
    assert np.all(gammas[offsets] == 1.0)                                # level 0 is fixed at 1


def test_unseen_level_stays_at_one_and_untrained_groups_are_left_alone():
    rng = np.random.default_rng(3)
    truth = [np.array([0.0, 1.5, 0.0]), np.array([0.0, -1.0])]
    comps = synthetic(truth, 500, rng)
    comps.levels[comps.levels[:, 0] == 2, 0] = 1        # level 2 of group 0 never occurs
    gammas = fit_gammas(comps, np.array([3, 2]), n_iterations=100, train_groups=[0])
    assert gammas[2] == pytest.approx(1.0, abs=1e-3)    # Coulom's prior pulls it to 1
    assert gammas[1] > 2.0 and gammas[4] == 1.0


def test_score_breaks_ties_against_the_expert():
    builder = CompetitionBuilder([3])
    builder.add(np.array([[1], [1], [2], [0]]), winner=0)      # a tie with the other level-1 move
    comps = builder.build()
    gammas = np.array([1.0, 2.0, 0.5])
    loglik, rank = score(comps, gammas, group_offsets(np.array([3])))
    assert rank.tolist() == [2]
    assert loglik[0] == pytest.approx(np.log(2.0 / 5.5))


def test_mm_and_a_dtree_without_trees_fit_the_same_gammas():
    """Both priors fit by the one MM of `priors.bradley_terry`: on the same positions and feature set
    their gammas are the same, and so are their distributions."""
    positions = hand_positions() * 3
    mm = MMPrior(MMHyperparameters(n_iterations=20)).fit(positions)
    dtree = DTreePrior(DTreeHyperparameters(n_trees=0, groups=("all",), n_iterations=20)).fit(positions)
    assert np.array_equal(mm.gammas_, dtree.gammas_) and mm.history_ == dtree.history_
    board = Board.from_ascii(STONE_IN_ATARI)
    assert np.array_equal(mm.evaluate(board, BLACK), dtree.evaluate(board, BLACK))
