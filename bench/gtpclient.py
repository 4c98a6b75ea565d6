"""A GTP engine run as a subprocess, with a timeout on every command.

The controller side of GTP v2 (spec 2.6, 2.7): one command line out, one reply back, the reply
ending at an empty line. Every way an engine can fail is told apart, because a match records
them differently:

- `ErrorReply`   the engine answered `? message` (it is alive and in sync; the server side of
                 that reply is `gtp.protocol.GtpError`, which benches do not import);
- `EngineFault`  it crashed (stdout closed), hung past the timeout (it is then killed), or wrote
                 something that is not a GTP reply. `kind` is "crash", "timeout" or "protocol".

The engine's stderr is drained by a thread and its last lines are kept for fault messages, so a
chatty engine never blocks on a full pipe.
"""
from __future__ import annotations

import collections
import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from typing import Sequence

STDERR_LINES = 20        # stderr lines kept for fault messages
QUIT_GRACE = 2.0         # seconds an engine gets to exit after `quit` before it is killed


class ErrorReply(Exception):
    """The engine answered a command with `? message`."""


class EngineFault(Exception):
    """The engine crashed, hung or broke the protocol; it is no longer usable."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def split_command(command: str | Sequence[str]) -> list[str]:
    """The argument list of an engine command line.

    A leading `python` or `python3` becomes the interpreter running this harness, so that an
    engine written in Python (ours) runs with the same installation as the match.
    """
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    if not argv:
        raise ValueError("empty engine command")
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return argv


class GtpEngine:
    """One GTP engine process. `send` returns the reply text without the `=` and the id."""

    def __init__(self, command: str | Sequence[str], timeout: float = 60.0, label: str = "",
                 cwd: str | None = None):
        self.command = command if isinstance(command, str) else shlex.join(command)
        self.argv = split_command(command)
        self.timeout = timeout
        self.label = label or os.path.basename(self.argv[0])
        self.cwd = cwd
        self.proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._stderr: collections.deque = collections.deque(maxlen=STDERR_LINES)
        self._commands: set[str] | None = None
        self._next_id = 1

    # -- life cycle --------------------------------------------------------------------------

    def start(self) -> "GtpEngine":
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=self.cwd, text=True, encoding="utf-8", errors="replace", bufsize=1)
        except OSError as e:
            raise EngineFault("crash", f"{self.label}: cannot start {self.command!r}: {e}") from e
        self._lines = queue.Queue()
        self._stderr.clear()
        self._commands = None
        threading.Thread(target=self._pump, args=(self.proc.stdout, self._lines), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.proc.stderr,), daemon=True).start()
        return self

    def close(self) -> None:
        """Send `quit`, then kill the process if it does not exit at once, even when a signal's exception
        interrupts the wait."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
                proc.wait(QUIT_GRACE)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        finally:
            _kill(proc)

    def restart(self) -> None:
        self.close()
        self.start()

    def __enter__(self) -> "GtpEngine":
        return self.start() if self.proc is None else self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    # -- commands ----------------------------------------------------------------------------

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send one command and return its reply; ErrorReply on `?`, EngineFault on a failure."""
        if self.proc is None:
            raise EngineFault("crash", f"{self.label}: not running")
        ident = self._next_id
        self._next_id += 1
        try:
            self.proc.stdin.write(f"{ident} {command}\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            self._fail("crash", f"died before {command!r}")
        ok, text = self._read_reply(ident, command, self.timeout if timeout is None else timeout)
        if not ok:
            raise ErrorReply(text)
        return text

    def supports(self, command: str) -> bool:
        if self._commands is None:
            try:
                self._commands = set(self.send("list_commands").split())
            except ErrorReply:
                self._commands = set()
        return command in self._commands

    def cpu_time(self) -> float | None:
        """CPU seconds used so far: the `cputime` command when the engine has it (as
        gogui-twogtp does), else the kernel's count for the process, else None."""
        if self.supports("cputime"):
            try:
                return float(self.send("cputime"))
            except (ErrorReply, ValueError):
                pass
        return _proc_cpu_seconds(self.pid)

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    # -- internals ---------------------------------------------------------------------------

    def _read_reply(self, ident: int, command: str, timeout: float) -> tuple[bool, str]:
        deadline = time.monotonic() + timeout
        head = None
        body: list[str] = []
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(left, 0.0)) if left > 0 else self._lines.get_nowait()
            except queue.Empty:
                self._fail("timeout", f"no reply to {command!r} within {timeout:g} s")
            if line is None:
                self._fail("crash", f"exited during {command!r}")
            line = line.rstrip("\r\n").replace("\t", " ")
            if head is None:
                if not line.strip():
                    continue
                if line[0] not in "=?":
                    self._fail("protocol", f"replied {line[:80]!r} to {command!r}")
                head = line
                continue
            if not line.strip():
                break
            body.append(line)
        status, rest = head[0], head[1:]
        reply_id, _, text = rest.partition(" ")
        if reply_id and reply_id != str(ident):
            if not reply_id.isdigit():
                text = rest        # `=D4` without the space: no id
            else:
                self._fail("protocol", f"reply id {reply_id} to command id {ident} ({command!r})")
        return status == "=", "\n".join([text.strip()] + body).strip()

    def _fail(self, kind: str, what: str):
        proc = self.proc
        self.proc = None
        code = None
        if proc is not None:
            _kill(proc)
            code = proc.returncode
        message = f"{self.label} {what}"
        if kind == "crash" and code is not None:
            message += f" (exit code {code})"
        tail = self.stderr_tail()
        if tail:
            message += "; stderr: " + tail.splitlines()[-1][:200]
        raise EngineFault(kind, message)

    @staticmethod
    def _pump(stream, lines: queue.Queue) -> None:
        try:
            for line in stream:
                lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            lines.put(None)
            stream.close()

    def _drain(self, stream) -> None:
        try:
            for line in stream:
                self._stderr.append(line.rstrip("\n"))
        except (OSError, ValueError):
            pass
        finally:
            stream.close()


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        pass
    try:
        proc.stdin.close()     # stdout and stderr are closed by their reader threads at EOF
    except (OSError, ValueError):
        pass


def _proc_cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU seconds of a live process, from /proc (Linux); None elsewhere."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None
