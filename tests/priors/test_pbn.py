"""The pbn prior (cortigo.md Sec. 5, T1-T4): the pyramid's structure, EM that never loses likelihood,
region samples in their 8 orientations and under a colour swap, and the whole-board output. Learned
behaviour is checked on a synthetic 'expert' whose move is a fixed function of the region's stones."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.board import BLACK, WHITE, Board
from engine.config import load_config
from priors.base import load_prior
from priors.pbn.em import distinct_rows, fit_latent_class, fit_network
from priors.pbn.model import PBNHyperparameters, PBNPrior, RegionModel, stack_networks
from priors.pbn.network import Pyramid, windows
from priors.pbn.regions import inverse_views, region_samples, region_shape, relative, views
from priors.training import train
from priors.training.dataset import Position, transform
from tests.priors.tiny_archive import data_dir, write_config  # noqa: F401 (data_dir is a fixture)

# --- T1: structure -----------------------------------------------------------------------------


@pytest.mark.parametrize("shape, sizes, fields3", [((9, 9), (81, 16, 4, 1), [9, 6, 6, 4]),
                                                   ((5, 19), (95, 18, 4, 1), [6, 6, 6, 6])])
def test_the_pyramids_of_the_paper(shape, sizes, fields3):
    pyramid = Pyramid(*shape)
    assert pyramid.level_sizes() == sizes
    assert (pyramid.n_colors, pyramid.k2, pyramid.k3) == (3, 12, 7)
    assert list((pyramid.l3 >= 0).sum(axis=1)) == fields3
    assert np.all((pyramid.l2 >= 0).sum(axis=1) == 9)
    covered = np.unique(pyramid.l2[pyramid.l2 >= 0])
    assert np.array_equal(covered, np.arange(pyramid.n_points))            # every point has a parent


def test_neighbouring_fields_share_one_row_or_column():
    assert windows(9) == [(0, 3), (2, 5), (4, 7), (6, 9)]
    assert windows(4) == [(0, 3), (2, 4)]
    pyramid = Pyramid(9, 9)
    cells = [set(row[row >= 0]) for row in pyramid.l2]
    assert len(cells[0] & cells[1]) == 3 and len(cells[0] & cells[4]) == 3   # right, below: 3 points
    assert len(cells[0] & cells[5]) == 1 and not cells[0] & cells[2]        # diagonal: 1; two apart: 0


def test_a_point_lies_under_one_two_or_four_fields():
    parents = np.bincount(Pyramid(9, 9).l2.ravel(), minlength=81)
    assert (np.sum(parents == 1), np.sum(parents == 2), np.sum(parents == 4)) == (36, 36, 9)


# --- T2: EM ------------------------------------------------------------------------------------

def clustered_rows(n: int, seed: int) -> np.ndarray:
    """Rows of 9 three-valued children from two clusters, one mostly empty, one mostly own stones."""
    rng = np.random.default_rng(seed)
    centre = rng.integers(0, 2, n)
    noise = rng.random((n, 9)) < 0.2
    return np.where(noise, rng.integers(0, 3, (n, 9)), centre[:, None])


def test_em_never_loses_penalised_likelihood_and_repeats_with_a_seed():
    rows, counts, _ = distinct_rows(clustered_rows(400, 1), 3)
    fits = [fit_latent_class(rows, counts, 12, 3, np.random.default_rng(5), tolerance=1e-12, max_iterations=60)
            for _ in range(2)]
    history = np.array(fits[0].history)
    assert len(history) > 10
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
    np.testing.assert_array_equal(fits[0].cpt, fits[1].cpt)
    np.testing.assert_allclose(fits[0].cpt.sum(axis=1), 1.0)               # theta_c(. | k) sums to 1
    assert fits[0].prior.sum() == pytest.approx(1.0)


def test_distinct_rows_round_trip():
    data = clustered_rows(50, 2)
    rows, counts, inverse = distinct_rows(data, 3)
    np.testing.assert_array_equal(rows[inverse], data)
    assert counts.sum() == 50 and len(rows) == len(np.unique(data, axis=0))


# --- T3: samples and orientation -----------------------------------------------------------------

def test_views_are_the_eight_symmetries_and_invert_exactly():
    view = views(9, 9, 19)
    inverse = inverse_views(view, 19)
    for v in range(8):
        assert np.array_equal(inverse[v, view[v]], np.arange(81))
        r, c = transform(2, 7, 19, v)
        assert view[v, 2 * 9 + 7] == r * 19 + c
    assert np.all(inverse[:, 361] == -1)                                   # pass is in no region


def test_a_move_falls_in_at_most_one_corner_and_the_centre_cross_in_none():
    corners = {frozenset(row) for row in views(9, 9, 19)}
    assert len(corners) == 4                                               # two orientations each
    hits = sum(np.isin(np.arange(361), list(c)).astype(int) for c in corners)
    assert hits.max() == 1
    cross = [9 * 19 + c for c in range(19)] + [r * 19 + 9 for r in range(19)]
    assert np.all(hits[cross] == 0) and hits.sum() == 361 - 37


def test_small_boards_cut_the_regions_to_half_the_board():
    assert region_shape("corner", 19) == (9, 9) and region_shape("strip", 19) == (5, 19)
    assert region_shape("corner", 7) == (3, 3) and region_shape("strip", 7) == (3, 7)


def board_of(stones: dict[tuple[int, int], int]) -> np.ndarray:
    out = np.zeros(361, dtype=np.int8)
    for (r, c), color in stones.items():
        out[r * 19 + c] = color
    return out


def test_a_sample_is_kept_iff_the_move_is_in_the_region_with_its_stone_count():
    board = board_of({(3, 3): BLACK, (2, 5): WHITE, (15, 15): BLACK})
    view = views(9, 9, 19)
    for move, n_kept in ((2 * 19 + 2, 2), (9 * 19 + 9, 0), (16 * 19 + 3, 2), (361, 0)):
        got = region_samples(board[None], np.array([WHITE]), np.array([move]), view, 20)
        assert len(got.moves) == n_kept
    got = region_samples(board[None], np.array([WHITE]), np.array([2 * 19 + 2]), view, 20)
    assert list(got.stones) == [2, 2]                                      # the top-left corner: 2 stones
    assert {tuple(np.flatnonzero(p)) for p in got.points} == {(2 * 9 + 5, 3 * 9 + 3), (3 * 9 + 3, 5 * 9 + 2)}
    assert np.all(got.points.max(axis=1) == 2) and set(got.points[0][got.points[0] > 0]) == {1, 2}
    assert list(got.seen[[0, 1, 2]]) == [4, 2, 2]                          # views with 0, 1, 2 stones
    assert len(region_samples(board[None], np.array([WHITE]), np.array([2 * 19 + 2]), view, 1).moves) == 0


def test_a_colour_swap_gives_the_same_samples():
    board = board_of({(3, 3): BLACK, (2, 5): WHITE, (4, 4): BLACK})
    swapped = np.where(board == 0, 0, 3 - board)
    view, move = views(5, 19, 19), np.array([3 * 19 + 2])
    a = region_samples(board[None], np.array([BLACK]), move, view, 20)
    b = region_samples(swapped[None], np.array([WHITE]), move, view, 20)
    np.testing.assert_array_equal(a.points, b.points)
    np.testing.assert_array_equal(a.moves, b.moves)
    assert relative(np.array([0, BLACK, WHITE]), WHITE).tolist() == [0, 2, 1]


# --- T4: output ----------------------------------------------------------------------------------

# A synthetic expert on a 9x9 corner: one own stone on one of six points, and a fixed answer to each.
STONES = np.array([2 * 9 + 2, 2 * 9 + 6, 6 * 9 + 2, 6 * 9 + 6, 4 * 9 + 4, 2 * 9 + 4])
ANSWERS = np.array([4 * 9 + 2, 2 * 9 + 8, 6 * 9 + 4, 4 * 9 + 6, 4 * 9 + 2, 0 * 9 + 4])


def expert_samples(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(points, moves) of the synthetic expert, its answer replaced by a random point one time in ten."""
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(STONES), n)
    points = np.zeros((n, 81), dtype=np.uint8)
    points[np.arange(n), STONES[pick]] = 1
    return points, np.where(rng.random(n) < 0.1, rng.integers(0, 81, n), ANSWERS[pick])


@pytest.fixture(scope="module")
def expert_model() -> RegionModel:
    pyramid = Pyramid(9, 9)
    points, moves = expert_samples(1500, 3)
    net = fit_network(pyramid, points, moves, np.random.default_rng(4), restarts=2, max_iterations=60)
    params = stack_networks(pyramid, [None, net])
    return RegionModel("corner", pyramid, 19, params, [0, 1500], [10, 1500], [1, 1500])


def test_the_pyramid_learns_from_the_board(expert_model):
    points, moves = expert_samples(300, 9)
    p = expert_model.predict(points, np.ones(300, dtype=np.int64))
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-5)
    rank = (p >= p[np.arange(300), moves][:, None]).sum(axis=1)
    blind = expert_model.params["move_prior"][1]
    blind_rank = (blind[None] >= blind[moves][:, None]).sum(axis=1)
    assert np.mean(rank == 1) > 0.8 and np.mean(blind_rank == 1) < 0.4


def test_lambda_and_sampled_inference_agree_on_the_top_five(expert_model):
    points, _ = expert_samples(200, 11)
    stones = np.ones(200, dtype=np.int64)
    exact = np.argsort(-expert_model.predict(points, stones), axis=1)[:, :5]
    sampled = np.argsort(-expert_model.sample_moves(points, stones, 64, np.random.default_rng(0)), axis=1)[:, :5]
    both = np.mean([a[0] in b and b[0] in a for a, b in zip(exact, sampled)])
    overlap = np.mean([len(set(a) & set(b)) for a, b in zip(exact, sampled)])
    assert both >= 0.9 and overlap >= 4.0


def test_the_whole_board_prior_is_normalised_with_zero_on_occupied_points():
    text = "\n".join(["." * 19] * 19)
    board = Board.from_ascii(text)
    for (r, c), color in {(3, 3): BLACK, (2, 5): WHITE, (15, 16): BLACK, (16, 3): WHITE}.items():
        board.play(board.point(r, c), color)
    positions = [Position(board.copy(), WHITE, board.point(r, c), 5, "hand") for r, c in ((2, 2), (16, 15), (3, 16))]
    prior = PBNPrior(PBNHyperparameters(max_stones=3, n_samples=50, restarts=1, max_iterations=5)).fit(positions)
    p = prior.evaluate(board, WHITE)
    assert p.shape == (362,) and p.sum() == pytest.approx(1.0, abs=1e-5)
    occupied = board.stones().ravel() != 0
    assert np.all(p[:-1][occupied] == 0) and np.all(p[:-1][~occupied] > 0) and p[-1] > 0
    assert p[2 * 19 + 2] > 100 * p[9 * 19 + 9]                             # a corner move, learned, against the centre
    assert prior.evaluate(Board(9), BLACK).sum() == pytest.approx(1.0, abs=1e-5)   # another size: eps alone


def test_the_board_kernel_adds_up_the_views_as_the_reference_does():
    board = Board(19)
    for (r, c), color in {(3, 3): BLACK, (2, 5): WHITE, (15, 16): BLACK, (16, 3): WHITE, (9, 9): BLACK}.items():
        board.play(board.point(r, c), color)
    prior = load_prior("pbn", str(Path(__file__).resolve().parents[2] / "priors" / "models" / "pbn.npz"))
    colors, legal = relative(board.stones().ravel(), WHITE), board.legal_points(WHITE).astype(np.float64)
    for region in prior.regions_.values():
        on, p = region.view_distributions(colors, legal)
        want = np.bincount(region.views[on].ravel(), weights=p.ravel(), minlength=361)
        assert len(on) == 8 and want.sum() > 0
        np.testing.assert_allclose(region.board_scores(colors, legal), want, rtol=1e-9, atol=1e-15)


def test_the_kernel_passes_the_messages_of_the_spec():
    """On a 3x3 region (one node per hidden level) P(m | x) ∝ P(m) sum_y psi(y|m) sum_z phi(z|y) prod_i theta_i(x_i|z)."""
    pyramid = Pyramid(3, 3)
    rng = np.random.default_rng(2)
    params = {k: rng.random(v.shape) + 0.1 for k, v in stack_networks(pyramid, [None, None]).items()}
    params["cpt2"] /= params["cpt2"].sum(axis=3, keepdims=True)
    params["cpt3"] /= params["cpt3"].sum(axis=3, keepdims=True)
    params["psi"] /= params["psi"].sum(axis=2, keepdims=True)
    params["move_prior"] /= params["move_prior"].sum(axis=1, keepdims=True)
    model = RegionModel("corner", pyramid, 7, params, [5, 5], [5, 5], [1, 1])
    x = rng.integers(0, 3, (4, 9)).astype(np.uint8)
    stones = np.array([0, 1, 0, 1])
    got = model.predict(x, stones)
    for a in range(4):
        p = model.params
        s = stones[a]
        lam2 = np.prod(p["cpt2"][s, 0, np.arange(9), x[a]], axis=0)                  # (K2,)
        lam3 = lam2 @ p["cpt3"][s, 0, 0]                                             # (K3,)
        want = p["move_prior"][s] * (lam3 @ p["psi"][s, 0])
        np.testing.assert_allclose(got[a], want / want.sum(), rtol=1e-5)


def test_the_preset_plays_with_the_shipped_model():
    params = load_config(str(Path(__file__).resolve().parents[2] / "configs" / "pbn.yaml"))
    prior = load_prior(params.prior.name, params.prior.model)
    board = Board(19)
    board.play(board.point(15, 15), BLACK)                                 # Q16
    p = prior.evaluate(board, WHITE)
    assert p[15 * 19 + 15] == 0 and p.sum() == pytest.approx(1.0, abs=1e-5)
    corner_area = p[:-1].reshape(19, 19)[[2, 2, 3, 15, 16], [15, 16, 3, 3, 2]].sum()
    assert corner_area > 20 * p[9 * 19 + 9]                                # the centre is in no region


# --- training ----------------------------------------------------------------------------------


def test_training_on_two_workers_fits_the_same_models_and_a_rerun_reads_them_back(tmp_path, data_dir, capsys):
    small = ["--set", "pbn.max_stones=4", "--set", "pbn.n_samples=40", "--set", "pbn.restarts=1",
             "--set", "pbn.max_iterations=5", "--set", "data.sample=1.0"]
    arrays = []
    for workers in (1, 2):
        (tmp_path / f"w{workers}").mkdir()
        config = write_config(tmp_path / f"w{workers}", data_dir, model="pbn",
                              cache_dir=tmp_path / f"w{workers}" / "cache", n_workers=workers)
        out = tmp_path / f"w{workers}" / "pbn.npz"
        assert train.main([str(config), "--output", str(out)] + small) == 0
        arrays.append(PBNPrior.load(out).arrays())
        assert "resumed': 0" in capsys.readouterr().out
    assert arrays[0].keys() == arrays[1].keys()
    for key in arrays[0]:
        np.testing.assert_array_equal(arrays[0][key], arrays[1][key], err_msg=key)
    assert train.main([str(config), "--output", str(tmp_path / "again.npz")] + small) == 0
    assert "'models': 10, 'resumed': 10" in capsys.readouterr().out
