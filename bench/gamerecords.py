"""A run's games.jsonl: one compact line per game, appended as games finish; what a resume trusts.

A line holds one game record of bench.game without what the whole run shares. `read_games` is the one
reader; it gives every game back as bench.game's record:
- a key missing from the line is taken from run.json's `game_common` (run, board_size, komi, handicap,
  host, and the commands), then from GAME_DEFAULTS (null, false, [] and the like); a line's own value
  always wins, so a game that differs from the rest (another host, say) keeps its own;
- `player_command`, `opponent_command` and `referee_command` in `game_common` are the config's commands
  with `{seed}` and `{game}` filled in per game (`player_command` maps each variant to its command);
- `moves` is one space-separated string ("F3 F5 pass"), or a list where a move is not one word (an
  engine's reply that was not a vertex);
- `times` is one space-separated string of whole centiseconds, each move's wall time ("103 4 91"),
  which is what an SGF shows; `player_seconds`, `opponent_seconds`, `seconds` and the CPU times keep
  their milliseconds.
"""
from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

from bench.matchconfig import MatchConfig, fill
from bench.records import RunError, iter_jsonl, read_jsonl, read_run

GAME_DEFAULTS: dict[str, Any] = {
    "alternated": False, "handicap": 0, "handicap_stones": [], "referee_command": None, "reason": None,
    "fault": None, "score": None, "result_referee": None, "disagreement": False, "dead_stones": [],
    "engine_results": {"player": "?", "opponent": "?"}, "notes": [], "opening": None, "opening_file": None,
    "opening_moves": 0}
COMMAND_KEYS = ("player_command", "opponent_command", "referee_command")


def game_id(record: dict[str, Any]) -> str:
    """`<variant>-<game>`: how reports, the score check and SGF files name a game of a run."""
    return f"{record['variant']}-{record['game']}"


def game_common(cfg: MatchConfig) -> dict[str, Any]:
    """What every game of a run shares, kept once in run.json."""
    return {"run": cfg.name, "board_size": cfg.board_size, "komi": cfg.komi, "handicap": cfg.handicap,
            "host": socket.gethostname(),
            "player_command": {v.name: v.player.command for v in cfg.variants},
            "opponent_command": cfg.opponent.command,
            "referee_command": cfg.referee.command if cfg.referee else None,
            **({"opening_file": cfg.openings_file} if cfg.openings_file else {})}


def _shared(common: dict[str, Any], variant: str, seed: int, game: int) -> dict[str, Any]:
    """GAME_DEFAULTS under `common`, its command templates filled in for one game."""
    shared = {**GAME_DEFAULTS, **common}
    for key in COMMAND_KEYS:
        template = shared.get(key)
        if isinstance(template, dict):          # player_command: one per variant
            template = template.get(variant)
            if template is None:
                del shared[key]
                continue
        if template is not None:
            shared[key] = fill(template, seed, game)
    return shared


def compact_game(record: dict[str, Any], common: dict[str, Any]) -> dict[str, Any]:
    """A game record as its games.jsonl line: what `common` and GAME_DEFAULTS give dropped, moves and
    times as strings."""
    shared = _shared(common, record["variant"], record["seed"], record["game"])
    line = {k: v for k, v in record.items() if k not in shared or shared[k] != v}
    moves = line.get("moves")
    if isinstance(moves, list) and all(m and len(m.split()) == 1 and m == m.strip() for m in moves):
        line["moves"] = " ".join(moves)
    if isinstance(line.get("times"), list):
        line["times"] = " ".join(str(round(float(f"{t:.2f}") * 100)) for t in line["times"])
    return line


def expand_game(line: dict[str, Any], common: dict[str, Any]) -> dict[str, Any]:
    """The game record of a games.jsonl line (the inverse of compact_game, times to the centisecond)."""
    record = {**_shared(common, line["variant"], line["seed"], line["game"]), **line}
    if isinstance(record.get("moves"), str):
        record["moves"] = record["moves"].split()
    if isinstance(record.get("times"), str):
        record["times"] = [int(cs) / 100 for cs in record["times"].split()]
    return record


def read_games(run_dir: Path, repair: bool = False) -> dict[tuple[str, int], dict]:
    """The games of a run folder keyed by (variant, game), as bench.game's records.

    With `repair` (a run about to resume) a line cut short by a kill is dropped from the file, so the
    game is played again and the next line starts on a line of its own; without it the file is only
    read, and a line still being written is left out."""
    run_dir = Path(run_dir)
    path = run_dir / "games.jsonl"
    lines = read_jsonl(path) if repair else (iter_jsonl(path) if path.exists() else [])
    common = read_run(run_dir).get("game_common", {})
    games = {}
    for line in lines:
        try:
            games[(line["variant"], int(line["game"]))] = expand_game(line, common)
        except (KeyError, TypeError, ValueError) as e:
            raise RunError(f"{path}: a game line without {e} ({str(line)[:80]})") from None
    return games
