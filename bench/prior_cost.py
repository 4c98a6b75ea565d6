"""The time per move each prior costs the search at equal playouts.

    python -m bench.prior_cost [CONFIG ...] [--playouts 10000] [--games 10] [--name SLUG]

Each config (default: no prior and every shipped prior's preset) searches the same positions of KGS
test games (moves 20, 60, 100 and 140 of the first `--games` games) with `--playouts` playouts on one
thread, config after config for each position, so that the machine's load falls on all alike. Reported
per config: CPU and wall milliseconds per move (the search runs in this thread, so its CPU time is
apart from other processes) and the CPU ratio to the first config, the time a prior costs against no
prior at equal playouts. Writes `bench/results/speed/<slug>/prior-cost.json`.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from dataclasses import dataclass, field

from bench.records import git_commit, results_folder
from engine.board import Board
from engine.config import ConfigError, load_config
from engine.search import Search
from gtp.server import build_move_prior
from priors.dataset import GameDataset

CONFIGS = ["configs/none.yaml", "configs/fbt.yaml", "configs/mm.yaml", "configs/spt.yaml",
           "configs/dtree.yaml", "configs/pbn.yaml"]
MOVES = (20, 60, 100, 140)


@dataclass
class Engine:
    """One config's search, and its timings over the positions."""
    config: str
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
    return Engine(config, Search(params.search, params.playout, build_move_prior(params.prior),
                                 prior_params=params.prior))


def positions(data: str, games: int) -> list[Board]:
    """The boards before moves MOVES of the first `games` test-split games (by the dataset's seeded choice)."""
    dataset = GameDataset(data, split="test", max_games=games)
    boards = []
    for game_id, raw in dataset.games():
        boards += [p.board for p in dataset.positions_of(game_id, raw) if p.move_number in MOVES]
    return boards


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.prior_cost", description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", default=CONFIGS, help="engine configs; the first is the baseline")
    parser.add_argument("--playouts", type=int, default=10000)
    parser.add_argument("--games", type=int, default=10, help="KGS test games (4 positions each)")
    parser.add_argument("--data", default="../shared/data", help="directory of the game archives")
    parser.add_argument("--name", default="prior-cost", help="the record's folder: bench/results/speed/NAME/")
    args = parser.parse_args(argv)
    try:
        engines = [engine(c, args.playouts) for c in args.configs]
        boards = positions(args.data, args.games)
        out = results_folder("speed", args.name) / "prior-cost.json"
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
    rows = [{"config": e.config, "prior": e.search.prior_params.name if e.search.prior is not None else "none",
             "cpu_ms_per_move": 1e3 * sum(e.cpu) / len(e.cpu), "wall_ms_per_move": 1e3 * sum(e.wall) / len(e.wall),
             "cpu_ratio": sum(e.cpu) / base} for e in engines]
    print(f"{len(boards)} positions, {args.playouts} playouts a move, one thread")
    print(f"{'config':28} {'CPU ms/move':>12} {'wall ms/move':>13} {'CPU ratio':>10}")
    for r in rows:
        print(f"{r['config']:28} {r['cpu_ms_per_move']:12.0f} {r['wall_ms_per_move']:13.0f} {r['cpu_ratio']:10.2f}")
    record = {"command": "python -m bench.prior_cost " + " ".join(argv if argv is not None else sys.argv[1:]),
              "commit": git_commit(), "date": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": platform.node(),
              "positions": len(boards), "moves": list(MOVES), "playouts": args.playouts, "rows": rows}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
