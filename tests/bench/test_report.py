import math

import json

from bench.report import (DAT_COLUMNS, DAT_KEYS, figure_dict, format_table, invert_result, plot, read_dat,
                          summarize, summary_dict, write_dat)


def record(game, winner, alternated, **extra):
    """A game record as bench.game writes it; the player is Black in even games."""
    rec = {"variant": "main", "game": game, "alternated": alternated,
           "player_colour": "w" if alternated else "b", "winner": winner,
           "result": f"{winner.upper()}+2.5" if winner else "0", "end": "passes",
           "engine_results": {"player": f"{winner.upper()}+2.5" if winner else "0", "opponent": "?"},
           "result_referee": f"{winner.upper()}+2.5" if winner else "0", "disagreement": False,
           "fault": None, "reason": None, "moves": ["C3", "pass", "pass"],
           "player_moves": 2, "player_seconds": 1.0, "player_cpu": 0.5,
           "opponent_moves": 1, "opponent_seconds": 3.0, "opponent_cpu": None}
    rec.update(extra)
    return rec


HEADER = {"Black": "Tesuji", "BlackCommand": "python -m gtp.cli gtp", "BlackLabel": "Tesuji",
          "BlackVersion": "0.1", "White": "GNU Go", "WhiteCommand": "gnugo --mode gtp",
          "WhiteLabel": "GNU Go", "WhiteVersion": "3.8", "Komi": "7", "Size": 9, "Referee": "GNU Go"}


def test_dat_file_has_the_gogui_twogtp_header_and_columns(tmp_path):
    path = tmp_path / "main.dat"
    write_dat(path, [record(1, "b", True), record(0, "b", False)], HEADER)
    lines = path.read_text().splitlines()
    keys = [line[2:].split(":")[0] for line in lines[:len(DAT_KEYS)]]
    assert keys == list(DAT_KEYS)
    assert all(line.startswith("# ") for line in lines[:len(DAT_KEYS)])
    assert lines[len(DAT_KEYS)] == "#"
    assert lines[len(DAT_KEYS) + 1] == "#GAME\tRES_B\tRES_W\tRES_R\tALT\tDUP\tLEN\tTIME_B\tTIME_W\tCPU_B\tCPU_W\tERR\tERR_MSG"
    assert "# Komi: 7" in lines and "# Size: 9" in lines and "# Xml: 0" in lines
    rows = [line.split("\t") for line in lines[len(DAT_KEYS) + 2:]]
    assert [r[0] for r in rows] == ["0", "1"]                       # sorted by game
    assert all(len(r) == len(DAT_COLUMNS) for r in rows)
    assert rows[0] == ["0", "B+2.5", "?", "B+2.5", "0", "-", "3", "1.0", "3.0", "0.5", "0.0", "0", ""]


def test_with_alternate_results_are_from_the_black_engines_point_of_view(tmp_path):
    # Game 1: colours exchanged, Black (the opponent) won on the board: the -black engine lost.
    path = tmp_path / "main.dat"
    write_dat(path, [record(0, "w", False), record(1, "b", True)], HEADER)
    header, rows = read_dat(path)
    assert header["BlackLabel"] == "Tesuji" and header["Referee"] == "GNU Go"
    assert [(r["RES_R"], r["ALT"]) for r in rows] == [("W+2.5", "0"), ("W+2.5", "1")]
    assert rows[1]["TIME_B"] == "1.0" and rows[1]["TIME_W"] == "3.0"   # columns follow the engines


def test_errors_fill_err_and_err_msg_on_one_line(tmp_path):
    fault = {"role": "player", "kind": "crash", "message": "exited\tduring 'genmove b'\n(exit code 3)"}
    records = [record(0, None, False, end="fault", result="Void", fault=fault),
               record(1, "b", True, end="illegal", result="B+F", reason="player (W) played C3: occupied")]
    path = tmp_path / "main.dat"
    write_dat(path, records, HEADER)
    _, rows = read_dat(path)
    assert rows[0]["ERR"] == "1" and rows[0]["RES_R"] == "?"
    assert rows[0]["ERR_MSG"] == "player crash: exited during 'genmove b' (exit code 3)"
    assert rows[1]["ERR"] == "1" and rows[1]["RES_B"] == "W+F"      # the -black engine forfeited
    assert "occupied" in rows[1]["ERR_MSG"]


def test_invert_result():
    assert invert_result("B+3.5") == "W+3.5"
    assert invert_result("W+R") == "B+R"
    assert invert_result("0") == "0" and invert_result("?") == "?"


def test_summary_counts_wins_draws_voids_faults_and_time_per_move():
    records = [record(0, "b", False), record(1, "b", True), record(2, None, False),
               record(3, None, True, end="fault", result="Void",
                      fault={"role": "opponent", "kind": "timeout", "message": "x"}),
               record(4, "b", False, disagreement=True)]
    s = summarize("main", records, playouts=1000)
    assert (s.games, s.wins, s.losses, s.draws, s.void) == (5, 2, 1, 1, 1)
    assert s.win_rate == 2.5 / 4
    assert s.win_low < s.win_rate < s.win_high
    assert s.faults == 1 and s.faults_by_role == {"opponent": 1} and s.disagreements == 1
    assert s.player_seconds_per_move == 5.0 / 10 and s.opponent_seconds_per_move == 15.0 / 5
    assert s.player_cpu_per_move == 2.5 / 10 and math.isnan(s.opponent_cpu_per_move)  # no CPU time read
    table = format_table([s], "title")
    assert table.splitlines()[0] == "title"
    assert "2-1-1" in table and "62.5%" in table and "1 (O1)" in table


def test_unfinished_games_are_counted_and_named_and_scored_as_recorded():
    # Game 3: two passes left regions open and the counts differed (bench.game marks it); its recorded
    # result, a loss of the player, still counts.
    open_board = dict(open_points=6, unfinished=True, disagreement=True)
    records = [record(0, "b", False), record(3, "w", False, **open_board), record(5, "b", True, **open_board),
               record(7, "b", False, open_points=4)]           # open, but every count agreed: finished
    s = summarize("main", records)
    plain = summarize("main", [{k: v for k, v in r.items() if k not in open_board} for r in records])
    assert (s.wins, s.losses, s.win_rate) == (plain.wins, plain.losses, plain.win_rate) == (2, 2, 0.5)
    assert s.unfinished == 2 and s.unfinished_games == ["main-3", "main-5"]
    assert plain.unfinished == 0 and plain.unfinished_games == []
    lines = format_table([s, summarize("other", [record(0, "b", False)])], "title").splitlines()
    assert lines[1].endswith(" unfinished")                         # the last column of an untimed table
    assert lines[2].split()[-1] == "2" and lines[3].split()[-1] == "0"
    assert [ln.split(": ")[-1] for ln in lines if ln.startswith("unfinished")] == ["main-3 main-5"]
    assert not any(ln.startswith("unfinished") for ln in format_table([plain]).splitlines())
    assert figure_dict(s, "x")["text"].endswith("; 2 unfinished")
    assert "unfinished" not in figure_dict(plain, "x")["text"]
    entry = json.loads(json.dumps(summary_dict(s)))
    assert entry["unfinished"] == 2 and entry["unfinished_games"] == ["main-3", "main-5"]


def test_summary_of_no_games_and_the_plot(tmp_path):
    empty = summarize("none", [])
    assert empty.games == 0 and math.isnan(empty.win_rate)
    swept = [summarize("p1k", [record(0, "w", False)], 1000),
             summarize("p3k", [record(0, "b", False), record(1, "w", True)], 3000), empty]
    plot(tmp_path / "w.png", swept, "sweep")
    assert (tmp_path / "w.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
