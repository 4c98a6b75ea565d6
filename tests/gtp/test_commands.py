"""The standard and KGS commands of `tesuji gtp`, driven as a subprocess on small boards."""
import re

import pytest
from sgfmill import sgf

from tests.gtp.gtpproc import FAST, GtpProcess, tesuji_command

SCORE = re.compile(r"[BW]\+[0-9]+(\.[0-9]+)?|0")
VERTEX = re.compile(r"[A-HJ-T][1-9][0-9]?")


def board_rows(showboard: str) -> dict[int, str]:
    """Row number -> the row's stones as a string of X/O/. read from the showboard diagram."""
    rows = {}
    for line in showboard.split("\n"):
        tokens = line.split()
        if tokens and tokens[0].isdigit():
            rows[int(tokens[0])] = "".join(t for t in tokens[1:] if t in "XO.+")[:19].replace("+", ".")
    return rows


def stone_at(engine, vertex: str) -> str:
    col = "ABCDEFGHJKLMNOPQRSTUVWXYZ".index(vertex[0].upper())
    return board_rows(engine.ok("showboard"))[int(vertex[1:])][col]


def sgf_of(engine) -> sgf.Sgf_game:
    return sgf.Sgf_game.from_bytes(engine.ok("printsgf").encode())


def moves_of(engine) -> list[tuple[str, object]]:
    return [node.get_move() for node in sgf_of(engine).get_main_sequence()[1:]]


def state(engine) -> tuple[str, str]:
    return engine.ok("showboard"), engine.ok("printsgf")


def test_administrative(engine):
    assert engine.ok("protocol_version") == "2"
    assert engine.ok("name") == "Tesuji"
    assert engine.ok("version")
    assert re.fullmatch(r"[0-9]+\.[0-9]{3}", engine.ok("cputime"))


def test_scripted_game(engine):
    engine.ok("komi 6.5")
    engine.ok("play b E5")
    engine.ok("play W e7")                        # colours and vertices are case-insensitive
    reply = engine.ok("genmove b")
    assert VERTEX.fullmatch(reply) or reply in ("pass", "resign")
    assert len(moves_of(engine)) == 3
    assert stone_at(engine, "E5") == "X" and stone_at(engine, "E7") == "O"
    if VERTEX.fullmatch(reply):
        assert stone_at(engine, reply) == "X"
    engine.ok("undo")
    assert len(moves_of(engine)) == 2
    if VERTEX.fullmatch(reply):
        assert stone_at(engine, reply) == "."
    reply = engine.ok("genmove black")
    engine.ok("play w pass")
    engine.ok("play b pass")
    game = sgf_of(engine)
    assert game.get_size() == 9 and game.get_komi() == 6.5
    assert [m for m in moves_of(engine)][-2:] == [("w", None), ("b", None)]
    assert SCORE.fullmatch(engine.ok("final_score"))
    alive = engine.ok("final_status_list alive")
    dead = engine.ok("final_status_list dead")
    listed = set((alive + " " + dead).split())
    assert {"E5", "E7"} <= listed                # every stone is alive or dead
    assert engine.ok("final_status_list seki") == ""


def test_genmove_plays_and_reg_genmove_does_not(engine):
    engine.ok("play b C3")
    before = state(engine)
    reply = engine.ok("reg_genmove w")
    assert VERTEX.fullmatch(reply) or reply == "pass"
    assert state(engine) == before
    move = engine.ok("genmove w")
    assert moves_of(engine)[-1][0] == "w"
    if VERTEX.fullmatch(move):
        assert stone_at(engine, move) == "O"


def test_restricted_genmove_answers_a_listed_move_and_plays_nothing(engine):
    engine.ok("play b E5")
    before = state(engine)
    assert engine.ok("restricted_genmove w D4 F6") in ("D4", "F6")
    assert engine.ok("restricted_genmove w E5 pass") == "pass"          # E5 is taken
    assert state(engine) == before


def test_genmove_either_color_and_kgs_cleanup(engine):
    engine.ok("genmove w")                        # GTP lets any colour move
    engine.ok("genmove w")
    assert [c for c, _ in moves_of(engine)] == ["w", "w"]
    reply = engine.ok("kgs-genmove_cleanup b")
    assert VERTEX.fullmatch(reply) or reply == "pass"
    assert moves_of(engine)[-1][0] == "b"


def test_capture_ko_and_suicide(engine):
    # Black D5 surrounded on three sides then captured; the ko retake is refused at once.
    for move in ["b D4", "w E4", "b C5", "w F5", "b D6", "w E6", "b E5"]:
        engine.ok("play " + move)
    engine.ok("play w D5")                         # captures E5: a ko
    assert stone_at(engine, "E5") == "."
    before = state(engine)
    assert engine.fail("play b E5") == "illegal move"   # immediate retake of the ko
    assert state(engine) == before
    engine.ok("play b A9")                         # ko threat elsewhere
    engine.ok("play w B9")
    engine.ok("play b E5")                         # now the retake is legal
    assert stone_at(engine, "D5") == "."
    # suicide: White A1 with Black on A2 and B1
    engine.ok("play b A2")
    engine.ok("play b B1")
    before = state(engine)
    assert engine.fail("play w A1") == "illegal move"
    assert engine.fail("play w A2") == "illegal move"   # occupied
    assert state(engine) == before


def test_undo(engine):
    assert engine.fail("undo") == "cannot undo"
    engine.ok("play b C3")
    engine.ok("play w G7")
    engine.ok("undo")
    engine.ok("undo")
    assert moves_of(engine) == []
    assert engine.fail("undo") == "cannot undo"


def test_boardsize_and_clear_board(engine):
    engine.ok("play b C3")
    engine.ok("boardsize 13")
    assert sgf_of(engine).get_size() == 13 and moves_of(engine) == []
    engine.ok("play b N13")
    engine.ok("clear_board")
    assert moves_of(engine) == []
    engine.ok("boardsize 25")
    engine.ok("play w Z25")
    engine.ok("boardsize 2")
    engine.ok("play b B2")
    assert engine.fail("boardsize 26") == "unacceptable size"
    assert engine.fail("boardsize 1") == "unacceptable size"
    assert engine.fail("boardsize 0") == "unacceptable size"


def test_fixed_handicap(engine):
    assert engine.ok("fixed_handicap 4").split() == ["C3", "G7", "C7", "G3"]
    assert len(sgf_of(engine).get_root().get_setup_stones()[0]) == 4
    assert engine.fail("fixed_handicap 2") == "board not empty"
    engine.ok("clear_board")
    assert sorted(engine.ok("fixed_handicap 9").split()) == sorted(
        ["C3", "G7", "C7", "G3", "C5", "G5", "E3", "E7", "E5"])
    engine.ok("tesuji-param search.resign_threshold 0")    # nine stones on 9x9: the prior sees no hope
    move = engine.ok("genmove w")                  # White moves first after handicap
    engine.ok("tesuji-param search.resign_threshold 0.1")
    assert moves_of(engine)[0][0] == "w", move
    engine.ok("boardsize 8")
    assert engine.fail("fixed_handicap 5") == "invalid number of stones"   # even board: at most 4
    engine.ok("boardsize 5")
    assert engine.fail("fixed_handicap 2") == "invalid number of stones"   # no placement below 7x7


def test_free_handicap(engine):
    stones = engine.ok("place_free_handicap 5").split()
    assert len(set(stones)) == 5 and all(VERTEX.fullmatch(v) for v in stones)
    assert all(stone_at(engine, v) == "X" for v in stones)
    assert engine.fail("place_free_handicap 3") == "board not empty"
    engine.ok("clear_board")
    engine.ok("set_free_handicap A1 J9 E5")
    assert sorted(sgf_of(engine).get_root().get_setup_stones()[0]) == [(0, 0), (4, 4), (8, 8)]
    assert engine.fail("set_free_handicap B2 C3") == "board not empty"


@pytest.mark.parametrize("command, message", [
    ("place_free_handicap 1", "invalid number of stones"),
    ("place_free_handicap 81", "invalid number of stones"),
    ("place_free_handicap x", "syntax error"),
    ("place_free_handicap", "syntax error"),
    ("fixed_handicap 1", "invalid number of stones"),
    ("fixed_handicap 10", "invalid number of stones"),
    ("fixed_handicap", "syntax error"),
    ("fixed_handicap 2 3", "syntax error"),
    ("set_free_handicap A1", "invalid number of stones"),
    ("set_free_handicap", "invalid number of stones"),
    ("set_free_handicap A1 A1", "repeated vertex"),
    ("set_free_handicap A1 pass", "invalid vertex"),
    ("set_free_handicap A1 K1", "invalid vertex"),
    ("set_free_handicap A1 I1", "invalid vertex"),
])
def test_bad_handicap_changes_nothing(engine, command, message):
    before = state(engine)
    assert engine.fail(command) == message
    assert state(engine) == before


def test_time_commands(engine):
    engine.ok("time_settings 300 30 5")
    engine.ok("time_left b 200 0")
    engine.ok("time_left w 25 3")
    reply = engine.ok("genmove b")
    assert VERTEX.fullmatch(reply) or reply == "pass"
    engine.ok("time_settings 0 0 0")
    engine.ok("kgs-time_settings none")
    engine.ok("kgs-time_settings absolute 600")
    engine.ok("kgs-time_settings byoyomi 600 30 5")
    engine.ok("kgs-time_settings canadian 600 300 25")
    engine.ok("time_left w 10 2")
    reply = engine.ok("genmove w")
    assert VERTEX.fullmatch(reply) or reply == "pass"


@pytest.mark.parametrize("command, message", [
    ("time_settings 300 30", "syntax error"),
    ("time_settings 300 30 5 1", "syntax error"),
    ("time_settings -1 30 5", "syntax error"),
    ("time_settings 300 abc 5", "syntax error"),
    ("time_settings 300 30 2.5", "syntax error"),
    ("time_settings nan 30 5", "syntax error"),
    ("time_left x 30 0", "invalid color"),
    ("time_left b 30", "syntax error"),
    ("time_left b thirty 0", "syntax error"),
    ("time_left b 30 -1", "syntax error"),
    ("kgs-time_settings", "syntax error"),
    ("kgs-time_settings fischer 600 10", "syntax error"),
    ("kgs-time_settings absolute", "syntax error"),
    ("kgs-time_settings byoyomi 600 30", "syntax error"),
    ("kgs-time_settings canadian 600 30 2.5", "syntax error"),
    ("kgs-time_settings none 5", "syntax error"),
])
def test_bad_time_commands(engine, command, message):
    before = state(engine)
    assert engine.fail(command) == message
    assert state(engine) == before


def test_kgs_rules_and_game_over(engine):
    for rules in ["chinese", "aga", "new_zealand", "japanese", "Japanese"]:
        engine.ok(f"kgs-rules {rules}")
    assert engine.fail("kgs-rules ing") == "unknown rules"
    assert engine.fail("kgs-rules") == "syntax error"
    engine.ok("play b E5")
    engine.ok("kgs-game_over")
    assert len(moves_of(engine)) == 1


SGF = b"""(;GM[1]FF[4]SZ[7]KM[5.5]AB[aa]AW[gg]
;B[dd];W[cc];B[ee];W[ff])"""


def test_loadsgf(engine, tmp_path):
    path = tmp_path / "game.sgf"
    path.write_bytes(SGF)
    engine.ok(f"loadsgf {path}")
    game = sgf_of(engine)
    assert game.get_size() == 7 and game.get_komi() == 5.5
    assert moves_of(engine) == [("b", (3, 3)), ("w", (4, 2)), ("b", (2, 4)), ("w", (1, 5))]
    assert stone_at(engine, "A7") == "X" and stone_at(engine, "G1") == "O"
    engine.ok(f"loadsgf {path} 3")                # the position before move 3
    assert moves_of(engine) == [("b", (3, 3)), ("w", (4, 2))]
    assert stone_at(engine, "E3") == "."
    assert VERTEX.fullmatch(engine.ok("genmove b")) is not None
    assert len(moves_of(engine)) == 3


def test_bad_loadsgf_changes_nothing(engine, tmp_path):
    engine.ok("play b E5")
    before = state(engine)
    bad = tmp_path / "bad.sgf"
    bad.write_bytes(b"this is not sgf")
    big = tmp_path / "big.sgf"
    big.write_bytes(b"(;SZ[30];B[aa])")
    illegal = tmp_path / "illegal.sgf"
    illegal.write_bytes(b"(;SZ[9];B[aa];W[aa])")
    for cmd, message in [(f"loadsgf {tmp_path / 'missing.sgf'}", "cannot load file"),
                         (f"loadsgf {bad}", "cannot load file"),
                         (f"loadsgf {big}", "cannot load file"),
                         (f"loadsgf {illegal}", "cannot load file"),
                         (f"loadsgf {tmp_path}", "cannot load file"),
                         ("loadsgf", "syntax error"),
                         (f"loadsgf {bad} x", "syntax error"),
                         (f"loadsgf {bad} 0", "syntax error"),
                         (f"loadsgf {bad} 1 2", "syntax error")]:
        assert engine.fail(cmd) == message, cmd
        assert state(engine) == before, cmd


def test_printsgf_to_file(engine, tmp_path):
    engine.ok("play b C3")
    path = tmp_path / "out.sgf"
    assert engine.ok(f"printsgf {path}") == ""
    assert sgf.Sgf_game.from_bytes(path.read_bytes()).get_main_sequence()[1].get_move() == ("b", (2, 2))
    assert engine.fail(f"printsgf {tmp_path / 'no' / 'such' / 'dir.sgf'}") == "cannot write file"
    assert engine.fail("printsgf a b") == "syntax error"


@pytest.mark.parametrize("command, message", [
    ("play", "syntax error"),
    ("play b", "syntax error"),
    ("play b C3 extra", "syntax error"),
    ("play red C3", "invalid color"),
    ("play bl C3", "invalid color"),
    ("play b I3", "invalid vertex"),
    ("play b K3", "invalid vertex"),            # off the 9x9 board
    ("play b C10", "invalid vertex"),
    ("play b C0", "invalid vertex"),
    ("play b resign", "invalid vertex"),
    ("play b 33", "invalid vertex"),
    ("play b E5", "illegal move"),              # occupied
    ("genmove", "syntax error"),
    ("genmove purple", "invalid color"),
    ("genmove b w", "syntax error"),
    ("reg_genmove", "syntax error"),
    ("reg_genmove x", "invalid color"),
    ("restricted_genmove", "syntax error"),
    ("restricted_genmove b", "syntax error"),
    ("restricted_genmove x C3", "invalid color"),
    ("restricted_genmove b C3 K3", "invalid vertex"),
    ("kgs-genmove_cleanup", "syntax error"),
    ("kgs-genmove_cleanup 1", "invalid color"),
    ("boardsize", "syntax error"),
    ("boardsize 9 9", "syntax error"),
    ("boardsize nine", "syntax error"),
    ("boardsize 9.0", "syntax error"),
    ("komi", "syntax error"),
    ("komi seven", "syntax error"),
    ("komi inf", "syntax error"),
    ("komi 7.5 1", "syntax error"),
    ("clear_board now", "syntax error"),
    ("undo 1", "syntax error"),
    ("final_status_list", "syntax error"),
    ("final_status_list undead", "invalid status"),
    ("final_score now", "syntax error"),
    ("showboard x", "syntax error"),
    ("protocol_version 2", "syntax error"),
    ("list_commands all", "syntax error"),
    ("cputime x", "syntax error"),
])
def test_malformed_arguments_change_nothing(engine, command, message):
    engine.ok("play b E5")
    before = state(engine)
    assert engine.fail(command) == message
    assert state(engine) == before


def test_komi_values(engine):
    for komi in ["0", "-3.5", "7.5", "+6", "1e1"]:
        engine.ok(f"komi {komi}")
    assert sgf_of(engine).get_komi() == 10.0


def test_genmove_resigns_a_lost_game(tmp_path):
    proc = GtpProcess(tesuji_command(*FAST, "search.resign_threshold=0.5", "search.resign_min_visits=5"),
                      cwd=str(tmp_path))
    try:
        proc.ok("boardsize 5")
        proc.ok("komi 100")                       # Black cannot win
        assert proc.ok("genmove b") != "resign"   # no resignation in the first quarter (6.25 moves)
        proc.ok("undo")
        for move in ("b A1", "w E5", "b A3", "w E3", "b C1", "w C5", "b A5"):
            proc.ok("play " + move)
        assert proc.ok("genmove b") == "resign"
        game = sgf.Sgf_game.from_bytes(proc.ok("printsgf").encode())
        assert len(game.get_main_sequence()) == 8   # resigning plays no move
        assert game.get_root().get("RE") == "W+R"
        assert proc.ok("genmove w") != "resign"  # White is winning
    finally:
        assert proc.close() == 0
