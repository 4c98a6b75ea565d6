"""Reply formats of the client-facing commands, as regexes, and a reader of streamed replies."""
from __future__ import annotations

import re
import time
from typing import Optional

from tests.gtp.gtpproc import GtpProcess

VERTEX = r"(?:[A-HJ-Z](?:[1-9]|1[0-9]|2[0-5])|pass)"
MOVE = re.compile(VERTEX, re.IGNORECASE)
GENMOVE = re.compile(VERTEX + r"|resign", re.IGNORECASE)
INT = r"\d+"
FLOAT = r"-?\d+\.\d+"   # always with a dot: Sabaki 0.52 tells floats from integers by the dot
PV = rf"pv(?: {VERTEX})*"
LZ_SEGMENT = rf"info move {VERTEX} visits {INT} winrate {INT} prior {INT} lcb {INT} order {INT} {PV}"
KATA_SEGMENT = (rf"info move {VERTEX} visits {INT} utility {FLOAT} winrate {FLOAT} prior {FLOAT} "
                rf"lcb {FLOAT} utilityLcb {FLOAT} order {INT} {PV}")
LZ_LINE = re.compile(rf"{LZ_SEGMENT}(?: {LZ_SEGMENT})*")
KATA_LINE = re.compile(rf"{KATA_SEGMENT}(?: {KATA_SEGMENT})*(?P<own> ownership(?: {FLOAT})+)?")
SEGMENT = re.compile(r"info move (\S+) visits (\d+) (.*?) order (\d+) pv((?: \S+)*?)(?= info | ownership |$)")
GFX_LINE = re.compile(rf"INFLUENCE(?: {VERTEX} {FLOAT})+|LABEL(?: {VERTEX} \S+)+|VAR(?: [bw] {VERTEX})+"
                      rf"|(?:MARK|CIRCLE|SQUARE|TRIANGLE|BLACK|WHITE)(?: {VERTEX})+|TEXT .+|CLEAR")
ANALYZE_ENTRY = re.compile(r"(gfx|dboard|plist|string|pstring|param|sboard|cboard|var)/[^/]+/(\S+)(?: .*)?")
SCORE = re.compile(r"[BW]\+\d+(?:\.\d+)?|0")


def segments(line: str) -> list[dict]:
    """The moves of one analysis line: move, visits, order, pv (list), raw values."""
    out = []
    for m in SEGMENT.finditer(line):
        out.append({"move": m.group(1), "visits": int(m.group(2)), "values": m.group(3),
                    "order": int(m.group(4)), "pv": m.group(5).split()})
    return out


def is_gfx(text: str) -> bool:
    return all(GFX_LINE.fullmatch(line) for line in text.split("\n"))


def dboard_rows(text: str, size: int) -> list[list[float]]:
    rows = [[float(x) for x in line.split()] for line in text.split("\n")]
    assert len(rows) == size and all(len(r) == size for r in rows), text
    return rows


class Stream:
    """A streamed reply (`=` line, updates, empty line) read as it arrives."""

    def __init__(self, engine: GtpProcess, command: str):
        self.engine = engine
        engine.write(command.encode() + b"\n")
        head = engine.read_line()
        assert head is not None and re.fullmatch(r"=\d*\n", head), f"{command!r}: stream head {head!r}"
        self.head = head
        self.lines: list[str] = []
        self.ended_at: Optional[float] = None

    def next_line(self) -> Optional[str]:
        """The next update, or None when the stream ended."""
        line = self.engine.read_line()
        assert line is not None, "engine closed stdout inside a stream"
        if line == "\n":
            self.ended_at = time.monotonic()
            return None
        assert line.endswith("\n") and line.strip(), repr(line)
        self.lines.append(line.rstrip("\n"))
        return self.lines[-1]

    def wait_updates(self, n: int) -> None:
        while len(self.lines) < n:
            assert self.next_line() is not None, "stream ended early"

    def finish(self) -> list[str]:
        """Read to the terminating empty line; every update line."""
        while self.ended_at is None:
            self.next_line()
        return self.lines

    def stop_with(self, command: str) -> float:
        """Send the interrupting line, read to the end: seconds from the line to the empty line."""
        sent = time.monotonic()
        self.engine.write(command.encode() + b"\n")
        self.finish()
        return self.ended_at - sent
