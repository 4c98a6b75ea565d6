"""Playouts per second of GTP engines, Tesuji and others alike: `python -m bench.engine_speed CONFIG`.

    python -m bench.engine_speed bench/configs/speed/pachi.yaml [--out DIR] [--program NAME=PATH]

bench.speed times Tesuji's search from inside; other programs can only be timed through GTP. Here every
engine of the config, in turn, gets `boardsize`, `clear_board`, `komi` and one timed `genmove b` from the
empty board, at the config's fixed number of playouts a move; its speed is those playouts over the wall
time of the genmove, the median of `repeats` such moves. Each timed move is the first of a fresh engine
process, so no engine searches on in a tree kept from an earlier move; the process's start is not timed.
The engines' commands fix the count themselves: Tesuji's `--set search.playouts={playouts}` runs exactly
that many simulations; Pachi's `-t ={playouts}` stops at that many games (its log, at -d 2, reports a few
more, about 3% on 19x19, as it checks the limit between batches: the figure undercounts Pachi by that
much). The commands say one search thread each, so the ratio compares one core with one core. `{pachi}`
and other external programs are resolved as in a match (bench.programs).

```yaml
name: pachi                 # the record: bench/results/speed/<name>/; default: the file name
sizes: [9, 19]
komi: {9: 7, 19: 7.5}       # per size; default 7.5
playouts: 10000             # a move, written wherever a command says {playouts}
repeats: 5                  # timed moves per engine and size; the median is reported
timeout: 600                # seconds any one GTP command may take
reference: pachi            # each other engine's speed is also given as a multiple of this one's
engines:
  - name: default
    command: python -m gtp.cli gtp --set search.playouts={playouts} --set search.n_threads=1
  - name: pachi
    command: "{pachi} -d 0 -t ={playouts} threads=1"
```

The record (bench.records) holds run.json, summary.json (every timed move, and the figures `<engine>/<size>`
in playouts/s and `<engine>-vs-<reference>/<size>`, the ratio of medians) and summary.txt (the table).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import programs as external
from bench import records
from bench.gtpclient import EngineFault, ErrorReply, GtpEngine
from bench.matchconfig import NAME_RE, _check_keys, _int, _name, _number, _positive, _text
from engine.configfile import ConfigError, read_yaml

TOP_KEYS = {"name", "sizes", "komi", "playouts", "repeats", "timeout", "reference", "engines"}


@dataclass(frozen=True)
class SpeedConfig:
    name: str
    sizes: tuple[int, ...]
    komi: dict[int, float]
    playouts: int
    repeats: int
    timeout: float
    reference: str
    engines: dict[str, str]          # name: command, {playouts} and the programs filled in
    programs: dict[str, str]         # the external programs the commands use: paths
    raw: dict


def load_config(path: str, programs: dict[str, str]) -> SpeedConfig:
    """Read and validate the config; every problem is a ConfigError naming the file and the key."""
    try:
        return parse_config(read_yaml(path), Path(path).stem, programs)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None


def parse_config(data: Any, default_name: str, programs: dict[str, str]) -> SpeedConfig:
    if not isinstance(data, dict):
        raise ConfigError("the file must hold a mapping of keys (sizes, playouts, engines, ...)")
    _check_keys(data, TOP_KEYS, "")
    name = _name(data.get("name", default_name), "name")
    sizes = data.get("sizes", [9, 19])
    if not isinstance(sizes, list) or not sizes:
        raise ConfigError(f"sizes: expected a list of board sizes, got {sizes!r}")
    sizes = tuple(_int(s, "sizes", 2, 25) for s in sizes)
    komi = data.get("komi", {})
    if not isinstance(komi, dict):
        raise ConfigError(f"komi: expected a mapping of board size to komi, got {komi!r}")
    komi = {s: _number(komi.get(s, 7.5), f"komi.{s}") for s in sizes}
    playouts = _int(data.get("playouts", 10000), "playouts", 1)
    items = data.get("engines")
    if not isinstance(items, list) or not items:
        raise ConfigError("engines: expected a list of engines, each a name and a command")
    engines, used = {}, {}
    for i, item in enumerate(items):
        if not isinstance(item, dict) or set(item) != {"name", "command"}:
            raise ConfigError(f"engines[{i}]: expected a mapping of a name and a command, got {item!r}")
        engine = str(item["name"])
        if not NAME_RE.match(engine) or engine in engines:
            raise ConfigError(f"engines[{i}].name: must be unique, letters, digits and . _ + - only, got {engine!r}")
        command = _text(item["command"], f"engines[{i}].command")
        used.update((p, programs[p]) for p in external.used(command))
        engines[engine] = external.resolve(command, programs).replace("{playouts}", str(playouts))
    reference = data.get("reference", next(iter(engines)))
    if reference not in engines:
        raise ConfigError(f"reference: {reference!r} is not an engine's name ({', '.join(engines)})")
    return SpeedConfig(name, sizes, komi, playouts, _int(data.get("repeats", 5), "repeats", 1),
                       _positive(data.get("timeout", 600), "timeout"), reference, engines, used, data)


def time_genmove(command: str, size: int, komi: float, timeout: float) -> float:
    """Wall seconds of one `genmove b` from the empty board, the first move of a fresh engine process."""
    with GtpEngine(command, timeout=timeout) as engine:
        for line in (f"boardsize {size}", "clear_board", f"komi {komi:g}"):
            engine.send(line)
        start = time.perf_counter()
        engine.send("genmove b")
        return time.perf_counter() - start


def measure(cfg: SpeedConfig) -> dict[str, dict[str, list[float]]]:
    """{size: {engine: the playouts/s of each timed move}}, the engines taking turns move by move, so that
    a change in the machine's load falls on all of them alike."""
    rows: dict[str, dict[str, list[float]]] = {}
    for size in cfg.sizes:
        row: dict[str, list[float]] = {name: [] for name in cfg.engines}
        for _ in range(cfg.repeats):
            for name, command in cfg.engines.items():
                row[name].append(cfg.playouts / time_genmove(command, size, cfg.komi[size], cfg.timeout))
        rows[str(size)] = row
    return rows


def figures(cfg: SpeedConfig, rows: dict[str, dict[str, list[float]]]) -> list[dict]:
    """Each engine's median playouts/s per size, then each one's ratio to the reference's median."""
    out = []
    for size, row in rows.items():
        board = f"{size}x{size}"
        medians = {name: statistics.median(runs) for name, runs in row.items()}
        for name, runs in row.items():
            out.append(records.figure_entry(
                f"{name}/{size}", f"{name}: genmove from the empty {board} board, {cfg.playouts:,} playouts",
                medians[name], n=len(runs), unit="playouts/s",
                text=f"{medians[name]:,.0f} playouts/s (median of {len(runs)}, {min(runs):,.0f}-{max(runs):,.0f})"))
        base = medians[cfg.reference]
        for name in row:
            if name != cfg.reference:
                ratio = medians[name] / base
                out.append(records.figure_entry(f"{name}-vs-{cfg.reference}/{size}",
                                                f"{name} / {cfg.reference} playouts/s on {board}, same run",
                                                ratio, unit="x", text=f"{ratio:.2f}x"))
    return out


def table(cfg: SpeedConfig, rows: dict[str, dict[str, list[float]]]) -> str:
    lines = [f"genmove from the empty board at {cfg.playouts:,} playouts, median of {cfg.repeats} "
             f"(each the first move of a fresh process)",
             f"{'board':<6} {'engine':<16} {'playouts/s (range)':>26} {'vs ' + cfg.reference:>12}"]
    for size, row in rows.items():
        base = statistics.median(row[cfg.reference])
        for name, runs in row.items():
            median = statistics.median(runs)
            spread = f"{median:,.0f} ({min(runs):,.0f}-{max(runs):,.0f})"
            lines.append(f"{size + 'x' + size:<6} {name:<16} {spread:>26} {median / base:>11.2f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.engine_speed", description=__doc__.splitlines()[0])
    parser.add_argument("config", help="the engines and settings (YAML), e.g. bench/configs/speed/pachi.yaml")
    parser.add_argument("--out", type=Path, help="the record's folder (default bench/results/speed/<name>/)")
    external.add_option(parser)
    args = parser.parse_args(argv)
    try:
        cfg = load_config(args.config, external.paths(args.program))
        external.check(cfg.programs)
    except (ConfigError, external.ProgramError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = args.out or records.results_folder("speed", cfg.name)
    records.start_run(out, "speed", cfg.raw, resume=False, command=records.command_line("bench.engine_speed", argv),
                      engines=cfg.engines)
    load_before = os.getloadavg()
    try:
        rows = measure(cfg)
    except (EngineFault, ErrorReply) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    load_after = os.getloadavg()
    text = (table(cfg, rows) + f"\ncpus: {os.cpu_count()}, load average before: {load_before[0]:.2f}, "
            f"after: {load_after[0]:.2f}")
    print(text)
    records.write_summary(out, {"figures": figures(cfg, rows), "playouts": cfg.playouts, "results": rows,
                                "load_average_before": load_before, "load_average_after": load_after,
                                "nice": os.nice(0)}, text)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
