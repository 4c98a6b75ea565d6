"""GTP v2 framing: preprocessing, parsing, ids, the `=`/`?` replies and error handling.

Rules are cited by the section titles of the GTP v2 specification (draft 2):

- "Preprocessing": remove CR and every other control character except HT and LF, cut each line at
  `#`, turn HT into a space, and discard lines that are then empty or white space only.
- "Command Structure": `[id] command_name [arguments]`; the id is an unsigned integer.
- "Response Structure": `=[id] result` on success, `?[id] error_message` on failure, each ending
  with an empty line; so a result never contains an empty line of its own.

Command groups are classes whose `cmd_<name>` methods register themselves (a group's `prefix`, e.g.
`kgs-`, is put in front of the name). A handler receives the argument tokens and returns the result
text. It converts and validates every argument before it changes any state, so that a raised
`GtpError` (reply `? message`) leaves the game as it was. Any other exception becomes
`? internal error: ...`, with the traceback on stderr: the engine never dies on a command, and stdout
carries protocol data only.

Long commands: a handler may instead return a `Job`, which runs in a background thread while the
loop goes on reading stdin. Commands are still answered one at a time, in order; what the reader
does with the lines that arrive meanwhile:

- GoGui's `# interrupt` line (read before preprocessing, which would drop it as a comment) calls the
  job's `interrupt` until the job ends: genmove answers at once with the best move so far.
- A job that runs `until_input` (lz-analyze, kata-analyze: they stream until "any new command or
  a raw newline") is interrupted by any line, then that line is handled as usual.
- Any other line waits for the job to finish (genmove, *-genmove_analyze are synchronous).

A `stream` job writes `=[id]` first, then its lines as they come (`emit`), then its result and the
empty line. Every write to stdout goes through one lock, so replies never interleave.
"""
from __future__ import annotations

import re
import sys
import threading
import traceback
from dataclasses import dataclass
from typing import BinaryIO, Callable, ClassVar, Iterable, Optional, Sequence, TextIO, Union

from engine.ponder import stop_thread

# Control characters are 0-31 and 127; HT (9) and LF (10) survive preprocessing.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ID = re.compile(r"[0-9]+")
_INTERRUPT = re.compile(r"\s*#\s*interrupt\s*", re.IGNORECASE)


class GtpError(Exception):
    """A command that fails: the message becomes the `?` reply."""


def _nothing() -> None:
    pass


@dataclass(frozen=True)
class Job:
    """A command's work done in a background thread (see the module docstring).

    `run(emit)` returns the result text (or raises GtpError); a `stream` job may call `emit(line)`
    to send a line of its reply at once. `interrupt()` asks `run` to return soon; it is thread-safe
    and may be called many times.
    """
    run: Callable[[Callable[[str], None]], str]
    interrupt: Callable[[], None] = _nothing
    stream: bool = False        # `=` first, then the emitted lines, then the result
    until_input: bool = False   # runs until the next input line interrupts it


Handler = Callable[[Sequence[str]], Union[str, Job]]


def is_interrupt(raw: str) -> bool:
    """GoGui's `# interrupt` line (gogui-interrupt), recognised before preprocessing."""
    return _INTERRUPT.fullmatch(raw) is not None


def preprocess(line: str) -> str:
    """One input line after GTP preprocessing; '' when the line is to be ignored."""
    line = _CONTROL.sub("", line)
    line = line.split("#", 1)[0]
    return line.replace("\t", " ").strip()


def parse(line: str) -> tuple[Optional[str], str, list[str]]:
    """A preprocessed, non-empty line -> (id or None, command name, argument tokens).

    The name is '' when the line holds only an id.
    """
    tokens = line.split()
    cmd_id = None
    if tokens and _ID.fullmatch(tokens[0]):
        cmd_id = tokens.pop(0)
    name = tokens.pop(0) if tokens else ""
    return cmd_id, name, tokens


def body_lines(text: str) -> str:
    """Text as reply lines, each ending with a newline, empty lines dropped."""
    return "".join(ln.rstrip() + "\n" for ln in text.split("\n") if ln.strip())


def format_reply(ok: bool, cmd_id: Optional[str], text: str) -> str:
    """`=id text` or `?id text`, ending with the empty line.

    Empty lines inside the text are dropped (they would end the reply early); a result may start
    with a newline, as GnuGo's showboard does, to put a diagram below the `=`.
    """
    lines = text.rstrip().split("\n")
    body = [lines[0].rstrip()] + [ln.rstrip() for ln in lines[1:] if ln.strip()]
    return ("=" if ok else "?") + (cmd_id or "") + " " + "\n".join(body) + "\n\n"


class CommandGroup:
    """Base of command groups: every `cmd_<name>` method is the GTP command `prefix + name`."""

    prefix: ClassVar[str] = ""
    command_methods: ClassVar[tuple[str, ...]] = ()
    server: "GtpServer"

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        inherited = list(cls.command_methods)
        own = [m for m in vars(cls) if m.startswith("cmd_") and callable(vars(cls)[m])]
        cls.command_methods = tuple(inherited + [m for m in own if m not in inherited])

    def commands(self) -> dict[str, Handler]:
        return {self.prefix + m[len("cmd_"):]: getattr(self, m) for m in self.command_methods}


class GtpServer:
    """Reads commands, dispatches them to the groups' handlers and writes the replies."""

    def __init__(self, groups: Iterable[CommandGroup] = (), log: Optional[TextIO] = None):
        self.handlers: dict[str, Handler] = {}
        self.running = True
        self.log = log if log is not None else sys.stderr
        self.before_command: list[Callable[[], None]] = []   # run before every command (stop pondering)
        self._out: Optional[BinaryIO] = None
        self._out_lock = threading.Lock()
        self._log_lock = threading.Lock()
        self._broken = False
        self._job: Optional[tuple[threading.Thread, Job]] = None   # the job running now
        for group in groups:
            self.add(group)

    def add(self, group: CommandGroup) -> None:
        for name, handler in group.commands().items():
            if name in self.handlers:
                raise ValueError(f"GTP command {name!r} registered twice")
            self.handlers[name] = handler
        group.server = self

    def command_names(self) -> list[str]:
        return list(self.handlers)

    def stop(self) -> None:
        """End the loop after the current reply (quit)."""
        self.running = False

    # --- output ---

    def write(self, text: str) -> None:
        """Protocol data to stdout, under the output lock, flushed at once."""
        if self._out is None or self._broken:
            return
        with self._out_lock:
            try:
                self._out.write(text.encode("utf-8"))
                self._out.flush()
            except (BrokenPipeError, ValueError):   # the controller went away: nobody is left to answer
                self._broken = True

    def write_log(self, text: str) -> None:
        """Text to stderr (logs, GoGui live graphics) as one block."""
        with self._log_lock:
            try:
                self.log.write(text)
                self.log.flush()
            except (OSError, ValueError):
                pass

    # --- commands ---

    def execute(self, name: str, args: Sequence[str]) -> tuple[bool, Union[str, Job]]:
        """Run one command's handler: (success, result or error message, or a Job to run)."""
        handler = self.handlers.get(name)
        if handler is None:
            return False, "unknown command"
        return self._call(name, lambda: handler(args))

    def _call(self, name: str, work: Callable[[], object]) -> tuple[bool, Union[str, Job]]:
        try:
            result = work()
            if not isinstance(result, (str, Job)):
                raise TypeError(f"handler of {name!r} returned {type(result).__name__}, not str")
            return True, result
        except GtpError as e:
            return False, " ".join(str(e).split()) or "failed"
        except Exception as e:   # a bug must not kill the engine: report it and go on
            self.write_log(traceback.format_exc())
            detail = " ".join(f"{type(e).__name__}: {e}".split())
            return False, f"internal error: {detail}"

    def handle_line(self, raw: str) -> Optional[str]:
        """The full reply to one raw input line, or None when the line is ignored.

        A Job runs to its end in the calling thread; one that runs until input is interrupted at
        once (there is no next line to wait for)."""
        command = self._command(raw)
        if command is None:
            return None
        cmd_id, name, args = command
        if not name:
            return format_reply(False, cmd_id, "missing command")
        ok, result = self.execute(name, args)
        if not isinstance(result, Job):
            return format_reply(ok, cmd_id, result)
        lines: list[str] = []
        outcome: list = []

        def work() -> None:
            outcome.extend(self._call(name, lambda: result.run(lines.append)))
        thread = threading.Thread(target=work)
        thread.start()
        if result.until_input:
            stop_thread(thread, result.interrupt)
        thread.join()
        ok, text = outcome
        if not result.stream:
            return format_reply(ok, cmd_id, text)
        return "=" + (cmd_id or "") + "\n" + body_lines("\n".join(lines) + "\n" + (text if ok else "")) + "\n"

    @staticmethod
    def _command(raw: str) -> Optional[tuple[Optional[str], str, list[str]]]:
        line = preprocess(raw)
        return parse(line) if line else None

    # --- the loop ---

    def serve(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        """Answer commands until `quit` or end of input; every reply is flushed at once."""
        self._out = stdout
        pending: Optional[bytes] = None
        try:
            while self.running and not self._broken:
                raw = pending if pending is not None else stdin.readline()
                pending = None
                if not raw:
                    break
                text = raw.decode("utf-8", errors="replace")
                if is_interrupt(text):          # nothing runs: nothing to interrupt
                    continue
                command = self._command(text)
                if command is None:
                    continue
                self._job = self._dispatch(*command)
                if self._job is not None:
                    pending = self._wait(self._job, stdin)
                    self._job = None
        finally:   # e.g. KeyboardInterrupt while a job runs: no search outlives the loop
            if self._job is not None:
                thread, job = self._job
                self._job = None
                stop_thread(thread, job.interrupt)

    def _dispatch(self, cmd_id: Optional[str], name: str, args: Sequence[str]):
        """Answer one command, or start its Job: then (thread, job) for `_wait`."""
        if not name:
            self.write(format_reply(False, cmd_id, "missing command"))
            return None
        for hook in self.before_command:
            try:
                hook()
            except Exception:
                self.write_log(traceback.format_exc())
        ok, result = self.execute(name, args)
        if not isinstance(result, Job):
            self.write(format_reply(ok, cmd_id, result))
            return None
        if result.stream:
            self.write("=" + (cmd_id or "") + "\n")
        thread = threading.Thread(target=self._run_job, args=(cmd_id, name, result), name=f"gtp {name}",
                                  daemon=True)
        thread.start()
        return thread, result

    def _run_job(self, cmd_id: Optional[str], name: str, job: Job) -> None:
        def emit(line: str) -> None:
            if job.stream:
                self.write(body_lines(line))
        ok, text = self._call(name, lambda: job.run(emit))
        if not job.stream:
            self.write(format_reply(ok, cmd_id, text))
            return
        if not ok:   # the `=` is out already: the error can only go to the log
            self.write_log(f"{name}: {text}\n")
        self.write((body_lines(text) if ok else "") + "\n")

    def _wait(self, running, stdin: BinaryIO) -> Optional[bytes]:
        """Read the next input line while a job runs; after the job ended, the line to handle next
        (None when it was the `# interrupt` that ended it, b"" at the end of input)."""
        thread, job = running
        raw = stdin.readline()
        if raw and is_interrupt(raw.decode("utf-8", errors="replace")):
            stop_thread(thread, job.interrupt)
            return None
        if job.until_input:
            stop_thread(thread, job.interrupt)
        thread.join()
        return raw
