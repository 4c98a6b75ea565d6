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
  solver's node budget).
- `bps_solve VERTEX [attack|defend] [MAX_NODES] [pp|pns]`: the solver's full answer,
  `= T D5 nodes=112 p=1 L=3 code=1`: value (T captured, F safe, U budget spent) where simple ko binds
  both sides, the move, nodes developed over the liberty loop (and the ko searches), the belief that
  the string is captured (Bayesian proof search's root probability of the last search), the last
  liberty threshold L and GnuGo's code for the side asked (as `attack` / `defend` print it).
- `bps_children VERTEX [attack|defend]`: one line per first move, `D5 T p=1` (PP's root-child beliefs;
  PNS prints `pn=`/`dn=`).
- `bps_config [prior=uniform|beta|hier|FILE.npz] [budget=N] [method=pp|pns] [move_gen=local|region] [l_max=N]
  [branching=W] [decay=D]`: change the settings (no argument: print them). `beta` and `hier` are
  untrained models; FILE.npz a trained leaf prior (`python -m bench.tactics --save-prior FILE`).
  `branching` is PP's branching leaf term (`TacticsParams.branching_weight`, 0 off), `decay` its depth
  decay (`TacticsParams.depth_decay`, 0 off).

Handlers validate everything before changing anything; a bad vertex or option is a GTP error.
"""
from __future__ import annotations

import dataclasses
import math
import sys
from typing import Optional, Sequence

from engine import tactics
from gtp.commands import expect_args, parse_color, parse_float, parse_int, parse_vertex
from gtp.coords import PASS, point_to_vertex
from gtp.protocol import CommandGroup, GtpError
from priors.leaf_priors import CALIBRATED, load_leaf_prior, make_leaf_prior
from priors.modelfile import ModelError

# Full-board positions need the local move generator; the budget keeps a query near a second.
# Full-board positions need the local move generator, widened for the defender (counter-attacks on
# blocks with one liberty more than its own) so that fewer captures are "proved" by leaving out the
# defence. A leaf prior of 0.1 instead of the paper's 0.5 makes PP solve about as many reading.tst
# problems as PNS (bench/results/tactics_b1.json, tactics_b3.json).
GTP_PARAMS = tactics.TacticsParams(method="pp", move_gen="local", max_nodes=20_000, l_max=5, max_depth=60,
                                   counter_slack=1, prior_p=0.1)
MAX_BUDGET = 10_000_000


def gnugo_vertex(move: int, size: int) -> str:
    """A move as GnuGo's reading commands print it: `PASS` in capitals (the regression files expect
    `#? [2 PASS]`), a point as everywhere else."""
    return "PASS" if move == PASS else point_to_vertex(move, size)


def prior_named(name: str):
    """The leaf prior of `bps_config prior=NAME`: None for uniform (PP's prior_p), an untrained calibrated
    beta or hier model, or the trained model a file holds (`LeafPrior.save`, e.g. `python -m bench.tactics
    --save-prior FILE`). GtpError when it is none of these."""
    if name == "uniform":
        return None
    if name in CALIBRATED:
        return make_leaf_prior(name, **CALIBRATED[name])
    if not name.endswith(".npz"):
        raise GtpError(f"unknown prior {name!r}: uniform, beta, hier or a model file (.npz)")
    try:
        prior = load_leaf_prior(name)
    except ModelError as e:
        raise GtpError(str(e)) from None
    prior.kernel()                       # the C table, built once here rather than on the first query
    return prior


class TacticsCommands(CommandGroup):
    """`attack`, `defend`, the `bps_` commands and GnuGo's regression helpers, on the player's game."""

    def __init__(self, player, params: tactics.TacticsParams = GTP_PARAMS, prior=None):
        self.player = player
        self.params = params
        self.prior = prior
        self.prior_name = "uniform" if prior is None else (getattr(prior, "source", None)
                                                            or getattr(prior, "name", "custom"))
        self.n_tried = 0      # trymove moves that popgo may take back

    @property
    def game(self):
        return self.player.game

    # --- GnuGo's reading commands ---

    def cmd_attack(self, args: Sequence[str]) -> str:
        expect_args(args, 1)
        board, point = self._string(args[0])
        code, move, _ = tactics.attack(board, point, self.params, self.prior)
        return f"{code} {gnugo_vertex(move, board.size)}" if code else "0"

    def cmd_defend(self, args: Sequence[str]) -> str:
        expect_args(args, 1)
        board, point = self._string(args[0])
        code, move, _ = tactics.defend(board, point, self.params, self.prior)
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
            p = self.params
            return (f"prior={self.prior_name} budget={p.max_nodes} method={p.method} "
                    f"move_gen={p.move_gen} l_max={p.l_max} branching={p.branching_weight:g} "
                    f"decay={p.depth_decay:g}")
        changes, prior_name = {}, None
        keys = {"budget": "max_nodes", "method": "method", "move_gen": "move_gen", "l_max": "l_max"}
        weights = {"branching": "branching_weight", "decay": "depth_decay"}
        for arg in args:
            key, sep, value = arg.partition("=")
            if not sep or not value:
                raise GtpError(f"bad option {arg!r}: expected key=value")
            if key == "prior":
                prior_name, prior = value, prior_named(value)
            elif key in ("budget", "l_max"):
                n = parse_int(value, least=1)
                if key == "budget" and n > MAX_BUDGET:
                    raise GtpError(f"budget above {MAX_BUDGET}")
                changes[keys[key]] = n
            elif key in weights:
                changes[weights[key]] = parse_float(value)
            elif key in keys:
                changes[keys[key]] = value
            else:
                raise GtpError(f"unknown option {key!r}")
        try:
            params = dataclasses.replace(self.params, **changes)
        except ValueError as e:
            raise GtpError(str(e)) from None
        self.params = params
        if prior_name is not None:
            self.prior, self.prior_name = prior, prior_name
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
        self.params = dataclasses.replace(self.params, max_nodes=min(MAX_BUDGET, self.params.max_nodes * 2))
        return ""

    def cmd_decrease_depths(self, args: Sequence[str]) -> str:
        expect_args(args, 0)
        self.params = dataclasses.replace(self.params, max_nodes=max(1, self.params.max_nodes // 2))
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

    def _options(self, args: Sequence[str]) -> tuple[bool, tactics.TacticsParams]:
        attack, changes = True, {}
        for arg in args:
            low = arg.lower()
            if low in ("attack", "defend"):
                attack = low == "attack"
            elif low in ("pp", "pns"):
                changes["method"] = low
            else:
                n = parse_int(arg, least=1)
                if n > MAX_BUDGET:
                    raise GtpError(f"budget above {MAX_BUDGET}")
                changes["max_nodes"] = n
        return attack, dataclasses.replace(self.params, **changes)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python -m gtp.tactics_commands [--budget N] [--method pp|pns] ... [--set key=value ...]`: the
    engine's GTP server with the solver settings of `tesuji gtp` (GTP_PARAMS with the config's `reading:`
    section, which `--set reading.KEY=VALUE` changes too) and those given here on top, for running GnuGo's
    regression files with each of them."""
    import argparse

    from engine.config import ConfigError, load_config
    from engine.player import Player
    from gtp.cli import make_server, reading_settings, serve

    parser = argparse.ArgumentParser(prog="python -m gtp.tactics_commands")
    parser.add_argument("--set", dest="overrides", nargs="+", action="extend", default=[], metavar="KEY=VALUE")
    parser.add_argument("--budget", type=int, help="solver nodes per query (reading.budget)")
    parser.add_argument("--method", choices=("pp", "pns"), help="reading.method")
    parser.add_argument("--move-gen", choices=("local", "region"), help=f"default {GTP_PARAMS.move_gen}")
    parser.add_argument("--l-max", type=int, help=f"default {GTP_PARAMS.l_max}")
    parser.add_argument("--prior-p", type=float, help=f"PP's uniform leaf prior (default {GTP_PARAMS.prior_p})")
    parser.add_argument("--branching-weight", type=float,
                        help="PP's branching leaf term (reading.branching; see engine.tactics.branching_logodds)")
    parser.add_argument("--depth-decay", type=float,
                        help="PP's leaf log-odds lowered this much per ply below the root (reading.decay)")
    parser.add_argument("--prior", help="PP's leaf prior, as `bps_config prior=`: uniform, beta, hier or a model "
                                        "file (.npz) (reading.prior)")
    args = parser.parse_args(argv)
    flags = {"max_nodes": args.budget, "method": args.method, "move_gen": args.move_gen, "l_max": args.l_max,
             "prior_p": args.prior_p, "branching_weight": args.branching_weight,
             "depth_decay": args.depth_decay}
    try:
        engine_params = load_config(None, args.overrides)
        reading = engine_params.reading
        if args.prior is not None:          # the file is read once, the flag's instead of the config's
            reading = dataclasses.replace(reading, prior=args.prior)
        params, prior = reading_settings(reading)
        params = dataclasses.replace(params, **{k: v for k, v in flags.items() if v is not None})
    except (ConfigError, ValueError, GtpError) as e:
        print(f"tactics_commands: {e}", file=sys.stderr)
        return 2
    player = Player(engine_params)
    return serve(player, make_server(player, engine_params, tactics_params=params, tactics_prior=prior))


if __name__ == "__main__":
    sys.exit(main())
