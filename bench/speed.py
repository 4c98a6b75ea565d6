"""Playouts per second: the full search (tree + playouts) by board size and thread count, and raw playouts.

    python -m bench.speed [--presets default none] [--sizes 9 19] [--seconds S] [--threads 1 2] [--repeats R]
                          [--name SLUG | --out DIR] [--set playout.KEY=VALUE ...]

The search is timed for each engine preset in turn (by default the default engine, with its `fbt` prior,
and `none` beside it, so the prior's cost is a ratio within one run): its search, playout and prior
settings, with the thread count and seed of the run. Raw playouts use the first preset's policy.
Each figure is the median of R timed runs from the empty board (the range is printed beside it), in
wall-clock playouts/s and, because the machine may be shared, also per CPU-second of this process.
The 2-thread/1-thread ratio divides the wall-clock medians; the CPUs column (CPU time / wall time)
shows how much of the machine the run actually got, so a low ratio on a busy machine can be told
apart from contention in the search (which would lower the per-CPU-second figure instead). Targets: >= 15,000/s on 9x9 and >= 4,000/s
on 19x19 per thread; 2 threads >= 1.7x one thread. The record, bench/results/speed/<slug>/, has run.json,
summary.json (every run, and the figures: `default/9/1t`, `none/9/1t`, `9/raw`, `default/9/2t-vs-1t`, ...)
and summary.txt (the table).
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time
from pathlib import Path

from bench import records
from engine.board import Board
from engine.builder import build_search, load_move_prior
from engine.config import ConfigError, load_config
from engine.params import EngineParams, PlayoutParams
from engine.playout import run_playouts
from engine.search import Search
from priors.base import load_prior

PRESETS = Path(__file__).resolve().parent.parent / "configs"
TARGETS = {9: 15000, 19: 4000}       # playouts/s per thread
RATIO_TARGET = 1.7


def time_search(size: int, threads: int, seconds: float, seed: int, params: EngineParams,
                prior) -> tuple[float, float]:
    """(playouts per wall second, per CPU second of this process) of one timed search from the empty board."""
    search_params = dataclasses.replace(params.search, n_threads=threads, seed=seed)
    search = build_search(dataclasses.replace(params, search=search_params), prior)
    search.set_root(Board(size))
    search.run(playouts=200)                       # warm up: the root and first level exist
    search.set_root(Board(size))                   # same position: the tree is kept
    wall, cpu = time.perf_counter(), time.process_time()
    done = search.run(seconds=seconds)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return done / wall, done / max(cpu, 1e-9)


def time_raw(size: int, seconds: float, seed: int, params: PlayoutParams) -> tuple[float, float, float]:
    """(playouts per wall second, per CPU second, mean length) of playouts without a tree."""
    board = Board(size)
    probe = run_playouts(board, params, 20, seed=seed)
    n = max(20, int(seconds * 20 / max(probe["seconds"], 1e-6)))
    cpu = time.process_time()
    result = run_playouts(board, params, n, seed=seed)
    cpu = time.process_time() - cpu
    return n / result["seconds"], n / max(cpu, 1e-9), result["mean_length"]


def scheduling() -> str:
    """This process's CFS autogroup and its nice value (Linux), which sets its share of a busy machine."""
    try:
        return Path("/proc/self/autogroup").read_text().strip()
    except OSError:
        return "unknown"


def summary(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": values}


def measure(sizes: list[int], threads: list[int], seconds: float, repeats: int,
            engines: dict[str, tuple[EngineParams, object]]) -> dict:
    """Per board size: raw playouts (the first engine's policy), then each engine's search per thread count."""
    rows = {}
    playout = next(iter(engines.values()))[0].playout
    for size in sizes:
        row = {}
        raw = [time_raw(size, seconds, seed=r + 1, params=playout) for r in range(repeats)]
        row["raw"] = {"wall": summary([r[0] for r in raw]), "cpu": summary([r[1] for r in raw]),
                      "cpus_used": summary([r[0] / r[1] for r in raw]),
                      "mean_length": statistics.mean(r[2] for r in raw)}
        for name, (params, prior) in engines.items():
            cell = {}
            for n in threads:
                runs = [time_search(size, n, seconds, r + 1, params, prior) for r in range(repeats)]
                cell[f"search_{n}"] = {"wall": summary([r[0] for r in runs]), "cpu": summary([r[1] for r in runs]),
                                       "cpus_used": summary([r[0] / r[1] for r in runs])}
            if 1 in threads and 2 in threads:
                cell["ratio_2_1"] = cell["search_2"]["wall"]["median"] / cell["search_1"]["wall"]["median"]
            row[name] = cell
        rows[str(size)] = row
    return rows


def figures(rows: dict, threads: list[int], repeats: int, names: list[str]) -> list[dict]:
    """Median wall-clock playouts/s of each engine's search per size and thread count, of raw playouts,
    the 2-thread/1-thread ratio, and each engine's rate against the first's at one thread; n is the
    number of timed runs (their range is in the text, not an interval)."""
    out = []
    for size, row in rows.items():
        board = f"{size}x{size}"
        entries = [(f"{size}/raw", f"raw playouts on {board}, no tree", row["raw"])]
        for name in names:
            entries += [(f"{name}/{size}/{n}t", f"{name}: search on {board}, {n} thread{'s' if n > 1 else ''}",
                         row[name][f"search_{n}"]) for n in threads]
        for key, label, e in entries:
            w = e["wall"]
            out.append(records.figure_entry(key, label, w["median"], n=repeats, unit="playouts/s",
                                            text=f"{w['median']:,.0f} playouts/s (median of {repeats}, "
                                                 f"{w['min']:,.0f}-{w['max']:,.0f})"))
        for name in names:
            cell = row[name]
            if "ratio_2_1" in cell:
                out.append(records.figure_entry(f"{name}/{size}/2t-vs-1t", f"{name}: 2 threads / 1 thread on {board}",
                                                cell["ratio_2_1"], unit="x", text=f"{cell['ratio_2_1']:.2f}x"))
        first, base = names[0], threads[0]
        for name in names[1:]:
            ratio = row[first][f"search_{base}"]["wall"]["median"] / row[name][f"search_{base}"]["wall"]["median"]
            out.append(records.figure_entry(f"{first}-vs-{name}/{size}/{base}t",
                                            f"{first} / {name} playouts/s on {board}, {base} thread(s)", ratio,
                                            unit="x", text=f"{ratio:.2f}x"))
    return out


def fmt(s: dict) -> str:
    return f"{s['median']:>8,.0f} ({s['min']:,.0f}-{s['max']:,.0f})"


def table(rows: dict, threads: list[int], node_bytes: int, names: list[str]) -> str:
    lines = [f"{'board':<6} {'measure':<30} {'playouts/s wall (range)':>28} {'per CPU-s':>10} {'CPUs':>5} "
             f"{'target':>8}"]
    for size, row in rows.items():
        board = f"{size}x{size}"
        per_thread = TARGETS.get(int(size))
        entries = [("raw playouts, no tree", row["raw"], None)]
        for name in names:
            for n in threads:
                # One thread: the per-thread target; more: the scaling target applied to it.
                goal = per_thread * (1 if n == 1 else RATIO_TARGET * n / 2) if per_thread else None
                entries.append((f"{name}, {n} thread{'s' if n > 1 else ''}", row[name][f"search_{n}"], goal))
        for label, e, goal in entries:
            goal_text = f"{goal:,.0f}" if goal else "-"
            lines.append(f"{board:<6} {label[:30]:<30} {fmt(e['wall']):>28} {e['cpu']['median']:>10,.0f} "
                         f"{e['cpus_used']['median']:>5.2f} {goal_text:>8}")
        lines.append(f"{board:<6} {'mean playout length':<30} {row['raw']['mean_length']:>28.1f}")
        for name in names:
            if "ratio_2_1" in row[name]:
                lines.append(f"{board:<6} {(name + ', 2 threads / 1')[:30]:<30} {row[name]['ratio_2_1']:>28.2f} "
                             f"{'':>10} {'':>5} {RATIO_TARGET:>8}")
    lines.append(f"node: {node_bytes} bytes; 1M nodes: {node_bytes * 1_000_000 / 2**20:.1f} MiB")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.speed", description=__doc__.splitlines()[0])
    parser.add_argument("--presets", nargs="+", default=["default", "none"],
                        help="engine presets (a name in configs/ or a YAML file) whose search is timed")
    parser.add_argument("--sizes", type=int, nargs="+", default=[9, 19])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each timed run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per figure (median reported)")
    parser.add_argument("--name", default="default", help="the record's folder: bench/results/speed/NAME/")
    parser.add_argument("--out", type=Path, help="the record's folder (default: from --name)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="playout.KEY=VALUE",
                        help="a playout policy setting (repeatable), e.g. playout.ladder_rate=100")
    args = parser.parse_args(argv)
    if any(not o.startswith("playout.") for o in args.overrides):
        parser.error("--set takes playout.KEY=VALUE settings only")
    try:
        engines = {preset_name(p): load_engine(p, args.overrides) for p in args.presets}
    except ConfigError as e:
        parser.error(str(e))
    try:
        args.out = args.out or records.results_folder("speed", args.name)
    except ValueError as e:
        parser.error(str(e))
    if any(not 2 <= s <= 25 for s in args.sizes):
        parser.error("board sizes must be in 2..25")
    if any(t < 1 for t in args.threads) or args.seconds <= 0 or args.repeats < 1:
        parser.error("threads and repeats must be >= 1, seconds > 0")

    names = list(engines)
    config = {"sizes": args.sizes, "threads": args.threads, "seconds": args.seconds, "repeats": args.repeats,
              "presets": args.presets, "overrides": args.overrides,
              "engines": {n: {"search": vars_of(p.search), "playout": vars_of(p.playout), "prior": vars_of(p.prior)}
                          for n, (p, _) in engines.items()}}
    records.start_run(args.out, "speed", config, resume=False,
                      command=records.command_line("bench.speed", argv))
    load_before = os.getloadavg()
    rows = measure(args.sizes, args.threads, args.seconds, args.repeats, engines)
    node_bytes = Search.bytes_per_node()
    load_after = os.getloadavg()
    text = (table(rows, args.threads, node_bytes, names) + f"\ncpus: {os.cpu_count()}, load average before: "
            f"{load_before[0]:.2f}, after: {load_after[0]:.2f}")
    print(text)
    summary = {
        "figures": figures(rows, args.threads, args.repeats, names),
        "scheduling": {"load_average_before": load_before, "load_average_after": load_after,
                       "autogroup": scheduling(), "nice": os.nice(0)},
        "node_bytes": node_bytes,
        "memory_1m_nodes_mib": node_bytes * 1_000_000 / 2**20,
        "targets": {"per_thread": TARGETS, "ratio_2_1": RATIO_TARGET},
        "results": rows,
    }
    records.write_summary(args.out, summary, text)
    print(f"wrote {args.out}")
    return 0


def preset_name(preset: str) -> str:
    return Path(preset).stem


def load_engine(preset: str, overrides: list[str]) -> tuple[EngineParams, object]:
    """A preset's parameters (with the playout overrides) and its prior, loaded once for every timed run."""
    path = preset if preset.endswith((".yaml", ".yml")) else str(PRESETS / f"{preset}.yaml")
    params = load_config(path, overrides)
    return params, load_move_prior(params.prior, load_prior)


def vars_of(params) -> dict:
    return {k: getattr(params, k) for k in params.__dataclass_fields__}


if __name__ == "__main__":
    sys.exit(main())
