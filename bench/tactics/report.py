"""B2's statistics of test results against PNS's, and the reports of recorded B2 runs.

A solver's test results are tuples (value, nodes developed, wall seconds, CPU seconds) per test problem
(records older than the CPU times have three fields). Against PNS: newly solved (it only), newly failed
(PNS only), and the speed-up PNS / it on the problems both prove, in developed nodes and in CPU seconds:
the arithmetic mean (the paper's statistic), the geometric mean and the median, and in nodes by the
problem's difficulty for PNS (its nodes to solve: below 1,000, below 10,000, more).
"""
from __future__ import annotations

import statistics
from typing import Optional

from bench.stats import geometric_mean

B2_STATS = ("solved", "newly_solved", "newly_failed", "speedup_mean", "speedup_geomean", "speedup_median",
            "speedup_cpu_mean", "speedup_cpu_geomean", "speedup_cpu_median", "test_nodes_mean",
            "test_seconds_per_problem", "test_cpu_per_problem")
B2_BANDS = (1_000, 10_000)       # PNS's nodes to solve: the edges of the difficulty bands of speedup_bands


def fmt(x: Optional[float]) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def run_stats(res: list) -> dict:
    """Solved count, mean nodes and mean wall and CPU seconds per problem of one solver's test results."""
    cpu = [x[3] for x in res if len(x) > 3]
    return {"solved": sum(v == "T" for v, *_ in res),
            "test_nodes_mean": statistics.fmean(n for _, n, *_ in res) if res else None,
            "test_seconds_per_problem": statistics.fmean(x[2] for x in res) if res else None,
            "test_cpu_per_problem": statistics.fmean(cpu) if cpu else None}


def speedups(res: list, pns: list, index: int) -> list[float]:
    """PNS / it ratios of field `index` of the result tuples (1: nodes, 3: CPU seconds) on the problems
    both prove (records without the field are skipped)."""
    out = []
    for r, q in zip(res, pns):
        if r[0] == q[0] == "T" and len(r) > index and len(q) > index and r[index] > 0 and q[index] > 0:
            out.append(q[index] / r[index])
    return out


def ratio_summary(speed: list[float], prefix: str) -> dict:
    """Arithmetic mean (the paper's statistic), geometric mean and median of speed-up ratios."""
    return {f"{prefix}_mean": statistics.fmean(speed) if speed else None,
            f"{prefix}_geomean": geometric_mean(speed) if speed else None,
            f"{prefix}_median": float(statistics.median(speed)) if speed else None}


def against_pns(res: list, pns: list) -> dict:
    """A solver's test results against PNS's: newly solved and failed, and the speed-ups (nodes, CPU,
    and in nodes by PNS's difficulty) on the problems both prove."""
    speed, speed_cpu = speedups(res, pns, 1), speedups(res, pns, 3)
    return {"newly_solved": sum(v == "T" and pv != "T" for (v, *_), (pv, *_) in zip(res, pns)),
            "newly_failed": sum(v != "T" and pv == "T" for (v, *_), (pv, *_) in zip(res, pns)),
            "both": len(speed), **ratio_summary(speed, "speedup"), **ratio_summary(speed_cpu, "speedup_cpu"),
            "speedup_bands": speedup_bands(res, pns)}


def cpu_timeout(results: list[list], max_nodes: int) -> Optional[float]:
    """The CPU time-out that every solver's node budget allows (the paper times out at 120 s, not at a
    node count): the least CPU seconds of a test query that spent the budget, over all solvers' results.
    Every query that spent the budget ran at least that long, so "solved within it" is read from the
    results alone (cut_at). None when no query spent the budget."""
    spent = [x[3] for res in results for x in res if x[0] != "T" and x[1] >= max_nodes and len(x) > 3]
    return min(spent) if spent else None


def cut_at(res: list, seconds: float) -> list:
    """The results with every proof that took more CPU seconds than the time-out made a failure."""
    return [("U", *x[1:]) if x[0] == "T" and x[3] > seconds else x for x in res]


def at_timeout(res: list, pns: list, seconds: float) -> dict:
    """against_pns (newly solved and failed, speed-ups) when both solvers stop at `seconds` of CPU."""
    a, b = cut_at(res, seconds), cut_at(pns, seconds)
    return {"timeout_cpu": seconds, "solved": sum(v == "T" for v, *_ in a), "pns_solved": sum(v == "T" for v, *_ in b),
            **{k: v for k, v in against_pns(a, b).items() if k != "speedup_bands"}}


def speedup_bands(res: list, pns: list, edges: tuple = B2_BANDS) -> list[dict]:
    """The node speed-up over PNS (speedups, ratio_summary) by the problem's difficulty for PNS: its nodes
    to solve in the bands [0, e1), [e1, e2), ..., [ek, inf), on the problems both prove."""
    bounds = (0, *edges, None)
    out = []
    for lo, hi in zip(bounds, bounds[1:]):
        pairs = [(r, q) for r, q in zip(res, pns) if q[1] >= lo and (hi is None or q[1] < hi)]
        speed = speedups([r for r, _ in pairs], [q for _, q in pairs], 1)
        out.append({"pns_nodes_from": lo, "pns_nodes_below": hi, "both": len(speed), **ratio_summary(speed, "speedup")})
    return out


def b2_summary(splits: list[dict], regimes: list[str]) -> dict:
    """Mean and sample standard deviation over the splits of every solver's statistics (the references
    in the run's order, then the configurations)."""
    out = {}
    for regime in regimes:
        first = splits[0][regime]
        rows = {name: [s[regime][f"{name}_stats"] for s in splits] for name in first["per_problem"] if name != "names"}
        for config in first["configs"]:
            rows[config] = [s[regime]["configs"][config] for s in splits]
        out[regime] = {}
        print(f"B2 {regime} generator over {len(splits)} splits: mean +- sd", flush=True)
        for name, items in rows.items():
            stats = {}
            for key in B2_STATS:
                xs = [x[key] for x in items if x.get(key) is not None]
                if xs:
                    stats[key] = {"mean": statistics.mean(xs), "sd": statistics.stdev(xs) if len(xs) > 1 else 0.0,
                                  "n": len(xs)}
            out[regime][name] = stats
            print(f"   {name:20s} " + "  ".join(f"{k} {v['mean']:.3g}+-{v['sd']:.2g}" for k, v in stats.items()),
                  flush=True)
    return out


def recorded_runs(record: dict) -> dict[str, list[dict]]:
    """A recorded B2 run's results per generator, one per split: regime -> runs."""
    results = record["results"]
    splits = results.get("splits") or [results]
    regimes = results.get("regimes") or [r for r in ("region", "local") if r in splits[0]]
    return {regime: [s[regime] for s in splits] for regime in regimes}


def b2_report(record: dict) -> dict:
    """A recorded B2 run's node speed-ups by PNS difficulty (speedup_bands), the problems of all its splits
    pooled: regime -> configuration -> bands."""
    out = {}
    for regime, runs in recorded_runs(record).items():
        pns = [q for run in runs for q in run["per_problem"]["pns"]]
        out[regime] = {}
        for config in runs[0]["configs"]:
            res = [r for run in runs for r in run["configs"][config]["per_problem"]]
            out[regime][config] = speedup_bands(res, pns)
    return out


def b2_node_cost(record: dict) -> dict:
    """A recorded B2 run's CPU microseconds per developed node of every test solver (PNS and the other
    references, each configuration), its splits pooled: regime -> solver -> us (None without CPU times)."""
    out = {}
    for regime, runs in recorded_runs(record).items():
        solvers = {name: [q for run in runs for q in run["per_problem"][name]]
                   for name in runs[0]["per_problem"] if name != "names"}
        solvers.update({config: [q for run in runs for q in run["configs"][config]["per_problem"]]
                        for config in runs[0]["configs"]})
        out[regime] = {name: (1e6 * sum(q[3] for q in res) / sum(q[1] for q in res)
                              if res and all(len(q) > 3 for q in res) else None)
                       for name, res in solvers.items()}
    return out


def print_b2_report(record: dict) -> None:
    for regime, configs in b2_report(record).items():
        print(f"B2 {regime} generator: node speed-up over PNS by PNS's nodes to solve (all splits pooled)")
        for config, bands in configs.items():
            cells = [f"[{b['pns_nodes_from']}, {b['pns_nodes_below'] or 'inf'}): n={b['both']} mean "
                     f"{fmt(b['speedup_mean'])} geo {fmt(b['speedup_geomean'])}" for b in bands]
            print(f"   {config:22s} " + "   ".join(cells))
    for regime, costs in b2_node_cost(record).items():
        print(f"B2 {regime} generator: CPU us per developed node of the test queries: "
              + ", ".join(f"{name} {fmt(us)}" for name, us in costs.items()))
