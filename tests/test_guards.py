"""Guards: figures the engine must not lose, each measured quickly and compared with its record under
bench/results/, so that a change that weakens the engine fails the suite.

- Move prediction: the shipped `fbt` prior's top-1 on the first 20 KGS test games (about 4,000
  positions, seconds) within a point of `predict/guard-fbt`, made by
  `python -m bench.predict priors/models/fbt.npz --max-games 20 --name guard-fbt`.
- Scoring: `final_score` of the shipped presets, each at its own seed, on the finished 9x9 games of
  `match/baseline-9x9` agrees with the GnuGo referee's on no fewer games than its record
  `scorecheck/guard-PRESET-SEED`, made by `python -m bench.scorecheck bench/results/match/baseline-9x9
  --engine 'python -m gtp.cli gtp --preset PRESET --set search.seed=SEED' --name guard-PRESET-SEED`.
- Reading: GnuGo's reading.tst through `attack`/`defend` of `tesuji gtp` with the reading defaults
  passes no fewer tests than B3's record of the same solver (`tactics/b3`, the `tesuji_pns` engine).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench import predict
from bench.gtpclient import GtpEngine
from bench.records import read_run, read_summary
from bench.scorecheck import check_game, finished_games
from bench.tactics.b3 import run_tst
from engine.params import ReadingParams

RESULTS = Path(__file__).resolve().parents[1] / "bench" / "results"


def figure(record: str, key: str) -> dict:
    """The figure `key` of a record's summary.json."""
    return next(f for f in read_summary(RESULTS / record)["figures"] if f["key"] == key)


def test_the_shipped_prior_predicts_as_recorded(archive, tmp_path):
    data = read_run(RESULTS / "predict" / "guard-fbt")["config"]
    data_dir = archive(data["archives"][0]).parent
    argv = ["priors/models/fbt.npz", "--data", str(data_dir), "--max-games", str(data["max_games"]),
            "--split", data["split"], "--seed", str(data["seed"]), "--out", str(tmp_path), "--name", "guard",
            "--quiet"]
    assert predict.main(argv) == 0
    top1 = figure(tmp_path / "predict" / "guard", "fbt/top1")["value"]
    assert top1 == pytest.approx(figure("predict/guard-fbt", "fbt/top1")["value"], abs=0.01)


def test_reading_tst_passes_no_fewer_than_recorded(archive):
    record = read_summary(RESULTS / "tactics" / "b3")["results"]["tesuji_pns"]
    # the record's engine is PNS at 20,000 nodes, as the reading defaults are (prior_p plays no part in PNS)
    assert "reading.method=pns" in record["command"] and "reading.max_nodes=20000" in record["command"]
    assert (ReadingParams().method, ReadingParams().max_nodes) == ("pns", 20_000)
    command = [sys.executable, "-m", "gtp.cli", "gtp", "--set", "search.max_nodes=1000"]   # no genmove here
    result = run_tst(command, "reading.tst", archive("gnugo_regression.tar.xz").parent, timeout=60)
    assert result["tests"] == record["tests"] and result["passed"] >= record["passed"], \
        f"{result['passed']} of {result['tests']} passed; recorded {record['passed']}"


@pytest.mark.parametrize("preset, seed", [("none", 1), ("mm", 3), ("fbt", 5)])
def test_final_scores_agree_with_gnugo_as_recorded(preset, seed):
    folder = RESULTS / "scorecheck" / f"guard-{preset}-{seed}"
    record = read_summary(folder)
    arguments = ["-m", "gtp.cli", "gtp", "--preset", preset, "--set", f"search.seed={seed}"]
    assert read_run(folder)["config"]["engine"] == " ".join(["python", *arguments])
    run_dir = RESULTS / "match" / "baseline-9x9"
    with GtpEngine([sys.executable, *arguments], timeout=300, label="engine") as engine:
        checks = [check_game(engine, run_dir.name, game) for game in finished_games(run_dir)]
    wrong = [f"{c.game}: ours {c.ours}, GnuGo {c.referee}" for c in checks if not c.agrees]
    expected = record["runs"][run_dir.name]
    assert len(checks) == expected["finished"] and len(checks) - len(wrong) >= expected["score_agrees"], wrong
