"""The registry, its discovery of the model subpackages, and the loading of a configured prior."""
from pathlib import Path

import numpy as np
import pytest

from engine.board import BLACK, Board
from priors.base import Prior, load_prior, register, registered, resolve_model_path
from priors.uniform import UniformPrior


def test_every_subpackage_registers_itself_under_its_name():
    known = registered()
    assert {"none", "mm", "fbt"} <= set(known)
    for name, cls in known.items():
        assert cls.name == name and issubclass(cls, Prior)
        assert cls.__module__.startswith("priors.") and cls.__module__.count(".") == 2


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="registered twice"):
        register("mm")(type("Other", (Prior,), {}))


def test_a_prior_takes_its_own_hyperparameters():
    mm, fbt = registered()["mm"], registered()["fbt"]
    assert mm().hyper == mm.Hyper()
    with pytest.raises(TypeError, match=mm.Hyper.__name__):
        mm(fbt.Hyper())


def test_load_prior_names_the_key():
    assert load_prior("none") is None
    with pytest.raises(ValueError, match="prior.name: unknown prior 'nonexistent'"):
        load_prior("nonexistent")
    with pytest.raises(ValueError, match="prior.model"):
        load_prior("mm")


def test_uniform_prior_is_uniform():
    p = UniformPrior().evaluate(Board(5), BLACK)
    assert np.allclose(p, 1 / 26)


def test_shipped_model_path_resolves_from_anywhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_model_path("priors/models/mm.npz").is_file()
    assert resolve_model_path("no/such/model.npz") == Path("no/such/model.npz")
    assert resolve_model_path("~/models/fbt.npz") == Path.home() / "models" / "fbt.npz"
