"""The player builder: the caller's loader is asked only for a named prior, its errors name the key, and
a built player and search play as the parts they are made of."""
import numpy as np
import pytest

from engine.board import Board
from engine.builder import build_leaf_prior, build_player, build_search, load_move_prior
from engine.config import ConfigError, load_config
from engine.search import Search
from engine.tactics.leafpriors import HierGaussPrior


class FlatPrior:
    """A stand-in move prior: every point and pass alike."""

    def evaluate(self, board, color):
        n = board.size * board.size + 1
        return np.full(n, 1.0 / n, dtype=np.float32)


def test_no_prior_never_calls_the_loader():
    params = load_config(None, ["prior.name=none"])
    assert load_move_prior(params.prior, lambda name, model: pytest.fail("loader called")) is None
    assert build_player(params, lambda name, model: pytest.fail("loader called")).prior is None


def test_the_loader_gets_the_name_and_model_file():
    params = load_config(None, ["search.n_threads=1"])
    asked = []
    prior = FlatPrior()
    player = build_player(params, lambda name, model: asked.append((name, model)) or prior)
    assert asked == [(params.prior.name, params.prior.model)] and player.prior is prior


@pytest.mark.parametrize("error", [OSError("absent.npz: no such model file"), ValueError("damaged")])
def test_a_loader_error_names_prior_model(error):
    def fail(name, model):
        raise error
    with pytest.raises(ConfigError, match=f"^prior.model: {error}$"):
        load_move_prior(load_config(None, []).prior, fail)


def test_a_built_search_plays_as_a_search_of_the_same_parts():
    params = load_config(None, ["search.n_threads=1", "search.seed=3", "search.reuse_tree=false"])
    prior = FlatPrior()
    searches = [build_search(params, prior), Search(params.search, params.playout, prior)]
    moves = []
    for search in searches:
        search.set_root(Board(9))
        search.run(playouts=300)
        moves.append(search.best_move())
    assert moves[0] == moves[1]


def test_leaf_priors_by_name():
    assert build_leaf_prior("none") is None
    assert isinstance(build_leaf_prior("hier"), HierGaussPrior)
    with pytest.raises(ConfigError, match="^reading.prior: unknown prior 'oracle'"):
        build_leaf_prior("oracle")
