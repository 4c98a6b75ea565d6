"""The tactics benchmarks' records (bench.records): one folder per run, bench/results/tactics/<slug>/, whose
name stays short (the benchmark, `-quick` for a smoke run, `-TAG` for `--tag`) because run.json carries
every option. summary.json holds the benchmark's results and their figures; the per-item rows go to
items.jsonl, a line each:

    B1      a problem: every solver's value, nodes, L, move and CPU seconds, and its set
    B2      a test problem of one split and generator: each reference's and each configuration's
            (value, nodes, wall seconds, CPU seconds), as the results' `per_problem` lists held them
    B3      a reading.tst test of one engine

`join_items` puts B2's rows back where `bench.tactics.report` reads them.
"""
from __future__ import annotations

import argparse
import copy
from pathlib import Path
from typing import Any

from bench import records

ROOT = Path(__file__).resolve().parents[2]


def record_slug(bench: str, quick: bool = False, tag: str = "") -> str:
    """`b1`, `b1-quick`, `b2-TAG`, ...: a record's folder name."""
    return "-".join([bench, *(["quick"] if quick else []), *([tag] if tag else [])])


def record_folder(bench: str, args: argparse.Namespace) -> Path:
    """bench/results/tactics/<slug>/ of this run of `bench`."""
    return records.results_folder("tactics", record_slug(bench, args.quick, args.tag))


def config_of(args: argparse.Namespace) -> dict[str, Any]:
    """Every option, as run.json keeps it."""
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}


def b2_runs(results: dict) -> list[tuple[int, dict]]:
    """(split index, split) of a B2 result: its `splits`, or the result itself when it had one split."""
    return list(enumerate(results.get("splits") or [results]))


def b2_regimes(results: dict, split: dict) -> list[str]:
    return results.get("regimes") or [r for r in ("region", "local") if r in split]


def split_items(bench: str, results: dict) -> tuple[dict, list[dict]]:
    """(the results without their per-item rows, the rows): see the module's docstring."""
    results = copy.deepcopy(results)
    if bench == "b1":
        return results, results.pop("rows", [])
    if bench == "b3":
        return results, [{"engine": name, **row} for name, r in results.items() for row in r.pop("rows", [])]
    if bench != "b2":
        return results, []
    items = []
    for index, split in b2_runs(results):
        for regime in b2_regimes(results, split):
            run = split[regime]
            per = run.pop("per_problem", None)
            configs = {name: c.pop("per_problem") for name, c in run.get("configs", {}).items() if "per_problem" in c}
            if per is None:
                continue
            solvers = [k for k in per if k != "names"]
            for i, name in enumerate(per["names"]):
                items.append({"split": index, "regime": regime, "problem": name,
                              **{s: per[s][i] for s in solvers},
                              "configs": {c: rows[i] for c, rows in configs.items()}})
    return results, items


def join_items(results: dict, items: list[dict]) -> dict:
    """A B2 result with its `per_problem` lists put back from the rows of items.jsonl."""
    results = copy.deepcopy(results)
    for index, split in b2_runs(results):
        for regime in b2_regimes(results, split):
            rows = [r for r in items if r["split"] == index and r["regime"] == regime]
            if not rows:
                continue
            run = split[regime]
            solvers = [k for k in rows[0] if k not in ("split", "regime", "problem", "configs")]
            run["per_problem"] = {"names": [r["problem"] for r in rows], **{s: [r[s] for r in rows] for s in solvers}}
            for name, config in run.get("configs", {}).items():
                if name in rows[0]["configs"]:
                    config["per_problem"] = [r["configs"][name] for r in rows]
    return results


def read_b2(folder: Path) -> dict:
    """A B2 record's results with their per-problem rows, as `bench.tactics.report` reads them."""
    return {"results": join_items(records.read_summary(folder)["results"], records.read_jsonl(folder / records.ITEMS))}


# -- figures ----------------------------------------------------------------------------------------------

def figures(bench: str, results: dict) -> list[dict]:
    return {"b1": b1_figures, "b2": b2_figures, "b3": b3_figures, "ladder": ladder_figures}[bench](results)


def _count(key: str, label: str, k: float, n: int, unit: str = "problems") -> dict:
    return records.figure_entry(key, label, k, n=n, unit=unit, text=f"{k:g} of {n}")


def b1_figures(results: dict) -> list[dict]:
    """Per problem set: problems each solver proves, and PP's nodes over PNS's (geometric mean, interval)."""
    out = []
    for name, s in results.items():
        solvers = ["pp", "pns"] + [k.removeprefix("solved_") for k in s if k.startswith("solved_pp_")
                                   and not k.endswith("_only")]
        out += [_count(f"{name}/solved-{m}", f"B1 {name}: problems {m.upper()} proves", s[f"solved_{m}"],
                       s["problems"]) for m in solvers if f"solved_{m}" in s]
        r = s.get("ratio_total") or {}
        if r.get("n"):
            low, high = r.get("geometric_mean_ci95") or (None, None)
            out.append(records.figure_entry(f"{name}/pp-over-pns-nodes", f"B1 {name}: PP's nodes over PNS's "
                                            "(geometric mean, problems both prove)", r["geometric_mean"],
                                            low=low, high=high, n=r["n"], unit="x"))
    return out


def b2_figures(results: dict) -> list[dict]:
    """Per generator and solver: problems solved and, for a configuration, its node speed-up over PNS
    (geometric mean); over several splits, their mean (the text gives the SD). One split also gives a
    configuration's newly solved and failed problems and its CPU-time speed-up (arithmetic mean)."""
    out = []
    if "summary" in results:
        for regime, solvers in results["summary"].items():
            for name, stats in solvers.items():
                for key, stat, unit in (("solved", "solved", "problems"), ("speedup", "speedup_geomean", "x")):
                    if stat in stats:
                        m = stats[stat]
                        what = "test problems solved" if key == "solved" else "node speed-up over PNS (geometric mean)"
                        out.append(records.figure_entry(
                            f"{regime}/{name}/{key}", f"B2 {regime}: {name}, {what}, mean of {m['n']} splits",
                            m["mean"], n=m["n"], unit=unit,
                            text=f"{m['mean']:.4g} +- {m['sd']:.2g} (SD) over {m['n']} splits"))
        return out
    for regime in b2_regimes(results, results):
        run, n = results[regime], results.get("test")
        for name in [k.removesuffix("_solved") for k in run if k.endswith("_solved")]:
            out.append(_count(f"{regime}/{name}/solved", f"B2 {regime}: {name}, test problems solved",
                              run[f"{name}_solved"], n))
        for name, c in run.get("configs", {}).items():
            out.append(_count(f"{regime}/{name}/solved", f"B2 {regime}: {name}, test problems solved", c["solved"], n))
            for key, what in (("newly_solved", "newly solved (PNS fails)"), ("newly_failed", "newly failed (PNS solves)")):
                if key in c:
                    out.append(_count(f"{regime}/{name}/{key.replace('_', '-')}", f"B2 {regime}: {name}, test "
                                      f"problems {what}", c[key], n))
            t = c.get("at_timeout")
            if t is not None:
                for key in ("newly_solved", "newly_failed"):
                    out.append(_count(f"{regime}/{name}/timeout-{key.replace('_', '-')}", f"B2 {regime}: {name}, test "
                                      f"problems {key.replace('_', ' ')} at a CPU time-out of {t['timeout_cpu']:.3g} s",
                                      t[key], n))
                if t.get("speedup_cpu_mean") is not None:
                    out.append(records.figure_entry(
                        f"{regime}/{name}/timeout-speedup-cpu", f"B2 {regime}: {name}, CPU-time speed-up over PNS "
                        f"(arithmetic mean) at a CPU time-out of {t['timeout_cpu']:.3g} s", t["speedup_cpu_mean"],
                        n=t["both"], unit="x", text=f"{t['speedup_cpu_mean']:.3g}x on {t['both']} problems"))
            for key, stat, what in (("speedup", "speedup_geomean", "node speed-up over PNS (geometric mean)"),
                                    ("speedup-cpu", "speedup_cpu_mean", "CPU-time speed-up over PNS (arithmetic "
                                                                         "mean, the paper's statistic)")):
                if c.get(stat) is not None:
                    out.append(records.figure_entry(f"{regime}/{name}/{key}", f"B2 {regime}: {name}, {what}",
                                                    c[stat], n=c.get("both"), unit="x",
                                                    text=f"{c[stat]:.3g}x on {c.get('both')} problems"))
    return out


def b3_figures(results: dict) -> list[dict]:
    """Per engine: reading.tst tests passed, with a Wilson interval."""
    return [records.rate_entry(f"{name}/passed", f"B3 {name}: reading.tst tests passed", r["passed"], r["tests"])
            for name, r in results.items()]


def ladder_figures(results: dict) -> list[dict]:
    """The ladder reader's and the solver's verdicts equal to GnuGo's, with Wilson intervals."""
    return [records.rate_entry(f"{who}/agrees-with-gnugo", f"ladder: {who.replace('_', ' ')} agrees with GnuGo's "
                               "attack (blocks)", t["both_capture"] + t["both_not"], results["blocks"])
            for who, t in results.get("against_gnugo", {}).items() if who != "by_cell"]


def summary_text(bench: str, figures: list[dict]) -> str:
    """summary.txt: the benchmark's figures, one a line."""
    return "\n".join([f"{bench.upper()}"] + [f"  {f['label']}: {f['text']}" for f in figures])


def write_record(folder: Path, bench: str, result: dict, wall_seconds: float) -> None:
    """summary.json (results, figures), summary.txt and items.jsonl of a finished benchmark."""
    results, items = split_items(bench, result)
    figs = figures(bench, results)
    records.write_summary(folder, {"benchmark": bench, "figures": figs, "wall_seconds": round(wall_seconds, 1),
                                   "results": results}, summary_text(bench, figs))
    if items:
        records.write_jsonl(folder / records.ITEMS, items)
