"""The GTP server of `tesuji gtp`: one player and every command group around it.

The player comes from the engine's builder (`engine.builder`, with `priors.base.load_prior` for the
search's move prior); the reading commands get the builder's `build_leaf_prior` for `reading.prior`
(at start-up and on `bps_config prior=`). This module also owns the process side of serving: stdout
carries protocol replies only.
"""
from __future__ import annotations

import os
import sys

import engine
from engine.builder import build_leaf_prior, build_player
from engine.params import EngineParams
from gtp.analysis import KataAnalysisCommands, LzAnalysisCommands
from gtp.commands import StandardCommands
from gtp.gogui import GoGuiCommands, LiveGfx, ViewCommands
from gtp.kgs import KgsCommands
from gtp.protocol import GtpServer
from gtp.tactics_commands import TacticsCommands
from priors.base import load_prior


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
    player = build_player(params, load_prior)
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
