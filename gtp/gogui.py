"""GoGui: the analyze-command menu, the views it lists, interrupts, live graphics and parameters.

- `gogui-analyze_commands` lists the views below as `type/Label/command` lines (`%m` is the colour
  to move, `%p` a point the user clicks). The tactical entries appear only when the `attack` and
  `defend` commands are registered in this engine.
- `gogui-interrupt` tells GoGui that a `# interrupt` line on stdin stops the running command (the
  protocol loop honours it): genmove then answers at once with the best move so far.
- Views (`tesuji-` commands, each with an optional colour, default the side to move). Those that
  show the search first add `gtp.view_playouts` playouts (0: `search.playouts`; 5 s of search when
  both are 0) to the search of the current position, reusing its tree, so repeated clicks deepen it:
  - `tesuji-prior`: gfx heat map of the configured prior's move probabilities (uniform over the
    legal moves without a prior), the ten likeliest labelled in percent.
  - `tesuji-visits`: gfx visit counts of the root's moves (labels, and squares sized by visits).
  - `tesuji-winrates`: gfx win rate in percent of every visited move, for the side to move; the
    squares lean black or white by whom the move favours.
  - `tesuji-pv`: gfx VAR, the principal variation as numbered stones.
  - `tesuji-ownership`: dboard of the playouts' final owners, +1 Black to -1 White.
  - `tesuji-tactics POINT`: gfx of the block at POINT: its stones marked, the attacking (A) and
    defending (D) moves labelled, and its status in the status line.
  - `final_status_list dead` (plist) marks the dead stones, `final_score` (string) the score.
- `tesuji-param [KEY VALUE]`: GoGui's `param` type: lists, or sets through the configuration's
  override parser, the options that may change during a session.
- Live graphics: with `gtp.live_gfx`, genmove writes `gogui-gfx:` blocks to stderr every
  `gtp.live_gfx_interval` seconds (visits as squares, the principal variation, a status line), and
  `gogui-gfx: CLEAR` when it is done.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from engine.config import ConfigError, apply_override, knobs
from engine.ponder import Reporter
from gtp.commands import expect_args, parse_color, parse_vertex
from engine.coords import PASS, point_to_vertex
from gtp.protocol import CommandGroup, GtpError, Job

BLACK, WHITE = 1, 2
N_PRIOR_LABELS = 10
VIEW_SECONDS = 5.0     # a view's search when both gtp.view_playouts and search.playouts are 0
# Options tesuji-param may change at run time (the knobs marked runtime): every reader takes them from
# player.params each time.
RUNTIME_KEYS = tuple(key for key, f in knobs().items() if f.metadata["runtime"])


class GoGuiCommands(CommandGroup):
    """`gogui-analyze_commands` and `gogui-interrupt`."""

    prefix = "gogui-"

    def cmd_analyze_commands(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        known = self.server.handlers
        entries = ["gfx/Prior/tesuji-prior %m",
                   "gfx/Visits/tesuji-visits %m",
                   "gfx/Win Rates/tesuji-winrates %m",
                   "gfx/Principal Variation/tesuji-pv %m",
                   "dboard/Ownership/tesuji-ownership %m",
                   "plist/Dead Stones/final_status_list dead",
                   "string/Score Estimate/final_score"]
        if "attack" in known and "defend" in known:
            entries += ["gfx/Tactical Status/tesuji-tactics %p",
                        "pstring/Attack/attack %p",
                        "pstring/Defend/defend %p"]
        entries.append("param/Parameters/tesuji-param")
        return "\n".join(e for e in entries if e.split("/")[2].split()[0] in known)

    def cmd_interrupt(self, args: Sequence[str]) -> str:
        return ""   # `# interrupt` lines are honoured by the protocol loop


class ViewCommands(CommandGroup):
    """The views of the analyze menu."""

    prefix = "tesuji-"

    def __init__(self, player):
        self.player = player

    @property
    def size(self) -> int:
        return self.player.game.board.size

    def cmd_prior(self, args: Sequence[str]) -> str:
        color = self._color(args)
        board = self.player.game.board.copy()
        board.to_play = color
        n = self.size * self.size
        legal = np.append(board.legal_points(color), True)   # pass is always legal
        if self.player.prior is None:
            name, probs = "none (uniform)", legal / legal.sum()
        else:
            name = getattr(self.player.prior, "name", type(self.player.prior).__name__)
            probs = np.asarray(self.player.prior.evaluate(board, color), dtype=np.float64).reshape(-1)
            if probs.shape != (n + 1,):
                raise GtpError(f"the prior gave {probs.shape[0]} values, expected {n + 1}")
            probs = np.where(legal & np.isfinite(probs), np.maximum(probs, 0.0), 0.0)
        top = probs[:n].max() if n else 0.0
        on_board = [(i, p) for i, p in enumerate(probs[:n]) if p > 0]
        lines = []
        if top > 0:
            lines.append("INFLUENCE " + " ".join(f"{self._vertex(i)} {_sign(color) * p / top:.3f}"
                                                 for i, p in on_board))
            best = sorted(on_board, key=lambda t: -t[1])[:N_PRIOR_LABELS]
            lines.append("LABEL " + " ".join(f"{self._vertex(i)} {_percent(p)}" for i, p in best))
        lines.append(f"TEXT prior {name}, {_name(color)} to play: pass {100 * probs[n]:.1f}%")
        return "\n".join(lines)

    def cmd_visits(self, args: Sequence[str]) -> Job:
        return self._search_view(args, lambda color: gfx_visits(self.player.search, self.size, color))

    def cmd_winrates(self, args: Sequence[str]) -> Job:
        return self._search_view(args, self._winrates)

    def cmd_pv(self, args: Sequence[str]) -> Job:
        return self._search_view(args, lambda color: gfx_pv(self.player.search, self.size, color))

    def cmd_ownership(self, args: Sequence[str]) -> Job:
        def draw(color: int) -> str:
            own = self.player.search.ownership()
            return "\n".join(" ".join(f"{float(x) + 0.0:.2f}" for x in row) for row in own[::-1])
        return self._search_view(args, draw)

    def cmd_tactics(self, args: Sequence[str]) -> str:
        expect_args(args, 1)
        board = self.player.game.board
        point = parse_vertex(args[0], self.size)
        if point == PASS or board.color_at(point) not in (BLACK, WHITE):
            raise GtpError(f"no stone at {args[0]}")
        vertex = point_to_vertex(point, self.size)
        answers = {name: self._ask(name, vertex) for name in ("attack", "defend")}
        lines = ["MARK " + " ".join(point_to_vertex(p, self.size) for p in board.group_stones(point))]
        labels = {}
        for name, (code, move) in answers.items():
            if code and move:
                labels[move] = labels.get(move, "") + name[0].upper()
        if labels:
            lines.append("LABEL " + " ".join(f"{m} {t}" for m, t in labels.items()))
        (attack, attack_move), (defend, defend_move) = answers["attack"], answers["defend"]
        status = "alive" if not attack else ("unsettled" if defend else "dead")
        how = [f"attack {attack_move}" if attack else "no attack",
               f"defend {defend_move}" if defend else "no defence"]
        lines.append(f"TEXT {vertex} ({len(board.group_stones(point))} stones): {status}, {', '.join(how)}")
        return "\n".join(lines)

    def cmd_param(self, args: Sequence[str]) -> str:
        if not args:
            return "\n".join(self._param_line(key) for key in RUNTIME_KEYS)
        expect_args(args, 2)
        key, value = args
        if key not in RUNTIME_KEYS:
            raise GtpError(f"unknown parameter {key}")
        if isinstance(self._value(key), bool) and value in ("0", "1"):
            value = "true" if value == "1" else "false"
        try:
            self.player.params = apply_override(self.player.params, f"{key}={value}")
        except ConfigError as e:
            raise GtpError(str(e)) from None
        return ""

    # --- helpers ---

    def _color(self, args: Sequence[str]) -> int:
        expect_args(args, 0, 1)
        return parse_color(args[0]) if args else self.player.game.board.to_play

    def _vertex(self, index: int) -> str:
        row, col = divmod(index, self.size)
        return point_to_vertex((row + 1) * (self.size + 2) + col + 1, self.size)

    def _search_view(self, args: Sequence[str], draw: Callable[[int], str]) -> Job:
        color = self._color(args)

        def run(emit: Callable[[str], None]) -> str:
            playouts = self.player.params.gtp.view_playouts or self.player.params.search.playouts
            self.player.analyze(color, playouts=playouts, seconds=0.0 if playouts else VIEW_SECONDS)
            return draw(color)
        return Job(run, interrupt=self.player.interrupt)

    def _winrates(self, color: int) -> str:
        children = [c for c in self.player.search.root_children() if c["visits"] > 0 and c["move"] >= 0]
        if not children:
            return "TEXT no visited moves"
        sign = _sign(color)
        return "\n".join([
            "INFLUENCE " + " ".join(f"{self._vtx(c)} {sign * (2 * c['winrate'] - 1):.3f}" for c in children),
            "LABEL " + " ".join(f"{self._vtx(c)} {_percent(c['winrate'])}" for c in children),
            f"TEXT {_name(color)} to play: win rate {100 * self.player.search.winrate():.1f}% "
            f"after {self.player.search.root_visits()} playouts"])

    def _vtx(self, child: dict) -> str:
        return point_to_vertex(child["move"], self.size)

    def _ask(self, name: str, vertex: str) -> tuple[int, str]:
        """(code, move) of GnuGo-style `attack`/`defend` answers: `1 D7` or `0`."""
        if name not in self.server.handlers:
            raise GtpError("attack and defend are not available")
        ok, text = self.server.execute(name, [vertex])
        if not ok or not isinstance(text, str):
            raise GtpError(f"{name}: {text}")
        words = text.split()
        return (int(words[0]) if words and words[0].isdigit() else 0), (words[1] if len(words) > 1 else "")

    def _value(self, key: str):
        section, _, field = key.partition(".")
        return getattr(getattr(self.player.params, section), field)

    def _param_line(self, key: str) -> str:
        value = self._value(key)
        if isinstance(value, bool):
            return f"[bool] {key} {int(value)}"
        return f"[string] {key} {value}"


class LiveGfx:
    """GoGui live graphics for genmove: `reporter` draws the search on stderr while it runs."""

    def __init__(self, player, write: Callable[[str], None]):
        self.player = player
        self.write = write

    def reporter(self, color: int) -> Optional[Reporter]:
        """None unless `gtp.live_gfx` is on."""
        g = self.player.params.gtp
        if not g.live_gfx:
            return None
        size = self.player.game.board.size
        return Reporter(g.live_gfx_interval, lambda: self.write(
            "gogui-gfx:\n" + gfx_search(self.player.search, size, color) + "\n\n"))

    def clear(self) -> None:
        self.write("gogui-gfx: CLEAR\n")


# --- gfx drawings of a search, shared by the views and live graphics ---

def gfx_visits(search, size: int, color: int) -> str:
    children = [c for c in search.root_children() if c["visits"] > 0 and c["move"] >= 0]
    lines = []
    if children:
        top = max(c["visits"] for c in children)
        lines.append("INFLUENCE " + " ".join(f"{point_to_vertex(c['move'], size)} "
                                             f"{_sign(color) * c['visits'] / top:.3f}" for c in children))
        lines.append("LABEL " + " ".join(f"{point_to_vertex(c['move'], size)} {_count(c['visits'])}"
                                         for c in children))
    lines.append(_status(search, size, color))
    return "\n".join(lines)


def gfx_pv(search, size: int, color: int) -> str:
    moves, c = [], color
    for m in search.pv():
        moves.append(f"{'b' if c == BLACK else 'w'} {point_to_vertex(m, size)}")
        c = 3 - c
    return "\n".join((["VAR " + " ".join(moves)] if moves else []) + [_status(search, size, color)])


def gfx_search(search, size: int, color: int) -> str:
    """Live graphics: visits as squares, the principal variation, a status line."""
    lines = [ln for ln in gfx_visits(search, size, color).split("\n") if ln.startswith("INFLUENCE")]
    return "\n".join(lines + gfx_pv(search, size, color).split("\n"))


def _status(search, size: int, color: int) -> str:
    best = search.best_move() if search.root_visits() else PASS
    return (f"TEXT {_name(color)} to play: {search.root_visits()} playouts, best "
            f"{point_to_vertex(best, size)}, win rate {100 * search.winrate():.1f}%")


def _sign(color: int) -> float:
    return 1.0 if color == BLACK else -1.0


def _name(color: int) -> str:
    return "Black" if color == BLACK else "White"


def _percent(p: float) -> str:
    return str(int(round(100 * float(p))))


def _count(n: int) -> str:
    """Short enough for a point's label: 999, 1.2k, 12k, 1.2M."""
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{n / 1000:.1f}k"
    if n < 1_000_000:
        return f"{n // 1000}k"
    return f"{n / 1e6:.1f}M"
