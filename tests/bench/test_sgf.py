"""bench.sgf: SGFs rebuilt from the compact records equal the files once committed."""
import subprocess

import pytest

from bench.gamerecords import read_games
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
