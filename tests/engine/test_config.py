import dataclasses
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import engine.config
from engine.config import (MOVED, SECTIONS, ConfigError, apply_override, default_yaml, knobs, load_config,
                           presets)
from engine.knobs import Bound
from engine.params import EngineParams, PlayoutParams, ReadingParams, SearchParams, TacticsParams

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "configs" / "default.yaml"


def write(tmp_path, text: str) -> str:
    path = tmp_path / "engine.yaml"
    path.write_text(text)
    return str(path)


def test_no_file_gives_defaults():
    assert load_config(None, []) == EngineParams()


def test_default_yaml_is_the_defaults():
    assert load_config(str(DEFAULT), []) == EngineParams()


def test_default_yaml_documents_every_key():
    raw = yaml.safe_load(DEFAULT.read_text())
    for section, cls in SECTIONS.items():
        assert set(raw[section]) == {f.name for f in dataclasses.fields(cls)}, section
    top = {f.name for f in dataclasses.fields(EngineParams)}
    assert set(raw) == top
    lines = [ln for ln in DEFAULT.read_text().splitlines() if ":" in ln and not ln.lstrip().startswith("#")]
    undocumented = [ln for ln in lines if "#" not in ln and not ln.rstrip().endswith(":")]
    assert undocumented == []


def test_default_yaml_is_generated_from_the_knobs():
    # Out of date: python -m engine.config --write-default (make default-config)
    assert DEFAULT.read_text() == default_yaml()


def test_write_default_writes_the_generated_file(tmp_path):
    out = tmp_path / "default.yaml"
    assert engine.config.main(["--write-default", str(out)]) == 0
    assert out.read_text() == default_yaml()
    assert load_config(str(out)) == EngineParams()


def test_every_knob_declares_its_meaning_and_a_sound_bound():
    for key, f in knobs().items():
        assert f.metadata["doc"].strip(), key
        bound = f.metadata["bound"]
        assert bound is None or isinstance(bound, Bound), key
        if bound is not None:
            assert bound.check(f.default) is None, key   # the default is allowed


def just_outside(bound: Bound, kind: type):
    """A value the bound refuses, or None when it has no numeric end."""
    step = 1 if kind is int else 1e-3
    if bound.low is not None:
        return kind(bound.low) if bound.low_open else kind(bound.low - step) if kind is float else int(bound.low) - 1
    if bound.high is not None:
        return kind(bound.high) if bound.high_open else bound.high + step if kind is float else int(bound.high) + 1
    return None


@pytest.mark.parametrize("key", [k for k, f in knobs().items()
                                 if f.metadata["bound"] is not None and not f.metadata["bound"].choices
                                 and f.type in ("int", "float")])
def test_bounds_come_from_the_table(key):
    f = knobs()[key]
    value = just_outside(f.metadata["bound"], int if f.type == "int" else float)
    rule = f.metadata["bound"].check(value)
    assert rule is not None
    with pytest.raises(ConfigError, match="^" + re.escape(f"{key}: {rule}, got {value!r}")):
        load_config(None, [f"{key}={value}"])


def test_every_solver_setting_is_a_reading_key_of_the_same_name(tmp_path):
    # tests/gtp/test_tactics_commands.py sets each one to a new value through YAML, --set and bps_config
    names = [f.name for f in dataclasses.fields(TacticsParams)]
    assert [f.name for f in dataclasses.fields(ReadingParams)] == names + ["prior"]
    values = {name: getattr(ReadingParams(), name) for name in names}
    overrides = [f"reading.{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in values.items()]
    assert load_config(None, overrides) == EngineParams()
    assert load_config(write(tmp_path, yaml.safe_dump({"reading": values})), []) == EngineParams()
    assert load_config(None, ["reading.max_nodes=5000"]).reading == ReadingParams(max_nodes=5000)


def test_file_sections_and_top_level(tmp_path):
    path = write(tmp_path, "name: Shodan\nsearch:\n  playouts: 500\n  reuse_tree: false\n"
                           "playout:\n  capture_rate: 50\nprior:\n  name: mm\n")
    params = load_config(path, [])
    assert params == EngineParams(
        search=SearchParams(playouts=500, reuse_tree=False),
        playout=PlayoutParams(capture_rate=50),
        prior=dataclasses.replace(EngineParams().prior, name="mm"),
        name="Shodan")
    assert isinstance(load_config(write(tmp_path, "search:\n  temperature: 2\n")).search.temperature, float)


def test_presets_are_the_files_of_configs_with_their_first_comment_line():
    found = presets()
    assert list(found) == sorted(f.stem for f in (ROOT / "configs").iterdir())
    assert {"default", "fbt", "mm", "none"} <= set(found)
    for name, description in found.items():
        text = (ROOT / "configs" / f"{name}.yaml").read_text()
        assert text.startswith(f"# {description}\n")
        assert load_config(None, preset=name) == load_config(str(ROOT / "configs" / f"{name}.yaml"))
    assert load_config(None, preset="default") == EngineParams()
    assert load_config(None, preset="fbt").prior.name == "fbt"


def test_every_yaml_file_of_the_folder_is_a_preset_and_a_bad_one_says_why(tmp_path, monkeypatch):
    (tmp_path / "blitz.yaml").write_text("# Fast games.\nsearch:\n  playouts: 100\n")
    (tmp_path / "broken.yaml").write_text("# Not an engine configuration.\ndata:\n  archives: [a.tar.xz]\n")
    (tmp_path / "notes.txt").write_text("# not YAML\n")
    monkeypatch.setattr(engine.config, "preset_folder", lambda: tmp_path)
    assert presets() == {"blitz": "Fast games.", "broken": "Not an engine configuration."}
    assert load_config(None, ["search.n_threads=2"], preset="blitz").search == SearchParams(playouts=100, n_threads=2)
    with pytest.raises(ConfigError, match="^data: unknown key"):
        load_config(None, preset="broken")


@pytest.mark.parametrize("name", ["nope", "../configs/fbt", "notes"])
def test_unknown_preset_names_the_known_ones(name):
    with pytest.raises(ConfigError) as error:
        load_config(None, preset=name)
    assert str(error.value) == f"--preset {name}: unknown preset; known presets: {', '.join(presets())}"


def test_config_file_and_preset_are_exclusive():
    with pytest.raises(ConfigError, match="^--config and --preset: give one or the other$"):
        load_config("engine.yaml", preset="fbt")


def test_empty_file_and_empty_section(tmp_path):
    assert load_config(write(tmp_path, ""), []) == EngineParams()
    assert load_config(write(tmp_path, "search:\n"), []) == EngineParams()


def test_overrides_follow_yaml_scalars_and_apply_in_order(tmp_path):
    path = write(tmp_path, "search:\n  n_threads: 4\n")
    params = load_config(path, ["search.n_threads=2", "search.reuse_tree=false", "search.temperature=0.5",
                                "name=Tesuji-test", "search.n_threads=3", "time.main_time=60"])
    assert params.search.n_threads == 3
    assert params.search.reuse_tree is False
    assert params.search.temperature == 0.5
    assert params.time.main_time == 60.0 and isinstance(params.time.main_time, float)
    assert params.name == "Tesuji-test"


def test_apply_override_returns_a_new_object():
    base = EngineParams()
    changed = apply_override(base, "playout.max_moves=200")
    assert changed.playout.max_moves == 200
    assert base.playout.max_moves == 0


@pytest.mark.parametrize("yaml_text, message", [
    ("search:\n  n_thread: 2\n", "search.n_thread: unknown key"),
    ("searhc:\n  n_threads: 2\n", "searhc: unknown key"),
    ("search: 3\n", "search: expected a mapping"),
    ("search:\n  n_threads: two\n", "search.n_threads: expected an integer"),
    ("search:\n  n_threads: 2.5\n", "search.n_threads: expected an integer"),
    ("search:\n  n_threads: true\n", "search.n_threads: expected an integer"),
    ("search:\n  n_threads: -1\n", "search.n_threads: must be >= 0"),
    ("search:\n  playouts: -1\n", "search.playouts: must be >= 0"),
    ("search:\n  reuse_tree: 1\n", "search.reuse_tree: expected true or false"),
    ("search:\n  resign_threshold: 1.5\n", "search.resign_threshold: must be <= 1"),
    ("search:\n  score_weight: 0.6\n", "search.score_weight: must be <= 0.5"),
    ("search:\n  handicap_komi: 21\n", "search.handicap_komi: must be <= 20"),
    ("search:\n  handicap_komi_moves: -1\n", "search.handicap_komi_moves: must be >= 0"),
    ("search:\n  handicap_margin_step: -1\n", "search.handicap_margin_step: must be >= 0"),
    ("playout:\n  capture_rate: 101\n", "playout.capture_rate: must be <= 100"),
    ("playout:\n  self_atari_rate: -5\n", "playout.self_atari_rate: must be >= 0"),
    ("search:\n  temperature: 0\n", "search.temperature: must be > 0"),
    ("search:\n  temperature: .nan\n", "search.temperature: expected a finite number"),
    ("search:\n  additive_shape: cube\n", "search.additive_shape: must be one of inv_sqrt, inv"),
    ("prior:\n  name: 3\n", "prior.name: expected a string"),
    ("prior:\n  name: ''\n", "prior.name: must not be empty"),
    ("name: \"two\\nlines\"\n", "name: must be a single line"),
    ("time:\n  moves_left_min: 0\n", "time.moves_left_min: must be >= 1"),
    ("search:\n  n_threads: [1, 2]\n", "search.n_threads: expected an integer"),
    ("search: [1, 2]\n", "search: expected a mapping"),
    ("playout:\n  max_moves: 5000\n", "playout.max_moves: must be <= 1000"),
    ("reading:\n  method: alphabeta\n", "reading.method: must be one of pp, pns, got 'alphabeta'"),
    ("reading:\n  max_nodes: 0\n", "reading.max_nodes: must be a positive integer, got 0"),
    ("reading:\n  max_nodes: 20000000\n", "reading.max_nodes: must be <= 10000000"),
    ("reading:\n  max_depth: 1024\n", "reading.max_depth: must be below 1024"),
    ("reading:\n  move_gen: everywhere\n", "reading.move_gen: must be one of region, local"),
    ("reading:\n  l_start: -1\n", "reading.l_start: must be an integer >= 0"),
    ("reading:\n  prior_p: 0.0\n", "reading.prior_p: must be in (0, 1)"),
    ("reading:\n  branching_weight: -1\n", "reading.branching_weight: must be finite and >= 0"),
    ("reading:\n  depth_decay: -1\n", "reading.depth_decay: must be finite and >= 0"),
    ("reading:\n  defender_reach: 3\n", "reading.defender_reach: must be 1 or 2"),
    ("reading:\n  ko_results: 1\n", "reading.ko_results: expected true or false"),
    ("reading:\n  prior: ''\n", "reading.prior: must not be empty"),
    ("reading:\n  budget: 5000\n", "reading.budget: unknown key"),        # the old names are errors
    ("reading:\n  decay: 1\n", "reading.decay: unknown key"),
    ("reading:\n  branching: 1\n", "reading.branching: unknown key"),
])
def test_bad_files_name_the_key(tmp_path, yaml_text, message):
    with pytest.raises(ConfigError, match="^" + re.escape(message)):
        load_config(write(tmp_path, yaml_text), [])


@pytest.mark.parametrize("override, message", [
    ("search.n_thread=2", "search.n_thread: unknown key"),
    ("search.n_threads=-2", "search.n_threads: must be >= 0"),
    ("search.n_threads=two", "search.n_threads: expected an integer"),
    ("search.n_threads=", "search.n_threads: expected an integer"),
    ("search.reuse_tree=yes please", "search.reuse_tree: expected true or false"),
    ("bogus.key=1", "bogus: unknown key"),
    ("nonsense=1", "nonsense: unknown key"),
    ("search=1", "search: is a section"),
    ("search.n_threads", "search.n_threads: expected key=value"),
    ("=3", "=3: expected key=value"),
    ("search.n_threads=[1", "search.n_threads: cannot parse value"),
    ("search.n_threads={a: 1}", "search.n_threads: expected a single value"),
    ("playout.pattern_rate=200", "playout.pattern_rate: must be <= 100"),
    ("reading.budget=5000", "reading.budget: unknown key"),
    ("reading.max_nodes=-1", "reading.max_nodes: must be a positive integer, got -1"),
    ("reading.counter_slack=-1", "reading.counter_slack: must be an integer >= 0"),
])
def test_bad_overrides_name_the_key(override, message):
    with pytest.raises(ConfigError, match="^" + re.escape(message)):
        load_config(None, [override])


def test_missing_and_malformed_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(str(tmp_path / "missing.yaml"), [])
    with pytest.raises(ConfigError, match="engine.yaml: not valid YAML at line 2: mapping values"):
        load_config(write(tmp_path, "search:\n  n_threads: 2: 3\n"), [])
    with pytest.raises(ConfigError, match="engine.yaml: expected a mapping of sections and keys"):
        load_config(write(tmp_path, "- 1\n- 2\n"), [])


def test_yaml_tags_are_not_executed(tmp_path):
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(write(tmp_path, "name: !!python/object/apply:os.system ['true']\n"), [])


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gtp.cli", *args], cwd=cwd, input=b"", capture_output=True,
                          timeout=60, env=dict(os.environ, PYTHONPATH=str(ROOT)))


@pytest.mark.parametrize("args, message", [
    (["gtp", "--set", "search.n_thread=2"], "tesuji: search.n_thread: unknown key"),
    (["gtp", "--config", "/nonexistent/tesuji.yaml"], "tesuji: /nonexistent/tesuji.yaml: cannot read config file"),
    (["gtp", "--set", "playout.capture_rate=300"], "tesuji: playout.capture_rate: must be <= 100"),
    (["gtp", "--set", "reading.prior=/nonexistent/leaf.npz"],
     "tesuji: reading.prior: /nonexistent/leaf.npz: no such model file"),
    (["gtp", "--set", "reading.prior=oracle"], "tesuji: reading.prior: unknown prior 'oracle'"),
    (["gtp", "--preset", "dtree", "--set", "prior.model=~/.cache/tesuji/models/absent.npz"],   # not rebuilt yet
     f"tesuji: prior.model: {Path.home()}/.cache/tesuji/models/absent.npz: no such model file"),
    (["gtp", "--set", "reading.budget=700"], "tesuji: reading.budget: unknown key"),
    (["gtp", "--set", "reading.method=alphabeta"], "tesuji: reading.method: must be one of pp, pns"),
])
def test_cli_bad_config_is_one_line_and_exit_2(args, message):
    result = run_cli(*args)
    assert result.returncode == 2
    assert result.stdout == b""
    err = result.stderr.decode()
    assert err.startswith(message), err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_cli_version():
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.decode().startswith("tesuji ")


def test_python_m_gtp_is_the_same_command():
    result = subprocess.run([sys.executable, "-m", "gtp", "gtp", "--set", "search.playouts=10"], cwd=ROOT,
                            input=b"1 name\n2 quit\n", capture_output=True, timeout=60,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert result.returncode == 0
    assert result.stdout == b"=1 Tesuji\n\n=2 \n\n"


def test_installed_console_script():
    tesuji = shutil.which("tesuji")
    if tesuji is None:
        pytest.skip("the `tesuji` console script is not installed (`make build` installs it)")
    assert subprocess.run([tesuji, "--version"], capture_output=True, timeout=60).stdout.startswith(b"tesuji ")
    result = subprocess.run([tesuji, "gtp", "--set", "search.playouts=10"], input=b"name\nquit\n",
                            capture_output=True, timeout=60, cwd=ROOT)
    assert result.stdout == b"= Tesuji\n\n= \n\n"


# A value other than the default for every key that moved from prior: to search:
MOVED_VALUES = {"temperature": 0.5, "floor": 0.001, "additive": False, "additive_shape": "inv",
                "additive_scale": 0.06, "additive_decay": 20.0, "virtual_wins": 160.0, "pw": True, "pw_init": 2,
                "pw_a": 10.0, "pw_b": 1.2, "pw_c": 0.5}


def test_the_search_knobs_moved_from_prior_to_search():
    assert MOVED == {f"prior.{k}": f"search.{k}" for k in MOVED_VALUES}
    assert [f.name for f in dataclasses.fields(EngineParams().prior)] == ["name", "model"]


@pytest.mark.parametrize("key", sorted(MOVED_VALUES))
def test_a_moved_key_still_works_in_a_file_and_says_its_new_name(tmp_path, capsys, key):
    value = MOVED_VALUES[key]
    path = write(tmp_path, yaml.safe_dump({"prior": {"name": "mm", key: value}}))
    params = load_config(path)
    assert getattr(params.search, key) == value and params.prior.name == "mm"
    assert params == load_config(write(tmp_path, yaml.safe_dump({"search": {key: value}, "prior": {"name": "mm"}})))
    err = capsys.readouterr().err
    assert err == f"tesuji: deprecated ({path}): prior.{key} is now search.{key}; the old name will stop working\n"


@pytest.mark.parametrize("key", sorted(MOVED_VALUES))
def test_a_moved_key_still_works_in_set_and_says_its_new_name(capsys, key):
    text = str(MOVED_VALUES[key]).lower() if isinstance(MOVED_VALUES[key], bool) else str(MOVED_VALUES[key])
    assert load_config(None, [f"prior.{key}={text}"]) == load_config(None, [f"search.{key}={text}"])
    assert capsys.readouterr().err == (f"tesuji: deprecated (--set): prior.{key} is now search.{key}; "
                                       f"the old name will stop working\n")


def test_a_moved_key_is_checked_under_its_new_name(tmp_path):
    with pytest.raises(ConfigError, match=r"^search\.temperature: must be > 0, got 0\.0"):
        load_config(None, ["prior.temperature=0"])
    with pytest.raises(ConfigError, match=r"^search\.pw_c: must be <= 1"):
        load_config(write(tmp_path, "prior:\n  pw_c: 2\n"))


def test_a_file_giving_the_old_and_the_new_key_fails_naming_the_new_key(tmp_path):
    path = write(tmp_path, "search:\n  additive_scale: 0.06\nprior:\n  additive_scale: 0.03\n")
    with pytest.raises(ConfigError, match=r"^prior\.additive_scale: moved to search\.additive_scale, which the "
                                          r"file gives too; keep search\.additive_scale only$"):
        load_config(path)


def test_no_prior_has_one_name_and_the_old_uniform_still_works(tmp_path, capsys):
    assert EngineParams().reading.prior == "none"
    assert load_config(None, preset="none").prior.name == "none"
    assert load_config(None, ["reading.prior=uniform"]).reading.prior == "none"
    assert capsys.readouterr().err == ("tesuji: deprecated (--set): reading.prior: uniform is now none; "
                                       "the old name will stop working\n")
    path = write(tmp_path, "reading:\n  prior: uniform\n")
    assert load_config(path) == EngineParams()
    assert "reading.prior: uniform is now none" in capsys.readouterr().err


def test_cli_takes_an_old_key_with_one_line_on_stderr():
    result = subprocess.run([sys.executable, "-m", "gtp.cli", "gtp", "--set", "search.playouts=10",
                             "--set", "prior.additive_scale=0.06"], cwd=ROOT, input=b"name\nquit\n",
                            capture_output=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert result.returncode == 0 and result.stdout == b"= Tesuji\n\n= \n\n"
    assert result.stderr.decode() == ("tesuji: deprecated (--set): prior.additive_scale is now "
                                      "search.additive_scale; the old name will stop working\n")
