"""The `tesuji` command: `tesuji gtp [--config FILE | --preset NAME] [--set key=value ...]`,
`tesuji presets` (the shipped engine configurations, one a line) and `tesuji --version`. A preset is
a configuration file shipped with the engine, so `--preset` and `--config` exclude each other; `--set`
applies on top of either.

Parses the command line and the configuration, then hands over to `gtp.server`. A bad configuration
is one line on stderr and exit status 2. While GTP runs, file descriptor 1 is reserved for protocol
replies (`gtp.server.serve`).
"""
from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

import engine
from engine.config import ConfigError, load_config, presets

EXIT_CONFIG = 2
EXIT_NOT_BUILT = 3


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tesuji", description="Tesuji, a Monte-Carlo Go engine.")
    parser.add_argument("--version", action="version", version=f"tesuji {engine.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    gtp = commands.add_parser("gtp", help="play through the Go Text Protocol on stdin/stdout")
    source = gtp.add_mutually_exclusive_group()
    source.add_argument("--config", metavar="FILE", help="YAML configuration (default: built-in defaults)")
    source.add_argument("--preset", metavar="NAME",
                        help="a shipped configuration by name instead of a file; `tesuji presets` lists them")
    gtp.add_argument("--set", dest="overrides", metavar="KEY=VALUE", nargs="+", action="extend",
                     default=[], help="override one key, e.g. search.n_threads=2 or reading.method=pp (repeatable)")
    commands.add_parser("presets", help="list the shipped configurations that --preset NAME selects")
    return parser.parse_args(argv)


def print_presets() -> int:
    found = presets()
    width = max(map(len, found), default=0)
    for name, description in found.items():
        print(f"{name:{width}}  {description}")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    if args.command == "presets":
        return print_presets()
    try:
        params = load_config(args.config, args.overrides, args.preset)
        from gtp import server   # the Cython engine, loaded only once the arguments are good

        return server.run_gtp(params)
    except ConfigError as e:
        print(f"tesuji: {e}", file=sys.stderr)
        return EXIT_CONFIG
    except ImportError as e:   # the Cython extensions are missing or stale
        print(f"tesuji: the engine is not built ({e}); run `make build`", file=sys.stderr)
        return EXIT_NOT_BUILT


if __name__ == "__main__":
    sys.exit(main())
