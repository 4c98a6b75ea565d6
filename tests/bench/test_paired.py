import json
import math

import pytest

from bench.paired import load_games, main, mcnemar_exact, pair
from bench.gamerecords import compact_game
from bench.records import append_jsonl, results_folder


def record(game: int, winner: str | None, colour: str = "b", seed: int | None = None,
           result: str | None = None, opponent: str = "gnugo") -> dict:
    if result is None:
        result = "Void" if winner is None else f"{winner.upper()}+R"
    return {"variant": "main", "game": game, "seed": game + 1 if seed is None else seed,
            "player_colour": colour, "winner": winner, "result": result, "opponent_command": opponent}


def write_run(tmp_path, name: str, records: list[dict]):
    run = tmp_path / name
    run.mkdir()
    for r in records:
        append_jsonl(run / "games.jsonl", compact_game(r, {}))
    return run


def test_mcnemar_exact_values():
    # 34 against 1: 2 * (C(35,0) + C(35,1)) / 2^35
    assert mcnemar_exact(34, 1) == pytest.approx(72 / 2 ** 35)
    assert mcnemar_exact(1, 34) == mcnemar_exact(34, 1)
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(0, 0) == 1.0
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_pair_counts_each_kind_of_pair():
    first = {0: record(0, "b"), 1: record(1, "w", colour="b"), 2: record(2, "b"), 3: record(3, "w", colour="b"),
             4: record(4, None), 5: record(5, "b"), 6: record(6, "b")}
    second = {0: record(0, "b"), 1: record(1, "b"), 2: record(2, "w"), 3: record(3, "w"),
              4: record(4, "b"), 5: record(5, "b", colour="w")}
    p = pair(first, second)
    assert (p.both_won, p.second_only, p.first_only, p.both_lost) == (1, 1, 1, 1)
    assert (p.pairs, p.void, p.mismatched, p.missing) == (4, 1, 1, 1)
    assert p.p_value == 1.0 and p.same_opponent


def test_draws_count_half():
    first = {0: record(0, None, result="0")}
    second = {0: record(0, "w")}          # the player, Black, lost
    p = pair(first, second)
    assert (p.first_only, p.second_only, p.void) == (1, 0, 0)


def test_pairs_that_are_the_same_game_move_for_move_are_counted(tmp_path, capsys):
    moves = ["D4", "Q16", "C3"]
    first = [dict(record(0, "b"), moves=moves), dict(record(1, "w"), moves=moves)]
    second = [dict(record(0, "b"), moves=moves), dict(record(1, "w"), moves=moves[:2] + ["R4"])]
    assert main([str(write_run(tmp_path, "a", first)), str(write_run(tmp_path, "b", second))]) == 0
    assert "move for move the same game in 1 of the 2 pairs" in capsys.readouterr().out


def test_different_opponents_are_flagged(tmp_path, capsys):
    a = write_run(tmp_path, "a", [record(0, "b")])
    b = write_run(tmp_path, "b", [record(0, "w", opponent="other")])
    assert main([str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "different opponents" in out and "1 pairs" in out


def test_a_seed_in_the_opponents_command_is_no_difference(tmp_path, capsys):
    engine = "python -m gtp.cli gtp --set search.seed={}"
    a = write_run(tmp_path, "a", [record(g, "b", opponent=engine.format(g + 1)) for g in range(3)])
    b = write_run(tmp_path, "b", [record(g, "w", opponent=engine.format(g + 1)) for g in range(3)])
    assert main([str(a), str(b)]) == 0
    assert "different opponents" not in capsys.readouterr().out
    c = write_run(tmp_path, "c", [record(g, "w", opponent=engine.format(g + 2)) for g in range(3)])
    assert main([str(a), str(c)]) == 0
    assert "different opponents" in capsys.readouterr().out


def test_two_runs_of_one_folder_name_are_named_by_their_parents(tmp_path, capsys):
    (tmp_path / "league-a").mkdir()
    (tmp_path / "league-b").mkdir()
    a = write_run(tmp_path / "league-a", "gnugo-vs-default", [record(0, "b")])
    b = write_run(tmp_path / "league-b", "gnugo-vs-default", [record(0, "w")])
    assert main([str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "league-a/gnugo-vs-default against league-b/gnugo-vs-default" in out
    assert "only league-a/gnugo-vs-default won 1, only league-b/gnugo-vs-default won 0" in out


def test_json_output_and_variant_filter(tmp_path, capsys):
    a = write_run(tmp_path, "a", [record(g, "b") for g in range(6)] + [dict(record(0, "w"), variant="other")])
    b = write_run(tmp_path, "b", [record(g, "w") for g in range(6)])
    assert len(load_games(a, "other")) == 1
    assert main([str(a), str(b), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["first_only"] == 6 and out["second_only"] == 0
    assert math.isclose(out["p_value"], 2 / 64)


def test_a_variant_pairs_with_another_runs_differently_named_variant(tmp_path, capsys):
    a = write_run(tmp_path, "a", [dict(record(g, "b"), variant="spt") for g in range(3)] +
                  [dict(record(g, "w"), variant="pbn") for g in range(3)])
    b = write_run(tmp_path, "b", [record(g, "w") for g in range(3)])
    assert main([str(a), str(b), "--variant", "spt", "--second-variant", "main", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["first_only"] == 3
    assert main([str(a), str(b), "--variant", "pbn", "--second-variant", "main", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["first_only"] == 0 and out["second_only"] == 0


def test_two_variants_of_one_run_pair_and_are_named_apart(tmp_path, capsys):
    run = write_run(tmp_path, "timed", [dict(record(g, "b"), variant="adaptive") for g in range(4)] +
                    [dict(record(g, "b" if g < 2 else "w"), variant="fixed") for g in range(4)])
    assert main([str(run), str(run), "--variant", "fixed", "--second-variant", "adaptive"]) == 0
    out = capsys.readouterr().out
    assert "timed:fixed against timed:adaptive, game by game: 4 pairs" in out
    assert "both won 2, only timed:fixed won 0, only timed:adaptive won 2, both lost 0" in out


def test_missing_run_is_a_clear_error(tmp_path, capsys):
    a = write_run(tmp_path, "a", [record(0, "b")])
    assert main([str(a), str(tmp_path / "absent")]) == 2
    captured = capsys.readouterr()
    assert "no games.jsonl" in captured.err and "Traceback" not in captured.err + captured.out


def test_a_line_still_being_written_is_left_out_and_the_file_kept(tmp_path):
    run = write_run(tmp_path, "a", [record(0, "b"), record(1, "w")])
    path = run / "games.jsonl"
    path.write_text(path.read_text() + '{"variant": "main", "game": 2, "se')
    before = path.read_text()
    assert sorted(load_games(run, "main")) == [0, 1]
    assert path.read_text() == before


def test_the_recorded_19x19_runs_pair_as_bench_results_says(capsys):
    runs = results_folder("match", "mm-19x19"), results_folder("match", "baseline-19x19")
    assert main([str(runs[0]), str(runs[1]), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["pairs"], out["first_only"], out["second_only"]) == (39, 34, 1) and out["p_value"] < 2.1e-9
