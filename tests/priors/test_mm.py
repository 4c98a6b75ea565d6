"""The competition store and the `mm` prior's own files (tests/priors/test_bradley_terry.py holds the
MM fitting on synthetic competitions, tests/priors/test_contract.py what every prior must do)."""

import numpy as np
import pytest

from engine.board import BLACK, WHITE, Board
from priors import features
from priors import _bradley_terry as _kernels
from priors.bradley_terry import fit_gammas
from priors.mm.model import MMHyperparameters, MMPrior
from priors.modelfile import ModelError, save_model
from priors.patterns import PatternSet
from priors.training.competitions import CompetitionBuilder, build_competitions, concatenate
from tests.positions import STONE_IN_ATARI
from tests.priors.positions import hand_positions, opening_board
from tests.priors.test_bradley_terry import synthetic


def test_builder_merges_identical_teams():
    builder = CompetitionBuilder([3, 4])
    builder.add(np.array([[1, 2], [0, 0], [1, 2], [0, 0], [2, 3]]), winner=2, move_number=7)
    builder.add(np.array([[0, 1], [0, 1]]), winner=1)
    comps = builder.build()
    assert comps.starts.tolist() == [0, 3, 4]
    teams = comps.levels[:3].tolist()
    assert sorted(zip(map(tuple, teams), comps.mult[:3].tolist())) == [((0, 0), 2), ((1, 2), 2), ((2, 3), 1)]
    assert tuple(comps.levels[comps.winners[0]]) == (1, 2) and comps.winners[1] == 3
    assert comps.move_numbers.tolist() == [7, 0]
    both = concatenate([comps, comps])
    assert both.winners.tolist() == comps.winners.tolist() + (comps.winners + 4).tolist()
    with pytest.raises(ValueError, match="out of range"):
        builder.add(np.array([[3, 0]]), winner=0)


def test_bad_inputs_are_clear_errors():
    comps = synthetic([np.zeros(3)], 5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="groups"):
        fit_gammas(comps, np.array([3, 2]))
    with pytest.raises(ValueError, match="out of range"):
        fit_gammas(comps, np.array([2]))
    with pytest.raises(ValueError, match="mm.groups: must be names from"):
        MMHyperparameters(groups=("capture", "telepathy"))
    with pytest.raises(ValueError, match="mm.n_iterations: must be an integer >= 1, got 0"):
        MMHyperparameters(n_iterations=0)


@pytest.fixture(scope="module")
def fitted():
    board = Board.from_ascii(STONE_IN_ATARI)
    keys = features.pattern_keys_at(board, board.point(4, 3), BLACK)
    patterns = PatternSet(keys[:3], np.arange(2, 5), counts=[9, 7, 5])
    return MMPrior(MMHyperparameters(n_iterations=20)).fit(hand_positions() * 3, patterns=patterns)


def test_fit_learns_the_expert_moves(fitted):
    board = Board.from_ascii(STONE_IN_ATARI)
    p = fitted.evaluate(board, BLACK)
    assert int(np.argmax(p)) == 4 * 7 + 3              # the capture that was always played
    assert fitted.history_ and fitted.history_[-1] > fitted.history_[0]
    assert fitted.gamma_table()["capture"][0] == 1.0


def test_the_file_keeps_patterns_and_history(fitted, tmp_path):
    path = tmp_path / "mm.npz"
    fitted.save(path)
    again = MMPrior.load(path)
    assert len(again.patterns_) == 3 and again.patterns_.counts.tolist() == [9, 7, 5]
    assert again.digest() == fitted.digest() and again.history_ == fitted.history_


def test_inconsistent_files_are_rejected(fitted, tmp_path):
    path = tmp_path / "mm.npz"
    arrays = fitted.arrays()
    arrays["gammas"] = arrays["gammas"][:-1]
    save_model(path, "mm", arrays, fitted.header())
    with pytest.raises(ModelError, match="shapes"):
        MMPrior.load(path)
    save_model(path, "mm", fitted.arrays(), {**fitted.header(), "zobrist_seed": 1})
    with pytest.raises(ModelError, match="another feature set"):
        MMPrior.load(path)
    arrays = fitted.arrays()
    arrays["gammas"] = -arrays["gammas"]
    save_model(path, "mm", arrays, fitted.header())
    with pytest.raises(ModelError, match="positive"):
        MMPrior.load(path)


def test_competitions_from_positions_skip_nothing_legal():
    comps = build_competitions(hand_positions())
    assert len(comps) == 4
    assert comps.levels.shape[1] == len(features.GROUPS)
    passes = comps.levels[comps.winners, features.GROUPS.index("pass")]
    assert passes.tolist() == [0, 0, 0, 1]


# --- model files of the 12-group feature set -------------------------------------------------------

LEGACY = len(features.LEGACY_GROUPS)


def old_header(fitted: MMPrior) -> dict:
    """`fitted`'s header as files written before the hyperparameters had one key spell it (the shipped
    mm.npz among them)."""
    header = {k: v for k, v in fitted.header().items() if k != "hyperparameters"}
    return {**header, "n_iterations": fitted.hyper.n_iterations, "tolerance": fitted.hyper.tolerance,
            "trained_groups": list(fitted.hyper.groups)}


def test_a_file_with_the_hyperparameters_at_the_top_of_its_header_loads_alike(fitted, tmp_path):
    save_model(tmp_path / "old.npz", "mm", fitted.arrays(), old_header(fitted))
    again = MMPrior.load(tmp_path / "old.npz")
    assert again.hyper == fitted.hyper and again.header() == fitted.header()
    np.testing.assert_array_equal(again.evaluate(opening_board(), BLACK), fitted.evaluate(opening_board(), BLACK))


def save_legacy(fitted: MMPrior, path):
    """`fitted` written as a model file of the 12-group feature set."""
    n = int(fitted.level_counts_[:LEGACY].sum())
    arrays = {**fitted.arrays(), "gammas": fitted.gammas_[:n], "level_counts": fitted.level_counts_[:LEGACY]}
    save_model(path, "mm", arrays, {**fitted.header(), "groups": list(features.LEGACY_GROUPS)})
    return path


def test_a_12_group_model_files_scores_do_not_depend_on_the_new_groups(tmp_path):
    fitted = MMPrior(MMHyperparameters(n_iterations=5, groups=features.LEGACY_GROUPS)).fit(hand_positions() * 3)
    prior = MMPrior.load(save_legacy(fitted, tmp_path / "old.npz"))
    assert set(prior.hyper.groups) <= set(features.LEGACY_GROUPS)
    assert np.all(prior.gammas_[prior._offsets[LEGACY]:] == 1.0)
    board = opening_board()
    rng = np.random.default_rng(5)
    for color in (BLACK, WHITE):
        index, levels = features.extract_features(board, color, prior.patterns_)
        assert levels[:, LEGACY:].any()                 # the new groups are on here
        _, gamma = prior.strengths(board, color)
        other = levels.copy()
        other[:, LEGACY:] = rng.integers(0, prior.level_counts_[LEGACY:], (len(levels), levels.shape[1] - LEGACY))
        out = np.empty(len(levels))
        _kernels.team_strengths(other, prior._offsets, prior.gammas_, out)
        np.testing.assert_array_equal(out, gamma)


def test_a_legacy_model_file_loads_with_the_new_groups_inactive(tmp_path):
    fitted = MMPrior(MMHyperparameters(n_iterations=5, groups=features.LEGACY_GROUPS)).fit(hand_positions() * 3)
    n = int(fitted.level_counts_[:LEGACY].sum())
    arrays = {**fitted.arrays(), "gammas": fitted.gammas_[:n], "level_counts": fitted.level_counts_[:LEGACY]}
    save_model(tmp_path / "old.npz", "mm", arrays, {**fitted.header(), "groups": list(features.LEGACY_GROUPS)})
    again = MMPrior.load(tmp_path / "old.npz")
    assert again.hyper.groups == features.LEGACY_GROUPS
    np.testing.assert_array_equal(again.gammas_, fitted.gammas_)
    for color in (BLACK, WHITE):
        np.testing.assert_array_equal(again.evaluate(opening_board(), color), fitted.evaluate(opening_board(), color))
    meta = {**old_header(fitted), "groups": list(features.LEGACY_GROUPS), "trained_groups": list(features.GROUPS)}
    save_model(tmp_path / "bad.npz", "mm", arrays, meta)
    with pytest.raises(ModelError, match="trained_groups"):
        MMPrior.load(tmp_path / "bad.npz")
    save_model(tmp_path / "bad.npz", "mm", arrays, {**meta, "groups": list(features.GROUPS[1:LEGACY + 1])})
    with pytest.raises(ModelError, match="another feature set"):
        MMPrior.load(tmp_path / "bad.npz")
