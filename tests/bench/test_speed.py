"""bench.speed on a small board: every size and thread count timed, and its record."""
import pytest

from bench import speed
from bench.records import read_run, read_summary
from tests.bench.test_records import assert_figures, assert_invocation


def test_a_small_run_records_each_size_and_thread_count(tmp_path, capsys):
    out = tmp_path / "speed" / "t"
    assert speed.main(["--sizes", "5", "--threads", "1", "2", "--seconds", "0.05", "--repeats", "2",
                       "--out", str(out)]) == 0
    run, summary = read_run(out), read_summary(out)
    assert run["bench"] == "speed" and run["config"]["sizes"] == [5] and run["config"]["repeats"] == 2
    assert_invocation(run["invocations"][0], "python -m bench.speed --sizes 5")
    figures = {f["key"]: f for f in assert_figures(summary)}
    assert set(figures) == {"5/raw", "default/5/1t", "default/5/2t", "default/5/2t-vs-1t", "none/5/1t", "none/5/2t",
                            "none/5/2t-vs-1t", "default-vs-none/5/1t"}
    assert run["config"]["engines"]["default"]["prior"]["name"] == "fbt"      # the default engine's prior is timed
    assert run["config"]["engines"]["none"]["prior"]["name"] == "none"
    row = summary["results"]["5"]
    one = row["default"]["search_1"]["wall"]
    assert figures["default/5/1t"]["value"] == one["median"] > 0 and figures["default/5/1t"]["n"] == 2
    assert len(one["runs"]) == 2
    assert figures["default/5/2t-vs-1t"]["value"] == row["default"]["ratio_2_1"]
    assert figures["default-vs-none/5/1t"]["value"] == one["median"] / row["none"]["search_1"]["wall"]["median"]
    assert "default, 2 threads" in (out / "summary.txt").read_text() and "wrote" in capsys.readouterr().out


def test_an_unknown_preset_is_an_error_naming_it(capsys):
    with pytest.raises(SystemExit) as e:
        speed.main(["--presets", "nosuch", "--sizes", "5"])
    assert e.value.code == 2
    assert "nosuch" in capsys.readouterr().err


def test_a_setting_other_than_playout_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        speed.main(["--set", "search.n_threads=2"])
    assert e.value.code == 2
    assert "playout.KEY=VALUE" in capsys.readouterr().err
