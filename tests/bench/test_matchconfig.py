import json
import textwrap
from pathlib import Path

import pytest

from bench.match import main, with_sprt
from bench.matchconfig import ConfigError, load_config, parse_config
from bench.matchrun import check_resume, settings
from bench.records import results_folder
from engine.config import MOVED as MOVED_KEYS   # records' commands give these keys their old names

GNUGO = "/usr/games/gnugo --mode gtp --level 1 --chinese-rules"


def write(tmp_path, text, name="m.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def base(**extra):
    data = {"board_size": 9, "games": 4, "player": GNUGO, "opponent": GNUGO}
    data.update(extra)
    return data


def test_a_full_config_is_read_with_defaults_filled(tmp_path):
    path = write(tmp_path, f"""
        board_size: 9
        komi: 7
        games: 6
        handicap: 2
        referee: {GNUGO}
        player:
          command: python -m gtp.cli gtp --set search.seed={{seed}}
          setup: [time_settings 0 5 1]
          timeout: 30
        opponent: {GNUGO}
        variants:
          - name: p1k
            args: --set search.playouts=1000
          - name: other
            command: /bin/other --x
            playouts: 77
    """, name="match-sweep.yaml")
    cfg = load_config(path)
    assert (cfg.name, cfg.board_size, cfg.komi, cfg.games, cfg.handicap) == ("match-sweep", 9, 7.0, 6, 2)
    assert cfg.alternate and cfg.move_limit == 3 * 81 and cfg.fault_result == "void"
    assert cfg.referee.command == GNUGO and cfg.opponent.timeout == 60.0
    p1k, other = cfg.variants
    assert p1k.player.command == "python -m gtp.cli gtp --set search.seed={seed} --set search.playouts=1000"
    assert p1k.playouts == 1000 and p1k.player.setup == ("time_settings 0 5 1",)
    assert p1k.player.timeout == 30.0
    assert other.player.command == "/bin/other --x" and other.playouts == 77
    assert p1k.player.command_for(seed=12, game=3).startswith("python -m gtp.cli gtp --set search.seed=12 ")
    assert [cfg.swapped(i) for i in range(4)] == [False, True, False, True]


def test_without_variants_the_player_is_the_one_variant():
    cfg = parse_config(base())
    assert [v.name for v in cfg.variants] == ["main"]
    assert cfg.variants[0].player == cfg.player and cfg.referee is None


@pytest.mark.parametrize("data, key", [
    (base(komii=7), "komii"),
    (base(player={"command": GNUGO, "timout": 3}), "timout"),
    (base(variants=[{"name": "a", "playout": 3}]), "playout"),
    (base(komi="seven"), "komi"),
    (base(board_size=30), "board_size"),
    (base(games=0), "games"),
    (base(games=True), "games"),
    (base(handicap=1), "handicap"),
    (base(alternate="yes"), "alternate"),
    (base(fault_result="maybe"), "fault_result"),
    (base(replay_void=-1), "replay_void"),
    (base(disputes="kgs", referee=GNUGO), "disputes"),
    (base(disputes="play"), "disputes: play needs a referee"),
    (base(player={"command": GNUGO, "timeout": -1}), "player.timeout"),
    (base(player={"label": "x"}), "player.command"),
    (base(opponent=""), "opponent.command"),
    (base(variants=[{"name": "a/b"}]), "variants[0].name"),
    (base(variants=[{"name": "a"}, {"name": "a"}]), "variants[1].name"),
    (base(variants=[{"name": "a", "setup": [""]}]), "variants[0].setup[0]"),
    ({"board_size": 9, "games": 2, "player": GNUGO}, "opponent"),
    (base(time="20 s"), "time"),
    (base(time={"system": "fischer", "main": 20}), "time.system"),
    (base(time={"main": 20}), "time.system"),
    (base(time={"system": "absolute", "main": 0}), "time.main"),
    (base(time={"system": "absolute", "main": 2.5}), "time.main"),
    (base(time={"system": "absolute", "main": 20, "periods": 3}), "'periods'"),
    (base(time={"system": "byoyomi", "main": 5, "period": 1}), "time.periods"),
    (base(time={"system": "byoyomi", "main": 5, "period": 0, "periods": 3}), "time.period"),
    (base(time={"system": "canadian", "main": -1, "period": 10, "stones": 5}), "time.main"),
    (base(time={"system": "canadian", "main": 300, "period": 10, "stones": 0}), "time.stones"),
    (base(time={"system": "canadian", "main": 300, "period": 10, "periods": 5}), "'periods'"),
    (base(sprt="0 10"), "sprt: expected a mapping"),
    (base(sprt={"elo1": 10}), "sprt.elo0"),
    (base(sprt={"elo0": 10, "elo1": 5}), "sprt.elo1"),
    (base(sprt={"elo0": 0, "elo1": 5, "alpha": 0.7}), "sprt.alpha"),
    (base(sprt={"elo0": 0, "elo1": 5, "model": "bayes"}), "sprt.model"),
    (base(sprt={"elo0": 0, "elo1": 5, "elo2": 9}), "sprt.elo2"),
    (base(openings=3), "openings: expected the path"),
    (base(openings="/nonexistent/suite.txt"), "openings: /nonexistent/suite.txt: cannot read"),
])
def test_a_bad_config_names_the_key(data, key):
    with pytest.raises(ConfigError, match=key.replace("[", r"\[").replace("]", r"\]")):
        parse_config(data)


def test_void_games_add_games_to_the_plan_up_to_replay_void():
    cfg = parse_config(base(games=4, replay_void=2))
    assert cfg.planned_games([]) == 4
    assert cfg.planned_games([1]) == 5
    assert cfg.planned_games([1, 4]) == 6                  # the replacement of game 1 was void too
    assert cfg.planned_games([1, 4, 5]) == 6               # at most replay_void more
    assert cfg.planned_games([7]) == 4                     # a void game outside the plan adds none
    assert parse_config(base(games=4)).planned_games([0, 1]) == 4   # replay_void: 0 (default) adds none


def suite(tmp_path, text="# size 9\nE5 C3\nD4\n"):
    path = tmp_path / "suite.txt"
    path.write_text(text)
    return str(path)


def test_an_sprt_and_an_opening_suite_are_read_and_pair_the_games(tmp_path):
    cfg = parse_config(base(sprt={"elo0": 0, "elo1": 50}, openings=suite(tmp_path), games=6))
    assert (cfg.sprt.elo0, cfg.sprt.elo1, cfg.sprt.alpha, cfg.sprt.model) == (0, 50, 0.05, "logistic")
    assert cfg.paired and cfg.openings == (("E5", "C3"), ("D4",))
    assert [cfg.opening(i) for i in range(6)] == [0, 0, 1, 1, 0, 0]      # the suite starts again
    assert [cfg.swapped(i) for i in range(4)] == [False, True, False, True]
    assert parse_config(base()).opening(0) is None and not parse_config(base()).paired


@pytest.mark.parametrize("extra, key", [
    ({"games": 5}, "games: must be even with openings"),
    ({"alternate": False}, "openings: pairs swap colours"),
    ({"handicap": 2}, "openings: pairs swap colours"),
])
def test_an_opening_suite_needs_whole_pairs_with_colours_swapped(tmp_path, extra, key):
    with pytest.raises(ConfigError, match=key):
        parse_config(base(openings=suite(tmp_path), **extra))


def test_a_bad_opening_suite_names_the_key_the_file_and_the_line(tmp_path):
    with pytest.raises(ConfigError, match=r"openings: .*suite.txt:3: .*E5"):
        parse_config(base(openings=suite(tmp_path, "# size 9\nE5\nE5 E5\n")))
    with pytest.raises(ConfigError, match=r"openings: .*suite.txt:2: .*not a vertex of the 9x9"):
        parse_config(base(openings=suite(tmp_path, "# size 19\nQ16 D4\n")))


def test_a_void_game_replays_its_whole_pair_within_replay_void(tmp_path):
    cfg = parse_config(base(games=4, replay_void=4, openings=suite(tmp_path)))
    assert cfg.planned_games([]) == 4
    assert cfg.planned_games([1]) == 6                     # pair 0 replaced by pair 2 (games 4, 5)
    assert cfg.planned_games([0, 1]) == 6                  # one pair, replaced once
    assert cfg.planned_games([1, 2, 5]) == 8               # pairs 0 and 1, then the replacement pair 2: the cap
    assert parse_config(base(games=4, replay_void=1, openings=suite(tmp_path))).planned_games([1]) == 4


def test_sprt_on_the_command_line_keeps_the_configs_alpha_and_names_the_option(tmp_path, capsys):
    path = write(tmp_path, f"""
        board_size: 9
        games: 2
        sprt: {{elo0: 0, elo1: 10, alpha: 0.1}}
        player: {GNUGO}
        opponent: {GNUGO}
    """)
    assert main([str(path), "--out", str(tmp_path / "run"), "--sprt", "5", "-5"]) == 2
    err = capsys.readouterr().err
    assert "--sprt: sprt.elo1" in err and "Traceback" not in err and not (tmp_path / "run").exists()
    cfg = with_sprt(load_config(path), [0, 20])
    assert (cfg.sprt.elo0, cfg.sprt.elo1, cfg.sprt.alpha) == (0, 20, 0.1) and cfg.raw["sprt"]["elo1"] == 20


def test_time_settings_are_read_for_each_system():
    assert parse_config(base()).time is None
    absolute = parse_config(base(time={"system": "absolute", "main": 20})).time
    assert (absolute.gtp_time_settings(), absolute.kgs_time_settings()) == (
        "time_settings 20 0 0", "kgs-time_settings absolute 20")
    byoyomi = parse_config(base(time={"system": "byoyomi", "main": 5, "period": 1, "periods": 3})).time
    assert (byoyomi.gtp_time_settings(), byoyomi.kgs_time_settings()) == (
        "time_settings 5 1 1", "kgs-time_settings byoyomi 5 1 3")
    canadian = parse_config(base(time={"system": "canadian", "main": 300, "period": 10, "stones": 5})).time
    assert (canadian.gtp_time_settings(), canadian.kgs_time_settings()) == (
        "time_settings 300 10 5", "kgs-time_settings canadian 300 10 5")


def test_the_command_line_reports_a_bad_key_without_a_traceback(tmp_path, capsys):
    path = write(tmp_path, f"""
        board_size: 9
        games: 2
        komi: 7
        referee_command: {GNUGO}
        player: {GNUGO}
        opponent: {GNUGO}
    """)
    assert main([str(path), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "referee_command" in err and str(path) in err and "Traceback" not in err
    assert not (tmp_path / "run").exists()


def test_unreadable_files_are_clear_errors(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(write(tmp_path, "board_size: [9\n"))
    with pytest.raises(ConfigError, match="mapping"):
        load_config(write(tmp_path, "- 1\n- 2\n"))


CONFIGS = Path(__file__).resolve().parents[2] / "bench" / "configs"
MATCHES = CONFIGS / "match"


@pytest.mark.parametrize("path", sorted(MATCHES.glob("*.yaml")), ids=lambda p: p.name)
def test_the_match_configs_of_the_repository_are_valid(path):
    cfg = load_config(path)
    assert cfg.referee is not None and all("{seed}" in v.player.command for v in cfg.variants)
    if "gnugo" in cfg.opponent.command:
        assert "--level 10" in cfg.opponent.command and "{seed}" in cfg.opponent.setup[0]
    elif "pachi" in cfg.programs:            # Pachi: seeded, one thread, a playout count or the clock
        opponent = cfg.opponent.command.split()
        assert list(cfg.programs) == ["pachi"] and opponent[0] == cfg.programs["pachi"]
        assert "{seed}" in opponent and "threads=1" in opponent and ("-t" in opponent) != (cfg.time is not None)
    else:                                    # a head-to-head run: the other Tesuji (maybe an earlier build) is seeded too
        opponent = cfg.opponent.command.split()
        assert "gtp.cli" in opponent or opponent[0] == cfg.programs.get("base")
        assert "{seed}" in cfg.opponent.command


# Configs whose first run is still to come.
UNPLAYED = {"pachi-5k-19x19.yaml", "pachi-10k-19x19.yaml", "pachi-timed-9x9.yaml",
            "gains-9x9-pbn-vs-fbt.yaml"}


@pytest.mark.parametrize("path", sorted(set(MATCHES.glob("*.yaml")) - {MATCHES / n for n in {"quick.yaml", *UNPLAYED}}),
                         ids=lambda p: p.name)
def test_a_recorded_run_is_in_its_configs_default_folder_and_would_resume_there(path):
    cfg = load_config(path)
    assert cfg.run_dir == results_folder("match", cfg.name) and (cfg.run_dir / "games.jsonl").is_file()
    recorded = (cfg.run_dir / "run.json").read_text()
    for old, new in MOVED_MODELS.items():    # the same model files (same digests), only elsewhere
        recorded = recorded.replace(old, new)
    for old, new in MOVED_KEYS.items():      # the same settings under their new keys
        recorded = recorded.replace(f"--set {old}=", f"--set {new}=")
    check_resume(json.loads(recorded)["settings"], settings(cfg), cfg.run_dir)


# Models that records played with and that left priors/models/: `make train-cited` rebuilds them there.
MOVED_MODELS = {"priors/models/dtree-t.npz": "~/.cache/tesuji/models/dtree-t.npz",
                "priors/models/dtree-tdt.npz": "~/.cache/tesuji/models/dtree-tdt.npz",
                "priors/models/spt-thesis-1.npz": "~/.cache/tesuji/models/spt-thesis-1.npz",
                "~/.cache/tesuji/fbt-pro-s02.npz": "~/.cache/tesuji/models/fbt-s02.npz"}


def test_the_timed_configs_compare_both_time_managers_on_the_clock_alone():
    for path in sorted(MATCHES.glob("timed-*.yaml")):
        cfg = load_config(path)
        assert cfg.time is not None and cfg.games >= 20, path.name
        assert [v.name for v in cfg.variants] == ["adaptive", "fixed"], path.name
        assert "time.manager=fixed" in cfg.variants[1].player.command, path.name
        assert all("search.playouts=0" in v.player.command and "search.n_threads=1" in v.player.command
                   for v in cfg.variants), path.name


def test_the_baseline_and_sweep_configs_say_what_the_experiments_need():
    nine = load_config(MATCHES / "baseline-9x9.yaml")
    assert (nine.board_size, nine.komi, nine.games, nine.variants[0].playouts) == (9, 7.0, 200, 10000)
    big = load_config(MATCHES / "baseline-19x19.yaml")
    assert (big.board_size, big.komi, big.games, big.variants[0].playouts) == (19, 7.5, 40, 10000)
    sweep = load_config(MATCHES / "sweep-9x9.yaml")
    assert [v.playouts for v in sweep.variants] == [300, 1000, 3000] and sweep.komi == 7.0
    quick = load_config(MATCHES / "quick.yaml")
    assert quick.board_size == 9 and quick.games <= 4
