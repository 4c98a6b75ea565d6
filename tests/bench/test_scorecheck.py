"""bench.scorecheck: finished match games scored again by `tesuji gtp` and compared with GnuGo's."""
import json

import pytest

from bench import records
from bench.gamerecords import compact_game
from bench.scorecheck import Check, classify, finished_games, format_table, main, open_points, recorded_claim
from tests.bench.test_records import assert_figures, assert_invocation
from tests.gtp.test_gnugo_game import TWO_PASS_MOVES


def record(game: int, **fields) -> dict:
    base = {"variant": "main", "game": game, "seed": game + 1, "board_size": 9, "komi": 7.0, "handicap_stones": [],
            "moves": [v.upper() for v in TWO_PASS_MOVES[1::2]], "end": "passes",
            "result_referee": "W+4.0", "dead_stones": ["A3", "A4", "B4"],
            "player_command": "/usr/games/gnugo --mode gtp", "opponent_command": "python -m gtp.cli gtp",
            "engine_results": {"player": "W+4.0", "opponent": "W+17"}}
    return {**base, **fields}


def write_run(path, games) -> None:
    path.mkdir()
    for game in games:
        records.append_jsonl(path / "games.jsonl", compact_game(game, {}))


def test_only_games_ended_by_passes_and_refereed_are_checked(tmp_path):
    write_run(tmp_path / "run", [record(0), record(1, end="resign"), record(2, result_referee=None)])
    assert [r["game"] for r in finished_games(tmp_path / "run")] == [0]
    assert recorded_claim(record(0)) == "W+17"               # the opponent was ours
    assert recorded_claim(record(0, opponent_command="gnugo")) is None


def test_the_two_pass_game_agrees_with_gnugo_through_gtp(tmp_path, capsys):
    write_run(tmp_path / "run", [record(0), record(1, end="resign")])
    assert main([str(tmp_path / "run")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].split() == ["run", "1", "1", "1", "1", "1", "0/1"]   # the claim recorded in the match was W+17
    assert "0 score disagreement(s)" in lines


def test_a_named_check_writes_its_counts_and_disagreements_to_a_record(tmp_path, monkeypatch):
    monkeypatch.setattr(records, "RESULTS", tmp_path / "results")
    write_run(tmp_path / "run", [record(0), record(1, result_referee="B+3.0")])
    assert main([str(tmp_path / "run"), "--name", "check"]) == 0
    folder = tmp_path / "results" / "scorecheck" / "check"
    run, saved = records.read_run(folder), records.read_summary(folder)
    assert saved["runs"] == {"run": {"finished": 2, "score_agrees": 1, "dead_agrees": 2, "closed": 2,
                                     "closed_score_agrees": 1}}
    assert saved["classes"] == {"count": 1}
    assert saved["disagreements"] == [{"game": "run/main-1", "ours": "W+4", "referee": "B+3.0", "class": "count",
                                       "reason": "same dead stones on a closed board; ours favours W by 7",
                                       "open_points": 0, "ours_dead": ["A3", "A4", "B4"],
                                       "referee_dead": ["A3", "A4", "B4"]}]
    assert run["bench"] == "scorecheck" and run["config"]["engine"].endswith("-m gtp.cli gtp")
    assert_invocation(run["invocations"][0], "python -m bench.scorecheck")
    assert run["invocations"][0]["command"].endswith("--name check")
    score, dead, closed = assert_figures(saved)
    assert (closed["key"], closed["n"], closed["value"]) == ("closed_score", 2, 0.5)
    assert (score["key"], score["value"], score["n"], score["text"][:6]) == ("score", 0.5, 2, "1 of 2")
    assert score["low"] < 0.5 < score["high"] and (dead["value"], dead["high"]) == (1.0, 1.0)
    assert "1 score disagreement(s) (count 1):" in (folder / "summary.txt").read_text()


def test_a_name_that_would_leave_the_records_folder_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--name", "../x"])
    assert "--name" in capsys.readouterr().err


def test_the_table_lists_every_disagreement_with_its_class():
    checks = [Check("a", "main-0", "B+2.0", ["C3"], "B+2", ["C3"], None),
              Check("b", "main-1", "W+0.5", [], "W+22.5", [], "W+22.5", open_points=22, kind="unfinished",
                    reason="22 open point(s); ours favours W by 22")]
    text = format_table(checks)
    assert text.splitlines()[-4].split() == ["all", "2", "1", "2", "1", "1", "0/1"]
    assert text.splitlines()[-2] == "1 score disagreement(s) (unfinished 1):"
    assert text.splitlines()[-1] == ("  b/main-1.sgf: ours W+22.5, GnuGo W+0.5; unfinished: 22 open point(s); "
                                     "ours favours W by 22; dead ours -, GnuGo -")


# White's corner group is dead in Black's area (a square four); Black's wall on row 4 closes the board.
CLOSED = """
. . O X . . . . .
. . O X . . . . .
O O O X . . . . .
X X X X X X X X X
. . . . . . . . .
X X X X X X X X X
O O O O O O O O O
. . . . . . . . .
. . . . . . . . .
"""


def test_open_points_count_the_regions_reaching_both_colours_but_a_seki():
    from engine.board import Board
    board = Board.from_ascii(CLOSED)
    assert open_points(board, ["A7", "B7", "C7", "C8", "C9"], []) == 0
    assert open_points(board, [], []) == 0                 # White's eyes touch White only
    board.setup(empty=[board.point(3, c) for c in range(9)])
    assert open_points(board, [], []) == 18                # rows 4 and 5 reach both colours
    assert open_points(board, [], ["A3", "B3"]) == 16      # A4 and B4 are beside seki stones


def test_a_disagreement_is_classed_by_open_points_and_the_reading():
    from engine.board import Board
    board = Board.from_ascii(CLOSED)
    wrong = Check("r", "main-0", "B+50.0", ["A7", "B7", "C7", "C8", "C9"], "B+40", [], None)
    assert classify(board, wrong) == ("ours wrong", "as GnuGo counts: A7 (gnugo); ours favours W by 10")
    right = Check("r", "main-0", "B+40.0", [], "B+50", ["A7", "B7", "C7", "C8", "C9"], None)
    assert classify(board, right)[0] == "GnuGo wrong"
    # a lone White stone in Black's open area, which the reading leaves alone: the playouts judge it
    board.setup(white=[board.point(1, 4)], empty=[board.point(2, c) for c in range(9)])
    loose = Check("r", "main-0", "B+50.0", ["A7", "B7", "C7", "C8", "C9", "E2"], "B+40", ["A7", "B7", "C7", "C8", "C9"],
                  None)
    assert classify(board, loose) == ("ours wrong", "as GnuGo counts: E2 (gnugo by playouts); ours favours W by 10")
    same = Check("r", "main-0", "B+40.0", [], "B+41", [], None)
    assert classify(board, same) == ("count", "same dead stones on a closed board; ours favours B by 1")
    opened = Check("r", "main-0", "B+40.0", [], "B+41", [], None, open_points=3)
    assert classify(board, opened) == ("unfinished", "3 open point(s); ours favours B by 1")
