"""bench.executors: a pool worker's signals."""
import signal
import subprocess
import sys
import textwrap
from pathlib import Path


def test_a_second_sigterm_does_not_cut_short_a_workers_clean_up():
    # As in a pool worker closing a hung engine when the pool terminates it a second time.
    script = textwrap.dedent("""
        import os, signal, time
        from bench.executors import _worker_init
        _worker_init()
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        finally:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.2)
            print("engines closed", flush=True)
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[2],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout == "engines closed\n"
    assert done.returncode == 128 + signal.SIGTERM
