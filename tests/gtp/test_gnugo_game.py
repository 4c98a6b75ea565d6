"""Games against GnuGo 3.8: a whole 9x9 game, and the scoring of a finished one.

In the whole game, both engines run as GTP subprocesses and the test is the controller: it asks the
side to move for `genmove` and relays the answer with `play` to the other engine, so every move each
engine makes must be legal for the other. The game ends by two passes, a resignation or the move
limit; both engines' `final_score` is reported.

The finished game is scored in-process through the GTP commands, against GnuGo's answer written
here, with every shipped engine preset and several seeds.
"""
import re
from pathlib import Path

import pytest
import yaml
from sgfmill import sgf

from engine.builder import build_player
from engine.config import load_config
from gtp.server import build_server
from priors.base import load_prior
from tests.gtp.gtpproc import GtpProcess, tesuji_command

GNUGO = "/usr/games/gnugo"
MAX_MOVES = 200
SCORE = re.compile(r"[BW]\+[0-9]+(\.[0-9]+)?|0")
VERTEX = re.compile(r"[A-HJ-T][1-9]", re.IGNORECASE)

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
# The engine presets: the files that set a prior (default.yaml, mm.yaml, fbt.yaml, ...).
PRESETS = sorted(f.name for f in CONFIGS.glob("*.yaml") if "prior" in (yaml.safe_load(f.read_text()) or {}))

# A game of GnuGo 3.8 (B) against Tesuji with configs/mm.yaml (W), 9x9, komi 7, ended by two passes.
# GnuGo scores it W+4.0 with A3 A4 B4 dead; we said W+17 with nothing dead for mm and fbt at every
# seed and for the default at seed 3, because the ownership came from the tree search (see
# engine/scoring.py).
TWO_PASS_MOVES = """
B G7 W F6 B G6 W F4 B D3 W F7 B D5 W G5 B H5 W H4 B H7 W D7 B J6 W G8 B H8 W C6 B C5 W E2 B B6 W B7 B B5
W E3 B B3 W F8 B J4 W J3 B J5 W H3 B D2 W D1 B C1 W E1 B B2 W C8 B H9 W E4 B D6 W E6 B C7 W D8 B B8 W C6
B A7 W C7 B D4 W B9 B A8 W E9 B E5 W F5 B G9 W C9 B A6 W A4 B F9 W B4 B A9 W A3 B pass W pass
""".split()

needs_gnugo = pytest.mark.usefixtures("gnugo_binary")

# Two handicap stones (C3, C7), komi 0.5, then walls: White on column F, Black on column E, and two
# passes. Black's area is 45 points, White's 36; White's point per handicap stone makes it B+6.5.
HANDICAP_GAME = (["boardsize 9", "clear_board", "komi 0.5", "set_free_handicap C3 C7"]
                 + [f"play {c} {col}{row}" for row in range(1, 10) for c, col in (("w", "F"), ("b", "E"))]
                 + ["play w pass", "play b pass"])


def test_presets_are_found():
    assert {"default.yaml", "mm.yaml", "fbt.yaml"} <= set(PRESETS)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("preset", PRESETS)
def test_a_two_pass_game_scores_as_gnugo(preset, seed):
    params = load_config(str(CONFIGS / preset), [f"search.seed={seed}"])
    server = build_server(build_player(params, load_prior), params)
    for command in ["boardsize 9", "clear_board", "komi 7"] + [
            f"play {c} {v}" for c, v in zip(TWO_PASS_MOVES[::2], TWO_PASS_MOVES[1::2])]:
        assert server.handle_line(command) == "= \n\n", command
    assert server.handle_line("final_score") == "= W+4\n\n"
    assert sorted(server.handle_line("final_status_list dead").split()[1:]) == ["A3", "A4", "B4"]


@needs_gnugo
def test_a_handicap_game_scores_as_gnugo_with_a_point_per_stone_for_white(tmp_path):
    gnugo = GtpProcess([GNUGO, "--mode", "gtp", "--chinese-rules"], cwd=str(tmp_path))
    for command in HANDICAP_GAME:
        gnugo.ok(command)
    expected = gnugo.ok("final_score")
    gnugo.close()
    params = load_config(str(CONFIGS / "default.yaml"), ["search.seed=1"])
    server = build_server(build_player(params, load_prior), params)
    for command in HANDICAP_GAME:
        assert server.handle_line(command) == "= \n\n", command
    assert server.handle_line("final_score") == f"= {expected}\n\n" == "= B+6.5\n\n"
    assert server.handle_line("kgs-rules aga") == "= \n\n"
    assert server.handle_line("final_score") == "= B+7.5\n\n"           # AGA: a point less


@pytest.fixture
def engines(tmp_path):
    ours = GtpProcess(tesuji_command("search.playouts=200", "search.seed=11", "search.n_threads=1"),
                      cwd=str(tmp_path), timeout=120)
    gnugo = GtpProcess([GNUGO, "--mode", "gtp", "--level", "1", "--chinese-rules"], cwd=str(tmp_path),
                       timeout=120)
    yield {"tesuji": ours, "gnugo": gnugo}
    gnugo.close()
    assert ours.close() == 0, ours.stderr_text()[-2000:]


def play_game(black: GtpProcess, white: GtpProcess, names: dict) -> tuple[list[tuple[str, str]], str]:
    """Relay genmove/play until two passes, a resignation or MAX_MOVES; (moves, how it ended)."""
    for engine in (black, white):
        for command in ["boardsize 9", "clear_board", "komi 7.5"]:
            engine.ok(command)
    players = {"b": (black, white), "w": (white, black)}
    moves: list[tuple[str, str]] = []
    while len(moves) < MAX_MOVES:
        color = "b" if len(moves) % 2 == 0 else "w"
        mover, other = players[color]
        move = mover.ok(f"genmove {color}").lower()
        if move == "resign":
            return moves, f"{names[id(mover)]} ({color}) resigned"
        assert move == "pass" or VERTEX.fullmatch(move), f"{names[id(mover)]} answered {move!r}"
        ok, text = other.send(f"play {color} {move}")
        assert ok, f"{names[id(other)]} rejected {names[id(mover)]}'s move {color} {move}: {text!r}"
        moves.append((color, move))
        if len(moves) >= 2 and moves[-1][1] == moves[-2][1] == "pass":
            return moves, "two passes"
    return moves, "move limit"


@needs_gnugo
@pytest.mark.parametrize("our_color", ["b", "w"])
def test_full_game_against_gnugo(engines, our_color, record_property):
    ours, gnugo = engines["tesuji"], engines["gnugo"]
    names = {id(ours): "tesuji", id(gnugo): "gnugo"}
    black, white = (ours, gnugo) if our_color == "b" else (gnugo, ours)
    moves, ending = play_game(black, white, names)
    assert len(moves) >= 10, (moves, ending)
    scores = {name: engines[name].ok("final_score") for name in ("tesuji", "gnugo")}
    report = (f"{names[id(black)]} (B) vs {names[id(white)]} (W), 9x9 komi 7.5, gnugo level 1: "
              f"{len(moves)} moves, ended by {ending}; "
              f"final_score tesuji {scores['tesuji']}, gnugo {scores['gnugo']}")
    print(report)
    record_property("gnugo_game", report)
    for name, score in scores.items():
        assert SCORE.fullmatch(score), (name, score)
    # Both engines followed the same game: our record holds every relayed move.
    record = sgf.Sgf_game.from_bytes(ours.ok("printsgf").encode()).get_main_sequence()[1:]
    assert [(c, "pass" if m is None else "abcdefghj"[m[1]] + str(m[0] + 1))
            for c, m in (node.get_move() for node in record)] == moves
