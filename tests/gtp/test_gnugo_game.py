"""A whole 9x9 game of `tesuji gtp` against GnuGo 3.8, both as GTP subprocesses.

The test is the controller: it asks the side to move for `genmove` and relays the answer with
`play` to the other engine, so every move each engine makes must be legal for the other. The game
ends by two passes, a resignation or the move limit; both engines' `final_score` is reported.
"""
import os
import re

import pytest
from sgfmill import sgf

from tests.gtp.gtpproc import GtpProcess, tesuji_command

GNUGO = "/usr/games/gnugo"
MAX_MOVES = 200
SCORE = re.compile(r"[BW]\+[0-9]+(\.[0-9]+)?|0")
VERTEX = re.compile(r"[A-HJ-T][1-9]", re.IGNORECASE)

pytestmark = pytest.mark.skipif(not os.access(GNUGO, os.X_OK),
                                reason=f"GnuGo is not installed at {GNUGO} (make gnugo installs it)")


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
