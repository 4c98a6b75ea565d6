"""B1: nodes to solve, Bayesian proof search (PP) against proof-number search (PNS).

Every tsumego capture problem (local generator, and the first ones with the region generator) and every
`attack` test of reading.tst is solved by each solver of `B1_SOLVERS` under one node budget, move
generator and tie-break. The summary gives solved counts and, on the problems both solve, the PP/PNS
ratio of developed nodes (geometric mean, median, share within [0.5, 2], Wilcoxon signed-rank test),
over the whole liberty loop and for the last L alone. Its result carries a row per problem (the record's
items.jsonl); b1.png plots PP against PNS nodes.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import math
import statistics
import time
from pathlib import Path

from bench.stats import geometric_mean, geometric_mean_interval, signed_rank_p
from bench.tactics.problems import Problem, reading_problems, tsumego_problems
from bench import records
from bench.tactics.results import record_folder
from engine import tactics
from engine.coords import point_to_vertex

# B1 solvers: label -> TacticsParams settings. The paper's PP (leaf prior 0.5) and PNS, and our variants of
# PP (B1_OURS): "pp_low" a prior of 0.1, "pp_decay" the paper's 0.5 with the depth decay 1.
B1_SOLVERS = {"pp": {"method": "pp"}, "pns": {"method": "pns"}, "pp_low": {"method": "pp", "prior_p": 0.1},
              "pp_decay": {"method": "pp", "depth_decay": 1.0}}
B1_OURS = {"pp_low": "PP with leaf prior 0.1", "pp_decay": "PP with the depth decay 1"}


def solve_both(problem: Problem, params: dict) -> dict:
    """Every B1 solver on one problem: a row of the per-problem table."""
    size = problem.board.size
    row = {"problem": problem.name, "goal": point_to_vertex(problem.goal, size), "libs": problem.libs}
    for method, settings in B1_SOLVERS.items():
        p = tactics.TacticsParams(**settings, **params)
        t0 = time.process_time()
        r = tactics.solve(problem.board, problem.goal, params=p)
        row.update({f"{method}_value": r.value, f"{method}_nodes": r.developed,
                    f"{method}_nodes_last": r.developed_last, f"{method}_L": r.libs_false,
                    f"{method}_move": point_to_vertex(r.move, size),
                    f"{method}_book_move": r.value == "T" and r.move in problem.answers,
                    f"{method}_cpu": round(time.process_time() - t0, 4)})
    return row


def ratio_stats(rows: list[dict], key: str, pp: str = "pp") -> dict:
    """The PP/PNS ratios of a cost column on the problems both prove."""
    both = [r for r in rows if r[f"{pp}_value"] == "T" and r["pns_value"] == "T"]
    ratios = [r[f"{pp}_{key}"] / r[f"pns_{key}"] for r in both if r[f"pns_{key}"] > 0 and r[f"{pp}_{key}"] > 0]
    if not ratios:
        return {"n": 0}
    return {"n": len(ratios), "geometric_mean": geometric_mean(ratios), "median": float(statistics.median(ratios)),
            "within_0.5_2": sum(0.5 <= x <= 2 for x in ratios) / len(ratios),
            "pp_lower": sum(x < 1 for x in ratios), "equal": sum(x == 1 for x in ratios),
            "pns_lower": sum(x > 1 for x in ratios),
            "geometric_mean_ci95": list(geometric_mean_interval(ratios)) if len(ratios) > 1 else None,
            "wilcoxon_p": signed_rank_p([math.log(x) for x in ratios])}


def b1_summary(rows: list[dict]) -> dict:
    solved = {m: sum(r[f"{m}_value"] == "T" for r in rows) for m in B1_SOLVERS}
    out = {"problems": len(rows), "solved_pp": solved["pp"], "solved_pns": solved["pns"],
           "solved_both": sum(r["pp_value"] == r["pns_value"] == "T" for r in rows),
           "solved_pp_only": sum(r["pp_value"] == "T" != r["pns_value"] for r in rows),
           "solved_pns_only": sum(r["pns_value"] == "T" != r["pp_value"] for r in rows),
           "ratio_total": ratio_stats(rows, "nodes"), "ratio_last_L": ratio_stats(rows, "nodes_last")}
    for m in B1_OURS:
        out.update({f"solved_{m}": solved[m],
                    f"solved_{m}_only": sum(r[f"{m}_value"] == "T" != r["pns_value"] for r in rows),
                    f"solved_pns_not_{m}": sum(r["pns_value"] == "T" != r[f"{m}_value"] for r in rows),
                    f"ratio_total_{m}": ratio_stats(rows, "nodes", m)})
    for m in B1_SOLVERS:
        out[f"book_move_{m}"] = sum(r[f"{m}_book_move"] for r in rows)
        out[f"cpu_seconds_{m}"] = round(sum(r[f"{m}_cpu"] for r in rows), 2)
    return out


def run_b1(args: argparse.Namespace, pool: concurrent.futures.Executor) -> dict:
    sets = {}
    tsumego = tsumego_problems(args.data, args.b1_problems, seed=args.seed)
    sets["tsumego_local"] = (tsumego, {"move_gen": "local"})
    sets["tsumego_region"] = (tsumego[:args.b1_region_problems], {"move_gen": "region"})
    sets["reading_local"] = (reading_problems(args.data), {"move_gen": "local"})
    out = {}
    all_rows = []
    for label, (problems, gen) in sets.items():
        params = dict(gen, max_nodes=args.b1_budget, l_max=args.l_max)
        t0 = time.time()
        rows = list(pool.map(solve_both, problems, [params] * len(problems)))
        for r in rows:
            r["set"] = label
        all_rows += rows
        out[label] = {"params": params, **b1_summary(rows), "wall_seconds": round(time.time() - t0, 1)}
        print_b1(label, out[label])
    plot_b1(record_folder("b1", args) / "b1.png", all_rows)
    return {**out, "rows": all_rows}


def print_b1(label: str, s: dict) -> None:
    rt, rl = s["ratio_total"], s["ratio_last_L"]
    fmt = lambda r: (f"geo-mean {r['geometric_mean']:.3f} median {r['median']:.3f} "
                     f"in[0.5,2] {100 * r['within_0.5_2']:.0f}% PP<PNS {r['pp_lower']} = {r['equal']} "
                     f"PP>PNS {r['pns_lower']} Wilcoxon p {r['wilcoxon_p']}") if r.get("n") else "n/a"
    print(f"B1 {label}: {s['problems']} problems, budget {s['params']['max_nodes']}: solved PP {s['solved_pp']} "
          f"PNS {s['solved_pns']} both {s['solved_both']} (PP only {s['solved_pp_only']}, PNS only "
          f"{s['solved_pns_only']})")
    print(f"   PP/PNS nodes, whole L loop (n={rt.get('n', 0)}): {fmt(rt)}")
    print(f"   PP/PNS nodes, last L only  (n={rl.get('n', 0)}): {fmt(rl)}")
    for m, name in B1_OURS.items():
        print(f"   {name} (ours): solved {s[f'solved_{m}']} (not PNS {s[f'solved_{m}_only']}, "
              f"PNS not it {s[f'solved_pns_not_{m}']}); nodes / PNS: {fmt(s[f'ratio_total_{m}'])}", flush=True)


def plot_b1(path: Path, rows: list[dict]) -> None:
    """PP's nodes against PNS's on the problems both prove, by set (log-log, with the x2 and x1/2 lines)."""
    fig, ax = records.figure(5, 5)
    for label, marker in (("tsumego_local", "o"), ("tsumego_region", "s"), ("reading_local", "^")):
        both = [r for r in rows if r["set"] == label and r["pp_value"] == r["pns_value"] == "T"]
        ax.scatter([r["pns_nodes"] for r in both], [r["pp_nodes"] for r in both], s=10, marker=marker,
                   label=f"{label} ({len(both)})", alpha=0.6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    lo, hi = 1, max([1] + [max(r["pp_nodes"], r["pns_nodes"]) for r in rows])
    ax.plot([lo, hi], [lo, hi], "k-", lw=0.5)
    ax.plot([lo, hi], [2 * lo, 2 * hi], "k:", lw=0.5)
    ax.plot([lo, hi], [lo / 2, hi / 2], "k:", lw=0.5)
    ax.set_xlabel("PNS nodes developed")
    ax.set_ylabel("PP nodes developed")
    ax.set_title("B1: nodes to solve (both solved)")
    ax.legend(fontsize=7)
    records.save_plot(fig, path)
