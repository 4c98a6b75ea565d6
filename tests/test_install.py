"""`pip install .` as a new user does it: build the wheel, install it into a fresh virtual environment and,
from a folder outside the project, list the presets and play a move with one of them."""
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What a clean clone holds: no in-place builds, caches or benchmark records.
NOT_SHIPPED = shutil.ignore_patterns(".git", "build", "*.egg-info", "*.so", "*.c", "__pycache__", ".pytest_cache",
                                     ".hypothesis", "results")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("CI") != "true",
                       reason="builds the wheel and installs it into a fresh venv from the package registries "
                              "(minutes): runs where CI=true"),
]


def run(*args, cwd: Path, stdin: str = "", timeout: float = 1800, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | env
    result = subprocess.run([str(a) for a in args], cwd=cwd, input=stdin, capture_output=True, text=True,
                            timeout=timeout, env=environment)
    assert result.returncode == 0, f"{args}: {result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the project as a clean clone holds it."""
    tmp = tmp_path_factory.mktemp("install")
    source = tmp / "tesuji"
    shutil.copytree(ROOT, source, ignore=NOT_SHIPPED)
    # Unoptimised: these tests check what the wheel holds and that it runs, not its speed.
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", tmp / "dist", source, cwd=tmp,
        TESUJI_OPT="-O0")
    shutil.rmtree(source)   # the installed engine must not lean on the sources
    return next((tmp / "dist").glob("tesuji-*.whl"))


@pytest.fixture(scope="module")
def tesuji(wheel) -> Path:
    """The `tesuji` command of a fresh virtual environment holding only the built wheel and its dependencies."""
    venv = wheel.parent.parent / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=wheel.parent)
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel, cwd=wheel.parent)
    return venv / "bin" / "tesuji"


def test_the_wheel_holds_the_presets_and_the_models_they_load_and_no_other_data(wheel):
    data = {name for name in zipfile.ZipFile(wheel).namelist() if not name.endswith((".py", ".so", ".pxd"))
            and ".dist-info/" not in name}
    presets = {f"engine/presets/{f.name}" for f in (ROOT / "configs").glob("*.yaml")}
    models = {f"priors/models/{f.name}" for f in (ROOT / "priors" / "models").glob("*.npz")}
    assert data == presets | models and len(models) == 5


def test_presets_are_listed(tesuji, tmp_path):
    names = [line.split()[0] for line in run(tesuji, "presets", cwd=tmp_path).splitlines()]
    assert names == sorted(f.stem for f in (ROOT / "configs").glob("*.yaml"))


def test_gtp_plays_with_a_preset_and_its_shipped_model(tesuji, tmp_path):
    replies = run(tesuji, "gtp", "--preset", "fbt", "--set", "search.playouts=50", "--set", "search.n_threads=1",
                  cwd=tmp_path,
                  stdin="boardsize 9\ngenmove b\nquit\n", timeout=120)
    first, move, last = replies.split("\n\n")[:3]
    assert (first, last) == ("= ", "= ")
    assert move.startswith("= ") and move[2:] not in ("", "pass", "resign"), replies
