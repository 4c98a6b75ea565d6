"""GnuGo's reading commands, answered by the tactical solver (`engine.tactics`).

- `attack VERTEX`: `= 1 MOVE` if the string at VERTEX can be captured with its opponent moving
  first (MOVE starts the capture), `= 0` if not. `defend VERTEX`: `= 1 MOVE` if its owner, moving
  first, can save it, `= 0` if the string is lost anyway; a pass is `PASS`, as GnuGo prints it. These
  are GnuGo's answers, so GnuGo's regression files (`reading.tst`: `#? [1 (S4|T5)]`) run unchanged. A
  success that needs a ko is `= 2 MOVE` (GnuGo's KO_A: the other side must make the first ko threat)
  or `= 3 MOVE` (KO_B: the side itself must make the first threat); `engine.tactics.solve_ko` explains
  how they are read.
- `trymove COLOR VERTEX`, `popgo`, `increase_depths`, `decrease_depths`: the GnuGo regression
  helpers those files use around their tests (play a move, take it back; double or halve the
  solver's node budget `max_nodes`).
- `bps_solve VERTEX [attack|defend] [MAX_NODES] [pp|pns]`: the solver's full answer,
  `= T D5 nodes=112 p=1 L=3 code=1`: value (T captured, F safe, U budget spent) where simple ko binds
  both sides, the move, nodes developed over the liberty loop (and the ko searches), the belief that
  the string is captured (Bayesian proof search's root probability of the last search), the last
  liberty threshold L and GnuGo's code for the side asked (as `attack` / `defend` print it).
- `bps_children VERTEX [attack|defend]`: one line per first move, `D5 T p=1` (PP's root-child beliefs;
  PNS prints `pn=`/`dn=`).
- `bps_config [KEY=VALUE ...]`: change the reading settings, the config's `reading:` section
  (`engine.params.ReadingParams`: every `TacticsParams` field and `prior`), with the names and the
  parser of `--set reading.KEY=VALUE`: `bps_config max_nodes=5000 method=pns prior=hier`. One bad pair
  rejects the whole command. No argument: every setting, one `KEY=VALUE` a line.

The settings live in the player's configuration (`player.params.reading`); the leaf prior that
`reading.prior` names is built by the function the server hands over (`engine.builder.build_leaf_prior`).
Handlers validate everything before changing anything; a bad vertex or option is a GTP error.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable, Sequence

from engine import tactics
from engine.config import ConfigError, apply_override
from engine.params import READING_MAX_NODES, TACTICS_METHODS, EngineParams, ReadingParams
from gtp.commands import expect_args, parse_color, parse_vertex
from engine.coords import PASS, point_to_vertex
from gtp.protocol import CommandGroup, GtpError


def gnugo_vertex(move: int, size: int) -> str:
    """A move as GnuGo's reading commands print it: `PASS` in capitals (the regression files expect
    `#? [2 PASS]`), a point as everywhere else."""
    return "PASS" if move == PASS else point_to_vertex(move, size)


class TacticsCommands(CommandGroup):
    """`attack`, `defend`, the `bps_` commands and GnuGo's regression helpers, on the player's game with
    the player's reading settings; build_leaf_prior turns a `reading.prior` value into the solver's leaf
    prior (ConfigError when it cannot)."""

    def __init__(self, player, build_leaf_prior: Callable[[str], object]):
        self.player = player
        self.build_leaf_prior = build_leaf_prior
        self.prior = build_leaf_prior(self.settings.prior)
        self.n_tried = 0      # trymove moves that popgo may take back

    @property
    def game(self):
        return self.player.game

    @property
    def settings(self) -> ReadingParams:
        return self.player.params.reading

    # --- GnuGo's reading commands ---

    def cmd_attack(self, args: Sequence[str]) -> str:
        expect_args(args, 1)
        board, point = self._string(args[0])
        code, move, _ = tactics.attack(board, point, self.settings, self.prior)
        return f"{code} {gnugo_vertex(move, board.size)}" if code else "0"

    def cmd_defend(self, args: Sequence[str]) -> str:
        expect_args(args, 1)
        board, point = self._string(args[0])
        code, move, _ = tactics.defend(board, point, self.settings, self.prior)
        return f"{code} {gnugo_vertex(move, board.size)}" if code else "0"

    # --- the solver's own view ---

    def cmd_bps_solve(self, args: Sequence[str]) -> str:
        if not 1 <= len(args) <= 4:
            raise GtpError("syntax error")
        board, point = self._string(args[0])
        attack, params = self._options(args[1:])
        r = tactics.solve_ko(board, point, attack=attack, params=params, prior=self.prior)
        move = point_to_vertex(r.move, board.size)
        p = 1.0 / (1.0 + math.exp(-r.logodds)) if r.logodds > -700 else 0.0
        return f"{r.value} {move} nodes={r.developed} p={p:.6g} L={r.libs_false} code={r.code}"

    def cmd_bps_children(self, args: Sequence[str]) -> str:
        if not 1 <= len(args) <= 2:
            raise GtpError("syntax error")
        board, point = self._string(args[0])
        attack, params = self._options(args[1:])
        r = tactics.solve(board, point, attack=attack, params=params, prior=self.prior)
        solver = tactics.last_search(board, point, r, params, attack=attack, prior=self.prior)
        lines = []
        for c in solver.children(0):
            v = point_to_vertex(c["move"], board.size)
            lines.append(f"{v} {c['value']} p={c['p']:.6g}" if "p" in c else
                         f"{v} {c['value']} pn={c['pn']:g} dn={c['dn']:g}")
        return "\n".join(lines)

    def cmd_bps_config(self, args: Sequence[str]) -> str:
        if not args:
            s = self.settings
            return "\n".join(f"{f.name}={_scalar(getattr(s, f.name))}" for f in dataclasses.fields(s))
        params, prior = self._apply(args), self.prior
        if params.reading.prior != self.settings.prior:
            try:
                prior = self.build_leaf_prior(params.reading.prior)
            except ConfigError as e:
                raise GtpError(str(e)) from None
        self.player.params, self.prior = params, prior
        return ""

    # --- GnuGo's regression helpers ---

    def cmd_trymove(self, args: Sequence[str]) -> str:
        expect_args(args, 2)
        color = parse_color(args[0])
        point = parse_vertex(args[1], self.game.board.size)
        try:
            self.game.play(color, point)
        except ValueError:
            raise GtpError("illegal move") from None
        self.n_tried += 1
        return ""

    def cmd_popgo(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        if self.n_tried == 0 or not self.game.moves:
            raise GtpError("Stack empty.")
        self.game.undo()
        self.n_tried -= 1
        return ""

    def cmd_increase_depths(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        self.player.params = self._apply([f"max_nodes={min(READING_MAX_NODES, self.settings.max_nodes * 2)}"])
        return ""

    def cmd_decrease_depths(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        self.player.params = self._apply([f"max_nodes={max(1, self.settings.max_nodes // 2)}"])
        return ""

    # --- argument helpers ---

    def _string(self, text: str):
        board = self.game.board
        point = parse_vertex(text, board.size)
        if point == PASS:
            raise GtpError("invalid vertex")
        if board.color_at(point) not in (1, 2):
            raise GtpError("vertex must not be empty")
        return board, point

    def _options(self, args: Sequence[str]) -> tuple[bool, ReadingParams]:
        """(attack?, settings) of `[attack|defend] [MAX_NODES] [pp|pns]`, for one query."""
        attack, pairs = True, []
        for arg in args:
            low = arg.lower()
            if low in ("attack", "defend"):
                attack = low == "attack"
            else:
                pairs.append(f"method={low}" if low in TACTICS_METHODS else f"max_nodes={arg}")
        return attack, self._apply(pairs).reading

    def _apply(self, pairs: Sequence[str]) -> EngineParams:
        """The player's configuration with `KEY=VALUE` reading settings applied by the configuration's own
        parser (`--set reading.KEY=VALUE`); the first bad pair is a GtpError naming reading.KEY."""
        params = self.player.params
        try:
            for pair in pairs:
                params = apply_override(params, f"reading.{pair}")
        except ConfigError as e:
            raise GtpError(str(e)) from None
        return params


def _scalar(value) -> str:
    """A setting as `bps_config` and YAML take it back (`true`, not Python's `True`)."""
    return str(value).lower() if isinstance(value, bool) else str(value)
