"""The league: its configuration's errors, how pairs are formed, and a short real round robin of GnuGos."""
import json
import shlex
import textwrap
from operator import attrgetter

import numpy as np
import pytest
import yaml

from bench.league import format_ratings, load_config, main, parse_league
from bench.gamerecords import read_games
from bench.records import read_run, read_summary
from bench.sgf import main as sgf_main
from bench.matchconfig import ConfigError
from bench.ratings import fit
from tests.bench.test_matchconfig import CONFIGS
from engine.config import load_config as engine_config

GNUGO = "/usr/games/gnugo --mode gtp --level 0 --chinese-rules"
ENGINES = f"""
    engines:
      - name: a
        command: {GNUGO}
        setup: ["set_random_seed {{seed}}"]
      - name: b
        command: {GNUGO}
      - name: b-h2
        command: {GNUGO}
        handicap: 2
"""


def league(text: str = "", engines: str = ENGINES) -> dict:
    return yaml.safe_load(textwrap.dedent("board_size: 7\nkomi: 0.5\ngames: 2\n" + text) + textwrap.dedent(engines))


def test_all_pairs_but_two_handicapped_engines_and_the_handicapped_one_takes_black():
    data = league("anchor: a\n", ENGINES + "      - name: a-h3\n        command: x\n        handicap: 3\n        komi: 6.5\n")
    cfg = parse_league(data)
    assert [(p.player, p.opponent) for p in cfg.pairs] == [
        ("a", "b"), ("b-h2", "a"), ("a-h3", "a"), ("b-h2", "b"), ("a-h3", "b")]
    even, handicap = cfg.pairs[0].match, cfg.pairs[4].match
    assert (even.handicap, even.alternate, even.komi) == (0, True, 0.5)
    assert (handicap.handicap, handicap.alternate, handicap.komi) == (3, False, 6.5)
    assert handicap.player.label == "a-h3" and handicap.opponent.command == GNUGO
    assert cfg.anchor == "a"
    assert parse_league(league()).anchor == "b-h2"           # the last engine by default


@pytest.mark.parametrize("text, engines, message", [
    ("anchor: z\n", ENGINES, "anchor: 'z' is not an engine's name"),
    ("pairs: [[b, b-h2], [b-h2, b]]\n", ENGINES, "pairs[1]: b-h2 and b are paired twice"),
    ("pairs: [[a, c]]\n", ENGINES, "pairs[0]: expected two different engine names"),
    ("rounds: 2\n", ENGINES, "unknown key 'rounds'"),
    ("", ENGINES.replace("handicap: 2", "handicap: 1"), "engines[2].handicap: must be 0 or 2..9"),
    ("", ENGINES.replace("name: b\n", "name: a\n"), "engines[1].name: must be unique"),
    ("", ENGINES.replace(f"command: {GNUGO}\n        setup", "label: A\n        setup"),
     "engines[0].command: required key missing"),
    ("", ENGINES.replace("      - name: b\n", "      - name: b\n        timeout: -1\n"), "engines[1].timeout"),
    ("jobs: 0\n", ENGINES, "jobs"),
    ("", ENGINES.replace("handicap: 2\n", "handicap: 2\n        games: 0\n"), "engines[2].games: must be >= 1"),
])
def test_bad_leagues_name_the_key(text, engines, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_league(league(text, engines))


def test_an_engine_with_its_own_games_sets_them_for_each_of_its_pairs_only():
    cfg = parse_league(league("", ENGINES.replace("handicap: 2\n", "handicap: 2\n        games: 5\n")))
    assert {(p.player, p.opponent): p.match.games for p in cfg.pairs} == {
        ("a", "b"): 2, ("b-h2", "a"): 5, ("b-h2", "b"): 5}
    both = league("", ENGINES.replace("name: a\n", "name: a\n        games: 7\n")
                  .replace("handicap: 2\n", "handicap: 2\n        games: 5\n"))
    assert {(p.player, p.opponent): p.match.games for p in parse_league(both).pairs} == {
        ("a", "b"): 7, ("b-h2", "a"): 7, ("b-h2", "b"): 5}      # the larger where both engines give one
    points = np.array([[0.0, 1, 3], [1, 0, 2], [2, 3, 0]])
    text = format_ratings(cfg, fit(cfg.names, points, "a"), points, np.zeros_like(points))
    assert "2 to 5 games per pair" in text.splitlines()[0]


def test_the_leagues_sprt_and_openings_apply_to_every_pair(tmp_path):
    suite = tmp_path / "suite.txt"
    suite.write_text("# size 7\nD4 C3\n")
    even = ENGINES.replace("      - name: b-h2\n        command: " + GNUGO + "\n        handicap: 2\n", "")
    cfg = parse_league(league(f"sprt: {{elo0: 0, elo1: 50}}\nopenings: {suite}\n", even))
    assert [(p.match.sprt.elo1, p.match.openings) for p in cfg.pairs] == [(50, (("D4", "C3"),))]
    with pytest.raises(ConfigError, match="openings: pairs swap colours"):     # a handicap pair cannot
        parse_league(league(f"openings: {suite}\n"))


def test_two_handicapped_engines_may_not_be_paired(tmp_path):
    data = league("pairs: [[b-h2, a-h2]]\n", ENGINES + f"      - name: a-h2\n        command: {GNUGO}\n        handicap: 2\n")
    with pytest.raises(ConfigError, match="both engines take a handicap"):
        parse_league(data)
    path = tmp_path / "l.yaml"
    path.write_text("engines: [")
    with pytest.raises(ConfigError, match="l.yaml: not valid YAML"):
        load_config(str(path))


@pytest.mark.usefixtures("gnugo_binary")
def test_a_short_real_league_rates_every_engine_and_resumes(tmp_path, capsys):
    config = tmp_path / "tiny.yaml"
    config.write_text(textwrap.dedent("board_size: 7\nkomi: 0.5\ngames: 2\njobs: 2\nanchor: a\n") + textwrap.dedent(ENGINES))
    out = tmp_path / "run"
    assert main([str(config), "--out", str(out), "--no-progress"]) == 0
    for pair in ("a-vs-b", "b-h2-vs-a", "b-h2-vs-b"):
        games = list(read_games(out / pair).values())
        assert len(games) == 2 and all(g["result"] != "Void" for g in games)
        assert (out / pair / "main.dat").exists()
        assert read_run(out / pair)["bench"] == "match"
    handicap_games = read_games(out / "b-h2-vs-a").values()
    assert all(g["handicap"] == 2 and g["player_colour"] == "b" for g in handicap_games)
    rated = read_summary(out)
    assert {r["name"] for r in rated["ratings"]} == {"a", "b", "b-h2"}
    assert next(r for r in rated["ratings"] if r["name"] == "a")["elo"] == 0
    points = rated["points"]
    assert sum(map(sum, points)) == 6                        # every game's point, and no more
    figures = {f["key"]: f for f in rated["figures"]}
    assert set(figures) == {"a", "b", "b-h2", "a-vs-b", "b-h2-vs-a", "b-h2-vs-b"}
    assert figures["a"]["unit"] == "Elo" and figures["a-vs-b"]["n"] == 2
    assert figures["a-vs-b"]["value"] == points[0][1] / 2
    assert (out / "ratings.png").stat().st_size > 0
    league = read_run(out)
    assert league["bench"] == "league" and len(league["invocations"]) == 1 and league["config"]["anchor"] == "a"
    assert "League tiny" in capsys.readouterr().out
    before = {name: (out / "a-vs-b" / name).read_text() for name in ("games.jsonl", "run.json", "main.dat")}
    started = json.loads(before["run.json"])["invocations"][0]["date"]
    assert f"# Date: {started}\n" in before["main.dat"]        # the .dat's Date is when the run began
    assert main([str(config), "--out", str(out), "--no-progress"]) == 0    # resumes: nothing to play
    assert {name: (out / "a-vs-b" / name).read_text() for name in before} == before   # finished pairs untouched
    assert len(read_run(out)["invocations"]) == 1                           # nor the league's run.json
    assert main([str(config), "--out", str(out), "--rate-only"]) == 0
    assert (out / "summary.txt").read_text().splitlines()[0] in capsys.readouterr().out
    assert sgf_main([str(out), "--out", str(tmp_path / "sgf")]) == 0         # every pair's SGFs
    assert len(list((tmp_path / "sgf").glob("*/main-*.sgf"))) == 6


@pytest.mark.parametrize("path", sorted((CONFIGS / "league").glob("*.yaml")), ids=lambda p: p.name)
def test_the_league_configs_of_the_repository_are_valid_down_to_each_engine_setting(path):
    cfg = load_config(str(path))
    for entry in cfg.entries:
        words = shlex.split(entry.engine["command"])
        if "gtp.cli" in words:                   # a Tesuji: its settings load as the engine would
            overrides = [words[i + 1].format(seed=7) for i, w in enumerate(words) if w == "--set"]
            engine_config(None, overrides)
            assert "search.seed=7" in overrides    # seeded per game


def test_the_19x19_league_lists_the_pairs_that_all_would_give_with_the_same_sides():
    path = CONFIGS / "league" / "19x19.yaml"
    data = yaml.safe_load(path.read_text())
    listed = load_config(str(path)).pairs
    data.pop("pairs")
    every = parse_league(data, "league-19x19").pairs
    sides = attrgetter("player", "opponent")
    assert sorted(listed, key=sides) == sorted(every, key=sides)      # the same sides, seeds and settings
