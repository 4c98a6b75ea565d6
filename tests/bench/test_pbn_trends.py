"""bench.pbn_trends: a region's mirror view, the pooled prediction of its two views, and the geometric
pool of a corner's combined model (cortigo.md T5, T6), plus its record on a tiny archive."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench import pbn_trends
from bench.pbn_trends import corner_groups, dense_views, mirror, pooled, pooled_views, strip_masks, view_logs
from bench.records import read_run, read_summary
from engine.board import BLACK, WHITE, Board
from priors.base import load_prior
from priors.pbn.regions import relative, views
from priors.training import train
from tests.bench.test_records import assert_figures, assert_invocation
from tests.priors.test_pbn import expert_model, expert_samples  # noqa: F401 (expert_model is a fixture)
from tests.priors.tiny_archive import data_dir, write_config  # noqa: F401 (data_dir is a fixture)


@pytest.mark.parametrize("kind, shape", [("corner", (9, 9)), ("strip", (5, 19))])
def test_the_mirror_view_is_the_transpose_or_the_flip(kind, shape):
    perm = mirror(views(*shape, 19), 19)
    board = np.arange(shape[0] * shape[1]).reshape(shape)
    expected = board.T if kind == "corner" else board[:, ::-1]
    assert np.array_equal(perm.reshape(expected.shape), expected) and np.array_equal(perm[perm], board.ravel())


def test_the_pooled_prediction_is_the_same_for_a_sample_and_its_mirror(expert_model):
    points, _ = expert_samples(50, 13)
    stones = np.ones(50, dtype=np.int64)
    perm = mirror(expert_model.views, 19)
    p = pooled(expert_model, points, stones, expert_model.predict(points, stones))
    q = pooled(expert_model, points[:, perm], stones, expert_model.predict(points[:, perm], stones))
    np.testing.assert_allclose(q, p[:, perm], atol=1e-12)
    assert not np.allclose(expert_model.predict(points, stones), p)


def test_each_view_of_the_geometric_pool_is_a_whole_board_distribution():
    board = Board(19)
    for (r, c), color in {(3, 3): BLACK, (2, 5): WHITE, (15, 16): BLACK, (9, 9): BLACK}.items():
        board.play(board.point(r, c), color)
    prior = load_prior("pbn", str(Path(__file__).resolve().parents[2] / "priors" / "models" / "pbn.npz"))
    colors, legal = relative(board.stones().ravel(), WHITE), board.legal_points(WHITE).astype(np.float64)
    linear = {kind: dense_views(region, colors, legal) for kind, region in prior.regions_.items()}
    logs = {kind: view_logs(region, linear[kind], legal) for kind, region in prior.regions_.items()}
    for kind, region in prior.regions_.items():
        on, _ = region.view_distributions(colors, legal)
        for v in on:
            p = np.exp(logs[kind][v])
            assert p[legal > 0].sum() == pytest.approx(1.0, abs=1e-9)
            inside = region.views[v]
            np.testing.assert_allclose(p[inside] * legal[inside], 2 * linear[kind][v][inside], atol=1e-12)
    group = corner_groups(prior)[0]                      # the top-left corner: its 9x9 and two strips
    alone = pooled_views(logs, group, 0.0)
    np.testing.assert_allclose(alone, logs["corner"][group["corner"]].sum(axis=0))
    both = pooled_views(logs, group, 1.0)
    assert not np.allclose(both, alone)
    np.testing.assert_allclose(pooled_views(linear, group),
                               sum(linear[k][group[k]].sum(axis=0) for k in ("corner", "strip")))
    strips = strip_masks(prior, group["strip"], 361)     # the top edge and the left edge, two ends each
    assert [(int(mask.sum()), len(v)) for mask, v in strips] == [(95, 2), (95, 2)]
    union = strips[0][0] | strips[1][0]
    union[prior.regions_["corner"].views[group["corner"]].ravel()] = True
    assert union.sum() == 181 and strips[0][0][0] and strips[1][0][0]


def test_a_small_run_writes_its_rows_and_their_figures(tmp_path, data_dir):
    small = ["--set", "pbn.max_stones=4", "--set", "pbn.n_samples=40", "--set", "pbn.restarts=1",
             "--set", "pbn.max_iterations=5", "--set", "data.sample=1.0"]
    config = write_config(tmp_path, data_dir, model="pbn", cache_dir=tmp_path / "cache")
    assert train.main([str(config), "--output", str(tmp_path / "pbn.npz")] + small) == 0
    argv = [str(config), "--model", str(tmp_path / "pbn.npz"), "--stones", "2", "--sizes", "20", "--test-games", "5",
            "--out", str(tmp_path / "results"), "--name", "tiny"] + small
    assert pbn_trends.main(argv) == 0
    folder = tmp_path / "results" / "pbn-trends" / "tiny"
    run, summary = read_run(folder), read_summary(folder)
    assert run["bench"] == "pbn-trends" and run["config"]["stones"] == [2] and run["config"]["sizes"] == [20]
    assert_invocation(run["invocations"][0], "python -m bench.pbn_trends " + str(config))
    figures = {f["key"]: f for f in assert_figures(summary)}
    rows = summary["rows"]
    assert rows and len(figures) == 3 * len(rows)
    row = rows[0]
    name = f"{row['kind']}/s2" + (f"/N{row['train_samples']}" if "train_samples" in row else "")
    assert figures[f"{name}/top5"]["value"] == row["pbn"]["top_k"][4]
    assert [figures[f"{name}/top10"]["low"], figures[f"{name}/top10"]["high"]] == row["pbn"]["ci"]["10"]
    assert row["kind"] in (folder / "summary.txt").read_text()
