import json
import re
import subprocess
from pathlib import Path

import pytest

from bench.records import RESULTS, git_commit, results_folder
from bench.rules import archive_folder


def test_a_record_folder_is_results_bench_slug():
    assert results_folder("match", "baseline-9x9") == RESULTS / "match" / "baseline-9x9"
    assert str(archive_folder("../data/kgs6d_even.tar.xz")).endswith("bench/results/rules/kgs6d-even")


@pytest.mark.parametrize("bench, slug", [("match", ""), ("match", "../x"), ("a/b", "x"), ("speed", ".hidden")])
def test_a_slug_that_would_leave_its_folder_is_refused(bench, slug):
    with pytest.raises(ValueError):
        results_folder(bench, slug)


def test_the_commit_is_read_from_git():
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).parent).stdout.strip()
    commit = git_commit()
    assert head.startswith(commit.removesuffix("+changes")) and len(commit.removesuffix("+changes")) == 12


def test_a_run_keeps_one_provenance_entry_per_invocation(tmp_path):
    from bench.records import commits, read_run, start_run
    start_run(tmp_path / "r", "match", {"games": 2}, command="python -m bench.match a.yaml")
    run = start_run(tmp_path / "r", "match", {"games": 4}, command="python -m bench.match a.yaml --games 4")
    assert read_run(tmp_path / "r") == run
    assert run["bench"] == "match" and run["slug"] == "r" and run["config"] == {"games": 4}
    assert [i["command"] for i in run["invocations"]] == ["python -m bench.match a.yaml",
                                                           "python -m bench.match a.yaml --games 4"]
    entry = run["invocations"][0]
    assert set(entry) == {"date", "command", "commit", "dirty", "machine", "load"}
    assert set(entry["machine"]) == {"host", "platform", "processor", "cpus", "python"}
    assert commits(run) == [entry["commit"]]


def test_a_torn_last_line_is_dropped_and_cut_so_appends_stay_whole(tmp_path):
    from bench.records import append_jsonl, read_jsonl
    path = tmp_path / "games.jsonl"
    append_jsonl(path, {"game": 0})
    with open(path, "a") as f:
        f.write('{"game": 1, "mov')
    assert read_jsonl(path) == [{"game": 0}]
    append_jsonl(path, {"game": 2})
    assert read_jsonl(path) == [{"game": 0}, {"game": 2}]


def assert_invocation(entry: dict, command: str) -> None:
    """One invocation's provenance as every bench's run.json holds it: the command that ran, the commit
    (12 hex digits) with its dirty flag, the machine and the load."""
    assert entry["command"].startswith(command), entry["command"]
    assert len(entry["commit"]) == 12 and isinstance(entry["dirty"], bool)
    assert entry["machine"]["cpus"] >= 1 and entry["date"][:2] == "20"
    assert set(entry) == {"date", "command", "commit", "dirty", "machine", "load"}


def bound(x: float | str | None) -> float | None:
    """An interval's end as summary.json keeps it: a number, or an infinity written as a string."""
    assert not isinstance(x, str) or x in ("inf", "-inf"), x
    return float(x) if isinstance(x, str) else x


def assert_figures(summary: dict) -> list[dict]:
    """summary.json's generic figures: unique keys, each with its label, value, interval, n, unit and text."""
    figures = summary["figures"]
    assert figures and len({f["key"] for f in figures}) == len(figures)
    for f in figures:
        assert set(f) == {"key", "label", "value", "low", "high", "n", "unit", "text"}
        assert (f["low"] is None) == (f["high"] is None)
        low, high = (bound(f[k]) for k in ("low", "high"))
        assert low is None or low <= f["value"] <= high, f
    return figures


def test_a_figure_entry_shows_a_share_as_a_percentage_with_its_interval():
    from bench.records import figure_entry
    entry = figure_entry("fbt/top1", "top-1", 0.413, low=0.41, high=0.416, n=186739, unit="top-1")
    assert entry["text"] == "41.3% [41.0%, 41.6%] of 186,739" and entry["key"] == "fbt/top1"
    assert figure_entry("9/1t", "speed", 15234.4, unit="playouts/s")["text"] == "15,234 playouts/s"
    assert figure_entry("x", "x", 0.5, unit="share", text="1 of 2")["text"] == "1 of 2"


def test_the_command_line_quotes_what_the_shell_would_split():
    from bench.records import command_line
    assert command_line("bench.regress", ["--engine", "gnugo --mode gtp"]) == \
        "python -m bench.regress --engine 'gnugo --mode gtp'"


def committed_records() -> dict[Path, set[str]]:
    """Every folder under bench/results that git holds files of, with its files' names."""
    out = subprocess.run(["git", "ls-files", "-z", "--", "bench/results"], capture_output=True, text=True,
                         check=True, cwd=RESULTS.parent.parent).stdout
    folders: dict[Path, set[str]] = {}
    for name in filter(None, out.split("\0")):
        path = RESULTS.parent.parent / name
        folders.setdefault(path.parent, set()).add(path.name)
    return folders


def test_every_committed_record_has_its_run_and_figures():
    folders = committed_records()
    assert len(folders) > 100
    for folder, names in folders.items():
        where = folder.relative_to(RESULTS)
        assert {"run.json", "summary.json", "summary.txt"} <= names, where
        run = json.loads((folder / "run.json").read_text())
        # A league's pairs are match records inside the league's own.
        bench = where.parts[0] if len(where.parts) == 2 else "match"
        assert run["bench"] == bench and run["slug"] == folder.name, where
        assert len(where.parts) == 2 or (folder.parent / "run.json").exists(), where
        assert run["invocations"], where
        for inv in run["invocations"]:
            assert {"date", "command", "commit"} & set(inv), (where, inv)
            assert str(inv.get("date", "2000"))[:2] == "20" and inv.get("command", "x"), (where, inv)
            assert re.fullmatch(r"[0-9a-f]{7,40}|unknown", inv.get("commit", "unknown")), (where, inv)
            assert isinstance(inv.get("dirty", False), bool), (where, inv)
        summary = json.loads((folder / "summary.json").read_text())
        for f in assert_figures(summary):
            # No value only where nothing was measured (a variant with no games yet).
            assert isinstance(f["value"], (int, float)) or (f["value"] is None and f["n"] == 0), (where, f)
            assert isinstance(f["text"], str) and f["text"], (where, f)
        assert (folder / "summary.txt").read_text().strip(), where


def test_a_rate_entry_carries_its_wilson_interval():
    from bench.records import rate_entry
    from bench.stats import wilson_interval
    entry = rate_entry("score", "scores agree", 156, 161)
    assert (entry["value"], entry["n"]) == (156 / 161, 161)
    assert (entry["low"], entry["high"]) == wilson_interval(156, 161)
    assert entry["text"] == "156 of 161, 96.9% [92.9, 98.7]"
    assert rate_entry("x", "x", 0, 0)["value"] is None and rate_entry("x", "x", 0, 0)["low"] is None


def test_a_run_that_does_not_resume_starts_its_run_json_again(tmp_path):
    from bench.records import start_run
    start_run(tmp_path / "r", "speed", {"sizes": [9]}, command="python -m bench.speed")
    run = start_run(tmp_path / "r", "speed", {"sizes": [19]}, command="python -m bench.speed --sizes 19",
                    resume=False)
    assert run["config"] == {"sizes": [19]} and [i["command"] for i in run["invocations"]] == [
        "python -m bench.speed --sizes 19"]


def test_a_changed_record_does_not_make_the_code_dirty(tmp_path, monkeypatch):
    import subprocess as sp
    from bench import records
    repo = tmp_path / "repo"
    (repo / "bench" / "results" / "speed").mkdir(parents=True)
    (repo / "engine").mkdir()
    for path in ("bench/results/speed/summary.txt", "engine/search.pyx"):
        (repo / path).write_text("v1\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    sp.run(git[:3] + ["init", "-q"], check=True)
    sp.run(git + ["add", "."], check=True)
    sp.run(git + ["commit", "-qm", "c"], check=True)
    monkeypatch.setattr(records, "ROOT", repo)
    (repo / "bench/results/speed/summary.txt").write_text("v2\n")
    assert records.git_state()[1] is False
    (repo / "engine/search.pyx").write_text("v2\n")
    assert records.git_state()[1] is True
