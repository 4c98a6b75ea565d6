"""The `tesuji` command: `tesuji gtp [--config FILE] [--set key=value ...]`, `tesuji --version`.

A bad configuration is one line on stderr and exit status 2. While GTP runs, file descriptor 1 is
reserved for protocol replies: anything else that writes to stdout (Python or C) lands on stderr,
because kgsGtp and other controllers drop an engine that prints stray text.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import Optional, Sequence

import engine
from engine.config import ConfigError, load_config
from engine.params import EngineParams, PriorParams, ReadingParams
from engine.tactics import TacticsParams
from gtp.analysis import KataAnalysisCommands, LzAnalysisCommands
from gtp.commands import StandardCommands
from gtp.gogui import GoGuiCommands, LiveGfx, ViewCommands
from gtp.kgs import KgsCommands
from gtp.protocol import GtpError, GtpServer
from gtp.tactics_commands import GTP_PARAMS, TacticsCommands, prior_named

EXIT_CONFIG = 2
EXIT_NOT_BUILT = 3


def engine_version() -> str:
    return engine.__version__


def make_prior(p: PriorParams):
    """The prior the configuration names (priors.base.load_prior), or None for `none`."""
    if p.name == "none":   # the uniform prior: the search needs no object at all
        return None
    from priors.base import load_prior

    try:
        return load_prior(p.name, p.model)
    except (OSError, ValueError) as e:   # unknown name, missing or damaged model file
        text = str(e)
        raise ConfigError(text if text.startswith("prior.") else f"prior.model: {text}") from None


def reading_settings(p: ReadingParams) -> tuple[TacticsParams, object]:
    """The solver settings and leaf prior of the `reading:` section (GTP_PARAMS otherwise)."""
    try:
        settings = dataclasses.replace(GTP_PARAMS, method=p.method, max_nodes=p.budget, branching_weight=p.branching,
                                       depth_decay=p.decay)
    except ValueError as e:
        raise ConfigError(f"reading: {e}") from None
    try:
        return settings, prior_named(p.prior)
    except GtpError as e:
        raise ConfigError(f"reading.prior: {e}") from None


def make_server(player, params: EngineParams, tactics_params: TacticsParams = GTP_PARAMS,
                tactics_prior=None) -> GtpServer:
    """Every command group around one player; any command stops pondering first. tactics_params and
    tactics_prior (a leaf prior, None for PP's uniform one): the solver settings of `attack`, `defend`
    and the `bps_` commands."""
    server = GtpServer()
    live_gfx = LiveGfx(player, server.write_log)
    for group in [StandardCommands(player, params.name, engine_version(), live_gfx),
                  KgsCommands(player, live_gfx), KataAnalysisCommands(player), LzAnalysisCommands(player),
                  GoGuiCommands(), ViewCommands(player), TacticsCommands(player, tactics_params, tactics_prior)]:
        server.add(group)
    server.before_command.append(player.stop_pondering)
    return server


def run_gtp(params: EngineParams) -> int:
    from engine.player import Player

    settings, reading_prior = reading_settings(params.reading)
    player = Player(params, prior=make_prior(params.prior))
    return serve(player, make_server(player, params, settings, reading_prior))


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


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tesuji", description="Tesuji, a Monte-Carlo Go engine.")
    parser.add_argument("--version", action="version", version=f"tesuji {engine_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    gtp = commands.add_parser("gtp", help="play through the Go Text Protocol on stdin/stdout")
    gtp.add_argument("--config", metavar="FILE", help="YAML configuration (default: built-in defaults)")
    gtp.add_argument("--set", dest="overrides", metavar="KEY=VALUE", nargs="+", action="extend",
                     default=[], help="override one key, e.g. search.n_threads=2 (repeatable)")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    try:
        params = load_config(args.config, args.overrides)
        if args.command == "gtp":
            return run_gtp(params)
    except ConfigError as e:
        print(f"tesuji: {e}", file=sys.stderr)
        return EXIT_CONFIG
    except ImportError as e:   # the Cython extensions are missing or stale
        print(f"tesuji: the engine is not built ({e}); run `make build`", file=sys.stderr)
        return EXIT_NOT_BUILT
    return 0


if __name__ == "__main__":
    sys.exit(main())
