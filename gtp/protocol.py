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
"""
from __future__ import annotations

import re
import sys
import traceback
from typing import BinaryIO, Callable, ClassVar, Iterable, Optional, Sequence, TextIO

Handler = Callable[[Sequence[str]], str]

# Control characters are 0-31 and 127; HT (9) and LF (10) survive preprocessing.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ID = re.compile(r"[0-9]+")


class GtpError(Exception):
    """A command that fails: the message becomes the `?` reply."""


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

    def execute(self, name: str, args: Sequence[str]) -> tuple[bool, str]:
        """Run one command: (success, result or error message)."""
        handler = self.handlers.get(name)
        if handler is None:
            return False, "unknown command"
        try:
            result = handler(args)
            if not isinstance(result, str):
                raise TypeError(f"handler of {name!r} returned {type(result).__name__}, not str")
            return True, result
        except GtpError as e:
            return False, " ".join(str(e).split()) or "failed"
        except Exception as e:   # a bug must not kill the engine: report it and go on
            traceback.print_exc(file=self.log)
            self.log.flush()
            detail = " ".join(f"{type(e).__name__}: {e}".split())
            return False, f"internal error: {detail}"

    def handle_line(self, raw: str) -> Optional[str]:
        """The full reply to one raw input line, or None when the line is ignored."""
        line = preprocess(raw)
        if not line:
            return None
        cmd_id, name, args = parse(line)
        if not name:
            return format_reply(False, cmd_id, "missing command")
        ok, text = self.execute(name, args)
        return format_reply(ok, cmd_id, text)

    def serve(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        """Answer commands until `quit` or end of input; every reply is flushed at once."""
        while self.running:
            raw = stdin.readline()
            if not raw:
                break
            reply = self.handle_line(raw.decode("utf-8", errors="replace"))
            if reply is None:
                continue
            try:
                stdout.write(reply.encode("utf-8"))
                stdout.flush()
            except BrokenPipeError:   # the controller went away: nobody is left to answer
                break
