"""Where the tactics benchmarks write: one folder per record, bench/results/tactics/<slug>/, and the
provenance every record carries (command, commit, machine, date, every option), so that the folder
name stays short: the benchmark, `-quick` for a smoke run, and `--tag`."""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
from pathlib import Path

from bench import records

ROOT = Path(__file__).resolve().parents[2]


def record_slug(bench: str, quick: bool = False, tag: str = "") -> str:
    """`b1`, `b1-quick`, `b2-TAG`, ...: a record's folder name."""
    return "-".join([bench, *(["quick"] if quick else []), *([tag] if tag else [])])


def results_folder(slug: str) -> Path:
    """bench/results/tactics/<slug>/, made if missing."""
    folder = records.results_folder("tactics", slug)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def provenance(args: argparse.Namespace, argv: list[str]) -> dict:
    return {"command": "python -m bench.tactics " + " ".join(argv), "commit": records.git_commit(),
            "date": datetime.datetime.now().isoformat(timespec="seconds"), "machine": platform.node(),
            "cpu": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}}


def write_record(bench: str, args: argparse.Namespace, argv: list[str], result: dict, wall_seconds: float) -> Path:
    """The benchmark's record, <slug>/<bench>.json; returns its path."""
    record = {**provenance(args, argv), "benchmark": bench, "wall_seconds": round(wall_seconds, 1),
              "results": result}
    path = results_folder(record_slug(bench, args.quick, args.tag)) / f"{bench}.json"
    path.write_text(json.dumps(record, indent=1, default=str) + "\n")
    return path
