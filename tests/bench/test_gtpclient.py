import signal
import sys
from pathlib import Path

import pytest

from bench.gtpclient import EngineFault, ErrorReply, GtpEngine, split_command

GNUGO = "/usr/games/gnugo --mode gtp --level 1 --chinese-rules"
FAKE = f"{sys.executable} {Path(__file__).with_name('fake_engine.py')}"
needs_gnugo = pytest.mark.usefixtures("gnugo_binary")


@needs_gnugo
def test_commands_get_their_replies_and_errors_stay_errors():
    with GtpEngine(GNUGO, timeout=10) as engine:
        assert engine.send("name") == "GNU Go"
        assert engine.send("boardsize 5") == ""
        with pytest.raises(ErrorReply, match="illegal move|invalid"):
            engine.send("play b Z9")
        assert engine.send("play b C3") == ""
        assert "C3" in engine.send("list_stones black")
        assert engine.send("showboard").count("\n") >= 5       # a multi-line reply, whole
        assert engine.supports("cputime") and not engine.supports("no_such_command")
        assert engine.cpu_time() >= 0
    assert engine.proc is None


def test_a_crash_is_a_fault_with_the_exit_code():
    engine = GtpEngine(f"{FAKE} --fail crash --at 1", timeout=10, label="fake").start()
    engine.send("boardsize 5")
    with pytest.raises(EngineFault, match="exit code 3") as info:
        engine.send("genmove b")
    assert info.value.kind == "crash" and engine.proc is None


def test_a_hang_is_a_timeout_and_the_engine_is_killed():
    engine = GtpEngine(f"{FAKE} --fail hang --at 1", timeout=0.5).start()
    proc = engine.proc
    with pytest.raises(EngineFault) as info:
        engine.send("genmove b")
    assert info.value.kind == "timeout"
    assert proc.poll() is not None          # killed, not left running


def test_an_interrupted_close_still_kills_the_engine():
    # An engine that ignores `quit`; a signal's exception arrives during close's grace wait.
    engine = GtpEngine([sys.executable, "-c", "import time; time.sleep(30)"], timeout=5).start()
    proc = engine.proc

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(KeyboardInterrupt):
            engine.close()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert proc.poll() is not None          # killed, not left running


def test_output_that_is_not_gtp_is_a_protocol_fault():
    # an engine that prints something other than GTP, then stays silent (the sleep is the fault)
    engine = GtpEngine([sys.executable, "-c", "print('hello'); import time; time.sleep(5)"], timeout=5).start()
    with pytest.raises(EngineFault) as info:
        engine.send("name")
    assert info.value.kind == "protocol" and "hello" in str(info.value)


def test_a_missing_program_is_a_fault_at_start():
    with pytest.raises(EngineFault, match="cannot start"):
        GtpEngine("/no/such/engine --gtp").start()


def test_python_runs_with_the_harness_interpreter():
    assert split_command("python -m gtp.cli gtp")[0] == sys.executable
    assert split_command("/usr/games/gnugo --mode gtp") == ["/usr/games/gnugo", "--mode", "gtp"]
