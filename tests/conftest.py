"""Suite-wide settings: where the expert game archives and GnuGo are, and what a missing one means.

The archives are read in place from the engine's data setting (`EngineParams.data_dir`, ../shared/data
beside the repository), or from `pytest --data DIR`. A test that needs one asks the `archive` fixture,
a test that plays GnuGo the `gnugo_binary` fixture: where the part is missing the test is skipped with
the reason, except under CI (CI=true), whose machines have both: there a missing part fails the test
instead of hiding it.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import pytest

from engine.params import EngineParams

ROOT = Path(__file__).resolve().parents[1]
GNUGO = "/usr/games/gnugo"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--data", default=None, metavar="DIR",
                     help="directory of the expert game archives (default: the engine's data_dir setting, "
                          "taken from the repository folder)")


def data_dir(config: pytest.Config) -> Path:
    """The archives' directory: --data, else EngineParams.data_dir relative to the repository."""
    chosen = config.getoption("--data")
    return Path(chosen) if chosen else (ROOT / EngineParams().data_dir).resolve()


@pytest.fixture
def archive(pytestconfig: pytest.Config) -> Callable[[str], Path]:
    """archive(NAME) -> the path of that archive; skips the test where it is missing (fails under CI)."""
    def find(name: str) -> Path:
        path = data_dir(pytestconfig) / name
        if not path.is_file():
            missing(f"{path} is absent (pytest --data DIR names the directory holding the archives)")
        return path
    return find


@pytest.fixture
def gnugo_binary() -> str:
    """The path of GnuGo 3.8; skips the test where it is not installed (fails under CI)."""
    if not os.access(GNUGO, os.X_OK):
        missing(f"GnuGo is not installed at {GNUGO} (make gnugo installs it)")
    return GNUGO


def missing(why: str) -> None:
    """Skip the test for a part this machine lacks; under CI, which has every part, fail it."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{why}; CI has it, so this is an error")
    pytest.skip(why)
