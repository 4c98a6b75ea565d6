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
    assert set(figures) == {"5/1t", "5/2t", "5/raw", "5/2t-vs-1t"}
    one = summary["results"]["5"]["search_1"]["wall"]
    assert figures["5/1t"]["value"] == one["median"] > 0 and figures["5/1t"]["n"] == 2 and len(one["runs"]) == 2
    assert figures["5/2t-vs-1t"]["value"] == summary["results"]["5"]["ratio_2_1"]
    assert "search, 2 threads" in (out / "summary.txt").read_text() and "wrote" in capsys.readouterr().out


def test_a_setting_other_than_playout_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        speed.main(["--set", "search.n_threads=2"])
    assert e.value.code == 2
    assert "playout.KEY=VALUE" in capsys.readouterr().err
