"""Named external programs: `{pachi}` in an engine's command is the path of the program named `pachi`.

An opponent built outside the project lives wherever its user put it, so configs name it by a placeholder
rather than a path. Each name has a default path and says how to build it; `--program NAME=PATH` (bench.match,
bench.league, bench.engine_speed; the Makefile's `PACHI=PATH`) overrides the default. A config loads without
the program; a run that uses a program that is not there stops before its first game with an error naming
the setting and how to build it.

`base` is the engine itself at an earlier commit (`make base COMMIT=REV`), the other side of an A/B match of a
change. A path that is a link is followed, so a run records the build it played (for `base`, the path with the
commit's hash), and a resumed run refuses a link that has since moved to another build.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
from dataclasses import dataclass
from typing import Iterable, Mapping


@dataclass(frozen=True)
class Program:
    default: str        # its path when none is given (~ is the home folder)
    build: str          # how to get it, said when it is missing


PROGRAMS = {
    "pachi": Program("~/.cache/pachi/pachi-12.90/pachi",
                     "build it with `make pachi` (../shared/tools/pachi/build.sh into ~/.cache/pachi)"),
    "base": Program("~/.cache/tesuji/base/tesuji",
                    "build it with `make base COMMIT=<rev>` (that commit's engine in ~/.cache/tesuji/base/<hash>/, "
                    "linked from ~/.cache/tesuji/base/tesuji)"),
}
PLACEHOLDER_RE = re.compile(r"\{([a-z][a-z0-9_]*)\}")


class ProgramError(Exception):
    """A --program option that cannot be used, or a program that is not where its setting says."""


def add_option(parser: argparse.ArgumentParser) -> None:
    """--program NAME=PATH, repeatable; `paths(args.program)` reads it."""
    defaults = ", ".join(f"{name}={p.default}" for name, p in PROGRAMS.items())
    parser.add_argument("--program", action="append", default=[], metavar="NAME=PATH",
                        help=f"the path of the external program the commands name as {{NAME}} (repeatable; "
                             f"default: {defaults})")


def paths(overrides: Iterable[str] = ()) -> dict[str, str]:
    """Every program's path, links followed: the defaults, with `NAME=PATH` overrides."""
    out = {name: p.default for name, p in PROGRAMS.items()}
    for item in overrides:
        name, sep, path = item.partition("=")
        if not sep or not path:
            raise ProgramError(f"--program: expected NAME=PATH, got {item!r}")
        if name not in PROGRAMS:
            raise ProgramError(f"--program: no program named {name!r} (known: {', '.join(PROGRAMS)})")
        out[name] = path
    return {name: os.path.realpath(os.path.expanduser(path)) for name, path in out.items()}


def used(text: str) -> list[str]:
    """The programs a command line names by placeholder."""
    return [name for name in PLACEHOLDER_RE.findall(text) if name in PROGRAMS]


def resolve(text: str, programs: Mapping[str, str]) -> str:
    """The command line with each `{name}` of a program replaced by its path (quoted for the shell's split);
    other placeholders ({seed}, {game}) are left for later."""
    return PLACEHOLDER_RE.sub(lambda m: shlex.quote(programs[m[1]]) if m[1] in programs else m[0], text)


def check(programs: Mapping[str, str]) -> None:
    """Raise ProgramError unless every program named is an executable file."""
    for name, path in programs.items():
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            hint = f"; {PROGRAMS[name].build}" if name in PROGRAMS else ""
            raise ProgramError(f"program {name!r}: no executable at {path} (the setting {name}: --program "
                               f"{name}=PATH, or make {name.upper()}=PATH){hint}")
