"""The time per move each prior costs the search at equal playouts.

    python -m bench.prior_cost [CONFIG ...] [--playouts 10000] [--games 10] [--name SLUG | --out DIR]

Each config (default: no prior and every shipped prior's preset) searches the same positions of KGS
test games (moves 20, 60, 100 and 140 of the first `--games` games) with `--playouts` playouts on one
thread, config after config for each position, so that the machine's load falls on all alike. Reported
per config: CPU and wall milliseconds per move (the search runs in this thread, so its CPU time is
apart from other processes) and the CPU ratio to the first config, the time a prior costs against no
prior at equal playouts. Writes the record `bench/results/speed/<slug>/`: run.json, summary.json (the rows,
and the figures: each config's CPU ms per move, `<config>/ms`, and its CPU ratio, `<config>/ratio`) and
summary.txt (the table).
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import records
from engine.board import Board
from engine.builder import build_search, load_move_prior
from engine.config import ConfigError, load_config
from engine.search import Search
from priors.base import load_prior
from priors.training.dataset import GameDataset

CONFIGS = ["configs/none.yaml", "configs/fbt.yaml", "configs/mm.yaml", "configs/spt.yaml",
           "configs/dtree.yaml", "configs/pbn.yaml"]
MOVES = (20, 60, 100, 140)


@dataclass
class Engine:
    """One config's search, and its timings over the positions."""
    config: str
    prior: str          # prior.name
    search: Search
    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)

    def move(self, board: Board, playouts: int) -> None:
        self.search.set_root(board)
        wall, cpu = time.perf_counter(), time.thread_time()
        self.search.run(playouts=playouts)
        self.cpu.append(time.thread_time() - cpu)
        self.wall.append(time.perf_counter() - wall)


def engine(config: str, playouts: int) -> Engine:
    params = load_config(config, ["search.n_threads=1", f"search.playouts={playouts}", "search.reuse_tree=false"])
    return Engine(config, params.prior.name, build_search(params, load_move_prior(params.prior, load_prior)))


def positions(data: str, games: int) -> list[Board]:
    """The boards before moves MOVES of the first `games` test-split games (by the dataset's seeded choice)."""
    dataset = GameDataset(data, split="test", max_games=games)
    boards = []
    for game_id, raw in dataset.games():
        boards += [p.board for p in dataset.positions_of(game_id, raw) if p.move_number in MOVES]
    return boards


def figures(rows: list[dict], positions: int) -> list[dict]:
    """Each config's CPU milliseconds per move and its CPU ratio to the first (keys by config file stem)."""
    out = []
    for r in rows:
        name = Path(r["config"]).stem
        out.append(records.figure_entry(f"{name}/ms", f"{r['config']}: CPU ms per move", r["cpu_ms_per_move"],
                                        n=positions, unit="ms"))
        out.append(records.figure_entry(f"{name}/ratio", f"{r['config']}: CPU time against {rows[0]['config']}",
                                        r["cpu_ratio"], n=positions, unit="x", text=f"{r['cpu_ratio']:.2f}x"))
    return out


def table(rows: list[dict], positions: int, playouts: int) -> str:
    lines = [f"{positions} positions, {playouts} playouts a move, one thread",
             f"{'config':28} {'CPU ms/move':>12} {'wall ms/move':>13} {'CPU ratio':>10}"]
    lines += [f"{r['config']:28} {r['cpu_ms_per_move']:12.0f} {r['wall_ms_per_move']:13.0f} {r['cpu_ratio']:10.2f}"
              for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.prior_cost", description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", default=CONFIGS, help="engine configs; the first is the baseline")
    parser.add_argument("--playouts", type=int, default=10000)
    parser.add_argument("--games", type=int, default=10, help="KGS test games (4 positions each)")
    parser.add_argument("--data", default="../shared/data", help="directory of the game archives")
    parser.add_argument("--name", default="prior-cost", help="the record's folder: bench/results/speed/NAME/")
    parser.add_argument("--out", type=Path, help="the record's folder (default: from --name)")
    args = parser.parse_args(argv)
    try:
        engines = [engine(c, args.playouts) for c in args.configs]
        boards = positions(args.data, args.games)
        out = args.out or records.results_folder("speed", args.name)
    except (ConfigError, ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not boards:
        print("error: no test positions (are the archives in --data?)", file=sys.stderr)
        return 2
    for board in boards:
        for e in engines:
            e.move(board, args.playouts)
    base = sum(engines[0].cpu)
    rows = [{"config": e.config, "prior": e.prior if e.search.prior is not None else "none",
             "cpu_ms_per_move": 1e3 * sum(e.cpu) / len(e.cpu), "wall_ms_per_move": 1e3 * sum(e.wall) / len(e.wall),
             "cpu_ratio": sum(e.cpu) / base} for e in engines]
    text = table(rows, len(boards), args.playouts)
    print(text)
    config = {"configs": args.configs, "playouts": args.playouts, "games": args.games, "data": args.data,
              "moves": list(MOVES)}
    records.start_run(out, "speed", config, resume=False,
                      command=records.command_line("bench.prior_cost", argv))
    records.write_summary(out, {"figures": figures(rows, len(boards)), "positions": len(boards), "rows": rows}, text)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
