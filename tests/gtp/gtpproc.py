"""A GTP engine subprocess for tests: send a command, get (ok, text); every read has a timeout."""
from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Optional, Sequence

ROOT = Path(__file__).resolve().parents[2]
# Small and fast: 9x9-sized searches of a few dozen playouts, one thread, fixed seed.
FAST = ("search.playouts=50", "search.n_threads=1", "search.seed=7", "search.max_nodes=20000")
# The commands `tesuji gtp` must know: GTP v2's, printsgf and cputime as GnuGo has them, and KGS's.
REQUIRED = ["protocol_version", "name", "version", "known_command", "list_commands", "quit", "boardsize",
            "clear_board", "komi", "play", "genmove", "undo", "fixed_handicap", "place_free_handicap",
            "set_free_handicap", "final_score", "final_status_list", "time_settings", "time_left",
            "loadsgf", "printsgf", "showboard", "reg_genmove", "cputime", "kgs-genmove_cleanup",
            "kgs-time_settings", "kgs-game_over", "kgs-rules"]


def tesuji_command(*overrides: str, config: Optional[str] = None) -> list[str]:
    cmd = [sys.executable, "-m", "gtp.cli", "gtp"]
    if config:
        cmd += ["--config", config]
    if overrides:
        cmd += ["--set", *overrides]
    return cmd


class GtpProcess:
    """One engine; replies are parsed by the GTP framing (first line `=`/`?`, ends at an empty line)."""

    def __init__(self, command: Sequence[str], cwd: Optional[str] = None, timeout: float = 60.0):
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.timeout = timeout
        self.proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd or str(ROOT), env=env)
        self.lines: queue.Queue = queue.Queue()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr.append), daemon=True).start()

    @staticmethod
    def _pump(stream, put) -> None:
        for line in iter(stream.readline, b""):
            put(line)
        put(None)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def write(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read_line(self) -> Optional[str]:
        try:
            line = self.lines.get(timeout=self.timeout)
        except queue.Empty:
            raise TimeoutError(f"no reply within {self.timeout} s; stderr: {self.stderr_text()[-2000:]}")
        return None if line is None else line.decode("utf-8")

    def read_reply(self) -> str:
        """The raw reply text, both newlines of the ending included; AssertionError on bad framing."""
        first = self.read_line()
        if first is None:
            raise AssertionError(f"engine closed stdout; stderr: {self.stderr_text()[-2000:]}")
        assert first[:1] in ("=", "?"), f"reply does not start with = or ?: {first!r}"
        text = first
        while True:
            line = self.read_line()
            assert line is not None, f"reply not ended by an empty line: {text!r}"
            text += line
            if line == "\n":
                return text

    def send(self, command: str) -> tuple[bool, str]:
        """(success, text after `=`/`?` and the id) of one command line."""
        self.write(command.encode("utf-8") + b"\n")
        return split_reply(self.read_reply())

    def ok(self, command: str) -> str:
        success, text = self.send(command)
        assert success, f"{command!r} failed: {text!r}"
        return text

    def fail(self, command: str) -> str:
        success, text = self.send(command)
        assert not success, f"{command!r} succeeded: {text!r}"
        return text

    def stderr_text(self) -> str:
        return b"".join(x for x in self.stderr if x).decode("utf-8", errors="replace")

    def close(self) -> int:
        if self.alive():
            try:
                self.write(b"quit\n")
            except (BrokenPipeError, OSError):
                pass
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def split_reply(reply: str) -> tuple[bool, str]:
    """`=12 D4\\n\\n` -> (True, 'D4'): the status, then the text without the id and the ending."""
    assert reply.endswith("\n\n"), reply
    body = reply[1:-2]
    head, _, rest = body.partition(" ")
    assert head.isdigit() or head == "", f"bad id in {reply!r}"
    return reply[0] == "=", rest
