"""Analysis streams: `lz-analyze`, `kata-analyze`, `lz-genmove_analyze`, `kata-genmove_analyze`.

The formats are Leela Zero's and KataGo's (KataGo's GTP_Extensions.md), which Sabaki, Lizzie and
other clients read:

    lz-analyze [color] [interval] [interval N] [minmoves N] [maxmoves N]
    kata-analyze [color] [interval] [interval N] [minmoves N] [maxmoves N] [ownership true|false]

The reply is `=` on a line of its own, then, every `interval` centiseconds while the search runs in
the background, one line holding every move's segment:

    info move D4 visits 836 winrate 4656 prior 839 lcb 4640 order 0 pv D4 Q16 info move ...

lz: winrate, prior and lcb are integers 0..10000; kata: `utility`, `winrate`, `prior`, `lcb` and
`utilityLcb` are floats (winrate, prior and lcb in 0..1; utility = 2 winrate - 1, as there is no
score term), and with `ownership true` the line ends with `ownership` and N*N floats in -1..1 from
A19 to T1 (the top row first). Every value is from the point of view of the colour analysed (the
side to move unless a colour is given). Segments end with `pv` and its moves, most visited first
(`order` 0); moves without visits appear only to reach `minmoves`; `maxmoves` 0 means no limit.
`lcb` is the normal-approximation lower bound winrate - 1.96 sqrt(winrate (1 - winrate) / visits)
(0 under two visits). No score keys (scoreLead, scoreMean) are given: the search has no score
estimate. Without an interval the streams use `gtp.analyze_interval`.

The analysis searches the current position, reusing the tree (of genmove, pondering or an earlier
analysis), until the next input line stops it; the reply then ends with the empty line.
`*-genmove_analyze` is genmove (clock, resignation, passing and the move played as usual) that
streams the same lines while it searches and ends with `play <vertex|pass|resign>`; it is
synchronous: only GoGui's `# interrupt` cuts it short. Without an interval it gives one line, at the
end of the search.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from engine.ponder import Reporter
from gtp.commands import parse_color, parse_float, parse_int
from engine.coords import point_to_vertex
from gtp.protocol import CommandGroup, GtpError, Job

LCB_Z = 1.96           # normal quantile of the lower confidence bound
ONCE = 1e9             # a report interval longer than any search: one report, at its end
_COLORS = ("b", "black", "w", "white")


@dataclass(frozen=True)
class AnalyzeRequest:
    """The arguments of one analyze command."""
    color: int
    interval: Optional[float] = None   # seconds between lines; None when the command gave none
    min_moves: int = 0
    max_moves: int = 0                 # 0: no limit
    ownership: bool = False


def parse_request(args: Sequence[str], to_play: int, kata: bool) -> AnalyzeRequest:
    """`[color] [interval] KEY VALUE ...` -> AnalyzeRequest; GtpError on anything else."""
    tokens = list(args)
    color = parse_color(tokens.pop(0)) if tokens and tokens[0].lower() in _COLORS else to_play
    values: dict = {}
    if tokens and tokens[0][:1].isdigit():
        values["interval"] = _interval(tokens.pop(0))
    keys = ("interval", "minmoves", "maxmoves") + (("ownership",) if kata else ())
    while tokens:
        word = tokens.pop(0)
        key = word.lower()
        if key in ("allow", "avoid"):
            raise GtpError(f"{word} is not supported")
        if key not in keys:
            raise GtpError(f"unknown analyze option {word}")
        if not tokens:
            raise GtpError(f"missing value after {word}")
        value = tokens.pop(0)
        if key == "interval":
            values["interval"] = _interval(value)
        elif key == "ownership":
            if value.lower() not in ("true", "false"):
                raise GtpError("ownership must be true or false")
            values["ownership"] = value.lower() == "true"
        else:
            values["min_moves" if key == "minmoves" else "max_moves"] = parse_int(value, least=0)
    return AnalyzeRequest(color, **values)


def _interval(text: str) -> float:
    """Centiseconds -> seconds, at least one centisecond."""
    return max(1.0, parse_float(text, least=0)) / 100.0


def lcb(winrate: float, visits: int) -> float:
    """Lower confidence bound of a win rate measured over `visits` playouts."""
    if visits < 2:
        return 0.0
    return max(0.0, winrate - LCB_Z * math.sqrt(max(0.0, winrate * (1.0 - winrate)) / visits))


def select_moves(children: list[dict], min_moves: int = 0, max_moves: int = 0) -> list[dict]:
    """The moves to report, best first: every visited one, then unvisited ones by prior up to
    min_moves, cut at max_moves."""
    visited = sorted((c for c in children if c["visits"] > 0), key=lambda c: (-c["visits"], -c["winrate"]))
    rest = sorted((c for c in children if c["visits"] <= 0), key=lambda c: -c["prior"])
    moves = visited + rest[:max(0, min_moves - len(visited))]
    return moves[:max_moves] if max_moves > 0 else moves


def format_info(children: list[dict], size: int, kata: bool, min_moves: int = 0, max_moves: int = 0) -> str:
    """One analysis line (without newline), or '' when there is nothing to report yet."""
    segments = []
    for order, c in enumerate(select_moves(children, min_moves, max_moves)):
        wr, visits = float(c["winrate"]), int(c["visits"])
        low = lcb(wr, visits)
        pv = " ".join(point_to_vertex(m, size) for m in (c.get("pv") or [c["move"]]))
        if kata:
            values = (f"visits {visits} utility {2 * wr - 1:.6f} winrate {wr:.6f} prior {c['prior']:.6f} "
                      f"lcb {low:.6f} utilityLcb {2 * low - 1:.6f}")
        else:
            values = (f"visits {visits} winrate {_permyriad(wr)} prior {_permyriad(c['prior'])} "
                      f"lcb {_permyriad(low)}")
        segments.append(f"info move {point_to_vertex(c['move'], size)} {values} order {order} pv {pv}")
    return " ".join(segments)


def format_ownership(ownership, color: int) -> str:
    """`ownership` and N*N floats, side-to-move view, A19 to T1. ownership: (N, N) [row, col], + Black."""
    sign = 1.0 if color == 1 else -1.0
    rows = ownership[::-1]   # row N-1 (GTP row N, the top) first
    return "ownership " + " ".join(f"{sign * float(x) + 0.0:.6f}" for row in rows for x in row)


def _permyriad(x: float) -> int:
    return min(10000, max(0, int(round(float(x) * 10000))))


class LzAnalysisCommands(CommandGroup):
    """`lz-analyze` and `lz-genmove_analyze`, through the Player."""

    prefix = "lz-"
    kata = False

    def __init__(self, player):
        self.player = player

    def cmd_analyze(self, args: Sequence[str]) -> Job:
        request = self._request(args)
        interval = request.interval or self.player.params.gtp.analyze_interval / 100.0

        def run(emit: Callable[[str], None]) -> str:
            self.player.analyze(request.color, report=Reporter(interval, lambda: self._emit(emit, request)))
            return ""
        return Job(run, interrupt=self.player.interrupt, stream=True, until_input=True)

    def cmd_genmove_analyze(self, args: Sequence[str]) -> Job:
        request = self._request(args)
        size = self.player.game.board.size

        def run(emit: Callable[[str], None]) -> str:
            report = Reporter(request.interval or ONCE, lambda: self._emit(emit, request))
            move = self.player.genmove(request.color, report=report)
            return "play " + point_to_vertex(move, size)
        return Job(run, interrupt=self.player.interrupt, stream=True)

    def _request(self, args: Sequence[str]) -> AnalyzeRequest:
        return parse_request(args, self.player.game.board.to_play, self.kata)

    def _emit(self, emit: Callable[[str], None], request: AnalyzeRequest) -> None:
        search = self.player.search
        line = format_info(search.root_children(), self.player.game.board.size, self.kata,
                           request.min_moves, request.max_moves)
        if not line:
            return
        if request.ownership:
            line += " " + format_ownership(search.ownership(), request.color)
        emit(line)


class KataAnalysisCommands(LzAnalysisCommands):
    """`kata-analyze` and `kata-genmove_analyze`: the same with KataGo's float format and ownership."""

    prefix = "kata-"
    kata = True
