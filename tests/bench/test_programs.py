"""External programs named by placeholder ({pachi}) in match and league configs: the path setting, and the
clear error of a program that is not there."""
import os
import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from bench import league, match, programs
from bench.matchconfig import ConfigError, load_config

FAKE = Path(__file__).with_name("fake_engine.py")
GNUGO = "/usr/games/gnugo --mode gtp --level 1 --chinese-rules"


def write(tmp_path, text, name="m.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def pachi_match(tmp_path):
    return write(tmp_path, f"""
        name: against-pachi
        board_size: 5
        komi: 0.5
        games: 2
        player: {GNUGO}
        opponent:
          label: Pachi
          command: "{{pachi}} -d 0 -s {{seed}} -t =100 threads=1"
    """)


def test_paths_default_to_the_home_cache_and_take_overrides():
    assert programs.paths()["pachi"] == str(Path.home() / ".cache/pachi/pachi-12.90/pachi")
    assert programs.paths(["pachi=~/bin/pachi"])["pachi"] == str(Path.home() / "bin/pachi")
    with pytest.raises(programs.ProgramError, match="NAME=PATH"):
        programs.paths(["pachi"])
    with pytest.raises(programs.ProgramError, match="no program named 'pachy'"):
        programs.paths(["pachy=/x"])


def test_a_path_that_is_a_link_is_followed_to_the_build_it_names(tmp_path):
    build = tmp_path / "0123abcd" / "tesuji"
    build.parent.mkdir()
    build.write_text("#!/bin/sh\n")
    (tmp_path / "tesuji").symlink_to("0123abcd/tesuji")
    assert programs.paths([f"base={tmp_path / 'tesuji'}"])["base"] == str(build.resolve())
    assert programs.paths()["base"] == os.path.realpath(Path.home() / ".cache/tesuji/base/tesuji")


def test_resolve_fills_in_the_programs_path_quoted_and_leaves_the_game_placeholders():
    command = programs.resolve("{pachi} -s {seed} -t =100", {"pachi": "/opt/my engines/pachi"})
    assert shlex.split(command) == ["/opt/my engines/pachi", "-s", "{seed}", "-t", "=100"]


def test_a_config_names_the_program_by_placeholder_and_keeps_it_in_its_raw_mapping(tmp_path):
    cfg = load_config(pachi_match(tmp_path), {"pachi": "/x/pachi"})
    assert cfg.opponent.command == "/x/pachi -d 0 -s {seed} -t =100 threads=1"
    assert cfg.opponent.command_for(seed=7, game=0).startswith("/x/pachi -d 0 -s 7 ")
    assert cfg.programs == {"pachi": "/x/pachi"}
    assert cfg.raw["opponent"]["command"].startswith("{pachi} ")
    assert load_config(pachi_match(tmp_path)).programs == {"pachi": programs.paths()["pachi"]}


def test_an_unknown_placeholder_is_an_error_naming_the_key(tmp_path):
    path = write(tmp_path, f"""
        board_size: 5
        games: 2
        player: {GNUGO}
        opponent: "{{pachy}} -t =100"
    """)
    known = r"\(known: \{seed\}, \{game\}, \{pachi\}, \{base\}\)"
    with pytest.raises(ConfigError, match=r"opponent: unknown placeholder \{pachy\} " + known):
        load_config(path)


def test_a_missing_program_stops_the_match_before_any_engine_starts(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "pachi"
    out = tmp_path / "run"
    assert match.main([str(pachi_match(tmp_path)), "--program", f"pachi={missing}", "--out", str(out),
                       "--no-progress"]) == 2
    error = capsys.readouterr().err
    assert f"program 'pachi': no executable at {missing}" in error
    assert "--program pachi=PATH" in error and "make PACHI=PATH" in error and "`make pachi`" in error
    assert not (out / "run.json").exists() and not (out / "games.jsonl").exists()


def test_a_missing_earlier_build_of_the_engine_names_its_setting_and_make_base(tmp_path, capsys):
    config = Path(__file__).resolve().parents[2] / "bench/configs/match/ladder-sprt-9x9.yaml"
    missing = tmp_path / "base" / "tesuji"
    out = tmp_path / "run"
    assert match.main([str(config), "--program", f"base={missing}", "--out", str(out), "--no-progress"]) == 2
    error = capsys.readouterr().err
    assert f"program 'base': no executable at {missing}" in error
    assert "--program base=PATH" in error and "make BASE=PATH" in error and "`make base COMMIT=<rev>`" in error
    assert not (out / "run.json").exists()


def test_a_bad_program_option_is_a_clear_error(tmp_path, capsys):
    assert match.main([str(pachi_match(tmp_path)), "--program", "pachi"]) == 2
    assert "--program: expected NAME=PATH, got 'pachi'" in capsys.readouterr().err


@pytest.mark.usefixtures("gnugo_binary")
def test_a_program_that_is_there_is_probed_as_any_engine(tmp_path):
    # The fake engine through the placeholder: {pachi} is the Python interpreter, the script its argument.
    path = write(tmp_path, f"""
        board_size: 5
        games: 2
        player: {GNUGO}
        opponent: "{{pachi}} {FAKE}"
    """)
    cfg = load_config(path, {"pachi": sys.executable})
    run = match.Run(cfg, tmp_path / "run")
    run._probe_engines()
    assert run.info["opponent"].command == f"{shlex.quote(sys.executable)} {FAKE}"


def test_a_league_with_a_missing_program_is_refused_naming_it(tmp_path, capsys):
    path = write(tmp_path, f"""
        board_size: 5
        komi: 0.5
        games: 2
        engines:
          - name: gnugo
            command: {GNUGO}
          - name: pachi
            command: "{{pachi}} -t =100"
    """, "league.yaml")
    missing = tmp_path / "pachi"
    cfg = league.load_config(str(path), {"pachi": str(missing)})
    assert cfg.pairs[0].match.opponent.command == f"{missing} -t =100"
    assert league.main([str(path), "--program", f"pachi={missing}", "--out", str(tmp_path / "run"),
                        "--no-progress"]) == 2
    assert f"no executable at {missing}" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["9x9", "19x19"])
def test_pachi_plays_in_the_shipped_leagues(name):
    root = Path(__file__).resolve().parents[2]
    cfg = league.load_config(str(root / "bench/configs/league" / f"{name}.yaml"), {"pachi": "/x/pachi"})
    with_pachi = [p for p in cfg.pairs if "pachi" in (p.player, p.opponent)]
    assert {p.player if p.opponent == "pachi" else p.opponent for p in with_pachi} == set(cfg.names) - {"pachi"}
    assert all(p.match.programs == {"pachi": "/x/pachi"} for p in with_pachi)
