"""The harvest bench on a tiny 9x9 archive: the pattern counts, as a record."""
import json

from bench import harvest
from tests.bench.test_records import assert_figures, assert_invocation
from tests.priors.tiny_archive import data_dir, write_config  # noqa: F401 (data_dir is a fixture)


def test_a_harvest_records_the_pattern_counts(tmp_path, data_dir):
    config = write_config(tmp_path, data_dir)
    out = tmp_path / "harvest" / "tiny"
    assert harvest.main([str(config), "--out", str(out)]) == 0
    assert not (tmp_path / "mm.npz").exists()                  # no model trained
    run = json.loads((out / "run.json").read_text())
    assert run["bench"] == "harvest" and run["slug"] == "tiny" and run["config"]["patterns"]["min_count"] == 2
    assert_invocation(run["invocations"][0], "python -m bench.harvest")
    assert run["invocations"][0]["command"].endswith(str(out))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == {"tiny.tar.xz": 14} and summary["pattern_moves"] == 14 * 40
    at_least = summary["patterns_at_least"]
    assert at_least["2"] == sum(summary["patterns_by_size"].values())    # min_count 2 keeps those seen twice
    assert list(at_least.values()) == sorted(at_least.values(), reverse=True)
    assert summary["peak_rss_mb"] > 0
    figures = {f["key"]: f["value"] for f in assert_figures(summary)}
    assert figures["patterns"] == at_least["2"] and figures["games"] == 14 and figures["moves"] == 14 * 40
    assert f"kept: {at_least['2']:,} patterns seen >= 2 times" in (out / "summary.txt").read_text()


def test_a_config_error_is_named_without_a_record(tmp_path, data_dir, capsys):
    config = write_config(tmp_path, data_dir)
    assert harvest.main([str(config), "--set", "patterns.min_count=many", "--out", str(tmp_path / "r")]) == 2
    assert "patterns.min_count" in capsys.readouterr().err and not (tmp_path / "r").exists()
