"""Engines checked before a run's first game: each one started once, asked its name and version, and
given the board size, the setup commands and the clock it will get in every game, so that an engine
that cannot play stops the run with a RunError before any game is recorded."""
from __future__ import annotations

import os
from dataclasses import dataclass

from bench.gtpclient import EngineFault, ErrorReply, GtpEngine
from bench.matchconfig import EngineSpec, MatchConfig
from bench.records import RunError


@dataclass
class EngineInfo:
    name: str
    version: str
    label: str
    command: str


def probe(spec: EngineSpec, what: str, cfg: MatchConfig) -> EngineInfo:
    """Start the engine once: name, version, and that it takes the board size and setup commands."""
    engine = GtpEngine(spec.command_for(cfg.seed, 0), timeout=spec.timeout, label=what)
    try:
        engine.start()
        name = _ask(engine, "name") or os.path.basename(engine.argv[0])
        version = _ask(engine, "version")
        timed = [cfg.time.gtp_time_settings()] if cfg.time else []
        for command in [f"boardsize {cfg.board_size}", "clear_board"] + spec.setup_for(cfg.seed, 0) + timed:
            try:
                engine.send(command)
            except ErrorReply as e:
                raise RunError(f"{what}: {command!r} failed: {e} (command: {spec.command})") from None
    except EngineFault as e:
        raise RunError(f"{what}: {e} (command: {spec.command})") from None
    finally:
        engine.close()
    return EngineInfo(name=name, version=version, label=spec.label or name, command=spec.command)


def _ask(engine: GtpEngine, command: str) -> str:
    try:
        return " ".join(engine.send(command).split())
    except ErrorReply:
        return ""
