"""GnuGo's reading commands through the tactical solver: answer format, errors, regression helpers."""
from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest

from bench import tactics as bt
from engine import tactics
from engine.game import Game
from engine.tactics import Solver
from engine.tactics_priors import HierGaussPrior
from gtp.protocol import GtpServer
from gtp.coords import PASS, vertex_to_point
from gtp.tactics_commands import GTP_PARAMS, TacticsCommands, gnugo_vertex
from tests.boards import board_from_ascii, vertex
from tests.gtp.gtpproc import GtpProcess
from tests.positions import LADDER, LADDER_SGF


class StubPlayer:
    """The part of engine.player.Player the group uses: the game record."""

    def __init__(self):
        self.game = Game(9)


@pytest.fixture
def server():
    player = StubPlayer()
    player.game.load_sgf(LADDER_SGF)
    return GtpServer([TacticsCommands(player)])


def reply(server, line):
    return server.handle_line(line)


def test_attack_and_defend_in_gnugo_format(server):
    assert reply(server, "1 attack D6") == "=1 1 D7\n\n"
    assert re.fullmatch(r"=2 1 (D7|E6)\n\n", reply(server, "2 defend D6"))
    assert reply(server, "attack C6") == "= 0\n\n"


def test_answers_match_the_regression_patterns(server):
    # regress.awk: the expected text is a regular expression anchored at both ends
    for command, expected in [("attack D6", "1 (D7|E6)"), ("attack C6", "0"), ("defend D6", "1 (D7|E6)")]:
        text = reply(server, command)[2:].strip()
        assert re.search("^" + expected + "$", text), (command, text)


def test_errors(server):
    assert reply(server, "attack A1") == "? vertex must not be empty\n\n"
    assert reply(server, "attack Z9") == "? invalid vertex\n\n"
    assert reply(server, "attack pass") == "? invalid vertex\n\n"
    assert reply(server, "attack") == "? syntax error\n\n"
    assert reply(server, "defend D6 D7") == "? syntax error\n\n"
    assert reply(server, "popgo") == "? Stack empty.\n\n"
    assert reply(server, "trymove B D6") == "? illegal move\n\n"
    assert reply(server, "bps_config prior=oracle").startswith("? unknown prior 'oracle'")
    assert reply(server, "bps_config budget=0") == "? syntax error\n\n"
    assert reply(server, "bps_config method=alphabeta").startswith("? tactics.method")
    assert reply(server, "bps_config branching=-1").startswith("? tactics.branching_weight")
    assert reply(server, "bps_config branching=x budget=7") == "? syntax error\n\n"
    assert reply(server, "bps_config branching=nan") == "? syntax error\n\n"
    assert reply(server, "bps_config decay=-0.5 budget=7").startswith("? tactics.depth_decay")
    assert reply(server, "bps_config") == \
        "= prior=uniform budget=20000 method=pp move_gen=local l_max=5 branching=0 decay=0\n\n"


def test_trymove_and_popgo(server):
    assert reply(server, "trymove white D7") == "= \n\n"
    assert reply(server, "attack D6") == "= 0\n\n"          # now it has three liberties
    assert reply(server, "popgo") == "= \n\n"
    assert reply(server, "attack D6") == "= 1 D7\n\n"


def test_solver_report_and_config(server):
    text = reply(server, "bps_solve D6")
    m = re.fullmatch(r"= T D7 nodes=(\d+) p=1 L=3 code=1\n\n", text)
    assert m and int(m.group(1)) > 0
    assert re.fullmatch(r"= T D7 nodes=\d+ p=1 L=3 code=1\n\n", reply(server, "bps_solve D6 attack 5000 pns"))
    assert reply(server, "bps_solve D6 attack 3").startswith("= U ")     # budget of 3 nodes
    lines = reply(server, "bps_children D6")[2:].strip().splitlines()
    assert lines[0].startswith("D7 T p=1") or any(ln.startswith("D7 T") for ln in lines)
    assert reply(server, "bps_config budget=40") == "= \n\n"            # a search that stops unsolved
    fixed = reply(server, "bps_children D6")
    assert reply(server, "bps_config branching=1") == "= \n\n"
    assert reply(server, "bps_children D6") != fixed                     # the leaf beliefs moved
    branching = reply(server, "bps_children D6")
    assert reply(server, "bps_config decay=0.5") == "= \n\n"
    assert reply(server, "bps_children D6") != branching                 # and moved again
    assert reply(server, "bps_config prior=hier budget=500 method=pns branching=0 decay=0") == "= \n\n"
    assert reply(server, "bps_config") == \
        "= prior=hier budget=500 method=pns move_gen=local l_max=5 branching=0 decay=0\n\n"
    prior = server.handlers["bps_config"].__self__.prior
    assert (prior.scale, prior.shift) == (0.3, pytest.approx(math.log(0.1 / 0.9)))   # the calibrated model
    assert reply(server, "increase_depths") == "= \n\n"
    assert "budget=1000" in reply(server, "bps_config")
    assert reply(server, "decrease_depths") == "= \n\n"
    assert "budget=500" in reply(server, "bps_config")


def test_a_regression_file_runs_through_the_engine(tmp_path):
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "ladder.sgf").write_bytes(LADDER_SGF)
    proc = GtpProcess([sys.executable, "-m", "gtp.tactics_commands", "--set", "search.max_nodes=1000"],
                      cwd=str(tmp_path))
    try:
        assert proc.send("loadsgf games/ladder.sgf") == (True, "")
        assert proc.send("1 attack D6") == (True, "1 D7")
        assert proc.send("trymove W D7")[0]
        assert proc.send("2 defend D6")[0]
        assert proc.send("popgo")[0]
        assert proc.send("quit")[0]
    finally:
        assert proc.close() == 0, proc.stderr_text()[-2000:]


def test_the_command_line_settings_reach_the_solver():
    proc = GtpProcess([sys.executable, "-m", "gtp.tactics_commands", "--method", "pns", "--budget", "700",
                       "--move-gen", "region", "--l-max", "4", "--branching-weight", "0.5",
                       "--depth-decay", "0.25"])
    try:
        ok, text = proc.send("bps_config")
        assert ok and "method=pns" in text and "budget=700" in text and "move_gen=region" in text and "l_max=4" in text
        assert "branching=0.5" in text and "decay=0.25" in text
        assert proc.send("quit")[0]
    finally:
        assert proc.close() == 0, proc.stderr_text()[-2000:]
    # the engine config's reading: section is the starting point; the flags go on top
    proc = GtpProcess([sys.executable, "-m", "gtp.tactics_commands", "--set", "reading.budget=900",
                       "reading.method=pns", "--method", "pp"])
    try:
        ok, text = proc.send("bps_config")
        assert ok and "budget=900" in text and "method=pp" in text
        assert proc.send("quit")[0]
    finally:
        assert proc.close() == 0, proc.stderr_text()[-2000:]


def trained_prior_file(path):
    """A hierarchical leaf prior trained on a solved ladder, saved as a model file."""
    b = board_from_ascii(LADDER)
    s = Solver("pp", keep_keys=True)
    s.set_capture(b, vertex(b, "D4"), move_gen="local")
    assert s.run(20_000) == "T"
    prior = HierGaussPrior(scale=3.0)
    prior.observe(*s.observations())
    prior.save(path)
    return prior


def test_a_trained_prior_file_reaches_the_solver(server, tmp_path):
    path = tmp_path / "ladder_prior.npz"
    trained_prior_file(path)
    assert reply(server, "bps_config budget=40") == "= \n\n"
    uniform = reply(server, "bps_children D6")
    assert reply(server, f"bps_config prior={path}") == "= \n\n"
    assert reply(server, "bps_config").startswith(f"= prior={path} budget=40 ")
    assert reply(server, "bps_children D6") != uniform                    # the learned leaf beliefs
    # a missing, damaged or foreign file is a GTP error that leaves the settings as they were
    (tmp_path / "broken.npz").write_bytes(path.read_bytes()[:60])
    np.savez(tmp_path / "other.npz", metadata=np.array('{"kind": "oracle", "format_version": 1}'))
    for name, message in [("missing.npz", "no prior file"), ("broken.npz", "is not a prior file"),
                          ("other.npz", "unknown kind of prior")]:
        text = reply(server, f"bps_config prior={tmp_path / name} budget=77")
        assert text.startswith("? ") and message in text, text
        assert reply(server, "bps_config").startswith(f"= prior={path} budget=40 ")
    assert reply(server, "bps_config budget=5000") == "= \n\n"
    assert reply(server, "attack D6") == "= 1 D7\n\n"


def test_the_command_line_takes_a_prior_file(tmp_path):
    path = tmp_path / "ladder_prior.npz"
    trained_prior_file(path)
    proc = GtpProcess([sys.executable, "-m", "gtp.tactics_commands", "--prior", str(path)])
    try:
        ok, text = proc.send("bps_config")
        assert ok and text.startswith(f"prior={path} ")
        assert proc.send("quit")[0]
    finally:
        assert proc.close() == 0, proc.stderr_text()[-2000:]
    done = subprocess.run([sys.executable, "-m", "gtp.tactics_commands", "--prior", str(tmp_path / "no.npz")],
                          input="", capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "no prior file" in done.stderr and done.stdout == ""


def test_a_pass_is_written_as_gnugo_writes_it():
    # GnuGo prints a pass as "PASS" (its ko tests expect "#? [2 PASS]"); the solver's own commands say "pass"
    assert gnugo_vertex(PASS, 9) == "PASS" and gnugo_vertex(vertex_to_point("D7", 9), 9) == "D7"


GNUGO_REGRESSION = Path(os.environ.get("TESUJI_DATA", Path(__file__).resolve().parents[3] / "shared" / "data")) \
    / "gnugo_regression.tar.xz"


@pytest.mark.parametrize("number, expected", [("81", r"3 (C1|C2)"), ("226", r"2 PASS")])
def test_a_ko_defence_names_the_ko_move_unless_passing_is_the_answer(number, expected):
    # reading.tst 81: the defence that passes succeeds only because the defender may then retake the ko
    # at once; GnuGo names the move that fights the ko (C1 or C2). 226: the ko was just taken, so the
    # defence is a pass (a threat elsewhere)
    if not GNUGO_REGRESSION.exists():
        pytest.skip(f"{GNUGO_REGRESSION} is absent (set TESUJI_DATA to the directory holding the archives)")
    with tarfile.open(GNUGO_REGRESSION) as tar:
        case = next(c for c in bt.read_tst(tar.extractfile("regression/reading.tst").read().decode())
                    if c.number == number)
        board = bt.tst_position(tar, case)
    r = tactics.solve_ko(board, bt.parse_vertex(board, case.vertex), attack=False, params=GTP_PARAMS)
    assert re.fullmatch(expected, f"{r.code} {gnugo_vertex(r.move, board.size)}"), r


def test_the_engine_config_sets_the_reading_commands(tmp_path):
    path = tmp_path / "ladder_prior.npz"
    trained_prior_file(path)
    proc = GtpProcess([sys.executable, "-m", "gtp.cli", "gtp", "--set", "reading.method=pns", "reading.budget=700",
                       f"reading.prior={path}", "reading.branching=0.5", "reading.decay=1"])
    try:
        ok, text = proc.send("bps_config")
        assert ok and text == f"prior={path} budget=700 method=pns move_gen=local l_max=5 branching=0.5 decay=1"
        assert proc.send("quit")[0]
    finally:
        assert proc.close() == 0, proc.stderr_text()[-2000:]


def test_ko_results_in_gnugo_format():
    # 5x5: Black B4 A3 B2, White C4 B3 D3 C2; Black C3 takes B3 by a ko capture (GnuGo's KO_A = "2")
    player = StubPlayer()
    player.game = Game(5)
    player.game.load_sgf(b"(;GM[1]FF[4]SZ[5]AB[bb][ac][bd]AW[cb][bc][dc][cd]PL[B])")
    server = GtpServer([TacticsCommands(player)])
    assert reply(server, "attack B3") == "= 2 C3\n\n"
    assert reply(server, "defend B3") == "= 1 C3\n\n"
    assert re.fullmatch(r"= T C3 nodes=\d+ p=1 L=2 code=2\n\n", reply(server, "bps_solve B3"))
    assert reply(server, "trymove white C3") == "= \n\n"         # White connects: no ko left
    assert reply(server, "attack B3") == "= 0\n\n"
