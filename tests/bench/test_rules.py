"""bench.rules' record: a few expert games replayed, their counts as figures."""
from bench import rules
from bench.records import read_run, read_summary
from tests.bench.test_records import assert_figures, assert_invocation


def test_a_short_replay_writes_its_counts_and_provenance(archive, tmp_path, capsys):
    data = archive("kgs6d_even.tar.xz").parent
    out = tmp_path / "rules" / "kgs"
    assert rules.main(["--data", str(data), "--limit", "3", "--out", str(out)]) == 0
    run, summary = read_run(out), read_summary(out)
    assert run["bench"] == "rules" and run["config"]["archive"] == "kgs6d_even.tar.xz" and run["config"]["limit"] == 3
    assert_invocation(run["invocations"][0], "python -m bench.rules --data")
    figures = {f["key"]: f for f in assert_figures(summary)}
    assert figures["games"]["value"] == summary["results"]["games"] == 3
    assert figures["moves"]["value"] == summary["results"]["moves"] > 100
    assert figures["mismatches"]["value"] == 0 and figures["mismatches"]["n"] == figures["moves"]["value"]
    assert "mismatches  0" in (out / "summary.txt").read_text() and "record" in capsys.readouterr().out
