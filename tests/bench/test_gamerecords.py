"""bench.gamerecords: a game's compact games.jsonl line, and the whole record read back from it."""
from bench.gamerecords import compact_game, expand_game


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
