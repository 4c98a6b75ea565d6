"""The thesis's parameter study (Tidwell 2012 §5, Figs 5.1-5.5): top-1/5/10/20 against d, m, s, w_p and n.

    python -m bench.spt_study bench/configs/predict/spt-study.yaml [--set spt.KEY=VALUE ...] [--only d m ...]

Each sweep varies one parameter and holds the others at the training config's values. For every value
`trees` trees are grown (tree k from the generator seeded (seed, k), as `priors.training.train` grows them) on
the pool of the training config's games, and forests of each size K in `forests` are drawn from them
at random (`draws` times; the thesis drew its forests from 30 trees), scored on a fixed sample of
test-split positions, and reported as the mean and standard deviation over the draws (the thesis's
error bars). Ranks are pessimistic, as `bench.predict` counts them. The output folder is a record
(bench.records): every finished value is appended to items.jsonl, so an interrupted study of the same
settings resumes; run.json, summary.json (figures: each sweep's best top-1 at the largest forest),
summary.txt and one PNG per parameter.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from bench import records as rec
from engine.configfile import ConfigError, read_yaml
from priors.spt.growth import Pool
from priors.spt.model import SPTPrior
from priors.spt.scoring import TOP_K, Sample, ranks, read_sample, top_k
from priors.spt.train import read_pool
from priors.training.dataset import GameDataset
from priors.training.trainconfig import TrainConfig, load_config

PARAMETERS = ("d", "m", "s", "w_p", "n")
LABELS = {"d": "maximum tree depth d", "m": "minimum support to split m", "s": "questions sampled per split s",
          "w_p": "leaf window w_p", "n": "training positions per tree n"}
STUDY_KEYS = {"train", "test", "trees", "forests", "draws", "seed", "sweeps", "out"}


def load_study(path: str) -> dict[str, Any]:
    """The study config; unknown keys and sweeps of unknown parameters name the key."""
    raw = read_yaml(path)
    unknown = set(raw) - STUDY_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown keys {sorted(unknown)}; known: {sorted(STUDY_KEYS)}")
    bad = set(raw.get("sweeps", {})) - set(PARAMETERS)
    if bad:
        raise ConfigError(f"{path}: sweeps: unknown parameters {sorted(bad)}; known: {', '.join(PARAMETERS)}")
    return raw


def test_sample(config: TrainConfig, test: dict[str, Any]) -> Sample:
    data = config.data
    dataset = GameDataset(data.data_dir, test.get("archives", data.archives), "test", data.fractions,
                          test.get("sample", 1.0), "none", data.seed, test.get("max_games"), data.size)
    return read_sample(dataset)


def score_value(pool: Pool, sample: Sample, hyper, n_trees: int, forests: list[int], draws: int,
                rng: np.random.Generator) -> dict[str, Any]:
    """Grow n_trees trees with `hyper`, then score `draws` random forests of each size."""
    start = time.time()
    grown = SPTPrior(replace(hyper, n_trees=n_trees)).fit_pool(pool)
    out: dict[str, Any] = {"grow_seconds": round(time.time() - start, 1), "leaves": grown.info_["leaves"],
                           "forests": {}}
    for size in forests:
        picks = [np.arange(n_trees)] if size >= n_trees else [rng.choice(n_trees, size, replace=False)
                                                              for _ in range(draws)]
        scores = []
        for pick in picks:
            forest = SPTPrior(replace(hyper, n_trees=len(pick)))
            forest.set_trees([grown.trees_[i] for i in pick])
            scores.append(top_k(ranks(forest, sample)[0]))
        out["forests"][str(size)] = {key: {"mean": float(np.mean([s[key] for s in scores])),
                                           "std": float(np.std([s[key] for s in scores]))} for key in scores[0]}
    return out


def plot(records: list[dict[str, Any]], parameter: str, folder: Path) -> Path:
    """<parameter>.png: top-k against the parameter, one panel per k, one line per forest size."""
    rows = sorted((r for r in records if r["parameter"] == parameter), key=lambda r: r["value"])
    fig, axes = rec.figure(13, 3.4, ncols=len(TOP_K), sharex=True)
    for ax, k in zip(axes, TOP_K):
        for size in rows[0]["forests"]:
            mean = [100 * r["forests"][size][f"top{k}"]["mean"] for r in rows]
            std = [100 * r["forests"][size][f"top{k}"]["std"] for r in rows]
            ax.errorbar([r["value"] for r in rows], mean, yerr=std, marker="o", ms=3, capsize=2, label=f"K = {size}")
        ax.set_title(f"top {k}")
        ax.set_xlabel(parameter)
        if parameter in ("m", "s", "n"):
            ax.set_xscale("log")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("expert move in top k (%)")
    axes[-1].legend(fontsize=8)
    fig.suptitle(f"SPT accuracy against the {LABELS[parameter]} (others at the defaults)", fontsize=10)
    return rec.save_plot(fig, folder / f"{parameter}.png")


def figures(records: list[dict[str, Any]], positions: int) -> list[dict[str, Any]]:
    """Per swept parameter, the best mean top-1 of the largest forest and the value that gave it."""
    out = []
    for parameter in PARAMETERS:
        rows = [r for r in records if r["parameter"] == parameter]
        if not rows:
            continue
        size = max(rows[0]["forests"], key=int)
        best = max(rows, key=lambda r: r["forests"][size]["top1"]["mean"])
        out.append(rec.figure_entry(
            f"{parameter}/best-top1", f"top-1 of {size}-tree forests at the best {parameter}",
            best["forests"][size]["top1"]["mean"], n=positions, unit="top-1",
            text=f"{100 * best['forests'][size]['top1']['mean']:.1f}% at {parameter} = {best['value']} "
                 f"(K = {size}, {positions:,} test positions)"))
    return out


def table(records: list[dict[str, Any]]) -> str:
    lines = []
    for r in sorted(records, key=lambda r: (PARAMETERS.index(r["parameter"]), r["value"])):
        cells = "  ".join(f"K={size}: " + "/".join(f"{100 * f[f'top{k}']['mean']:.1f}" for k in TOP_K)
                          for size, f in r["forests"].items())
        lines.append(f"{r['parameter']:>3s} = {r['value']:<6}  {cells}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.spt_study", description=__doc__.splitlines()[0])
    parser.add_argument("config", help="study config (YAML), e.g. bench/configs/predict/spt-study.yaml")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a value of the training config, e.g. --set spt.last_moves=2")
    parser.add_argument("--only", nargs="+", choices=PARAMETERS, help="sweep these parameters only")
    parser.add_argument("--out", default="", help="output folder (default: the config's out)")
    args = parser.parse_args(argv)
    try:
        study = load_study(args.config)
        config = load_config(study["train"], args.set)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    folder = Path(args.out or study["out"])
    pool, stats = read_pool(config.data, None, config.chunk_games)
    sample = test_sample(config, study.get("test", {}))
    print(f"pool: {len(pool)} positions of {stats['games']} training games; test sample: {len(sample)} "
          f"positions of {len(np.unique(sample.games))} games")
    sweeps = {p: v for p, v in study["sweeps"].items() if not args.only or p in args.only}
    n_trees, forests, draws = study.get("trees", 10), study.get("forests", [1, 5, 10]), study.get("draws", 3)
    # A record is reused only by a run of the same settings; a changed setting starts the value again.
    settings = json.loads(json.dumps({"spt": asdict(config.hyper), "data": asdict(config.data),
                                      "test": study.get("test", {}), "trees": n_trees, "forests": forests,
                                      "draws": draws}, default=list))
    rec.start_run(folder, "spt-study", {"study": study, "settings": settings},
                  command=rec.command_line("bench.spt_study", argv))
    items = folder / rec.ITEMS
    records = [r for r in rec.read_jsonl(items) if r.get("settings") == settings]
    todo = [(p, v) for p, values in sweeps.items() for v in values
            if not any(r["parameter"] == p and r["value"] == v for r in records)]
    for parameter, value in tqdm(todo, desc="study", unit="value", file=sys.stderr, dynamic_ncols=True):
        rng = np.random.default_rng([study.get("seed", 1), PARAMETERS.index(parameter), int(value)])
        record = {"parameter": parameter, "value": value, "settings": settings,
                  **score_value(pool, sample, replace(config.hyper, **{parameter: value}), n_trees, forests,
                                draws, rng)}
        rec.append_jsonl(items, record)
        records.append(record)
    summary = {"question": "SPT accuracy against its parameters (Tidwell 2012 Figs 5.1-5.5)",
               "figures": figures(records, len(sample)),
               "pool": {"positions": len(pool), **stats},
               "test": {"positions": len(sample), "games": int(len(np.unique(sample.games)))},
               "tie_rule": "pessimistic"}
    text = table(records)
    rec.write_summary(folder, summary, text)
    files = [plot(records, p, folder) for p in PARAMETERS if p in sweeps and any(r["parameter"] == p for r in records)]
    print(text)
    print(f"wrote {folder / 'summary.json'}, " + ", ".join(map(str, files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
