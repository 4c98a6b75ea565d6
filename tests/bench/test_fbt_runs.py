"""The multi-seed FBT bench on a tiny 9x9 archive: runs, resume, its record, the scored split, and scores
equal to bench.predict's."""

import numpy as np
import pytest

from bench import fbt_runs
from bench.records import read_jsonl, read_run, read_summary
from priors.training.datacache import training_data
from priors.training.extraction import split_dataset
from priors.training.trainconfig import load_config
from tests.bench.test_records import assert_figures, assert_invocation
from tests.priors.tiny_archive import data_dir, write_config  # noqa: F401 (data_dir is a fixture)


def write_configs(tmp_path, data_dir, bench_extra: str = "") -> tuple:
    """A training config on the tiny archive (fbt, competitions cached) and a bench of two cells."""
    train = write_config(tmp_path, data_dir, model="fbt", cache_dir=tmp_path / "cache")
    bench = tmp_path / "bench.yaml"
    bench.write_text(f"""
train: {train}
seeds: [1, 2]
out: {tmp_path / 'out'}
cells:
  - {{name: FBT2, set: [fbt.k=2, fbt.max_epochs=3, fbt.learning_rate=0.01]}}
  - {{name: LFR2, set: [fbt.k=2, fbt.max_epochs=3, fbt.learning_rate=0.01, fbt.loss=binary]}}
compare:
  - [FBT2, LFR2]
""" + bench_extra)
    return train, bench


def test_every_cell_runs_once_per_seed_and_a_rerun_resumes(tmp_path, data_dir, capsys):
    _, bench = write_configs(tmp_path, data_dir)
    assert fbt_runs.main([str(bench)]) == 0
    out = tmp_path / "out"
    runs = read_jsonl(out / "items.jsonl")
    assert sorted((r["cell"], r["seed"]) for r in runs) == [("FBT2", 1), ("FBT2", 2), ("LFR2", 1), ("LFR2", 2)]
    for r in runs:
        top_k = r["scores"]["top_k"]
        assert r["split"] == "test" and r["scores"]["positions"] > 50 and len(top_k) == 20 and top_k == sorted(top_k)
        assert 1 <= r["best_epoch"] <= r["epochs_run"] <= 3
    # The seeds draw different starting factors, so the two runs of a cell differ.
    fbt_runs_ = [r for r in runs if r["cell"] == "FBT2"]
    assert fbt_runs_[0]["scores"]["mean_loglik"] != fbt_runs_[1]["scores"]["mean_loglik"]
    summary = read_summary(out)
    top1 = [100 * r["scores"]["top_k"][0] for r in fbt_runs_]
    run = read_run(out)
    assert run["bench"] == "fbt-runs" and run["config"]["bench"]["seeds"] == [1, 2]
    assert_invocation(run["invocations"][0], "python -m bench.fbt_runs " + str(bench))
    figures = {f["key"]: f for f in assert_figures(summary)}
    assert set(figures) == {"FBT2/top1", "LFR2/top1", "FBT2-vs-LFR2/top1"}
    assert figures["FBT2/top1"]["value"] == pytest.approx(np.mean(top1) / 100)
    assert figures["FBT2/top1"]["n"] == runs[0]["scores"]["positions"]
    assert summary["cells"]["FBT2"]["top1"]["mean"] == pytest.approx(np.mean(top1))
    assert summary["cells"]["FBT2"]["top1"]["sd"] == pytest.approx(np.std(top1, ddof=1))
    cmp = summary["comparisons"][0]
    assert cmp["top1_difference"] == pytest.approx(summary["cells"]["FBT2"]["top1"]["mean"]
                                                   - summary["cells"]["LFR2"]["top1"]["mean"])
    assert (out / "top1.png").is_file() and "FBT2 - LFR2" in capsys.readouterr().out
    # A second run trains nothing: every (cell, seed) is in items.jsonl. The summary counts every
    # recorded seed, whatever seeds this command names; --report only summarizes.
    for extra in (["--seeds", "1"], ["--seeds", "3", "--report"]):
        assert fbt_runs.main([str(bench), *extra]) == 0
        assert len(read_jsonl(out / "items.jsonl")) == 4
        assert "seed" not in capsys.readouterr().err
        assert read_summary(out)["cells"]["LFR2"]["top1"]["n"] == 2
    assert len(read_run(out)["invocations"]) == 3


def test_test_scores_rank_as_priors_evaluate_does(tmp_path, data_dir):
    """The bench scores competitions in bulk; bench.predict scores positions one by one through
    `Prior.evaluate`. Both must rank the expert move alike."""
    train, bench = write_configs(tmp_path, data_dir)
    config = load_config(train, ["fbt.k=2", "fbt.max_epochs=3", "fbt.learning_rate=0.01"])
    data = training_data(config, log=lambda m: None)
    test = fbt_runs.held_out_competitions(config, data, 1.0)
    prior, _ = fbt_runs.fit_seed(config, 3, data)
    assert prior.hyper.k == 2 and prior.hyper.seed == 3 and prior.info_["epochs_run"] <= 3
    scores = fbt_runs.held_out_scores(prior, test)
    ranks = []
    ds = split_dataset(config.data, "test", 1.0, None)
    for game_id, raw in ds.games():
        for pos in ds.positions_of(game_id, raw):
            p = prior.evaluate(pos.board, pos.to_play)
            ranks.append(int(np.count_nonzero(p >= p[pos.move_index])))
    ranks = np.array(ranks)
    assert scores["positions"] == len(ranks)
    assert scores["top_k"][:5] == [round(float(np.mean(ranks <= k)), 6) for k in range(1, 6)]


def test_the_validation_split_is_scored_to_choose_a_setting(tmp_path, data_dir):
    """`split: validation` scores every cell on the validation split's positions, not the test split's;
    the top-level `set` reaches every cell, and a cell's own `set` comes after it."""
    _, bench = write_configs(tmp_path, data_dir, "split: validation\nset: [fbt.k=3, fbt.lambda_w=0.01]\n")
    assert fbt_runs.main([str(bench), "--seeds", "1"]) == 0
    runs = read_jsonl(tmp_path / "out" / "items.jsonl")
    ds = split_dataset(load_config(tmp_path / "train.yaml").data, "validation", 1.0, None)
    n_validation = sum(len(list(ds.positions_of(game_id, raw))) for game_id, raw in ds.games())
    assert {r["split"] for r in runs} == {"validation"}
    assert {r["scores"]["positions"] for r in runs} == {n_validation}
    config = fbt_runs.cell_config(fbt_runs.load_bench_config(bench), fbt_runs.Cell("x", ("fbt.k=4",)), None)
    assert config.hyper.k == 4 and config.hyper.lambda_w == 0.01


def test_a_runs_file_of_one_split_is_not_resumed_with_another(tmp_path, data_dir, capsys):
    _, bench = write_configs(tmp_path, data_dir)
    assert fbt_runs.main([str(bench), "--seeds", "1", "--only", "FBT2"]) == 0
    bench.write_text(bench.read_text() + "split: validation\n")
    assert fbt_runs.main([str(bench), "--seeds", "1"]) == 2
    err = capsys.readouterr().err
    assert "split" in err and "Traceback" not in err
    assert len(read_jsonl(tmp_path / "out" / "items.jsonl")) == 1


@pytest.mark.parametrize("extra, key", [
    ("seeds: one\n", "seeds"),
    ("sample: 0\n", "sample"),
    ("split: train\n", "split"),
    ("set: [fbt.k]\n", "set"),
    ("colour: 1\n", "colour"),
])
def test_config_errors_name_the_key(tmp_path, data_dir, capsys, extra, key):
    _, bench = write_configs(tmp_path, data_dir)
    text = bench.read_text()
    bench.write_text("\n".join(line for line in text.splitlines() if not line.startswith(extra.split(":")[0]))
                     + "\n" + extra)
    assert fbt_runs.main([str(bench)]) == 2
    err = capsys.readouterr().err
    assert key in err and "Traceback" not in err


def test_a_comparison_of_an_unknown_cell_and_an_unknown_only_are_refused(tmp_path, data_dir, capsys):
    _, bench = write_configs(tmp_path, data_dir, "  - [FBT2, FBT9]\n")
    assert fbt_runs.main([str(bench)]) == 2
    assert "compare" in capsys.readouterr().err
    _, bench = write_configs(tmp_path, data_dir)
    assert fbt_runs.main([str(bench), "--only", "FBT9"]) == 2
    assert "FBT9" in capsys.readouterr().err


def test_a_comparison_with_a_single_run_has_no_standard_error():
    def run(cell, seed, top1):
        return {"cell": cell, "seed": seed, "epochs_run": 3, "fit_seconds": 1.0,
                "split": "test", "scores": {"top_k": [top1] * 20, "mean_loglik": -3.0, "positions": 10}}
    bench = fbt_runs.BenchConfig("train.yaml", (1, 2), 1.0, (), "out",
                                 (fbt_runs.Cell("A", ()), fbt_runs.Cell("B", ())), (("A", "B"),))
    runs = {("A", 1): run("A", 1, 0.40), ("A", 2): run("A", 2, 0.42), ("B", 1): run("B", 1, 0.39)}
    summary = fbt_runs.summarize(bench, runs)
    assert summary["comparisons"][0]["se"] is None
    assert "SE n/a" in fbt_runs.table(summary)
    runs[("B", 2)] = run("B", 2, 0.38)
    assert fbt_runs.summarize(bench, runs)["comparisons"][0]["se"] > 0
