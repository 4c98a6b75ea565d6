"""The standard GTP v2 commands (spec ch. 6) and the common extensions tournament tools use.

Each handler converts and checks all of its arguments first and only then touches the game, so a
`?` reply leaves everything as it was. Error messages are those of the spec and of GnuGo, the
reference implementation. The argument converters below are shared with the other groups.

`genmove`, `reg_genmove` and `restricted_genmove` run as background jobs (`protocol.Job`), so that
GoGui's `# interrupt` can cut the search short; with GoGui live graphics on (gtp.live_gfx) they draw the
search on stderr.
"""
from __future__ import annotations

import math
import re
import time
from functools import partial
from typing import Callable, Sequence

from engine.coords import MAX_SIZE, MIN_SIZE, VertexError, point_to_vertex, vertex_to_point
from gtp.protocol import CommandGroup, GtpError, Job

BLACK, WHITE = 1, 2   # engine.board's colour values
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_COLORS = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}
STATUSES = ("alive", "dead", "seki")


# --- argument converters: each raises GtpError with the reply's message ---

def expect_args(args: Sequence[str], least: int, most: int | None = None) -> None:
    """Wrong argument counts are syntax errors."""
    most = least if most is None else most
    if not least <= len(args) <= most:
        raise GtpError("syntax error")


def parse_int(text: str, least: int | None = None) -> int:
    if not _INT.fullmatch(text):
        raise GtpError("syntax error")
    value = int(text)
    if least is not None and value < least:
        raise GtpError("syntax error")
    return value


def parse_float(text: str, least: float | None = None) -> float:
    if not _FLOAT.fullmatch(text):
        raise GtpError("syntax error")
    value = float(text)
    if not math.isfinite(value) or (least is not None and value < least):
        raise GtpError("syntax error")
    return value


def parse_color(text: str) -> int:
    color = _COLORS.get(text.lower())
    if color is None:
        raise GtpError("invalid color")
    return color


def parse_vertex(text: str, size: int) -> int:
    try:
        return vertex_to_point(text, size)
    except VertexError:
        raise GtpError("invalid vertex") from None


def format_points(points, size: int) -> str:
    return " ".join(point_to_vertex(p, size) for p in points)


def move_job(player, color: int, choose: Callable, live_gfx=None) -> Job:
    """A genmove-like command as an interruptible job: `choose(color, report=...)` gives the point,
    the reply is its vertex. live_gfx: a gogui.LiveGfx, or None."""
    size = player.game.board.size

    def run(emit) -> str:
        report = live_gfx.reporter(color) if live_gfx is not None else None
        try:
            move = choose(color, report=report)
        finally:
            if report is not None:
                live_gfx.clear()
        return point_to_vertex(move, size)
    return Job(run, interrupt=player.interrupt)


class StandardCommands(CommandGroup):
    """GTP v2 required, setup, play, scoring, time and regression commands, through a Player."""

    def __init__(self, player, name: str, version: str, live_gfx=None):
        self.player = player
        self.name = name
        self.version = version
        self.live_gfx = live_gfx   # gogui.LiveGfx or None

    @property
    def game(self):
        return self.player.game

    @property
    def size(self) -> int:
        return self.player.game.board.size

    def is_board_empty(self) -> bool:
        return not self.game.board.stones().any()

    # --- administrative ---

    def cmd_protocol_version(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        return "2"

    def cmd_name(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        return self.name

    def cmd_version(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        return self.version

    def cmd_known_command(self, args: Sequence[str]) -> str:
        expect_args(args, 1)
        return "true" if args[0] in self.server.handlers else "false"

    def cmd_list_commands(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        return "\n".join(self.server.command_names())

    def cmd_quit(self, args: Sequence[str]) -> str:
        self.server.stop()
        return ""

    # --- setup ---

    def cmd_boardsize(self, args: Sequence[str]) -> str:
        expect_args(args, 1)
        size = parse_int(args[0])
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GtpError("unacceptable size")
        self.game.set_size(size)
        self.player.clear()
        return ""

    def cmd_clear_board(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        self.player.clear()   # the board, the moves and both clocks
        return ""

    def cmd_komi(self, args: Sequence[str]) -> str:
        expect_args(args, 1)
        self.game.komi = parse_float(args[0])
        return ""

    def cmd_fixed_handicap(self, args: Sequence[str]) -> str:
        expect_args(args, 1)
        n = parse_int(args[0])
        if not 2 <= n <= 9:
            raise GtpError("invalid number of stones")
        if not self.is_board_empty():
            raise GtpError("board not empty")
        try:
            points = self.game.fixed_handicap(n)
        except ValueError as e:   # the placement does not exist on this board size
            raise GtpError(_handicap_message(e)) from None
        return format_points(points, self.size)

    def cmd_place_free_handicap(self, args: Sequence[str]) -> str:
        expect_args(args, 1)
        n = parse_int(args[0])
        if not 2 <= n < self.size * self.size:
            raise GtpError("invalid number of stones")
        if not self.is_board_empty():
            raise GtpError("board not empty")
        try:
            points = self.game.free_handicap(n)
        except ValueError as e:
            raise GtpError(_handicap_message(e)) from None
        return format_points(points, self.size)

    def cmd_set_free_handicap(self, args: Sequence[str]) -> str:
        if len(args) < 2:
            raise GtpError("invalid number of stones")
        size = self.size
        points = [parse_vertex(a, size) for a in args]
        if any(p < 0 for p in points):
            raise GtpError("invalid vertex")
        if len(set(points)) != len(points):
            raise GtpError("repeated vertex")
        if len(points) >= size * size:
            raise GtpError("invalid number of stones")
        if not self.is_board_empty():
            raise GtpError("board not empty")
        try:
            self.game.set_free_handicap(points)
        except ValueError as e:
            raise GtpError(_handicap_message(e)) from None
        return ""

    def cmd_loadsgf(self, args: Sequence[str]) -> str:
        expect_args(args, 1, 2)
        move_number = parse_int(args[1], least=1) if len(args) == 2 else None
        try:
            self.game.load_sgf(args[0], move_number)
        except ValueError:   # unreadable, not SGF, unsupported size, illegal move: game unchanged
            raise GtpError("cannot load file") from None
        return ""

    # --- play ---

    def cmd_play(self, args: Sequence[str]) -> str:
        expect_args(args, 2)
        color = parse_color(args[0])
        point = parse_vertex(args[1], self.size)
        try:
            self.game.play(color, point)
        except ValueError:   # IllegalMove: occupied, suicide or ko
            raise GtpError("illegal move") from None
        return ""

    def cmd_genmove(self, args: Sequence[str]) -> Job:
        expect_args(args, 1)
        color = parse_color(args[0])
        return move_job(self.player, color, self.player.genmove, self.live_gfx)

    def cmd_reg_genmove(self, args: Sequence[str]) -> Job:
        expect_args(args, 1)
        color = parse_color(args[0])
        return move_job(self.player, color, self.player.reg_genmove, self.live_gfx)

    def cmd_restricted_genmove(self, args: Sequence[str]) -> Job:
        """GnuGo's: `restricted_genmove COLOR VERTEX...`, the best of the listed moves, not played."""
        if len(args) < 2:
            raise GtpError("syntax error")
        color = parse_color(args[0])
        among = [parse_vertex(a, self.size) for a in args[1:]]
        return move_job(self.player, color, partial(self.player.restricted_genmove, among=among), self.live_gfx)

    def cmd_undo(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        if not self.game.moves:
            raise GtpError("cannot undo")
        try:
            self.game.undo()
        except ValueError:
            raise GtpError("cannot undo") from None
        return ""

    # --- scoring ---

    def cmd_final_score(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        return self.player.final_score()

    def cmd_final_status_list(self, args: Sequence[str]) -> str:
        expect_args(args, 1)
        status = args[0].lower()
        if status not in STATUSES:
            raise GtpError("invalid status")
        groups = self.player.final_status_list(status)
        return "\n".join(format_points(g, self.size) for g in groups)

    # --- time ---

    def cmd_time_settings(self, args: Sequence[str]) -> str:
        expect_args(args, 3)
        main = parse_float(args[0], least=0)
        byo_time = parse_float(args[1], least=0)
        byo_stones = parse_int(args[2], least=0)
        self.player.time.set_settings(main, byo_time, byo_stones)
        return ""

    def cmd_time_left(self, args: Sequence[str]) -> str:
        expect_args(args, 3)
        color = parse_color(args[0])
        seconds = parse_float(args[1], least=0)
        stones = parse_int(args[2], least=0)
        self.player.time.time_left(color, seconds, stones)
        return ""

    def cmd_cputime(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        return f"{time.process_time():.3f}"   # the whole process: every search thread counts

    # --- output ---

    def cmd_showboard(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        return "\n" + str(self.game.board)

    def cmd_printsgf(self, args: Sequence[str]) -> str:
        expect_args(args, 0, 1)
        data = self.game.to_sgf()
        if not args:
            return data.decode("utf-8", errors="replace")
        try:
            with open(args[0], "wb") as f:
                f.write(data)
        except OSError:
            raise GtpError("cannot write file") from None
        return ""


def _handicap_message(error: ValueError) -> str:
    text = str(error)
    return text if text in ("board not empty", "repeated vertex") else "invalid number of stones"

