"""`tesuji presets` and `tesuji gtp --preset NAME`, in process; one engine run from another folder."""
from pathlib import Path

import pytest

from engine.config import presets
from gtp import cli
from tests.gtp.gtpproc import GtpProcess, tesuji_command


def test_presets_lists_every_file_of_configs_with_its_whole_first_comment_line(capsys):
    assert cli.main(["presets"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split(None, 1)[1] for line in out}
    folder = Path(__file__).resolve().parents[2] / "configs"
    assert list(rows) == sorted(f.stem for f in folder.iterdir()) == list(presets())
    assert {"default", "fbt", "mm", "dtree", "spt", "pbn", "none"} <= set(rows)
    for name, description in rows.items():
        first = (folder / f"{name}.yaml").read_text().splitlines()[0]
        assert first == f"# {description}" and description.endswith("."), name   # one whole sentence
    assert rows["mm"] == "Tesuji with the MM prior (generalized Bradley-Terry): 39.5% top-1 on unseen KGS games."
    assert len({line.index(rows[name]) for line, name in zip(out, rows)}) == 1   # descriptions aligned


def test_unknown_preset_is_one_line_and_exit_2(capsys):
    assert cli.main(["gtp", "--preset", "nope"]) == cli.EXIT_CONFIG
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"tesuji: --preset nope: unknown preset; known presets: {', '.join(presets())}\n"


def test_preset_and_config_are_exclusive(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["gtp", "--preset", "fbt", "--config", "configs/fbt.yaml"])
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and "not allowed with argument" in err


def test_a_preset_plays_from_another_folder(tmp_path):
    proc = GtpProcess(tesuji_command("search.playouts=30") + ["--preset", "fbt"], cwd=str(tmp_path))
    try:
        proc.ok("boardsize 9")
        move = proc.ok("genmove b")
        assert move not in ("", "pass", "resign"), proc.stderr_text()[-2000:]
    finally:
        assert proc.close() == 0, proc.stderr_text()[-2000:]


@pytest.mark.parametrize("name", ["passwd", "text.npz"])
def test_a_model_that_is_no_model_file_is_one_line_naming_the_key_and_file(name, tmp_path, capsys):
    path = tmp_path / name
    path.write_text("root:x:0:0:root:/root:/bin/bash\n")
    assert cli.main(["gtp", "--set", f"prior.model={path}"]) == cli.EXIT_CONFIG
    out, err = capsys.readouterr()
    assert out == "" and err == f"tesuji: prior.model: {path}: not a model file\n"
    assert "unsafe" not in err and "pickle" not in err

