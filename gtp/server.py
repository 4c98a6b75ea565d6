"""The GTP server of `tesuji gtp`: one player, its priors and every command group around it.

The only gtp module that builds priors from the configuration: the search's move prior (`prior:`)
and the tactical solver's leaf prior (`reading.prior`, at start-up and on `bps_config prior=`).
It also owns the process side of serving: stdout carries protocol replies only.
"""
from __future__ import annotations

import os
import sys

import engine
from engine.config import ConfigError
from engine.params import EngineParams, PriorParams
from engine.player import Player
from engine.tactics.leafpriors import CALIBRATED, load_leaf_prior, make_leaf_prior
from gtp.analysis import KataAnalysisCommands, LzAnalysisCommands
from gtp.commands import StandardCommands
from gtp.gogui import GoGuiCommands, LiveGfx, ViewCommands
from gtp.kgs import KgsCommands
from gtp.protocol import GtpServer
from gtp.tactics_commands import TacticsCommands
from priors.base import load_prior


def build_move_prior(p: PriorParams):
    """The search's prior that `prior:` names, or None for `none` (the search then needs no object)."""
    if p.name == "none":
        return None
    try:
        return load_prior(p.name, p.model)
    except (OSError, ValueError) as e:   # unknown name, missing or damaged model file
        text = str(e)
        raise ConfigError(text if text.startswith("prior.") else f"prior.model: {text}") from None


def build_leaf_prior(name: str):
    """The solver's leaf prior that `reading.prior` names: None for uniform (PP's prior_p), an untrained
    calibrated beta or hier model, or the trained model a file holds (`python -m bench.tactics
    --save-prior FILE`). ConfigError naming reading.prior when it is none of these."""
    try:
        if name == "uniform":
            return None
        if name in CALIBRATED:
            return make_leaf_prior(name, **CALIBRATED[name])
        if not name.endswith(".npz"):
            raise ValueError(f"unknown prior {name!r}: uniform, beta, hier or a model file (.npz)")
        prior = load_leaf_prior(name)
    except ValueError as e:   # ModelError included: missing, damaged or foreign file
        raise ConfigError(f"reading.prior: {e}") from None
    prior.kernel()   # the C table, built once here rather than on the first query
    return prior


def build_server(player, params: EngineParams) -> GtpServer:
    """Every command group around one player; any command stops pondering first."""
    server = GtpServer()
    live_gfx = LiveGfx(player, server.write_log)
    for group in [StandardCommands(player, params.name, engine.__version__, live_gfx),
                  KgsCommands(player, live_gfx), KataAnalysisCommands(player), LzAnalysisCommands(player),
                  GoGuiCommands(), ViewCommands(player), TacticsCommands(player, build_leaf_prior)]:
        server.add(group)
    server.before_command.append(player.stop_pondering)
    return server


def run_gtp(params: EngineParams) -> int:
    """Build the player and its server, then answer GTP on stdin/stdout (ConfigError before serving)."""
    player = Player(params, prior=build_move_prior(params.prior))
    return serve(player, build_server(player, params))


def serve(player, server: GtpServer) -> int:
    """Answer GTP on stdin/stdout until quit or end of input; stdout carries replies only."""
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    try:
        server.serve(sys.stdin.buffer, protocol_out)
    except KeyboardInterrupt:
        return 130
    finally:   # no search thread may outlive the interpreter's objects at exit
        player.stop_pondering()
    return 0
