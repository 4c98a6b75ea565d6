"""How many large patterns a harvest of expert games gives, without fitting a model:

    python -m bench.harvest bench/configs/train/fbt-pro.yaml [--set KEY=VALUE ...] [--scheduler ADDR]
                            [--name SLUG | --out DIR]

It runs the training config's pattern harvest alone (`priors.training.extraction.harvest_record`: the training
games, every expert move counted, the patterns seen at least `patterns.min_count` times) and writes the
record `bench/results/harvest/<name>/` (the config's name by default): run.json, summary.json (the
harvest's counts, its time and peak memory, and the figures: patterns kept, games and moves read) and
summary.txt.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bench import records
from priors.training.extraction import harvest_record
from priors.training.trainconfig import load_config


def figures(harvest: dict[str, Any]) -> list[dict[str, Any]]:
    """Patterns kept, the games and moves they came from, the time and peak memory."""
    kept = sum(harvest["patterns_by_size"].values())
    min_count = harvest["min_count"]
    return [records.figure_entry("patterns", f"large patterns seen at least {min_count} times", kept,
                                 unit="patterns", text=f"{kept:,} patterns"),
            records.figure_entry("games", "training games read", sum(harvest["games"].values()), unit="games",
                                 text=f"{sum(harvest['games'].values()):,} games"),
            records.figure_entry("moves", "expert moves counted", harvest["pattern_moves"], unit="moves",
                                 text=f"{harvest['pattern_moves']:,} moves"),
            records.figure_entry("seconds", "harvest time", harvest["seconds"], unit="s"),
            records.figure_entry("peak_rss_mb", "peak resident memory", harvest["peak_rss_mb"], unit="MB")]


def text(harvest: dict[str, Any]) -> str:
    """summary.txt: the games read, the counts and the kept patterns by size."""
    games = ", ".join(f"{n:,} of {archive}" for archive, n in harvest["games"].items())
    at_least = ", ".join(f">= {k}: {n:,}" for k, n in harvest["patterns_at_least"].items())
    by_size = ", ".join(f"{size}: {n:,}" for size, n in harvest["patterns_by_size"].items())
    return "\n".join([
        f"{harvest['question']}",
        f"games: {games} (digest {harvest['games_digest']})",
        f"expert moves counted: {harvest['pattern_moves']:,}",
        f"patterns seen at least k times: {at_least}",
        f"kept: {sum(harvest['patterns_by_size'].values()):,} patterns seen >= {harvest['min_count']} times; "
        f"by size {by_size}",
        f"{harvest['seconds']} s, peak resident memory {harvest['peak_rss_mb']} MB"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.harvest", description=__doc__.splitlines()[0])
    parser.add_argument("config", help="training config (YAML), e.g. bench/configs/train/fbt-pro.yaml")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config value, e.g. --set data.games=[6000,6000,6000]")
    parser.add_argument("--scheduler", default="", help="Dask scheduler address for game extraction")
    parser.add_argument("--name", help="the record's folder: bench/results/harvest/NAME/ (default: the config's name)")
    parser.add_argument("--out", type=Path, help="the record's folder (default: from --name)")
    args = parser.parse_args(argv)
    try:
        config = load_config(args.config, args.set)
        folder = args.out or records.results_folder("harvest", args.name or Path(args.config).stem)
        harvest = harvest_record(config, args.scheduler)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    run_config = harvest.pop("config")
    records.start_run(folder, "harvest", run_config, resume=False,
                      command=records.command_line("bench.harvest", argv))
    summary = {**harvest, "min_count": config.patterns.min_count}
    records.write_summary(folder, {**summary, "figures": figures(summary)}, text(summary))
    print(f"wrote {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
