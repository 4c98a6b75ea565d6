"""bench.predict: its statistics on hand-made scores (pessimistic ranks, the bootstrap over games, the
paired comparison of two models on the same positions) and its record on a tiny archive."""
from __future__ import annotations

import numpy as np
import pytest

from bench import predict
from bench.predict import Scores, against_first, bootstrap_mean
from bench.records import read_run, read_summary
from priors.training import train
from tests.bench.test_records import assert_figures, assert_invocation
from tests.priors.tiny_archive import data_dir, write_config  # noqa: F401 (data_dir is a fixture)


def scores(table: list[tuple[list[float], int, int]]) -> Scores:
    """Scores of positions given as (probabilities, expert column, game)."""
    sc = Scores()
    for p, expert, game in table:
        sc.add(np.asarray(p), expert, 0.0, 1, game)
    return sc


def test_a_tie_with_the_expert_move_counts_against_the_model():
    sc = scores([([0.4, 0.4, 0.2], 1, 0), ([0.5, 0.3, 0.2], 0, 0), ([0.5, 0.3, 0.2], 2, 0)])
    assert sc.rank == [2, 1, 3]
    assert sc.loglik == pytest.approx([np.log(0.4), np.log(0.5), np.log(0.2)])


def test_random_and_optimistic_tie_rules_place_the_expert_move_among_its_ties():
    # expert tied with one other at the top; alone second; tied with two others below the top two
    sc = scores([([0.3, 0.3, 0.2, 0.2], 0, 0), ([0.5, 0.3, 0.1, 0.1], 1, 0), ([0.4, 0.3, 0.1, 0.1, 0.1], 3, 1)])
    s = sc.summary(np.random.default_rng(0))
    assert s["top_k"][:5] == pytest.approx([0, 2 / 3, 2 / 3, 2 / 3, 1])
    assert s["top_k_random_ties"][:5] == pytest.approx([0.5 / 3, 2 / 3, (2 + 1 / 3) / 3, (2 + 2 / 3) / 3, 1])
    assert s["top_k_optimistic"][:5] == pytest.approx([1 / 3, 2 / 3, 1, 1, 1])
    assert (s["tied_positions"], s["mean_tied"]) == (2, 2.5)


def test_the_bootstrap_resamples_whole_games():
    rng = np.random.default_rng(0)
    # every game alike: any resample of games has the same mean
    values, games = np.array([1, 0, 1, 0, 1, 0]), np.array([0, 0, 1, 1, 2, 2])
    assert bootstrap_mean(values, games, rng) == pytest.approx([0.5, 0.5])
    # games all hits or all misses: the interval spans most of [0, 1]
    values = np.array([1, 1, 0, 0] * 10)
    games = np.repeat(np.arange(20), 2)
    lo, hi = bootstrap_mean(values, games, rng)
    assert lo < 0.35 and hi > 0.65 and lo <= 0.5 <= hi


def test_the_comparison_counts_positions_only_one_model_predicts():
    expert = [(0, g) for g in range(10) for _ in range(3)]
    first = scores([([0.6, 0.4], e, g) for e, g in expert])                          # always right
    half = scores([([0.6, 0.4] if g % 2 else [0.3, 0.7], e, g) for e, g in expert])   # odd games only
    d = against_first(first, half, np.random.default_rng(1))
    assert (d["only_this_top1"], d["only_first_top1"]) == (0, 15)
    assert d["top1"] == pytest.approx(-0.5)
    assert d["top1_ci95"][0] < -0.5 < d["top1_ci95"][1] < 0
    assert d["loglik"] == pytest.approx((np.log(0.3) - np.log(0.6)) / 2)
    same = against_first(first, first, np.random.default_rng(1))
    assert (same["top1"], same["top1_ci95"], same["loglik"]) == (0.0, [0.0, 0.0], 0.0)


def test_a_zero_probability_expert_move_is_left_out_of_the_loglik_difference_only():
    first = scores([([0.5, 0.5], 0, 0), ([0.9, 0.1], 0, 1)])
    other = scores([([1.0, 0.0], 1, 0), ([0.8, 0.2], 0, 1)])
    d = against_first(first, other, np.random.default_rng(0))
    assert d["top1"] == 0.0 and d["only_first_top1"] == 0     # position 0 a miss for both: the tie, the zero
    assert d["loglik"] == pytest.approx(np.log(0.8) - np.log(0.9))


def test_a_trained_model_and_the_uniform_baseline_make_one_record(tmp_path, data_dir, capsys):
    assert train.main([str(write_config(tmp_path, data_dir)), "--set", "mm.n_iterations=3"]) == 0
    out = tmp_path / "results"
    argv = [str(tmp_path / "mm.npz"), "none", "--data", str(data_dir), "--archives", "tiny.tar.xz",
            "--fractions", "0.6", "0.2", "0.2", "--size", "9", "--out", str(out), "--name", "tiny", "--quiet"]
    assert predict.main(argv) == 0
    folder = out / "predict" / "tiny"
    run, summary = read_run(folder), read_summary(folder)
    assert run["bench"] == "predict" and run["config"]["models"] == [str(tmp_path / "mm.npz"), "none"]
    assert run["config"]["split"] == "test" and run["config"]["size"] == 9
    assert_invocation(run["invocations"][0], "python -m bench.predict " + str(tmp_path / "mm.npz"))
    assert summary["tie_rule"].startswith("pessimistic")
    scores = [r["scores"] for r in summary["results"]]
    assert scores[0]["positions"] == scores[1]["positions"] > 0
    assert scores[1]["top1"] == 0.0                    # uniform: every move ties, ties count against it
    assert all(a <= b for a, b in zip(scores[0]["top_k"], scores[0]["top_k"][1:]))
    figures = {f["key"]: f for f in assert_figures(summary)}
    assert set(figures) == {f"{m}/{k}" for m in ("mm", "none") for k in ("top1", "top5", "top10", "top20", "ms")} \
        | {"none/top1-vs-mm"}
    assert figures["mm/top1"]["value"] == scores[0]["top1"] and figures["mm/top1"]["n"] == scores[0]["positions"]
    assert [figures["mm/top1"]["low"], figures["mm/top1"]["high"]] == scores[0]["top1_ci95"]
    assert figures["mm/top20"]["value"] == scores[0]["top_k"][19] and figures["mm/top20"]["low"] is None
    assert "pessimistically" in (folder / "summary.txt").read_text() and "pessimistically" in capsys.readouterr().out
    for png in ("topk.png", "phase.png"):
        (folder / png).unlink()
    assert predict.main(["--plot", str(folder)]) == 0
    assert (folder / "topk.png").is_file() and (folder / "phase.png").is_file()


def test_plotting_a_folder_that_is_no_record_is_a_clear_error(tmp_path, capsys):
    assert predict.main(["--plot", str(tmp_path)]) == 2
    assert "not a predict record" in capsys.readouterr().err


def test_a_damaged_model_file_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"junk")
    assert predict.main([str(bad), "--quiet"]) == 2
    assert "damaged" in capsys.readouterr().err
