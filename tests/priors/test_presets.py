"""The engine presets in configs/ that name a prior load it, with its shipped model, and it predicts; the
shipped models are exactly those, and each says which data split chose its settings."""
from pathlib import Path

import pytest

from engine.board import BLACK, Board
from engine.config import load_config
from priors.base import load_prior, resolve_model_path
from priors.modelfile import read_model, settings_chosen_on

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"
PRESETS = ["mm.yaml", "fbt.yaml", "dtree.yaml"]


@pytest.mark.parametrize("name", PRESETS)
def test_a_prior_preset_loads_its_shipped_model(name):
    params = load_config(str(CONFIGS / name))
    prior = load_prior(params.prior.name, params.prior.model)
    assert prior.name == params.prior.name == name.removesuffix(".yaml")
    board = Board(19)
    board.play(board.point(15, 15), BLACK)          # Q16
    p = prior.evaluate(board, 3 - BLACK)
    assert p.shape == (19 * 19 + 1,) and p.sum() == pytest.approx(1.0, abs=1e-5)
    assert p[15 * 19 + 15] == 0                      # the occupied point
    corner_area = p.reshape(-1)[:-1].reshape(19, 19)[[2, 2, 3, 15, 16], [15, 16, 3, 3, 2]].sum()
    assert corner_area > 20 * p[9 * 19 + 9]          # expert priors favour the corners over tengen here


def test_the_shipped_models_are_the_ones_the_presets_load():
    models = {load_config(str(path)).prior.model for path in CONFIGS.glob("*.yaml")} - {""}
    assert {resolve_model_path(m).resolve() for m in models} == set((ROOT / "priors" / "models").glob("*.npz"))


@pytest.mark.parametrize("name, split", [("fbt", "validation"), ("mm", "validation"), ("dtree", "validation"),
                                         ("pbn", "defaults"), ("spt", "test")])
def test_each_shipped_model_says_which_split_chose_its_settings(name, split):
    header = read_model(resolve_model_path(load_config(str(CONFIGS / f"{name}.yaml")).prior.model))[1]
    chosen_on, note = settings_chosen_on(header)
    assert chosen_on == split and note
