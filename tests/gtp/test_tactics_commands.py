"""GnuGo's reading commands through the tactical solver: answer format, errors, regression helpers, and the
reading settings (one name per setting in the config, `--set` and `bps_config`)."""
from __future__ import annotations

import dataclasses
import math
import re
import tarfile

import numpy as np
import pytest
import yaml

from bench.tactics.problems import read_tst, tst_position
from engine import tactics
from engine.config import load_config
from engine.game import Game
from engine.params import EngineParams, ReadingParams
from engine.tactics import Solver
from engine.coords import PASS, vertex_to_point
from gtp.protocol import GtpServer
from engine.builder import build_leaf_prior
from gtp.tactics_commands import TacticsCommands, gnugo_vertex
from engine.tactics.leafpriors import HierGaussPrior
from tests.boards import board_from_ascii, vertex
from tests.gtp.gtpproc import GtpProcess, tesuji_command
from tests.positions import LADDER, LADDER_SGF


# A valid value other than the default for every reading setting, as YAML writes it.
NEW_READING = {"method": "pp", "max_nodes": 700, "max_store": 1_000_000, "max_depth": 40, "move_gen": "region",
               "margin": 2, "l_start": 2, "l_max": 4, "prior_p": 0.3, "branching_weight": 0.5, "depth_decay": 0.25,
               "empty_and_true": False, "mark_block": False, "counter_slack": 0, "defender_reach": 2,
               "ko_results": False, "defender_pass": False, "prior": "hier"}


class StubPlayer:
    """The part of engine.player.Player the group uses: the game record and the configuration."""

    def __init__(self):
        self.game = Game(9)
        self.params = EngineParams()


def tactics_server(player) -> GtpServer:
    return GtpServer([TacticsCommands(player, build_leaf_prior)])


@pytest.fixture
def server():
    player = StubPlayer()
    player.game.load_sgf(LADDER_SGF)
    return tactics_server(player)


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
    assert reply(server, "bps_solve D6 attack lots") == "? reading.max_nodes: expected an integer, got 'lots'\n\n"


def bps_config_pairs(values: dict) -> list[str]:
    return [f"{key}={str(value).lower() if isinstance(value, bool) else value}" for key, value in values.items()]


def test_every_reading_setting_has_one_name_in_yaml_set_and_bps_config(server, tmp_path):
    assert set(NEW_READING) == {f.name for f in dataclasses.fields(ReadingParams)}
    assert all(getattr(ReadingParams(), key) != value for key, value in NEW_READING.items())
    pairs = bps_config_pairs(NEW_READING)
    path = tmp_path / "reading.yaml"
    path.write_text(yaml.safe_dump({"reading": NEW_READING}))
    assert reply(server, "bps_config " + " ".join(pairs)) == "= \n\n"
    settings = server.handlers["bps_config"].__self__.settings
    assert settings == load_config(str(path)).reading == load_config(None, [f"reading.{p}" for p in pairs]).reading
    assert settings == ReadingParams(**NEW_READING)
    assert reply(server, "bps_config") == "= " + "\n".join(pairs) + "\n\n"     # every setting, as it was given


def test_bps_config_lists_every_setting_with_its_one_name(server):
    assert reply(server, "bps_config") == "= " + "\n".join(bps_config_pairs(dataclasses.asdict(ReadingParams()))) \
        + "\n\n"
    assert reply(server, "bps_config")[2:].startswith("method=pns\nmax_nodes=20000\n")


@pytest.mark.parametrize("args, message", [
    ("max_nodes=-1", "reading.max_nodes: must be a positive integer, got -1"),
    ("max_nodes=7 budget=3", "reading.budget: unknown key"),               # the old names are gone
    ("decay=1", "reading.decay: unknown key"),
    ("method=pns move_gen=everywhere", "reading.move_gen: must be one of region, local, got 'everywhere'"),
    ("method=alphabeta", "reading.method: must be one of pp, pns"),
    ("max_nodes=x", "reading.max_nodes: expected an integer, got 'x'"),
    ("max_nodes=20000000", "reading.max_nodes: must be <= 10000000"),
    ("max_nodes", "reading.max_nodes: expected key=value"),
    ("depth_decay=-0.5 max_nodes=7", "reading.depth_decay: must be finite and >= 0"),
    ("branching_weight=.nan", "reading.branching_weight: expected a finite number"),
    ("prior_p=1", "reading.prior_p: must be in (0, 1)"),
    ("defender_reach=3", "reading.defender_reach: must be 1 or 2"),
    ("ko_results=maybe", "reading.ko_results: expected true or false"),
    ("max_nodes=9 prior=oracle", "reading.prior: unknown prior 'oracle'"),
])
def test_a_bad_pair_rejects_the_whole_bps_config(server, args, message):
    before = reply(server, "bps_config")
    text = reply(server, f"bps_config {args}")
    assert text.startswith(f"? {message}"), text
    assert reply(server, "bps_config") == before


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
    assert reply(server, "bps_config max_nodes=40 method=pp") == "= \n\n"   # PP's beliefs, a search that stops unsolved
    fixed = reply(server, "bps_children D6")
    assert reply(server, "bps_config branching_weight=1") == "= \n\n"
    assert reply(server, "bps_children D6") != fixed                     # the leaf beliefs moved
    branching = reply(server, "bps_children D6")
    assert reply(server, "bps_config depth_decay=0.5") == "= \n\n"
    assert reply(server, "bps_children D6") != branching                 # and moved again
    assert reply(server, "bps_config prior=hier max_nodes=500 method=pns branching_weight=0 depth_decay=0") \
        == "= \n\n"
    group = server.handlers["bps_config"].__self__
    assert group.settings == ReadingParams(prior="hier", max_nodes=500, method="pns")
    assert (group.prior.scale, group.prior.shift) == (0.3, pytest.approx(math.log(0.1 / 0.9)))   # calibrated
    assert reply(server, "increase_depths") == "= \n\n"
    assert "\nmax_nodes=1000\n" in reply(server, "bps_config")
    assert reply(server, "decrease_depths") == "= \n\n"
    assert "\nmax_nodes=500\n" in reply(server, "bps_config")


def test_a_regression_file_runs_through_the_engine(tmp_path):
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "ladder.sgf").write_bytes(LADDER_SGF)
    proc = GtpProcess(tesuji_command("search.max_nodes=1000"), cwd=str(tmp_path))
    try:
        assert proc.send("loadsgf games/ladder.sgf") == (True, "")
        assert proc.send("1 attack D6") == (True, "1 D7")
        assert proc.send("trymove W D7")[0]
        assert proc.send("2 defend D6")[0]
        assert proc.send("popgo")[0]
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
    assert reply(server, "bps_config max_nodes=40 method=pp") == "= \n\n"   # the leaf prior is PP's
    uniform = reply(server, "bps_children D6")
    assert reply(server, f"bps_config prior={path}") == "= \n\n"
    assert reply(server, "bps_config").endswith(f"\nprior={path}\n\n")
    assert reply(server, "bps_children D6") != uniform                    # the learned leaf beliefs
    # a missing, damaged or foreign file is a GTP error that leaves the settings as they were
    before = reply(server, "bps_config")
    (tmp_path / "broken.npz").write_bytes(path.read_bytes()[:60])
    np.savez(tmp_path / "other.npz", metadata=np.array('{"kind": "oracle", "format_version": 1}'))
    for name, message in [("missing.npz", "no such model file"), ("broken.npz", "damaged model file"),
                          ("other.npz", "not a leaf prior")]:
        text = reply(server, f"bps_config prior={tmp_path / name} max_nodes=77")
        assert text.startswith("? reading.prior: ") and message in text, text
        assert reply(server, "bps_config") == before
    assert reply(server, "bps_config max_nodes=5000") == "= \n\n"
    assert reply(server, "attack D6") == "= 1 D7\n\n"


def test_a_pass_is_written_as_gnugo_writes_it():
    # GnuGo prints a pass as "PASS" (its ko tests expect "#? [2 PASS]"); the solver's own commands say "pass"
    assert gnugo_vertex(PASS, 9) == "PASS" and gnugo_vertex(vertex_to_point("D7", 9), 9) == "D7"


@pytest.mark.parametrize("number, expected", [("81", r"3 (C1|C2)"), ("226", r"2 PASS")])
def test_a_ko_defence_names_the_ko_move_unless_passing_is_the_answer(number, expected, archive):
    # reading.tst 81: the defence that passes succeeds only because the defender may then retake the ko
    # at once; GnuGo names the move that fights the ko (C1 or C2). 226: the ko was just taken, so the
    # defence is a pass (a threat elsewhere)
    with tarfile.open(archive("gnugo_regression.tar.xz")) as tar:
        case = next(c for c in read_tst(tar.extractfile("regression/reading.tst").read().decode())
                    if c.number == number)
        board = tst_position(tar, case)
    r = tactics.solve_ko(board, vertex_to_point(case.vertex, board.size), attack=False, params=ReadingParams())
    assert re.fullmatch(expected, f"{r.code} {gnugo_vertex(r.move, board.size)}"), r


def test_the_engine_config_sets_the_reading_commands(tmp_path):
    path = tmp_path / "ladder_prior.npz"
    trained_prior_file(path)
    values = dict(NEW_READING, prior=str(path))
    proc = GtpProcess(tesuji_command(*(f"reading.{pair}" for pair in bps_config_pairs(values))))
    try:
        assert proc.send("bps_config") == (True, "\n".join(bps_config_pairs(values)))
        assert proc.send("quit")[0]
    finally:
        assert proc.close() == 0, proc.stderr_text()[-2000:]


def test_ko_results_in_gnugo_format():
    # 5x5: Black B4 A3 B2, White C4 B3 D3 C2; Black C3 takes B3 by a ko capture (GnuGo's KO_A = "2")
    player = StubPlayer()
    player.game = Game(5)
    player.game.load_sgf(b"(;GM[1]FF[4]SZ[5]AB[bb][ac][bd]AW[cb][bc][dc][cd]PL[B])")
    server = tactics_server(player)
    assert reply(server, "attack B3") == "= 2 C3\n\n"
    assert reply(server, "defend B3") == "= 1 C3\n\n"
    assert re.fullmatch(r"= T C3 nodes=\d+ p=1 L=2 code=2\n\n", reply(server, "bps_solve B3"))
    assert reply(server, "trymove white C3") == "= \n\n"         # White connects: no ko left
    assert reply(server, "attack B3") == "= 0\n\n"


def test_bps_config_reads_the_old_name_of_no_leaf_prior_and_says_the_new_one(server, capsys):
    assert reply(server, "bps_config prior=hier") == "= \n\n"
    assert reply(server, "bps_config prior=uniform") == "= \n\n"
    assert server.handlers["bps_config"].__self__.settings.prior == "none"
    assert "\nprior=none\n" in reply(server, "bps_config") + "\n"
    assert "reading.prior: uniform is now none" in capsys.readouterr().err
