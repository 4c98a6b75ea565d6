"""The tactical solver's benchmarks from the command line.

    python -m bench.tactics [--only b1,b3,b2,ladder] [--data ../shared/data] [--workers 2] [--quick]
                            [--b2-seeds N] [--b2-regimes region,local] [--b2-configs NAME,...]
                            [--b2-pool N] [--b2-labels FILE] [--b2-heldout choose|report] [--passes N]
                            [--tag TEXT] [--ladder-dump DIR]
    python -m bench.tactics --b2-report bench/results/tactics/b2
    python -m bench.tactics --save-prior FILE.npz --b2-configs NAME --b2-regimes local

Each benchmark writes its record to bench/results/tactics/<slug>/ (bench.tactics.results: run.json with
every option, summary.json with the results and figures, summary.txt, items.jsonl; B1 also b1.png); the slug
is the benchmark's name, `-quick` for a smoke run and `-TAG` for `--tag`. Runs of one benchmark with other options (B2's generators, configurations, splits) want a
`--tag` each, or they share a folder.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import re
import sys
import time
from pathlib import Path
from typing import Optional

from bench.tactics.b1 import run_b1
from bench.tactics.b2 import run_b2, save_prior
from bench.tactics.b2config import ConfigError, b2_settings
from bench.tactics.b3 import run_b3
from bench.tactics.ladder import run_ladder
from bench.tactics.report import print_b2_report
from bench import records
from bench.tactics.results import ROOT, config_of, read_b2, record_folder, write_record

RUNNERS = {"b1": run_b1, "b3": run_b3, "b2": run_b2, "ladder": run_ladder}     # in the order they run


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench.tactics", description=__doc__.split("\n\n")[0])
    try:
        settings = b2_settings()
    except ConfigError as e:
        ap.error(str(e))
    ap.add_argument("--only", default="b1,b3,b2", help="comma-separated: b1, b2, b3, ladder")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--l-max", type=int, default=8)
    ap.add_argument("--b1-problems", type=int, default=400)
    ap.add_argument("--b1-region-problems", type=int, default=150)
    ap.add_argument("--b1-budget", type=int, default=100_000)
    ap.add_argument("--b2-pool", type=int, default=1000, help="candidate problems, filtered to known TRUE")
    ap.add_argument("--b2-label-budget", type=int, default=50_000)
    ap.add_argument("--b2-budget", type=int, default=10_000, help="nodes per test problem, region generator")
    ap.add_argument("--b2-local-budget", type=int, default=2_000, help="nodes per test problem, local generator")
    ap.add_argument("--b2-test-budget", type=int, default=None,
                    help="nodes per test problem, both generators, when it differs from the training searches' "
                         "(default: the same as --b2-budget / --b2-local-budget)")
    ap.add_argument("--b2-max-store", type=int, default=None,
                    help="nodes a test query's tree may hold (default: TacticsParams.max_store, 20 million; "
                         "48 bytes a node: a million-node budget with the region generator wants about 10^8)")
    ap.add_argument("--passes", type=int, default=2,
                    help="training passes over the problems still unsolved (fewer when a pass solves none); 0: "
                         "until a pass solves none (the paper's protocol)")
    ap.add_argument("--b2-seeds", type=int, default=1, help="train/test splits (seeds --seed, --seed + 1, ...)")
    ap.add_argument("--b2-splits", default=None, metavar="S,S,...",
                    help="the splits' seeds, instead of --b2-seeds (the pool is still drawn from --seed): "
                         "runs of one split each can share a machine")
    ap.add_argument("--b2-references", default=None, metavar="NAMES",
                    help="comma-separated reference solvers of bench/configs/tactics/b2.yaml (default all; pns always): "
                         + ", ".join(settings.references))
    ap.add_argument("--b2-regimes", default="region,local", help="comma-separated move generators: region, local")
    ap.add_argument("--b2-configs", default=None,
                    help="comma-separated B2 prior configurations of bench/configs/tactics/b2.yaml (default all): "
                         + ", ".join(settings.configs))
    ap.add_argument("--b2-heldout", choices=("choose", "report"), default=None,
                    help="cut the pool by the fixed rule of bench/configs/tactics/b2.yaml's heldout section: "
                         "choose = the seeded 2:1 splits of the choosing problems only (to choose settings); "
                         "report = train on every choosing problem, test on the held-out ones")
    ap.add_argument("--b2-labels", type=Path, default=None,
                    help="a file that keeps the known-TRUE labels for later runs with the same candidates")
    ap.add_argument("--b2-duplicates", action="store_true",
                    help="keep known-TRUE problems that repeat another's position (a turned or recoloured copy "
                         "from another book), as B2 records before the distinct pool did: a copy in the training "
                         "set and one in the test set leaks the answer")
    ap.add_argument("--tag", default="", help="appended to the results folder's name (e.g. a variant's name)")
    ap.add_argument("--save-prior", type=Path, default=None, metavar="FILE",
                    help="run nothing else: train the one configuration of --b2-configs with the one generator of "
                         "--b2-regimes on every known-TRUE problem of the B2 pool and save the leaf prior (.npz)")
    ap.add_argument("--b3-prior", default=None, metavar="FILE",
                    help="B3 also runs PP with this leaf prior (a --save-prior file) and --b3-branching")
    ap.add_argument("--b3-branching", type=float, default=0.0, help="the branching weight of the --b3-prior run")
    ap.add_argument("--b3-budget", type=int, default=20_000)
    ap.add_argument("--b3-timeout", type=float, default=300.0)
    ap.add_argument("--gnugo", default="/usr/games/gnugo")
    ap.add_argument("--ladder-games", type=int, default=40)
    ap.add_argument("--ladder-budget", type=int, default=2000)
    ap.add_argument("--ladder-dump", type=Path, default=None,
                    help="write an SGF (position and the solver's line) of every block the solver captures and "
                         "GnuGo's attack does not, with index.json, into this directory")
    ap.add_argument("--quick", action="store_true", help="a small smoke run (few problems, small budgets)")
    ap.add_argument("--b2-report", type=Path, default=None, metavar="FOLDER",
                    help="run nothing: print a recorded B2 run's node speed-ups by PNS difficulty")
    args = ap.parse_args(argv)
    args.b2_configs = parse_names(ap, "--b2-configs", args.b2_configs, settings.configs, "configuration")
    if args.b2_splits is not None:
        try:
            args.b2_splits = sorted({int(x) for x in args.b2_splits.split(",") if x.strip()})
        except ValueError:
            ap.error(f"--b2-splits: comma-separated integers, got {args.b2_splits!r}")
        if not args.b2_splits:
            ap.error("--b2-splits: name at least one split seed")
    references = parse_names(ap, "--b2-references", args.b2_references, settings.references, "reference")
    args.b2_references = (None if references is None
                          else [n for n in settings.references if n in references + ["pns"]])
    if args.save_prior is not None:
        if args.b2_configs is None or len(args.b2_configs) != 1 or args.b2_regimes.strip() not in ("region", "local"):
            ap.error("--save-prior: name one configuration (--b2-configs) and one generator (--b2-regimes)")
        if args.save_prior.suffix != ".npz":
            ap.error(f"--save-prior: a .npz file name, got {args.save_prior}")
    if args.b2_heldout and settings.heldout is None:
        ap.error("--b2-heldout: bench/configs/tactics/b2.yaml has no heldout section (salt, every)")
    if args.passes < 0:
        ap.error(f"--passes: 0 or more, got {args.passes}")
    if args.b2_test_budget is not None and args.b2_test_budget < 1:
        ap.error(f"--b2-test-budget: must be a positive number of nodes, got {args.b2_test_budget}")
    if args.b2_max_store is not None and args.b2_max_store < 1000:
        ap.error(f"--b2-max-store: must be at least 1000 nodes, got {args.b2_max_store}")
    if args.tag and not re.fullmatch(r"[A-Za-z0-9_.-]+", args.tag):
        ap.error(f"--tag: letters, digits, '_', '-' and '.' only, got {args.tag!r}")
    if args.quick:
        args.b1_problems, args.b1_region_problems, args.b1_budget = 20, 10, 5000
        args.b2_pool, args.b2_label_budget, args.b2_budget, args.passes, args.b3_budget = 60, 5000, 2000, 1, 2000
        args.b2_local_budget = 1000
    return args


def parse_names(ap: argparse.ArgumentParser, option: str, text: Optional[str], registry: dict,
                what: str) -> Optional[list[str]]:
    """The names of a comma-separated option in the registry's order without repeats; None (all) when not
    given or 'all'."""
    if text is None or text.strip().lower() == "all":
        return None
    names = [x.strip() for x in text.split(",") if x.strip()]
    unknown = [x for x in names if x not in registry]
    if unknown or not names:
        ap.error(f"{option}: unknown {what}(s) {unknown or [text]}; choose from {', '.join(registry)}")
    return [c for c in registry if c in names]


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.b2_report is not None:
        try:
            print_b2_report(read_b2(args.b2_report))
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"--b2-report: {args.b2_report} is not a B2 record ({type(e).__name__}: {e})", file=sys.stderr)
            return 2
        return 0
    only = {x.strip().lower() for x in args.only.split(",") if x.strip()}
    if not only <= set(RUNNERS):
        print(f"--only: unknown benchmark(s) {sorted(only - set(RUNNERS))}", file=sys.stderr)
        return 2
    for archive in ("tsumego.tar.xz", "gnugo_regression.tar.xz"):
        if not (args.data / archive).exists():
            print(f"{args.data / archive} not found (set --data)", file=sys.stderr)
            return 2
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.workers) as pool:
        if args.save_prior is not None:
            save_prior(args, pool)
            return 0
        for name, run in RUNNERS.items():
            if name in only:
                folder = record_folder(name, args)
                records.start_run(folder, "tactics", config_of(args), benchmark=name, resume=False,
                                  command=records.command_line("bench.tactics", argv))
                t0 = time.time()
                result = run(args, pool)
                wall = time.time() - t0
                write_record(folder, name, result, wall)
                print(f"wrote {folder} ({wall:.1f} s)", flush=True)
    return 0
