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
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Optional

from bench.tactics.problems import read_tst
from bench.tactics.results import ROOT


def engine_command(method: str, prior_p: float, max_nodes: int, prior: Optional[str] = None,
                   branching_weight: Optional[float] = None) -> list[str]:
    """Our GTP engine with these `reading:` settings (TacticsParams' field names, and reading.prior for
    a leaf-prior file). reading.tst asks no genmove, so the search's node store is kept small."""
    settings = {"method": method, "prior_p": prior_p, "max_nodes": max_nodes, "prior": prior,
                "branching_weight": branching_weight}
    return [sys.executable, "-m", "gtp.cli", "gtp", "--set",
            *(f"reading.{key}={value}" for key, value in settings.items() if value is not None),
            "search.max_nodes=1000"]


def regress_match(expected: str, result: str) -> bool:
    """regress.awk: `[!]pattern`, anchored at both ends, an extended regular expression."""
    negate = expected.startswith("!")
    pattern = "^" + (expected[1:] if negate else expected) + "$"
    try:
        ok = re.search(pattern, result) is not None
    except re.error:
        ok = False
    return ok != negate


def run_tst(command: list[str], tst_name: str, data_dir: Path, timeout: float) -> dict:
    """Feed one .tst file to an engine command line, as GnuGo's regression does; score every test."""
    from bench.gtpclient import EngineFault, GtpEngine, GtpError
    with tarfile.open(data_dir / "gnugo_regression.tar.xz") as tar, tempfile.TemporaryDirectory() as tmp:
        text = tar.extractfile(f"regression/{tst_name}").read().decode()
        needed = {line.split()[1] for line in text.splitlines() if line.strip().startswith("loadsgf")}
        for name in needed:       # the positions, in a scratch directory outside the repository
            dest = Path(tmp) / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(tar.extractfile("regression/" + name).read())
        expected = {c.number: c for c in read_tst(text)}
        rows = []
        # our engine runs from the scratch directory, so it finds its packages through PYTHONPATH
        os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
        engine = GtpEngine(command, timeout=timeout, cwd=tmp).start()
        try:
            for raw in text.splitlines():
                line = raw.split("#", 1)[0].strip()
                if not line:
                    continue
                tokens = line.split()
                number = tokens.pop(0) if tokens[0].isdigit() else None
                t0 = time.perf_counter()
                try:
                    reply = engine.send(" ".join(tokens))
                except GtpError as e:
                    reply = f"? {e}"
                except EngineFault as e:
                    reply = f"! {e.kind}"
                    engine.restart()
                seconds = time.perf_counter() - t0
                case = expected.get(number) if number else None
                if case is not None:
                    rows.append({"test": number, "command": case.command, "vertex": case.vertex,
                                 "expected": case.expected, "got": reply, "passed": regress_match(case.expected, reply),
                                 "ko": bool(re.match(r"^\(?[23]", case.expected)), "expect_fail": case.expect_fail,
                                 "seconds": round(seconds, 4)})
        finally:
            engine.close()
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
