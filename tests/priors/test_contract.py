"""The contract every registered prior keeps (as scikit-learn's check_estimator runs over every
estimator): a distribution over the legal moves and pass, the same answer on a rotated or reflected
position, an exact save/load round trip, and clear errors for damaged files and files of another kind.
Each prior is fitted through its `fit(positions, patterns)` hook on seeded random play on a 7x7 board."""
from __future__ import annotations

import random

import numpy as np
import pytest

from engine.board import BLACK, PASS, WHITE, Board
from priors.base import hyperparameter_record, load_file, registered
from priors.modelfile import ModelError, read_model, save_model
from priors.patterns import harvest
from priors.training.dataset import Position, transform

SIZE = 7
NAMES = sorted(registered())

# White's stone on (3, 1) has just been taken by Black's (3, 2): White may not retake at once (ko), and
# (6, 6), between Black's (5, 6) and (6, 5), would be suicide for White.
KO_AND_SUICIDE = [(2, 1), (2, 2), (4, 1), (4, 2), (3, 0), (3, 3), (5, 6), (3, 1), (6, 5), (0, 6), (3, 2)]
KO, SUICIDE = (3, 1), (6, 6)


def position(moves: list[tuple[int, int]], symmetry: int = 0) -> Board:
    """The board after `moves` (Black first, alternating), seen under one of the 8 symmetries."""
    board = Board(SIZE)
    color = BLACK
    for row, col in moves:
        board.play(board.point(*transform(row, col, SIZE, symmetry)), color)
        color = WHITE if color == BLACK else BLACK
    return board


def random_positions(n_games: int = 4, n_moves: int = 30, seed: int = 7) -> list[Position]:
    """Seeded random legal play: every move is the 'expert' move of the position before it."""
    rng = random.Random(seed)
    out = []
    for game in range(n_games):
        board, color = Board(SIZE), BLACK
        for number in range(1, n_moves + 1):
            legal = np.flatnonzero(board.legal_points(color))
            move = board.point(*divmod(int(rng.choice(legal)), SIZE)) if len(legal) else PASS
            out.append(Position(board.copy(), color, move, number, f"random/{game}"))
            board.play(move, color)
            color = WHITE if color == BLACK else BLACK
    return out


@pytest.fixture(scope="module")
def training():
    positions = random_positions()
    return positions, harvest(positions, min_count=2)


@pytest.fixture(scope="module")
def fitted(training):
    cache = {}

    def get(name):
        if name not in cache:
            cls = registered()[name]
            cache[name] = cls(cls.Hyper()).fit(*training)
        return cache[name]
    return get


def test_the_setup_has_a_ko_and_a_suicide_point():
    board = position(KO_AND_SUICIDE)
    legal = board.legal_points(WHITE)
    assert not legal[KO[0] * SIZE + KO[1]] and not legal[SUICIDE[0] * SIZE + SUICIDE[1]]
    assert board.legal_points(BLACK)[SUICIDE[0] * SIZE + SUICIDE[1]]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("color", [BLACK, WHITE])
def test_a_distribution_over_the_legal_moves(name, color, fitted):
    board = position(KO_AND_SUICIDE)
    p = fitted(name).evaluate(board, color)
    assert p.dtype == np.float32 and p.shape == (SIZE * SIZE + 1,)
    assert p.sum() == pytest.approx(1.0, abs=1e-5)
    legal = board.legal_points(color)
    assert np.all(p[:-1][~legal] == 0)            # occupied, ko and suicide points
    assert np.all(p[:-1][legal] > 0) and p[-1] > 0


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("symmetry", range(1, 8))
def test_a_rotated_or_reflected_position_permutes_the_distribution(name, symmetry, fitted):
    prior = fitted(name)
    for color in (BLACK, WHITE):
        p = prior.evaluate(position(KO_AND_SUICIDE), color)
        q = prior.evaluate(position(KO_AND_SUICIDE, symmetry), color)
        moved = [r * SIZE + c for r, c in (transform(i // SIZE, i % SIZE, SIZE, symmetry)
                                           for i in range(SIZE * SIZE))]
        np.testing.assert_allclose(q[moved], p[:-1], rtol=1e-5, atol=1e-8)
        assert q[-1] == pytest.approx(p[-1], rel=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_save_and_load_give_the_same_predictions(name, fitted, tmp_path):
    prior = fitted(name)
    path = tmp_path / "model.npz"
    prior.save(path)
    for again in (type(prior).load(path), load_file(path)[0]):
        assert type(again) is type(prior) and again.hyper == prior.hyper
        for color in (BLACK, WHITE):
            board = position(KO_AND_SUICIDE)
            np.testing.assert_array_equal(again.evaluate(board, color), prior.evaluate(board, color))


@pytest.mark.parametrize("name", NAMES)
def test_the_header_is_written_once_for_every_kind(name, fitted, tmp_path):
    """Version, hyperparameters under one key, digest and the split that chose the settings, whatever
    the model; a file that names its hyperparameters `hyper` (dtree and pbn files before) reads alike."""
    prior = fitted(name)
    path = tmp_path / "model.npz"
    prior.save(path)
    arrays, header = read_model(path)
    assert header["kind"] == name and header["model_version"] == type(prior).MODEL_VERSION
    assert header["hyperparameters"] == hyperparameter_record(prior.hyper) and header["digest"] == prior.digest()
    assert (header["settings_chosen_on"], header["settings_note"]) == ("unknown", "")
    again = type(prior).load(path)
    assert again.header() == prior.header() == {k: v for k, v in header.items() if k not in ("kind", "format_version")}
    header["hyper"] = header.pop("hyperparameters")
    save_model(path, name, arrays, {k: v for k, v in header.items() if k not in ("kind", "format_version")})
    assert type(prior).load(path).hyper == prior.hyper


@pytest.mark.parametrize("name", NAMES)
def test_a_damaged_file_is_an_error_naming_it(name, fitted, tmp_path):
    path = tmp_path / "model.npz"
    fitted(name).save(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match=f"{path}.*damaged"):
        registered()[name].load(path)
    with pytest.raises(ModelError, match=str(path)):
        load_file(path)


@pytest.mark.parametrize("name", NAMES)
def test_a_file_of_another_kind_is_an_error_naming_it(name, tmp_path):
    path = tmp_path / "model.npz"
    save_model(path, "oracle", {"w": np.ones(3)}, {})
    with pytest.raises(ModelError, match=f"{path}: holds a 'oracle' model, expected '{name}'"):
        registered()[name].load(path)
    with pytest.raises(ModelError, match="no registered prior reads"):
        load_file(path)
