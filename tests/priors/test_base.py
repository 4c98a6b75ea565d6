"""The prior contract, run over every registered prior, and the model file format."""
from pathlib import Path

import numpy as np
import pytest

from engine.board import BLACK, WHITE, Board
from priors.base import PRIORS, ModelError, UniformPrior, load_model, make_prior, save_model

POSITION = """
. X O . .
X X O . .
. X O O .
X X O . O
. X O O .
"""


def fitted(name):
    """A registered prior ready to evaluate (fitted on nothing for the trivial ones)."""
    return PRIORS[name]()


@pytest.mark.parametrize("name", sorted(PRIORS))
@pytest.mark.parametrize("color", [BLACK, WHITE])
def test_distribution_over_legal_moves(name, color):
    board = Board.from_ascii(POSITION)
    p = fitted(name).evaluate(board, color)
    assert p.dtype == np.float32 and p.shape == (26,)
    assert p.sum() == pytest.approx(1.0, abs=1e-5)
    legal = board.legal_points(color)
    assert np.all(p[:-1][~legal] == 0)
    assert np.all(p[:-1][legal] > 0) and p[-1] > 0


@pytest.mark.parametrize("name", sorted(PRIORS))
def test_save_load_round_trip(name, tmp_path):
    board = Board.from_ascii(POSITION)
    prior = fitted(name)
    path = tmp_path / "model.npz"
    prior.save(path)
    again = type(prior).load(path)
    np.testing.assert_array_equal(prior.evaluate(board, BLACK), again.evaluate(board, BLACK))


def test_damaged_file_is_rejected(tmp_path):
    path = tmp_path / "model.npz"
    save_model(path, "none", {"w": np.arange(100.0)}, {})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="damaged"):
        load_model(path, "none")
    path.write_bytes(b"not a model at all")
    with pytest.raises(ModelError, match="damaged"):
        load_model(path, "none")


def test_wrong_kind_and_missing_file_are_rejected(tmp_path):
    path = tmp_path / "model.npz"
    save_model(path, "mm", {"w": np.ones(3)}, {"note": "x"})
    with pytest.raises(ModelError, match="holds a 'mm' model"):
        load_model(path, "fbt")
    arrays, meta = load_model(path, "mm")
    assert meta["note"] == "x" and arrays["w"].tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ModelError, match="no such model file"):
        load_model(tmp_path / "absent.npz", "mm")


def test_pickled_arrays_are_never_loaded(tmp_path):
    path = tmp_path / "model.npz"
    np.savez(path, metadata=np.array('{"kind": "none", "format_version": 1}'),
             evil=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ModelError, match="damaged"):
        load_model(path, "none")


def test_make_prior_names_the_key():
    assert make_prior("none") is None
    with pytest.raises(ValueError, match="prior.name"):
        make_prior("nonexistent")


def test_uniform_prior_is_uniform():
    board = Board(5)
    p = UniformPrior().evaluate(board, BLACK)
    assert np.allclose(p, 1 / 26)


def test_shipped_model_path_resolves_from_anywhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from priors.base import resolve_model_path
    assert resolve_model_path("priors/models/mm.npz").is_file()
    assert resolve_model_path("no/such/model.npz") == Path("no/such/model.npz")
