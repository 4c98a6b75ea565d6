"""FBT settings over several seeds, scored on unseen games: the paper's "mean of 5 runs".

    python -m bench.fbt_runs bench/configs/predict/fbt-runs.yaml [--only CELL ...] [--seeds 1 2 ...] [--data DIR] [--report]

Xiao and Mueller report every accuracy as the mean of 5 runs, because the factor vectors start at
random; one run each cannot separate methods that differ by less than the spread between seeds
(0.64 to 0.82 points in the paper). Each cell of the config (feature set, k, loss, gradient) is
trained once per seed on the same cached competitions (`priors.training.train`'s `cache_dir`) and scored on
the held-out split's competitions, extracted once per feature set and cached beside them. That split
is the test split, or the validation split (`split: validation`) when the bench chooses a setting.
The output folder is a record (bench.records): every finished (cell, seed) is appended to items.jsonl, so an
interrupted bench resumes where it stopped; run.json, summary.json (each cell's mean and SD over its seeds,
the comparisons, and the figures: `<cell>/top1`, `<a>-vs-<b>/top1`), summary.txt and top1.png.

Scoring is `priors.fbt.model.score` (ties pessimistic: the expert move's rank counts every candidate
scored at least as high), the same ranks `python -m bench.predict` gives position by position.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import statistics
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from bench import records
from bench.predict import N_PHASES, PHASE_MOVES, TOP_K
from bench.stats import Z95
from engine.configfile import ConfigError, read_yaml
from priors.fbt import train as fbt_train
from priors.fbt.model import FBTPrior, score
from priors.groups import group_offsets
from priors.training.competitions import Competitions, load_competitions, save_competitions
from priors.training.datacache import cache_folder, training_data
from priors.training.extraction import TrainingData, compete, compete_chunk, split_dataset
from priors.training.trainconfig import TrainConfig, load_config


@dataclass(frozen=True)
class Cell:
    name: str
    overrides: tuple[str, ...]


@dataclass(frozen=True)
class BenchConfig:
    train: str                     # the training config every cell starts from
    seeds: tuple[int, ...]
    sample: float                  # share of the scored split's positions scored
    archives: tuple[str, ...]      # archives whose split is scored (default: the training ones)
    out: str
    cells: tuple[Cell, ...]
    compare: tuple[tuple[str, str], ...]   # (a, b): report a - b
    split: str = "test"            # the held-out split scored: test, or validation to choose settings
    common: tuple[str, ...] = ()   # overrides every cell starts with


def load_bench_config(path: str | Path) -> BenchConfig:
    raw = read_yaml(path)
    unknown = set(raw) - {"train", "seeds", "split", "sample", "archives", "set", "out", "cells", "compare"}
    if unknown:
        raise ConfigError(f"{path}: unknown key {sorted(unknown)[0]!r}")

    def need(ok: bool, key: str, what: str) -> None:
        if not ok:
            raise ConfigError(f"{path}: {key} must be {what}")

    need(isinstance(raw.get("train"), str), "train", "the path of a training config")
    seeds = raw.get("seeds", [1, 2, 3, 4, 5])
    need(isinstance(seeds, list) and seeds and all(isinstance(s, int) for s in seeds), "seeds", "a list of integers")
    split = raw.get("split", "test")
    need(split in ("test", "validation"), "split", "test or validation")
    sample = raw.get("sample", 1.0)
    need(isinstance(sample, (int, float)) and 0 < sample <= 1, "sample", "in (0, 1]")
    archives = raw.get("archives", [])
    need(isinstance(archives, list) and all(isinstance(a, str) for a in archives), "archives",
         "a list of archive names")
    common = raw.get("set", [])
    need(isinstance(common, list) and all(isinstance(x, str) and "=" in x for x in common), "set",
         "a list of KEY=VALUE overrides")
    cells = raw.get("cells")
    need(isinstance(cells, list) and cells, "cells", "a list of {name, set}")
    parsed = []
    for i, c in enumerate(cells):
        need(isinstance(c, dict) and isinstance(c.get("name"), str), f"cells[{i}].name", "a string")
        sets = c.get("set", [])
        need(isinstance(sets, list) and all(isinstance(x, str) and "=" in x for x in sets),
             f"cells[{i}].set", "a list of KEY=VALUE overrides")
        parsed.append(Cell(c["name"], tuple(sets)))
    names = [c.name for c in parsed]
    need(len(set(names)) == len(names), "cells", "named uniquely")
    compare = raw.get("compare", [])
    need(isinstance(compare, list) and all(isinstance(p, list) and len(p) == 2 and set(p) <= set(names)
                                           for p in compare), "compare", "a list of [cell, cell] pairs")
    return BenchConfig(raw["train"], tuple(seeds), float(sample), tuple(archives),
                       str(raw.get("out", "bench/results/fbt-runs")),
                       tuple(parsed), tuple(tuple(p) for p in compare), split, tuple(common))


def cell_config(bench: BenchConfig, cell: Cell, data_dir: str | None) -> TrainConfig:
    overrides = [*bench.common, *cell.overrides] + ([f"data.data_dir={data_dir}"] if data_dir else [])
    config = load_config(bench.train, overrides)
    if config.model != "fbt":
        raise ConfigError(f"cells[{cell.name}]: model must be fbt, the config gives {config.model!r}")
    if not config.cache_dir:
        raise ConfigError(f"{bench.train}: cache_dir must be set (every seed reuses the competitions)")
    return config


def held_out_competitions(config: TrainConfig, data: TrainingData, sample: float, archives: tuple[str, ...] = (),
                          split: str = "test", log=print) -> Competitions:
    """A held-out split's competitions with this feature set, extracted once and cached."""
    folder = cache_folder(config)
    held_out = replace(config.data, archives=tuple(archives)) if archives else config.data
    prefix = split + "-" + hashlib.sha256(json.dumps([list(held_out.archives), sample]).encode()).hexdigest()[:8]
    comps = load_competitions(folder, prefix)
    if comps is not None:
        return comps
    ds = split_dataset(held_out, split, sample, None)
    n_games = len(ds.game_ids())
    log(f"{split} competitions: {n_games} games of the {split} split of {', '.join(held_out.archives)}, "
        f"positions sampled at {sample:g}")
    comps, _ = compete(None, lambda games: compete_chunk(held_out, split, sample, data.patterns, games),
                       ds.games(), config.chunk_games, n_games, split, None)
    save_competitions(folder, prefix, comps)
    return comps


def held_out_scores(prior: FBTPrior, held_out: Competitions) -> dict[str, Any]:
    """Top-1 to top-20, mean log-likelihood and top-1 per game phase (bench.predict's phases)."""
    loglik, rank = score(held_out, prior.w_, prior.v_, group_offsets(prior.level_counts_))
    phase = np.minimum((held_out.move_numbers - 1) // PHASE_MOVES, N_PHASES - 1)
    return {
        "positions": int(len(rank)),
        "top_k": [round(float(np.mean(rank <= k)), 6) for k in range(1, TOP_K + 1)],
        "mean_loglik": round(float(np.mean(loglik)), 5),
        "phase_top1": [round(float(np.mean(rank[phase == p] == 1)), 5) if np.any(phase == p) else None
                       for p in range(N_PHASES)],
    }


def fit_seed(config: TrainConfig, seed: int, data: TrainingData) -> tuple[FBTPrior, dict]:
    """The cell's model trained with this seed, and its kept validation point."""
    prior, _, kept = fbt_train.fit(replace(config.hyper, seed=seed), data)
    return prior, kept


def run_one(config: TrainConfig, seed: int, data: TrainingData, held_out: Competitions) -> dict[str, Any]:
    start = time.time()
    prior, kept = fit_seed(config, seed, data)
    return {"seed": seed, "fit_seconds": round(time.time() - start, 1), "best_epoch": prior.info_["best_epoch"],
            "epochs_run": prior.info_["epochs_run"], "val_top1": kept.get("val_top1"),
            "scores": held_out_scores(prior, held_out)}


def read_runs(path: Path) -> dict[tuple[str, int], dict]:
    """The recorded runs by (cell, seed); a later line of the same pair replaces an earlier one."""
    return {(r["cell"], r["seed"]): r for r in records.read_jsonl(path)}


def describe(values: list[float]) -> dict[str, float]:
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return {"n": len(values), "mean": statistics.fmean(values), "sd": sd,
            "min": min(values), "max": max(values)}


def cell_runs(runs: dict[tuple[str, int], dict], cell: str) -> list[dict]:
    """Every recorded run of a cell, by seed."""
    return [runs[key] for key in sorted(k for k in runs if k[0] == cell)]


def summarize(bench: BenchConfig, runs: dict[tuple[str, int], dict]) -> dict[str, Any]:
    """Mean, SD, min and max over every recorded seed of each cell, and the configured comparisons."""
    cells = {}
    for cell in bench.cells:
        rs = cell_runs(runs, cell.name)
        if not rs:
            continue
        cells[cell.name] = {
            "set": list(cell.overrides), "seeds": [r["seed"] for r in rs],
            "top1": describe([100 * r["scores"]["top_k"][0] for r in rs]),
            "top5": describe([100 * r["scores"]["top_k"][4] for r in rs]),
            "top20": describe([100 * r["scores"]["top_k"][19] for r in rs]),
            "loglik": describe([r["scores"]["mean_loglik"] for r in rs]),
            "epochs": describe([r["epochs_run"] for r in rs]),
            "fit_seconds": describe([r["fit_seconds"] for r in rs]),
            "positions": rs[0]["scores"]["positions"],
        }
    comparisons = []
    for a, b in bench.compare:
        if a in cells and b in cells:
            ta, tb = cells[a]["top1"], cells[b]["top1"]
            diff = ta["mean"] - tb["mean"]
            # a single run has no spread to estimate: no standard error then
            se = math.sqrt(ta["sd"] ** 2 / ta["n"] + tb["sd"] ** 2 / tb["n"]) if min(ta["n"], tb["n"]) > 1 else None
            best_b = max(top1s(runs, b))
            comparisons.append({"a": a, "b": b, "top1_difference": diff, "se": se,
                                "runs_of_a_above_best_b": sum(x > best_b for x in top1s(runs, a))})
    return {"cells": cells, "comparisons": comparisons}


def figures(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Each cell's mean top-1 over its seeds (the SD in the text), and each comparison's difference with
    the normal 95% interval of its standard error where the seeds give one."""
    out = []
    for name, c in summary["cells"].items():
        t = c["top1"]
        out.append(records.figure_entry(f"{name}/top1", f"{name}: top-1, mean of {t['n']} seeds", t["mean"] / 100,
                                        n=c["positions"], unit="top-1",
                                        text=f"{t['mean']:.2f}% +- {t['sd']:.2f} over {t['n']} seeds"))
    for cmp in summary["comparisons"]:
        d, se = cmp["top1_difference"], cmp["se"]
        low, high = (None, None) if se is None else ((d - Z95 * se) / 100, (d + Z95 * se) / 100)
        out.append(records.figure_entry(f"{cmp['a']}-vs-{cmp['b']}/top1", f"{cmp['a']} - {cmp['b']}: top-1 "
                                        "difference of the seeds' means", d / 100, low=low, high=high, unit="share",
                                        text=f"{d:+.2f} points" + ("" if se is None else f" (SE {se:.2f})")))
    return out


def top1s(runs: dict[tuple[str, int], dict], cell: str) -> list[float]:
    return [100 * r["scores"]["top_k"][0] for r in cell_runs(runs, cell)]


def table(summary: dict[str, Any]) -> str:
    lines = [f"{'cell':16s} {'runs':>4s} {'top-1 mean':>10s} {'sd':>5s} {'min':>6s} {'max':>6s} "
             f"{'top-5':>6s} {'top-20':>6s} {'loglik':>7s} {'epochs':>6s} {'s/run':>6s}"]
    for name, c in summary["cells"].items():
        t = c["top1"]
        lines.append(f"{name:16s} {t['n']:4d} {t['mean']:10.2f} {t['sd']:5.2f} {t['min']:6.2f} {t['max']:6.2f} "
                     f"{c['top5']['mean']:6.2f} {c['top20']['mean']:6.2f} {c['loglik']['mean']:7.3f} "
                     f"{c['epochs']['mean']:6.1f} {c['fit_seconds']['mean']:6.0f}")
    for cmp in summary["comparisons"]:
        lines.append(f"{cmp['a']} - {cmp['b']}: {cmp['top1_difference']:+.2f} points top-1 "
                     f"(SE {'n/a' if cmp['se'] is None else format(cmp['se'], '.2f')}); runs of {cmp['a']} above the best of {cmp['b']}: "
                     f"{cmp['runs_of_a_above_best_b']}")
    return "\n".join(lines)


def plot(bench: BenchConfig, runs: dict[tuple[str, int], dict], path: Path) -> None:
    names = [c.name for c in bench.cells if top1s(runs, c.name)]
    fig, ax = records.figure(1.2 * len(names) + 2, 4)
    for i, name in enumerate(names):
        ys = top1s(runs, name)
        ax.scatter([i] * len(ys), ys, s=14, color="tab:blue")
        ax.errorbar([i + 0.15], [statistics.fmean(ys)], yerr=[statistics.stdev(ys) if len(ys) > 1 else 0],
                    fmt="o", color="tab:red", capsize=3)
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_ylabel(f"top-1 on the {bench.split} split (%)")
    ax.set_title("each seed (blue), mean and SD (red)")
    records.save_plot(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fbt_runs", description=__doc__.splitlines()[0])
    parser.add_argument("config", help="bench config (YAML), e.g. bench/configs/predict/fbt-runs.yaml")
    parser.add_argument("--only", nargs="+", default=None, metavar="CELL", help="run these cells only")
    parser.add_argument("--seeds", nargs="+", type=int, default=None, help="override the config's seeds")
    parser.add_argument("--data", default=None, help="directory of the game archives (default: the training config's)")
    parser.add_argument("--out", default=None, help="output folder (default: the config's out)")
    parser.add_argument("--report", action="store_true", help="train nothing: summarize the recorded runs")
    args = parser.parse_args(argv)
    try:
        bench = load_bench_config(args.config)
        if args.seeds:
            bench = replace(bench, seeds=tuple(args.seeds))
        unknown = set(args.only or []) - {c.name for c in bench.cells}
        if unknown:
            raise ConfigError(f"--only: no cell named {sorted(unknown)[0]!r} in {args.config}")
        out = Path(args.out or bench.out)
        runs_file = out / records.ITEMS
        runs = read_runs(runs_file)
        other = {r["split"] for r in runs.values()} - {bench.split}
        if other:                                         # one summary must not mix test and validation scores
            raise ConfigError(f"split: {runs_file} holds runs scored on the {other.pop()} split; "
                                   f"give this bench another out folder")
        records.start_run(out, "fbt-runs", {"config": args.config, "bench": asdict(bench), "data": args.data,
                                            "only": args.only, "report": args.report},
                          command=records.command_line("bench.fbt_runs", argv))
        loaded_folder, data, held_out = None, None, None
        for cell in bench.cells:
            if args.report or (args.only and cell.name not in args.only):
                continue
            todo = [s for s in bench.seeds if (cell.name, s) not in runs]
            if not todo:
                continue
            config = cell_config(bench, cell, args.data)
            folder = cache_folder(config)
            if folder != loaded_folder:                   # cells of one feature set share their data
                data = held_out = None                    # free the previous feature set's arrays first
                data = training_data(config, log=lambda m: print(m, file=sys.stderr))
                held_out = held_out_competitions(config, data, bench.sample, bench.archives, bench.split,
                                                 log=lambda m: print(m, file=sys.stderr))
                loaded_folder = folder
            for seed in todo:
                record = {"cell": cell.name, "split": bench.split, **run_one(config, seed, data, held_out)}
                runs[(cell.name, seed)] = record
                records.append_jsonl(runs_file, record)
                print(f"{cell.name} seed {seed}: top-1 {100 * record['scores']['top_k'][0]:.2f}% "
                      f"({record['epochs_run']} epochs, {record['fit_seconds']:.0f} s)", file=sys.stderr)
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished runs are in {records.ITEMS}; run the same command again to resume",
              file=sys.stderr)
        return 130
    summary = summarize(bench, runs)
    summary = {"figures": figures(summary), **summary, "split": bench.split, "sample": bench.sample,
               "archives": list(bench.archives)}
    text = table(summary)
    records.write_summary(out, summary, text)
    if runs:
        plot(bench, runs, out / "top1.png")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
