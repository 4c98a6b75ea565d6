"""bench.sgf: SGFs rebuilt from the compact records equal the files once committed; the record format."""
import subprocess

import pytest

from bench.match import compact_game, expand_game, read_games
from bench.records import ROOT, RESULTS, read_run
from bench.sgf import main, parse_games, write_sgfs

HISTORY = "ff283436"         # the last commit that holds the match and league SGFs

# (run folder under bench/results, variant-game): one of each kind of game
COMMITTED = [
    ("match/default-9x9", "main-0"),                                 # 9x9, dead stones removed
    ("match/fbt-19x19", "main-0"),                                   # 19x19
    ("league/league-19x19/gnugo-10-h3-vs-fbt", "main-0"),            # a league pair, three stones
    ("match/default-19x19", "2s-16"),                                # a fault: RE[Void]
    ("match/timed-9x9-20s", "adaptive-0"),                           # on the clock
]


def committed_sgf(path: str) -> bytes:
    done = subprocess.run(["git", "show", f"{HISTORY}:{path}"], cwd=ROOT, capture_output=True)
    if done.returncode:
        pytest.skip(f"commit {HISTORY} is not in this clone's history (a shallow clone?): "
                    f"{done.stderr.decode().strip()}")
    return done.stdout


@pytest.mark.parametrize("run, game", COMMITTED, ids=[f"{r}/{g}" for r, g in COMMITTED])
def test_an_sgf_rebuilt_from_the_record_is_the_one_once_committed(run, game, tmp_path):
    variant, _, number = game.rpartition("-")
    written = write_sgfs(RESULTS / run, tmp_path, games={int(number)}, variants=[variant])
    assert [p.name for p in written] == [f"{game}.sgf"]
    assert written[0].read_bytes() == committed_sgf(f"bench/results/{run}/{game}.sgf")


def game_record(**fields) -> dict:
    record = {"run": "r", "variant": "main", "game": 3, "seed": 4, "player_colour": "w", "alternated": True,
              "board_size": 9, "komi": 7.0, "handicap": 0, "player_command": "tesuji --seed 4",
              "opponent_command": "gnugo", "referee_command": None, "host": "vm", "date": "2026-12-01 10:00:00",
              "end": "passes", "result": "W+2", "winner": "w", "reason": None, "fault": None, "score": -2.0,
              "result_referee": "W+2.0", "disagreement": False, "dead_stones": ["A1"],
              "engine_results": {"player": "W+2", "opponent": "W+2.0"}, "player_moves": 2, "player_seconds": 1.234,
              "player_cpu": None, "opponent_moves": 2, "opponent_seconds": 0.5, "opponent_cpu": 0.25,
              "moves": ["E5", "C3", "pass", "pass"], "times": [1.234, 0.005, 0.015, 0.5], "handicap_stones": [],
              "notes": [], "seconds": 2.0, "opening": None, "opening_file": None, "opening_moves": 0}
    return {**record, **fields}


COMMON = {"run": "r", "board_size": 9, "komi": 7.0, "handicap": 0, "host": "vm",
          "player_command": {"main": "tesuji --seed {seed}"}, "opponent_command": "gnugo", "referee_command": None}


def test_a_game_line_leaves_out_what_the_run_shares_and_reads_back_whole():
    record = game_record()
    line = compact_game(record, COMMON)
    # 0.005 and 0.015 are 0.00500...01 and 0.01499...9 in binary: both show as 0.01, as in an SGF
    assert line["moves"] == "E5 C3 pass pass" and line["times"] == "123 1 1 50"
    for key in ("run", "board_size", "komi", "host", "player_command", "opponent_command", "reason", "fault", "notes"):
        assert key not in line
    assert expand_game(line, COMMON) == {**record, "times": [1.23, 0.01, 0.01, 0.5]}


def test_a_game_that_differs_from_the_common_values_keeps_its_own():
    record = game_record(host="other", player_command="tesuji --seed 99", handicap=2, handicap_stones=["C3", "G7"])
    line = compact_game(record, COMMON)
    assert (line["host"], line["player_command"], line["handicap_stones"]) == ("other", "tesuji --seed 99", ["C3", "G7"])
    assert expand_game(line, COMMON)["host"] == "other"
    assert expand_game(compact_game(record, {}), {}) == {**record, "times": [1.23, 0.01, 0.01, 0.5]}


def test_moves_that_are_not_one_word_each_stay_a_list():
    record = game_record(moves=["E5", "? not a move"], times=[0.5, 1.0], end="illegal", result="B+F")
    line = compact_game(record, COMMON)
    assert line["moves"] == ["E5", "? not a move"]
    assert expand_game(line, COMMON)["moves"] == ["E5", "? not a move"]


def test_games_option_reads_numbers_and_ranges():
    assert parse_games("0,5-9") == {0, 5, 6, 7, 8, 9}
    assert parse_games("3") == {3}
    assert parse_games(" 2 , 2-3") == {2, 3}
    for bad in ("", "a", "5-2", "-1", "1-", "1,,2"):
        with pytest.raises(ValueError, match="--games"):
            parse_games(bad)


def test_the_command_writes_the_chosen_games_of_a_committed_run(tmp_path, capsys):
    run = RESULTS / "match" / "default-9x9"
    assert main([str(run), "--out", str(tmp_path), "--games", "0,5-7"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["main-0.sgf", "main-5.sgf", "main-6.sgf", "main-7.sgf"]
    labels = read_run(run)["engines"]
    game = read_games(run)[("main", 5)]
    black = labels["opponent"]["label"] if game["alternated"] else labels["player:main"]["label"]
    assert f"PB[{black}]".encode() in (tmp_path / "main-5.sgf").read_bytes()
    assert "4 SGF file(s) written" in capsys.readouterr().out


def test_bad_input_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main([str(RESULTS / "match" / "default-9x9"), "--games", "1-x"])
    assert "--games: '1-x'" in capsys.readouterr().err
    assert main([str(tmp_path)]) == 2
    assert "no games.jsonl" in capsys.readouterr().err
    assert main([str(RESULTS / "match" / "default-9x9"), "--out", str(tmp_path), "--variants", "nine"]) == 2
    err = capsys.readouterr().err
    assert "no games of variant nine" in err and "Traceback" not in err
