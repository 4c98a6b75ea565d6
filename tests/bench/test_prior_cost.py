"""bench.prior_cost on real test positions: every config searches the same boards, the ratio is to the first."""
import pytest

from bench import prior_cost
from bench.records import read_run, read_summary
from tests.bench.test_records import assert_figures, assert_invocation


def test_each_config_searches_the_same_positions_and_is_timed_against_the_first(archive, tmp_path, capsys):
    data = archive("kgs6d_even.tar.xz").parent
    out = tmp_path / "speed" / "t"
    assert prior_cost.main(["configs/none.yaml", "configs/mm.yaml", "--playouts", "100", "--games", "1",
                            "--data", str(data), "--out", str(out)]) == 0
    run, summary = read_run(out), read_summary(out)
    assert run["bench"] == "speed" and run["config"]["playouts"] == 100 and run["config"]["games"] == 1
    assert_invocation(run["invocations"][0], "python -m bench.prior_cost configs/none.yaml configs/mm.yaml")
    assert 1 <= summary["positions"] <= 4
    none, mm = summary["rows"]
    assert (none["prior"], mm["prior"], none["cpu_ratio"]) == ("none", "mm", 1.0)
    assert mm["cpu_ratio"] == pytest.approx(mm["cpu_ms_per_move"] / none["cpu_ms_per_move"]) and mm["cpu_ratio"] > 0
    figures = {f["key"]: f for f in assert_figures(summary)}
    assert set(figures) == {"none/ms", "none/ratio", "mm/ms", "mm/ratio"}
    assert figures["mm/ms"]["value"] == mm["cpu_ms_per_move"] and figures["mm/ms"]["n"] == summary["positions"]
    assert "configs/mm.yaml" in capsys.readouterr().out and "configs/mm.yaml" in (out / "summary.txt").read_text()


def test_a_bad_config_is_a_clear_error(capsys):
    assert prior_cost.main(["configs/absent.yaml", "--games", "1"]) == 2
    assert "absent.yaml" in capsys.readouterr().err
