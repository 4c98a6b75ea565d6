"""The product-of-experts prior: the product rule, weights that leave a component out, the maximum-
likelihood weights recovered from synthetic experts, self-contained model files, and the fit command."""
from __future__ import annotations

import numpy as np
import pytest

from engine.board import BLACK, WHITE
from priors.base import load_file, load_prior
from priors.mm import MMHyperparameters, MMPrior
from priors.modelfile import ModelError, read_model, save_model
from priors.product import ProductPrior
from priors.product import fit as product_fit
from priors.product.model import Case, fit_weights, loglik
from priors.uniform import UniformPrior
from tests.priors.test_contract import KO_AND_SUICIDE, position, random_positions
from tests.priors.tiny_archive import data_dir  # noqa: F401 (a fixture)


@pytest.fixture(scope="module")
def mm():
    return MMPrior(MMHyperparameters(n_iterations=10)).fit(random_positions())


@pytest.mark.parametrize("color", [BLACK, WHITE])
def test_one_component_at_weight_one_is_that_component(mm, color):
    board = position(KO_AND_SUICIDE)
    np.testing.assert_allclose(ProductPrior.of([mm], [1.0]).evaluate(board, color), mm.evaluate(board, color),
                               rtol=1e-5)
    np.testing.assert_allclose(ProductPrior.of([mm, UniformPrior()], [1.0, 3.0]).evaluate(board, color),
                               mm.evaluate(board, color), rtol=1e-5)      # a uniform factor changes nothing


def test_the_product_is_the_normalised_weighted_geometric_mean(mm):
    board = position(KO_AND_SUICIDE)
    flat = ProductPrior.of([mm], [0.0]).evaluate(board, BLACK)
    legal = np.append(board.legal_points(BLACK), True)
    assert np.allclose(flat[legal], 1 / legal.sum()) and np.all(flat[~legal] == 0)   # weight 0: uniform
    p = mm.evaluate(board, BLACK).astype(np.float64)
    expected = np.where(legal, p ** 2.5, 0)
    np.testing.assert_allclose(ProductPrior.of([mm], [2.5]).evaluate(board, BLACK), expected / expected.sum(),
                               rtol=1e-4)


def synthetic_cases(weights: np.ndarray, n: int, seed: int) -> list[Case]:
    """Experts that play by the product of two random components with the given weights."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n):
        logs = np.log(rng.dirichlet(np.ones(30), size=len(weights)))
        z = weights @ logs
        p = np.exp(z - z.max())
        cases.append(Case(logs, int(rng.choice(30, p=p / p.sum()))))
    return cases


def test_the_fitted_weights_are_the_experts_own():
    truth = np.array([1.5, 0.4])
    cases = synthetic_cases(truth, 3000, seed=1)
    fitted = fit_weights(cases)
    np.testing.assert_allclose(fitted, truth, atol=0.1)
    assert loglik(fitted, cases)[0] >= max(loglik(w, cases)[0] for w in (truth, np.ones(2), np.eye(2)[0]))
    value, grad = loglik(fitted, cases)
    assert np.allclose(grad, 0, atol=1e-3)


def test_a_useless_component_gets_no_weight():
    rng = np.random.default_rng(2)
    cases = synthetic_cases(np.array([1.0]), 2000, seed=3)
    noisy = [Case(np.vstack([c.logs, np.log(rng.dirichlet(np.ones(30)))]), c.expert) for c in cases]
    w = fit_weights(noisy)
    assert w[1] < 0.1 and abs(w[0] - 1) < 0.1


def test_the_model_file_holds_its_components_whole(mm, tmp_path):
    product = ProductPrior.of([mm, UniformPrior()], [0.8, 0.0])
    path = tmp_path / "product.npz"
    product.save(path)
    again, header = load_file(path)
    assert [c.name for c in again.components_] == ["mm", "none"] and header["components"][0]["digest"] == mm.digest()
    board = position(KO_AND_SUICIDE)
    np.testing.assert_array_equal(again.evaluate(board, WHITE), product.evaluate(board, WHITE))
    arrays, header = read_model(path)
    header["components"][0]["kind"] = "nonsense"
    bad = tmp_path / "bad.npz"
    save_model(bad, "product", arrays, {k: v for k, v in header.items() if k not in ("kind", "format_version")})
    with pytest.raises(ModelError, match="nonsense"):
        load_file(bad)


def test_the_fit_command_writes_a_product_of_the_given_files(data_dir, tmp_path, capsys):
    mm = MMPrior(MMHyperparameters(n_iterations=5)).fit(random_positions())
    mm.save(tmp_path / "mm.npz")
    UniformPrior().save(tmp_path / "none.npz")
    out = tmp_path / "mm-none.npz"
    args = [str(tmp_path / "mm.npz"), str(tmp_path / "none.npz"), "--out", str(out), "--data", str(data_dir),
            "--archives", "tiny.tar.xz", "--fractions", "0.4", "0.4", "0.2", "--size", "9", "--sample", "1",
            "--quiet"]
    assert product_fit.main(args) == 0
    printed = capsys.readouterr().out
    assert "validation positions" in printed and "product: log-likelihood" in printed
    prior = load_prior("product", str(out))
    fit = prior.info_["fit"]
    assert fit["split"] == "validation" and fit["positions"] > 100
    assert fit["loglik"] >= max(v["loglik"] for v in fit["alone"].values()) - 1e-9
    assert product_fit.main(args[:2] + ["--out", str(out), "--data", str(tmp_path / "absent")]) == 2
