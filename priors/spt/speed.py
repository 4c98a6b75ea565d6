"""CPU time of an SPT forest per 19x19 position, apart from the machine's load:

    python -m priors.spt.speed MODEL.npz [MODEL.npz ...] [--games 2] [--every 10] [--name spt-speed]

`priors.evaluate` times each call by the wall clock, which on a shared machine counts the other
processes' turns too. This times `evaluate` (the table, the legal mask and the floor: what the search
gets) and the forest's table alone by this process's CPU time, the best of 5 passes over every
`every`-th position of the first `games` KGS test games, and writes predict/<name>/speed.json.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from priors.base import load_file
from priors.dataset import GameDataset
from priors.evaluate import commit, machine, results_folder

PASSES = 5


def cpu_ms(fn, positions: list) -> float:
    """The best over PASSES of the mean CPU milliseconds of fn(board, color) over the positions."""
    best = float("inf")
    for _ in range(PASSES):
        start = time.process_time()
        for pos in positions:
            fn(pos.board, pos.to_play)
        best = min(best, (time.process_time() - start) / len(positions) * 1e3)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m priors.spt.speed", description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+")
    parser.add_argument("--data", default="../shared/data")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--name", default="spt-speed")
    args = parser.parse_args(argv)
    positions = list(GameDataset(args.data, split="test", max_games=args.games))[::args.every]
    rows = []
    for path in args.models:
        prior, _ = load_file(path)
        rows.append({"model": path, "n_trees": len(prior.forest_["roots"]),
                     "evaluate_ms": round(cpu_ms(prior.evaluate, positions), 4),
                     "table_ms": round(cpu_ms(prior.table, positions), 4)})
        print(f"{path:40s} {rows[-1]['n_trees']:3d} trees  evaluate {rows[-1]['evaluate_ms']:.3f} ms  "
              f"table {rows[-1]['table_ms']:.3f} ms (CPU, {len(positions)} positions)")
    folder = results_folder(args.out, args.name)
    report = {"question": "CPU time per position of SPT forests",
              "command": "python -m priors.spt.speed " + " ".join(argv if argv is not None else sys.argv[1:]),
              "commit": commit(), "date": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": machine(),
              "positions": len(positions), "passes": PASSES, "results": rows}
    (Path(folder) / "speed.json").write_text(json.dumps(report, indent=1))
    print(f"wrote {folder / 'speed.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
