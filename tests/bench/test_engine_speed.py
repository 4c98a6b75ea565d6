"""bench.engine_speed: GTP engines timed on genmove at fixed playouts, and the ratio to a reference engine."""
import json
import sys
import textwrap
from pathlib import Path

import pytest

from bench import engine_speed
from bench.engine_speed import figures, parse_config
from engine.configfile import ConfigError

FAKE = f"{sys.executable} {Path(__file__).with_name('fake_engine.py')}"


def config(**more):
    data = {"sizes": [5], "playouts": 300, "reference": "b",
            "engines": [{"name": "a", "command": "{pachi} --moves {playouts}"}, {"name": "b", "command": FAKE}]}
    return {**data, **more}


def test_the_commands_get_the_playouts_and_the_programs_path():
    cfg = parse_config(config(), "s", {"pachi": "/x/pachi"})
    assert cfg.engines == {"a": "/x/pachi --moves 300", "b": FAKE}
    assert cfg.programs == {"pachi": "/x/pachi"} and cfg.komi == {5: 7.5}


@pytest.mark.parametrize("change, message", [
    ({"reference": "c"}, "reference: 'c' is not an engine's name"),
    ({"engines": [{"name": "a"}]}, r"engines\[0\]: expected a mapping of a name and a command"),
    ({"sizes": [30]}, "sizes: must be 2..25"),
    ({"repeats": 0}, "repeats: must be >= 1"),
    ({"speed": 1}, "unknown key 'speed'"),
])
def test_bad_settings_are_errors_naming_the_key(change, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(config(**change), "s", {"pachi": "/x/pachi"})


def test_figures_are_the_medians_and_their_ratio_to_the_reference():
    cfg = parse_config(config(), "s", {"pachi": "/x/pachi"})
    found = {f["key"]: f for f in figures(cfg, {"5": {"a": [300.0, 900.0, 600.0], "b": [200.0, 100.0, 300.0]}})}
    assert found["a/5"]["value"] == 600.0 and found["a/5"]["n"] == 3 and found["a/5"]["unit"] == "playouts/s"
    assert found["b/5"]["value"] == 200.0
    assert found["a-vs-b/5"]["value"] == 3.0 and "b-vs-b/5" not in found


def test_a_run_times_every_engine_and_writes_the_record(tmp_path):
    path = tmp_path / "fake.yaml"
    path.write_text(textwrap.dedent(f"""
        sizes: [5, 7]
        playouts: 100
        repeats: 2
        reference: slow
        engines:
          - {{name: quick, command: "{FAKE}"}}
          - {{name: slow, command: "{FAKE} --sleep 0.5"}}
    """))
    assert engine_speed.main([str(path), "--out", str(tmp_path / "out")]) == 0
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    found = {f["key"]: f["value"] for f in summary["figures"]}
    assert set(found) == {"quick/5", "slow/5", "quick-vs-slow/5", "quick/7", "slow/7", "quick-vs-slow/7"}
    assert found["slow/7"] < 100 / 0.5 and found["quick-vs-slow/7"] > 5     # slow: half a second a move
    assert json.loads((tmp_path / "out" / "run.json").read_text())["bench"] == "speed"


def test_a_missing_program_is_a_clear_error(tmp_path, capsys):
    path = tmp_path / "p.yaml"
    path.write_text("engines:\n  - {name: pachi, command: '{pachi} -t ={playouts}'}\n")
    assert engine_speed.main([str(path), "--program", f"pachi={tmp_path}/pachi", "--out", str(tmp_path / "o")]) == 2
    assert f"program 'pachi': no executable at {tmp_path}/pachi" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
