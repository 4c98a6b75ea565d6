"""B3: GnuGo's reading.tst, unchanged, through GTP `attack`/`defend`, as a user would run it.

Our engine runs as `tesuji gtp` with three reading settings (the GTP defaults: PP with leaf prior 0.1;
PP with the paper's 0.5; PNS) and optionally a trained leaf prior; GnuGo itself runs beside them. The
answers are scored as GnuGo's regress.awk does (the expected text is an anchored regular expression);
the record gives the share passed, without the ko-result tests too, and the time per query.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import statistics
import sys
from pathlib import Path
from typing import Optional

from bench import regress


def engine_command(method: str, prior_p: float, max_nodes: int, prior: Optional[str] = None,
                   branching_weight: Optional[float] = None) -> list[str]:
    """Our GTP engine with these `reading:` settings (TacticsParams' field names, and reading.prior for
    a leaf-prior file). reading.tst asks no genmove, so the search's node store is kept small."""
    settings = {"method": method, "prior_p": prior_p, "max_nodes": max_nodes, "prior": prior,
                "branching_weight": branching_weight}
    return [sys.executable, "-m", "gtp.cli", "gtp", "--set",
            *(f"reading.{key}={value}" for key, value in settings.items() if value is not None),
            "search.max_nodes=1000"]


def run_tst(command: list[str], tst_name: str, data_dir: Path, timeout: float) -> dict:
    """Feed one .tst file to an engine command line, as GnuGo's regression does; score every
    attack/defend test."""
    rows = []
    for row in regress.run_tst(command, tst_name, data_dir, timeout):
        name, vertex = (row["command"].split() + ["", ""])[:2]
        if name in ("attack", "defend"):
            rows.append({"test": row["test"], "command": name, "vertex": vertex, "expected": row["expected"],
                         "got": row["got"], "passed": row["passed"],
                         "ko": bool(re.match(r"^\(?[23]", row["expected"])), "expect_fail": row["expect_fail"],
                         "seconds": row["seconds"]})
    return summarize_tst(rows)


def summarize_tst(rows: list[dict]) -> dict:
    n = len(rows)
    plain = [r for r in rows if not r["ko"]]
    secs = [r["seconds"] for r in rows]
    return {"tests": n, "passed": sum(r["passed"] for r in rows),
            "share_passed": sum(r["passed"] for r in rows) / n if n else None,
            "non_ko_tests": len(plain), "non_ko_passed": sum(r["passed"] for r in plain),
            "attack_passed": f"{sum(r['passed'] for r in rows if r['command'] == 'attack')}/"
                             f"{sum(r['command'] == 'attack' for r in rows)}",
            "defend_passed": f"{sum(r['passed'] for r in rows if r['command'] == 'defend')}/"
                             f"{sum(r['command'] == 'defend' for r in rows)}",
            "seconds_per_query_mean": statistics.mean(secs) if secs else None,
            "seconds_per_query_median": statistics.median(secs) if secs else None,
            "seconds_per_query_max": max(secs) if secs else None, "rows": rows}


def b3_engines(args: argparse.Namespace) -> dict[str, list[str]]:
    """label -> command line of every engine B3 runs."""
    budget = args.b3_budget
    engines = {"tesuji_pp": engine_command("pp", 0.1, budget), "tesuji_pp_paper": engine_command("pp", 0.5, budget),
               "tesuji_pns": engine_command("pns", 0.5, budget)}
    if args.b3_prior is not None:
        engines["tesuji_pp_prior"] = engine_command("pp", 0.1, budget, args.b3_prior, args.b3_branching)
    if os.path.exists(args.gnugo):
        engines["gnugo"] = [args.gnugo, "--mode", "gtp", "--quiet"]
    return engines


def run_b3(args: argparse.Namespace, pool: concurrent.futures.Executor) -> dict:
    engines = b3_engines(args)
    labels = list(engines)
    results = list(pool.map(run_tst, [engines[k] for k in labels], ["reading.tst"] * len(labels),
                            [args.data] * len(labels), [args.b3_timeout] * len(labels)))
    out = {}
    for label, res in zip(labels, results):
        out[label] = dict(res, command=" ".join(engines[label]))
        print(f"B3 {label:15s} reading.tst: passed {res['passed']}/{res['tests']} "
              f"({100 * res['share_passed']:.1f}%); without ko-result tests {res['non_ko_passed']}/"
              f"{res['non_ko_tests']}; attack {res['attack_passed']}, defend {res['defend_passed']}; "
              f"seconds per query mean {res['seconds_per_query_mean']:.3f} median "
              f"{res['seconds_per_query_median']:.3f} max {res['seconds_per_query_max']:.2f}", flush=True)
    return out
