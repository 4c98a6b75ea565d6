"""GnuGo's regression runner on a hand-written .tst file and position, through real GnuGo and our engine."""
import io
import signal
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from bench import records, regress
from tests.bench.test_records import assert_figures, assert_invocation

# 19x19: a ring of twelve Black stones whose last liberty is K10, where Black takes three White stones;
# if Black plays elsewhere, White takes the ring.
RING = """
. . O O O O O . .
. O X X X X X O .
. O X O . O X O .
. O X X O X X O .
. . O O X O O . .
"""


def ring_sgf() -> bytes:
    """The ring in the middle of an empty 19x19 board (SGF rows count from the top)."""
    letters = "abcdefghijklmnopqrs"
    stones = {"X": [], "O": []}
    for i, line in enumerate(RING.strip().splitlines()):
        for j, cell in enumerate(line.split()):
            if cell in stones:
                stones[cell].append(f"[{letters[5 + j]}{letters[7 + i]}]")
    return f"(;GM[1]FF[4]SZ[19]KM[7.5]AB{''.join(stones['X'])}AW{''.join(stones['O'])}PL[B])".encode()


TST = """\
# Black saves the ring.
loadsgf games/ring.sgf
1 reg_genmove black
#? [K10]

2 restricted_genmove black A1 K10
#? [K10|A2]

# K11 is taken: nothing listed is legal (GnuGo answers PASS, GTP allows pass)
5 restricted_genmove black K11
#? [PASS]

# GnuGo's own analysis: not a move test
3 owl_attack K9
#? [1 K10]

4 reg_genmove black
#? [!K10]*
"""
OURS = f"{sys.executable} -m gtp.cli gtp --preset none --set search.playouts=3000 --set search.n_threads=1"


# A file whose first position is not in the archive.
LOST = """\
loadsgf games/lost.sgf
1 reg_genmove black
#? [K10]

loadsgf games/ring.sgf
2 reg_genmove black
#? [K10]
"""


@pytest.fixture
def data(tmp_path):
    """A folder holding a regression archive of two .tst files and one position."""
    with tarfile.open(tmp_path / regress.ARCHIVE, "w:xz") as tar:
        for name, content in (("regression/mini.tst", TST.encode()), ("regression/lost.tst", LOST.encode()),
                              ("regression/games/ring.sgf", ring_sgf())):
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    return tmp_path


def test_expectations_pair_each_numbered_command_with_its_result():
    found = regress.expectations(TST + "6 showboard\n#? no brackets\n7 showboard\n")
    assert list(found) == ["1", "2", "5", "3", "4"]        # 6 and 7 have no result to compare
    assert found["2"] == regress.Expectation("2", "restricted_genmove black A1 K10", "K10|A2", False)
    assert found["4"].expected == "!K10" and found["4"].expect_fail


def test_regress_match_is_anchored_negatable_and_safe():
    assert regress.regress_match("F4|G4", "G4") and not regress.regress_match("F4", "F14")
    assert regress.regress_match("!(A3|A5)", "B3") and not regress.regress_match("!(A3|A5)", "A5")
    assert not regress.regress_match("[", "[")           # a broken pattern fails the test


def test_move_test_files_count_only_move_tests(data):
    assert regress.move_test_files(data) == {"mini.tst": 4, "lost.tst": 2}


@pytest.mark.parametrize("engine", ["gnugo", "ours"])
def test_engines_save_the_ring_and_other_tests_are_not_sent(data, gnugo_binary, engine):
    command = f"{gnugo_binary} --mode gtp" if engine == "gnugo" else OURS
    rows = regress.run_tst(command, "mini.tst", data, timeout=120, tests=regress.MOVE_TESTS)
    passes = "PASS" if engine == "gnugo" else "pass"
    assert [(r["test"], r["got"], r["passed"]) for r in rows] == [
        ("1", "K10", True), ("2", "K10", True), ("5", passes, True), ("4", "K10", False)]
    assert [r["expect_fail"] for r in rows] == [False, False, False, True]


def test_a_test_without_its_position_is_not_asked_nor_counted(data, gnugo_binary):
    rows = regress.run_tst(f"{gnugo_binary} --mode gtp", "lost.tst", data, timeout=120, tests=regress.MOVE_TESTS)
    assert [(r["test"], r["got"], r["missing"]) for r in rows] == [("1", "", True), ("2", "K10", False)]
    summary = regress.file_summary(rows)
    assert (summary["tests"], summary["passed"], summary["missing"]) == (1, 1, 1)
    assert "lost: 1 tests not asked" in regress.summary_table({"lost": summary})


def test_a_run_writes_its_record_resumes_and_refuses_another_engine(data, gnugo_binary, monkeypatch, tmp_path,
                                                                     capsys):
    monkeypatch.setattr(records, "RESULTS", tmp_path / "results")
    argv = ["mini", "--data", str(data), "--name", "gnugo", "--engine", f"{gnugo_binary} --mode gtp"]
    assert regress.main(argv) == 0
    run_dir = tmp_path / "results" / "regress" / "gnugo"
    summary = records.read_summary(run_dir)
    assert summary["files"] == {"mini": {"tests": 4, "passed": 3, "gnugo_fails": 1, "gnugo_fails_passed": 0,
                                         "seconds": summary["files"]["mini"]["seconds"], "missing": 0}}
    passed, star = assert_figures(summary)
    assert (passed["key"], passed["value"], passed["n"], star["key"], star["value"]) == ("passed", 0.75, 4,
                                                                                       "star-passed", 0.0)
    assert passed["low"] < 0.75 < passed["high"] and passed["text"].startswith("3 of 4, 75.0%")
    items = records.read_jsonl(run_dir / "items.jsonl")
    assert [(i["file"], len(i["rows"])) for i in items] == [("mini.tst", 4)] and len(items[0]["commit"]) >= 12
    written = (run_dir / "items.jsonl").read_text()
    assert regress.main(argv) == 0                          # resumed: nothing left to run
    assert "1 of 1 files already run; 0 to go" in capsys.readouterr().out
    assert (run_dir / "items.jsonl").read_text() == written
    run = records.read_run(run_dir)
    assert run["config"]["engine"] == f"{gnugo_binary} --mode gtp" and len(run["invocations"]) == 2
    assert_invocation(run["invocations"][1], "python -m bench.regress mini --data")
    assert regress.main(argv[:-1] + [OURS]) == 2
    assert "other settings" in capsys.readouterr().err
    assert regress.main(["nothere", "--data", str(data)]) == 2
    assert "no move tests in nothere.tst" in capsys.readouterr().err


def running(command: str) -> list[Path]:
    """The processes whose command line is `command` (Linux /proc)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes().replace(b"\0", b" ").strip() == command.encode():
                found.append(cmdline.parent)
        except OSError:            # the process ended meanwhile
            pass
    return found


def test_sigterm_stops_at_once_and_the_same_command_resumes(data, tmp_path):
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "bench.regress", "mini", "--data", str(data), "--out", str(out), "--engine", OURS]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("0 of 1 files already run")
    proc.send_signal(signal.SIGTERM)                       # while the engine thinks on test 1
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "the same command resumes" in err
    assert not records.read_jsonl(out / "items.jsonl") and not (out / "run.lock").exists()
    assert not running(OURS), "the worker's engine outlived the run"
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "mini.tst: 3 of 4 passed" in done.stdout
