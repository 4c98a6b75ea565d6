from __future__ import annotations

import pytest

from tests.gtp.gtpproc import FAST, GtpProcess, tesuji_command


@pytest.fixture(scope="module")
def engine_process(tmp_path_factory):
    """One `tesuji gtp` subprocess per test module, running in a scratch directory."""
    proc = GtpProcess(tesuji_command(*FAST), cwd=str(tmp_path_factory.mktemp("engine")))
    yield proc
    assert proc.close() == 0, proc.stderr_text()[-2000:]


@pytest.fixture
def engine(engine_process):
    """The module's engine, alive, on an empty 9x9 board with komi 7.5 and no clock."""
    assert engine_process.alive(), engine_process.stderr_text()[-2000:]
    for command in ["boardsize 9", "clear_board", "komi 7.5", "kgs-time_settings none"]:
        engine_process.ok(command)
    return engine_process
