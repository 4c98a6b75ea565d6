"""The tactical solver's benchmarks: B1 (nodes to solve, PP vs PNS), B2 (learned leaf priors on a
train/test split) and B3 (GnuGo's reading.tst through GTP `attack`/`defend`).

    python -m bench.tactics [--only b1,b3,b2] [--data ../shared/data] [--workers 2] [--quick]
                            [--b2-seeds N] [--b2-regimes region,local] [--b2-configs NAME,...]
                            [--b2-pool N] [--b2-labels FILE] [--tag TEXT] [--ladder-dump DIR]
    python -m bench.tactics --b2-report bench/results/tactics_b2_....json

B1 builds capture problems from the tesuji collections of `tsumego.tar.xz` (Black or White to play,
goal = the opponent block of 2-3 liberties nearest the book's first move) and from every `attack`
test of GnuGo's `reading.tst`, and solves each with Bayesian proof search (PP, leaf prior 0.5) and
proof-number search (PNS) under one node budget, move generator and tie-break. It reports solved
counts and, on the problems both solve, the PP/PNS ratio of developed nodes (geometric mean, median,
share within [0.5, 2], Wilcoxon signed-rank test), over the whole liberty loop and for the last L alone.

B2 keeps the tsumego capture problems that PNS or PP proves (local generator) within a large labelling
budget (the paper's "known TRUE" set), drops the copies of a problem that other books hold (turned or
with the colours swapped: `problem_key`), and splits them 2:1 (fixed seed). PP with a learned prior trains
on the training set (learning after every search, retrying failures for `--passes` passes), then is
frozen and run on the test set against PNS with the same node budget: newly solved (PP only), newly
failed (PNS only), and the speed-up (PNS / PP) on problems both solve, in developed nodes and in CPU
seconds (arithmetic mean, the paper's statistic, geometric mean and median). Besides the paper's four
models (Beta 1/1 and 1000/1000, hierarchical with 0 or virtual observations) it runs our over-fitting
controls (consistent learning, clipping), calibrated models, learning from the training searches that
spent their budget, more training passes, the branching leaf term and the depth decay added to a
learned model (`B2_CONFIGS`), and as references PP with uniform leaf priors 0.5 and 0.1 and with the
branching leaf priors (and the depth decay) alone (`B2_REFERENCES`). This runs twice: with the region
generator (every empty point of the problem, as the paper) and with the local one.

B3 runs `reading.tst` unchanged through `python -m gtp.tactics_commands` (a GTP subprocess, as a
user would: the GTP defaults, PP with leaf prior 0.1; PP with the paper's 0.5; PNS) and GnuGo
itself, scores the answers as GnuGo's regress.awk does (the expected text is an
anchored regular expression), and reports the share passed and the time per query.

B2 can repeat over several train/test splits (`--b2-seeds 5`: seeds --seed .. --seed + 4, one labelling)
and run one generator only (`--b2-regimes local`) or some of the prior configurations only
(`--b2-configs hier_cal,hier_consistent`); it then reports the mean and standard deviation over the
splits, and in every case the nodes, wall and CPU seconds per test problem. The speed-up is reported
both in developed nodes and in CPU seconds (the paper's is time-based, so that pattern and inference
costs count). `--b2-labels FILE` keeps the (costly) known-TRUE labelling for the next run. Each
configuration's node speed-up is also given by the problem's difficulty for PNS (its nodes to solve:
below 1,000, below 10,000, more); `--b2-report FILE` prints that for a recorded run, its splits pooled,
with each test solver's CPU time per developed node.
`--b2-test-budget N` gives the test queries another node budget than the training searches (the paper's
120 s time-out allows far more nodes than a training pass can afford on every problem); `--b2-max-store N`
lets their trees hold more nodes than TacticsParams' default (a full store ends the query unsolved).

Results go to bench/results/tactics_b1.json (+ .csv, .png), tactics_b2.json, tactics_b3.json
(tactics_b2_5seeds_local.json and the like with the B2 options above: the file name carries the number of
splits, the generators, the configurations when not all, and `--tag`).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import csv
import dataclasses
import datetime
import json
import math
import os
import platform
import random
import re
import statistics
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Optional

import numpy as np

from engine import tactics
from engine.board import BLACK, WHITE, Board
from engine.game import Game
from priors.leaf_priors import CALIBRATED, make_leaf_prior

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parent.parent
TESUJI_DIRS = ("2a. Tesuji/", "2b. Lee Changho Tesuji/", "2c. Great Tesuji Encyclopedia/")
COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


@dataclasses.dataclass
class Problem:
    name: str
    board: Board
    goal: int                   # a stone of the block to capture
    answers: tuple = ()         # the book's (or the test's) first moves, points
    libs: int = 0


# --- problems ---

def vertex_name(board: Board, point: int) -> str:
    if point < 0:
        return "pass"
    r, c = board.coords(point)
    return f"{COLUMNS[c]}{r + 1}"


def parse_vertex(board: Board, text: str) -> int:
    text = text.strip().upper()
    return board.point(int(text[1:]) - 1, COLUMNS.index(text[0]))


def tsumego_problem(name: str, data: bytes) -> Optional[Problem]:
    """A capture problem from a book problem, or None when no opponent block qualifies.

    The side to play is the attacker. The goal is the opponent block with 2 or 3 liberties nearest
    (Manhattan distance <= 2) to one of the accepted first moves; ties go to the larger block, then
    the lower point."""
    from sgfmill import sgf
    try:
        game = sgf.Sgf_game.from_bytes(data)
        root = game.get_root()
        board = Board(game.get_size(), 0.0)
        black, white, _ = root.get_setup_stones()
        board.setup([board.point(*p) for p in black], [board.point(*p) for p in white])
        firsts = []
        for child in root:
            color, move = child.get_move()
            if color and move:
                firsts.append((color, board.point(*move)))
    except (ValueError, KeyError, IndexError):
        return None
    if not firsts:
        return None
    to_play = root.get("PL").lower() if root.has_property("PL") else firsts[0][0]
    attacker = BLACK if to_play == "b" else WHITE
    answers = tuple(p for c, p in firsts if c == to_play)
    if not answers:
        return None
    best, seen = None, set()
    for p in board.points():
        if board.color_at(p) != 3 - attacker or p in seen:
            continue
        stones = board.group_stones(p)
        seen.update(stones)
        libs = board.liberties(p)
        if not 2 <= libs <= 3:
            continue
        dist = min(abs(a - c) + abs(b - d) for s in stones for (a, b) in [board.coords(s)]
                   for (c, d) in [board.coords(f) for f in answers])
        if dist <= 2:
            key = (dist, -len(stones), stones[0])
            if best is None or key < best[0]:
                best = (key, stones[0], libs)
    if best is None:
        return None
    board.to_play = attacker
    return Problem(name, board, best[1], answers, best[2])


def problem_key(problem: Problem) -> tuple:
    """The problem up to the board's 8 symmetries and the colours (attacker as Black): the collections
    share problems, and a copy in another book, turned or with the colours swapped, has the same key."""
    b, n = problem.board, problem.board.size
    attacker = b.to_play
    stones = [(b.coords(p), b.color_at(p) == attacker) for p in b.points() if b.color_at(p) in (BLACK, WHITE)]
    block = [b.coords(p) for p in b.group_stones(problem.goal)]

    def turned(t: int, r: int, c: int) -> tuple[int, int]:
        r, c = (n - 1 - r if t & 1 else r), (n - 1 - c if t & 2 else c)
        return (c, r) if t & 4 else (r, c)

    return min((n, tuple(sorted((turned(t, *rc), mine) for rc, mine in stones)),
                tuple(sorted(turned(t, *rc) for rc in block))) for t in range(8))


def distinct_problems(problems: list[Problem]) -> list[Problem]:
    """The problems without the ones whose problem_key an earlier one has."""
    seen, out = set(), []
    for p in problems:
        k = problem_key(p)
        if k not in seen:
            seen.add(k)
            out.append(p)
    return out


def tsumego_problems(data_dir: Path, n: int, seed: int = 1) -> list[Problem]:
    """n capture problems from the tesuji collections, in a seeded random order of the files."""
    with tarfile.open(data_dir / "tsumego.tar.xz") as tar:
        members = sorted((m for m in tar if m.isfile() and m.name.startswith(TESUJI_DIRS)), key=lambda m: m.name)
        random.Random(seed).shuffle(members)
        out = []
        for m in members:
            p = tsumego_problem(m.name, tar.extractfile(m).read())
            if p is not None:
                out.append(p)
                if len(out) == n:
                    break
    return out


@dataclasses.dataclass
class TstCase:
    number: str
    command: str                # attack / defend
    vertex: str
    expected: str               # text inside the brackets
    expect_fail: bool           # marked with * (GnuGo itself is known to fail)
    sgf: str
    move_number: Optional[int]
    tries: tuple                # (color, vertex) played by trymove before the test


def read_tst(text: str) -> list[TstCase]:
    """The attack/defend tests of a GnuGo .tst file with the position each one is asked in."""
    cases, sgf_file, move_number, tries = [], None, None, []
    pending = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#?") and pending is not None:
            m = re.match(r"#\?\s*\[(.*)\]([&*]*)\s*$", line)
            if m:
                cases.append(dataclasses.replace(pending, expected=m.group(1), expect_fail="*" in m.group(2)))
            pending = None
            continue
        if not line or line.startswith("#"):
            continue
        tokens = line.split()
        number = tokens.pop(0) if tokens[0].isdigit() else None
        name = tokens[0]
        if name == "loadsgf":
            sgf_file = tokens[1]
            move_number = int(tokens[2]) if len(tokens) > 2 else None
            tries = []
        elif name == "trymove":
            tries.append((tokens[1], tokens[2]))
        elif name == "popgo":
            tries.pop()
        elif name in ("attack", "defend") and number is not None:
            pending = TstCase(number, name, tokens[1], "", False, sgf_file, move_number, tuple(tries))
    return cases


def tst_position(tar: tarfile.TarFile, case: TstCase) -> Board:
    game = Game()
    game.load_sgf(tar.extractfile("regression/" + case.sgf).read(), case.move_number)
    for color, v in case.tries:
        game.play(BLACK if color.lower().startswith("b") else WHITE, parse_vertex(game.board, v))
    return game.board


def reading_problems(data_dir: Path) -> list[Problem]:
    """Every `attack` test of reading.tst as a capture problem (the expected moves as answers)."""
    out = []
    with tarfile.open(data_dir / "gnugo_regression.tar.xz") as tar:
        cases = read_tst(tar.extractfile("regression/reading.tst").read().decode())
        for case in cases:
            if case.command != "attack":
                continue
            board = tst_position(tar, case)
            goal = parse_vertex(board, case.vertex)
            answers = tuple(parse_vertex(board, v) for v in re.findall(r"[A-HJ-T][0-9]+", case.expected))
            out.append(Problem(f"reading.tst:{case.number}", board, goal, answers, board.liberties(goal)))
    return out


# --- B1 ---

# B1 solvers: label -> TacticsParams settings. The paper's PP (leaf prior 0.5) and PNS, and our variants of
# PP (B1_OURS): "pp_low" a prior of 0.1, "pp_decay" the paper's 0.5 with the depth decay 1.
B1_SOLVERS = {"pp": {"method": "pp"}, "pns": {"method": "pns"}, "pp_low": {"method": "pp", "prior_p": 0.1},
              "pp_decay": {"method": "pp", "depth_decay": 1.0}}
B1_OURS = {"pp_low": "PP with leaf prior 0.1", "pp_decay": "PP with the depth decay 1"}


def solve_both(problem: Problem, params: dict) -> dict:
    """Every B1 solver on one problem: a row of the per-problem table."""
    row = {"problem": problem.name, "goal": vertex_name(problem.board, problem.goal), "libs": problem.libs}
    for method, settings in B1_SOLVERS.items():
        p = tactics.TacticsParams(**settings, **params)
        t0 = time.process_time()
        r = tactics.solve(problem.board, problem.goal, params=p)
        row.update({f"{method}_value": r.value, f"{method}_nodes": r.developed,
                    f"{method}_nodes_last": r.developed_last, f"{method}_L": r.libs_false,
                    f"{method}_move": vertex_name(problem.board, r.move),
                    f"{method}_book_move": r.value == "T" and r.move in problem.answers,
                    f"{method}_cpu": round(time.process_time() - t0, 4)})
    return row


def ratio_stats(rows: list[dict], key: str, pp: str = "pp") -> dict:
    both = [r for r in rows if r[f"{pp}_value"] == "T" and r["pns_value"] == "T"]
    ratios = [r[f"{pp}_{key}"] / r[f"pns_{key}"] for r in both if r[f"pns_{key}"] > 0 and r[f"{pp}_{key}"] > 0]
    if not ratios:
        return {"n": 0}
    logs = np.log(ratios)
    out = {"n": len(ratios), "geometric_mean": float(np.exp(logs.mean())),
           "median": float(np.median(ratios)), "within_0.5_2": float(np.mean((np.array(ratios) >= 0.5)
                                                                          & (np.array(ratios) <= 2))),
           "pp_lower": int(np.sum(logs < 0)), "equal": int(np.sum(logs == 0)), "pns_lower": int(np.sum(logs > 0)),
           "geometric_mean_ci95": [float(np.exp(logs.mean() - 1.96 * logs.std(ddof=1) / math.sqrt(len(logs)))),
                                   float(np.exp(logs.mean() + 1.96 * logs.std(ddof=1) / math.sqrt(len(logs))))]
           if len(logs) > 1 else None}
    try:
        from scipy.stats import wilcoxon
        nonzero = logs[logs != 0]
        out["wilcoxon_p"] = float(wilcoxon(nonzero).pvalue) if len(nonzero) >= 10 else None
    except ImportError:
        out["wilcoxon_p"] = None
    return out


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


def run_b1(args, pool) -> dict:
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
    write_csv(RESULTS / f"tactics_b1{args.suffix}.csv", all_rows)
    plot_b1(RESULTS / f"tactics_b1{args.suffix}.png", all_rows)
    return out


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


def write_csv(path: Path, rows: list[dict]) -> None:
    if not rows:
        return
    keys = list(rows[0])
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


def plot_b1(path: Path, rows: list[dict]) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(5, 5))
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
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --- B2 ---

# name -> (prior, its parameters, learning mode[, training options]). The first four are the paper's Fig. 8
# panels; the consistent ones add our over-fitting controls: no FALSE from the searches at a lower L than
# the final one (learn="consistent"), and clipped prior log-odds. The calibrated ones (ours) search with
# logit(0.1) + scale * (the model's log-odds): the learned beliefs are centred on the uniform leaf prior
# that suits PP (0.1, as in B1 and the GTP defaults) and damped against the over-confidence that the
# independence of siblings adds. The "_u" ones (ours) also learn from the training searches that spent their
# budget (learn_unsolved: the nodes such a search solved are facts too; in the region regime most training
# searches end that way, so the paper's protocol learns from few of them); "_p3" ones retry the failed
# training problems for 3 passes instead of --passes (neither helped with the region generator, one split:
# bench/results/tactics_b2_region_hier_cal_consistent-hier_consistent_u-hier_consistent_p3-
# hier_consistent_u_p3.json). With the region generator the damped calibrated priors lose to the plain
# model (bench/results/tactics_b2_region_hier_consistent-beta_1_cal-hier_cal-hier_cal_03.json), so
# "_sharp" (ours) goes the other way, scale 1.5: the best region setting over 3 splits
# (tactics_b2_3seeds_region_hier_0obs-hier_consistent-hier_cal-hier_consistent_sharp.json). The "_branching"
# ones (ours) add w times the branching log-odds of the node's number of moves to the model's
# (TacticsParams.branching_weight; "_half": w = 0.5; "sharp2", "sharp3": scale 2, 3), in training and test
# searches alike: the learned prior orders the moves, the branching term keeps a developed node's belief
# near its leaves' and so PP from diving. "_decay1" (ours) also lowers every leaf's log-odds by 1 per ply
# below the root (TacticsParams.depth_decay): where the model's beliefs repeat along a long line (a defender
# that keeps making threats, a ko-like cycle), nothing else makes that line look worse as it gets longer,
# and PP follows it to the depth limit while a short proof waits elsewhere.
CAL_SHIFT = CALIBRATED["hier"]["shift"]
B2_CONFIGS = {
    "beta_1": ("beta", {"alpha0": 1, "beta0": 1}, True),
    "beta_1000": ("beta", {"alpha0": 1000, "beta0": 1000}, True),
    "hier_0obs": ("hier", {}, True),
    "hier_virtual": ("hier", {"k_virtual": 3}, True),
    "hier_consistent": ("hier", {}, "consistent"),
    "hier_consistent_clip": ("hier", {"clip": 4.0}, "consistent"),
    "beta_1_cal": ("beta", {"shift": CAL_SHIFT, "scale": 0.5}, True),
    "hier_cal": ("hier", {"shift": CAL_SHIFT, "scale": 0.5}, True),
    "hier_cal_03": ("hier", {"shift": CAL_SHIFT, "scale": 0.3}, True),
    "hier_cal_consistent": ("hier", {"shift": CAL_SHIFT, "scale": 0.5}, "consistent"),
    "hier_consistent_u": ("hier", {}, "consistent", {"learn_unsolved": True}),
    "hier_consistent_p3": ("hier", {}, "consistent", {"passes": 3}),
    "hier_consistent_u_p3": ("hier", {}, "consistent", {"learn_unsolved": True, "passes": 3}),
    "hier_consistent_sharp": ("hier", {"scale": 1.5}, "consistent"),
    "hier_consistent_sharp_branching": ("hier", {"scale": 1.5}, "consistent", {"branching_weight": 1.0}),
    "hier_consistent_sharp_branching_half": ("hier", {"scale": 1.5}, "consistent", {"branching_weight": 0.5}),
    "hier_consistent_branching": ("hier", {}, "consistent", {"branching_weight": 1.0}),
    "hier_consistent_sharp2_branching": ("hier", {"scale": 2.0}, "consistent", {"branching_weight": 1.0}),
    "hier_consistent_sharp3_branching": ("hier", {"scale": 3.0}, "consistent", {"branching_weight": 1.0}),
    "hier_consistent_sharp2_branching2": ("hier", {"scale": 2.0}, "consistent", {"branching_weight": 2.0}),
    "hier_consistent_sharp2_clip4_branching": ("hier", {"scale": 2.0, "clip": 4.0}, "consistent",
                                               {"branching_weight": 1.0}),
    "hier_0obs_branching": ("hier", {}, True, {"branching_weight": 1.0}),
    "hier_consistent_sharp2_branching2_decay1": ("hier", {"scale": 2.0}, "consistent",
                                                 {"branching_weight": 2.0, "depth_decay": 1.0}),
}
SEARCH_OPTIONS = ("branching_weight", "depth_decay")   # training options that are TacticsParams settings


def config_parts(config: str) -> tuple[str, dict, Any, dict]:
    """(prior kind, its parameters, learn mode, options) of a B2 configuration (options {} when it has none)."""
    kind, kw, learn, *rest = B2_CONFIGS[config]
    return kind, kw, learn, rest[0] if rest else {}


def config_options(options: dict) -> tuple[dict, dict]:
    """A B2 configuration's options split into TacticsParams settings and tactics.solve arguments
    (`passes` is neither)."""
    search = {k: v for k, v in options.items() if k in SEARCH_OPTIONS}
    solve = {k: v for k, v in options.items() if k != "passes" and k not in SEARCH_OPTIONS}
    return search, solve


def timed_solve(problem: Problem, params: tactics.TacticsParams, prior=None) -> tuple:
    """(value, nodes developed, wall seconds, cpu seconds) of one B2 query. The CPU time of the process
    is the time figure that a busy machine disturbs least (the paper's speed-up is time-based)."""
    t0, c0 = time.perf_counter(), time.process_time()
    r = tactics.solve(problem.board, problem.goal, params=params, prior=prior)
    return r.value, r.developed, round(time.perf_counter() - t0, 5), round(time.process_time() - c0, 5)


# B2's solvers without a learned prior, each run on every test problem: name -> TacticsParams settings
B2_REFERENCES = {"pns": {"method": "pns"}, "pp_uniform": {"method": "pp"},
                 "pp_uniform_low": {"method": "pp", "prior_p": 0.1},
                 "pp_branching": {"method": "pp", "branching_weight": 1.0},
                 "pp_branching2_decay1": {"method": "pp", "branching_weight": 2.0, "depth_decay": 1.0}}


def solve_reference(problem: Problem, name: str, params: dict) -> tuple:
    return timed_solve(problem, tactics.TacticsParams(**B2_REFERENCES[name], **params))


def train_prior(config: str, train: list[Problem], params: dict, passes: int):
    """A B2 configuration's prior learned from searches of the training problems (the paper's §5.2: passes
    over the problems still unsolved). Returns (prior, training problems solved, CPU seconds)."""
    kind, kw, learn, options = config_parts(config)
    passes = options.get("passes", passes)
    search, solve_options = config_options(options)
    prior = make_leaf_prior(kind, **kw)
    p = tactics.TacticsParams(method="pp", **params, **search)
    todo, solved_train, t0 = list(train), 0, time.process_time()
    for n_pass in range(passes):
        failed = []
        for problem in todo:
            r = tactics.solve(problem.board, problem.goal, params=p, prior=prior, learn=learn, **solve_options)
            if r.value == "T":
                solved_train += 1
            else:
                failed.append(problem)
        if len(failed) == len(todo):
            break
        todo = failed
        if kind == "hier" and n_pass == 0:
            prior.beta_sq = prior.fit_beta_sq()
            prior._cache.clear()
    train_cpu = time.process_time() - t0
    prior.kernel()                       # the frozen model's table is built once, outside the timings
    return prior, solved_train, train_cpu


def train_and_test(config: str, train: list[Problem], test: list[Problem], params: dict, passes: int,
                   test_params: dict) -> dict:
    kind, kw, learn, options = config_parts(config)
    search, _ = config_options(options)
    prior, solved_train, train_cpu = train_prior(config, train, params, passes)
    results = []
    p_test = tactics.TacticsParams(method="pp", **test_params, **search)
    t0 = time.process_time()
    for problem in test:
        results.append(timed_solve(problem, p_test, prior))
    return {"config": config, "prior": kind, "prior_params": kw, "learn": learn, "options": options,
            "passes": options.get("passes", passes), "train_solved": solved_train,
            "train_cpu": round(train_cpu, 1), "test": results, "test_cpu": round(time.process_time() - t0, 1),
            "patterns": len(getattr(prior, "counts_", getattr(prior, "b_", {}))),
            "beta_sq": getattr(prior, "beta_sq", None)}


def label_problem(problem: Problem, params: dict) -> bool:
    """Known TRUE: proved by PNS or by PP (prior 0.5) within the labelling budget."""
    for method in ("pns", "pp"):
        r = tactics.solve(problem.board, problem.goal, params=tactics.TacticsParams(method=method, **params))
        if r.value == "T":
            return True
    return False


def load_labels(path: Optional[Path], params: dict) -> dict[str, bool]:
    """The known-TRUE labels (problem name -> label) saved by earlier runs with the same labelling
    parameters; empty when there are none (a larger --b2-pool with the same --seed extends the same
    candidate list, so only the new candidates need labelling)."""
    if path is None or not path.exists():
        return {}
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(saved, dict) or saved.get("params") != params or not isinstance(saved.get("labels"), dict):
        return {}
    return {str(k): bool(v) for k, v in saved["labels"].items()}


def save_labels(path: Optional[Path], params: dict, labels: dict[str, bool]) -> None:
    if path is not None:
        path.write_text(json.dumps({"params": params, "labels": labels}))


def known_true(pool, candidates: list[Problem], params: dict, path: Optional[Path]) -> list[bool]:
    """label_problem of every candidate, through the label file when one is given."""
    labels = load_labels(path, params)
    todo = [p for p in candidates if p.name not in labels]
    labels.update(zip((p.name for p in todo), pool.map(label_problem, todo, [params] * len(todo))))
    if todo:
        save_labels(path, params, labels)
    return [labels[p.name] for p in candidates]


def b2_problems(args, pool) -> tuple[list[Problem], list[Problem]]:
    """(candidates, the known-TRUE ones): B2's problem pool."""
    candidates = tsumego_problems(args.data, args.b2_pool, seed=args.seed + 1)
    label_params = {"move_gen": "local", "max_nodes": args.b2_label_budget, "l_max": args.l_max}
    t0 = time.time()
    known = known_true(pool, candidates, label_params, args.b2_labels)
    problems = [p for p, ok in zip(candidates, known) if ok]
    distinct = problems if args.b2_duplicates else distinct_problems(problems)
    print(f"B2: {len(problems)} of {len(candidates)} candidate problems proved TRUE within "
          f"{args.b2_label_budget} nodes by PNS or PP ({time.time() - t0:.0f} s)"
          + ("" if args.b2_duplicates else f", {len(distinct)} of them distinct (turned or recoloured copies "
                                           f"from other books dropped)"), flush=True)
    return candidates, distinct


def save_prior(args, pool) -> dict:
    """Train one B2 configuration on every known-TRUE problem of the pool and save the prior: a model file
    for `bps_config prior=FILE` (GTP) and B3's `--b3-prior`."""
    from bench.speed import git_commit
    config, regime = args.b2_configs[0], args.b2_regimes.strip()
    candidates, problems = b2_problems(args, pool)
    params = {"move_gen": regime, "max_nodes": args.b2_budget if regime == "region" else args.b2_local_budget,
              "l_max": args.l_max}
    prior, solved, cpu = train_prior(config, problems, params, args.passes)
    search, _ = config_options(config_parts(config)[3])
    info = {"config": config, "training_params": params, "search": search, "problems": len(problems),
            "solved": solved, "pool": len(candidates), "seed": args.seed, "commit": git_commit()}
    prior.save(args.save_prior, info)
    weight = search.get("branching_weight", 0.0)
    print(f"trained {config} ({regime} generator, {params['max_nodes']} nodes) on {len(problems)} problems, "
          f"{solved} solved while training, {cpu:.0f} CPU s; wrote {args.save_prior}\n"
          f"use it as trained: bps_config prior={args.save_prior} move_gen={regime} branching={weight:g}"
          + (f" (tesuji gtp --set reading.prior={args.save_prior} reading.branching={weight:g})"
             if regime == "local" else ""), flush=True)
    return info


def b2_test_params(args, params: dict) -> Optional[dict]:
    """The test queries' settings when --b2-test-budget or --b2-max-store set them apart from training's."""
    if args.b2_test_budget is None and args.b2_max_store is None:
        return None
    test_params = dict(params)
    if args.b2_test_budget is not None:
        test_params["max_nodes"] = args.b2_test_budget
    if args.b2_max_store is not None:
        test_params["max_store"] = args.b2_max_store
    return test_params


def run_b2(args, pool) -> dict:
    candidates, problems = b2_problems(args, pool)
    budgets = {"region": args.b2_budget, "local": args.b2_local_budget}
    regimes = [x.strip() for x in args.b2_regimes.split(",") if x.strip()]
    out = {"candidates": len(candidates), "label_budget": args.b2_label_budget, "passes": args.passes,
           "regimes": regimes, "splits": [],
           "split_seeds": args.b2_splits or [args.seed + k for k in range(args.b2_seeds)]}
    for split_seed in out["split_seeds"]:
        rng = random.Random(split_seed)
        order = list(range(len(problems)))
        rng.shuffle(order)
        n_train = (2 * len(problems)) // 3
        train = [problems[i] for i in order[:n_train]]
        test = [problems[i] for i in order[n_train:]]
        print(f"B2 split seed {split_seed}", flush=True)
        split = {"seed": split_seed, "train": len(train), "test": len(test)}
        for regime in regimes:
            params = {"move_gen": regime, "max_nodes": budgets[regime], "l_max": args.l_max}
            split[regime] = b2_regime(pool, train, test, params, args.passes, args.b2_configs,
                                      b2_test_params(args, params), args.b2_references)
        out["splits"].append(split)
    if len(out["splits"]) == 1:          # one split: the record keeps its earlier layout
        out.update(out.pop("splits")[0])
    else:
        out["summary"] = b2_summary(out["splits"], regimes)
    return out


B2_STATS = ("solved", "newly_solved", "newly_failed", "speedup_mean", "speedup_geomean", "speedup_median",
            "speedup_cpu_mean", "speedup_cpu_geomean", "speedup_cpu_median", "test_nodes_mean",
            "test_seconds_per_problem", "test_cpu_per_problem")


def b2_summary(splits: list[dict], regimes: list[str]) -> dict:
    """Mean and sample standard deviation over the splits of every configuration's statistics."""
    out = {}
    for regime in regimes:
        rows = {name: [s[regime][f"{name}_stats"] for s in splits] for name in B2_REFERENCES
                if f"{name}_stats" in splits[0][regime]}
        for config in splits[0][regime]["configs"]:
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


def run_stats(res: list) -> dict:
    """Solved count, mean nodes and mean wall seconds per problem of one solver's test results."""
    cpu = [x[3] for x in res if len(x) > 3]
    return {"solved": sum(v == "T" for v, *_ in res),
            "test_nodes_mean": float(np.mean([n for _, n, *_ in res])) if res else None,
            "test_seconds_per_problem": float(np.mean([x[2] for x in res])) if res else None,
            "test_cpu_per_problem": float(np.mean(cpu)) if cpu else None}


def speedups(res: list, pns: list, index: int) -> list[float]:
    """PNS / PP ratios of field `index` of the B2 tuples (1: nodes, 3: cpu seconds) on the problems both
    prove (records without the field are skipped)."""
    out = []
    for r, q in zip(res, pns):
        if r[0] == q[0] == "T" and len(r) > index and len(q) > index and r[index] > 0 and q[index] > 0:
            out.append(q[index] / r[index])
    return out


def ratio_summary(speed: list[float], prefix: str) -> dict:
    """Arithmetic mean (the paper's statistic), geometric mean and median of speed-up ratios."""
    return {f"{prefix}_mean": float(np.mean(speed)) if speed else None,
            f"{prefix}_geomean": float(np.exp(np.mean(np.log(speed)))) if speed else None,
            f"{prefix}_median": float(np.median(speed)) if speed else None}


def against_pns(res: list, pns: list) -> dict:
    """A solver's B2 test results against PNS's: newly solved and failed, and the speed-ups (nodes, CPU,
    and in nodes by PNS's difficulty) on the problems both prove."""
    speed, speed_cpu = speedups(res, pns, 1), speedups(res, pns, 3)
    return {"newly_solved": sum(v == "T" and pv != "T" for (v, *_), (pv, *_) in zip(res, pns)),
            "newly_failed": sum(v != "T" and pv == "T" for (v, *_), (pv, *_) in zip(res, pns)),
            "both": len(speed), **ratio_summary(speed, "speedup"), **ratio_summary(speed_cpu, "speedup_cpu"),
            "speedup_bands": speedup_bands(res, pns)}


B2_BANDS = (1_000, 10_000)       # PNS's nodes to solve: the edges of the difficulty bands of speedup_bands


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


def b2_regime(pool, train: list[Problem], test: list[Problem], params: dict, passes: int,
              configs: Optional[list[str]] = None, test_params: Optional[dict] = None,
              references: Optional[list[str]] = None) -> dict:
    """The B2 configurations (default all) trained and tested under one move generator and node budget
    (test_params: another budget for the test queries), with the reference solvers (default all; PNS
    always)."""
    test_params = params if test_params is None else test_params
    references = list(B2_REFERENCES) if references is None else references
    refs = {name: list(pool.map(solve_reference, test, [name] * len(test), [test_params] * len(test)))
            for name in references}
    pns = refs["pns"]
    out = {"params": params, "test_params": test_params, "configs": {},
           "per_problem": {"names": [p.name for p in test], **refs}}
    for name, res in refs.items():
        out[f"{name}_solved"] = sum(v == "T" for v, *_ in res)
        out[f"{name}_stats"] = run_stats(res) if name == "pns" else dict(run_stats(res), **against_pns(res, pns))
    configs = list(B2_CONFIGS) if configs is None else configs
    runs = list(pool.map(train_and_test, configs, [train] * len(configs), [test] * len(configs),
                         [params] * len(configs), [passes] * len(configs), [test_params] * len(configs)))
    print(f"B2 {params['move_gen']} generator: {len(train)} train / {len(test)} test problems, budget "
          f"{params['max_nodes']} nodes (test {test_params['max_nodes']}): "
          + ", ".join(f"{name} solves {out[f'{name}_solved']}"
                      + (f" (speed-up {_f(out[f'{name}_stats']['speedup_mean'])}, geo "
                         f"{_f(out[f'{name}_stats']['speedup_geomean'])})" if name != "pns" else "")
                      for name in refs))
    for run in runs:
        res = run.pop("test")
        s = dict(run, **run_stats(res), **against_pns(res, pns), per_problem=res)
        out["configs"][run["config"]] = s
        print(f"   {run['config']:15s} train solved {run['train_solved']:4d}  test solved {s['solved']:3d}  "
              f"newly solved {s['newly_solved']:3d}  newly failed {s['newly_failed']:3d}  speed-up (n={s['both']}) "
              f"mean {_f(s['speedup_mean'])} geo {_f(s['speedup_geomean'])} median {_f(s['speedup_median'])}"
              f"  cpu speed-up mean {_f(s['speedup_cpu_mean'])} geo {_f(s['speedup_cpu_geomean'])} median "
              f"{_f(s['speedup_cpu_median'])}"
              f"  nodes/problem {s['test_nodes_mean']:.0f}  wall s/problem {s['test_seconds_per_problem']:.4f}"
              f"  [{run['train_cpu']:.0f}+{run['test_cpu']:.0f} cpu s]", flush=True)
    return out


def _f(x) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def b2_report(record: dict) -> dict:
    """A recorded B2 run's node speed-ups by PNS difficulty (speedup_bands), the problems of all its splits
    pooled: regime -> configuration -> bands."""
    results = record["results"]
    splits = results.get("splits") or [results]
    out = {}
    for regime in results.get("regimes") or [r for r in ("region", "local") if r in splits[0]]:
        runs = [s[regime] for s in splits]
        pns = [q for run in runs for q in run["per_problem"]["pns"]]
        out[regime] = {}
        for config in runs[0]["configs"]:
            res = [r for run in runs for r in run["configs"][config]["per_problem"]]
            out[regime][config] = speedup_bands(res, pns)
    return out


def b2_node_cost(record: dict) -> dict:
    """A recorded B2 run's CPU microseconds per developed node of every test solver (PNS and the other
    references, each configuration), its splits pooled: regime -> solver -> us (None without CPU times)."""
    results = record["results"]
    splits = results.get("splits") or [results]
    out = {}
    for regime in results.get("regimes") or [r for r in ("region", "local") if r in splits[0]]:
        runs = [s[regime] for s in splits]
        solvers = {name: [q for run in runs for q in run["per_problem"][name]]
                   for name in runs[0]["per_problem"] if name != "names"}
        solvers.update({config: [q for run in runs for q in run["configs"][config]["per_problem"]]
                        for config in runs[0]["configs"]})
        out[regime] = {name: (1e6 * sum(q[3] for q in res) / sum(q[1] for q in res)
                              if res and all(len(q) > 3 for q in res) else None)
                       for name, res in solvers.items()}
    return out


def print_b2_report(report: dict) -> None:
    for regime, configs in report.items():
        print(f"B2 {regime} generator: node speed-up over PNS by PNS's nodes to solve (all splits pooled)")
        for config, bands in configs.items():
            cells = [f"[{b['pns_nodes_from']}, {b['pns_nodes_below'] or 'inf'}): n={b['both']} mean "
                     f"{_f(b['speedup_mean'])} geo {_f(b['speedup_geomean'])}" for b in bands]
            print(f"   {config:22s} " + "   ".join(cells))


# --- B3 ---

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


def run_b3(args, pool) -> dict:
    def tesuji(method: str, prior_p: float, *more: str) -> list[str]:
        return [sys.executable, "-m", "gtp.tactics_commands", "--method", method, "--prior-p", str(prior_p),
                *more, "--budget", str(args.b3_budget), "--set", "search.max_nodes=1000"]

    engines = {"tesuji_pp": tesuji("pp", 0.1), "tesuji_pp_paper": tesuji("pp", 0.5), "tesuji_pns": tesuji("pns", 0.5)}
    if args.b3_prior is not None:
        engines["tesuji_pp_prior"] = tesuji("pp", 0.1, "--prior", args.b3_prior,
                                            "--branching-weight", str(args.b3_branching))
    if os.path.exists(args.gnugo):
        engines["gnugo"] = [args.gnugo, "--mode", "gtp", "--quiet"]
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


# --- the simple ladder reader against the solver ---

def ladder_positions(data_dir: Path, n_games: int, every: int = 10) -> list[tuple[Board, int]]:
    """(position, stone) for every block of 2 liberties in every `every`-th position of the first
    n_games games of kgs6d_even.tar.xz, the block's opponent to move."""
    from sgfmill import sgf, sgf_moves
    out = []
    with tarfile.open(data_dir / "kgs6d_even.tar.xz") as tar:
        members = [m for m in tar if m.isfile()][:n_games]
        for m in members:
            game = sgf.Sgf_game.from_bytes(tar.extractfile(m).read())
            setup, plays = sgf_moves.get_setup_and_moves(game)
            board = Board(game.get_size(), 0.0)
            stones = setup.list_occupied_points()
            board.setup([board.point(*pt) for col, pt in stones if col == "b"],
                        [board.point(*pt) for col, pt in stones if col == "w"])
            for i, (color, move) in enumerate(plays):
                try:
                    board.play(board.point(*move) if move else -1, BLACK if color == "b" else WHITE)
                except ValueError:
                    break
                if i % every:
                    continue
                seen = set()
                for p in board.points():
                    if board.color_at(p) in (BLACK, WHITE) and p not in seen:
                        stones = board.group_stones(p)
                        seen.update(stones)
                        if board.liberties(p) == 2:
                            pos = board.copy()
                            pos.to_play = 3 - board.color_at(p)
                            out.append((pos, p))
    return out


def ladder_params(budget: int) -> tactics.TacticsParams:
    return tactics.TacticsParams(move_gen="local", max_nodes=budget, l_max=3)


def compare_ladder(item: tuple, budget: int) -> tuple:
    from priors.ladder import is_ladder_attack
    board, stone = item
    ladder = is_ladder_attack(board, stone)
    r = tactics.solve(board, stone, params=ladder_params(budget))
    return ladder, r.value, r.developed


def principal_line(board: Board, stone: int, params: tactics.TacticsParams, result: tactics.Result) -> list[int]:
    """The solver's line for capturing the block at stone (the last search of the liberty loop that gave
    `result`): at attacker nodes the proving child (else the search's favourite), at defender nodes the
    reply with the largest subtree (the defence the proof had to work hardest against)."""
    solver = tactics.last_search(board, stone, result, params)
    nodes = [solver.node(i) for i in range(solver.n_nodes)]
    size = [1] * len(nodes)
    for i in range(len(nodes) - 1, 0, -1):          # children come after their parents
        size[nodes[i]["parent"]] += size[i]
    line, n = [], 0
    while nodes[n]["n_children"]:
        kids = range(nodes[n]["first_child"], nodes[n]["first_child"] + nodes[n]["n_children"])
        if nodes[n]["kind"] == "or":
            proving = [i for i in kids if nodes[i]["value"] == "T"]
            n = proving[0] if proving else max(kids, key=lambda i: (nodes[i].get("logodds", 0.0), -i))
        else:
            n = max(kids, key=lambda i: (size[i], -i))
        line.append(nodes[n]["move"])
    return line


def dump_disagreements(out_dir: Path, items: list, rows: list, codes: list[int], budget: int) -> list[dict]:
    """An SGF per block the solver captures and GnuGo does not (the position, then the solver's line as
    moves, a root comment with the goal and both answers); returns one summary row per file."""
    out_dir.mkdir(parents=True, exist_ok=True)
    params = ladder_params(budget)
    summary = []
    for k, ((board, stone), (_, value, _), code) in enumerate(zip(items, rows, codes)):
        if value != "T" or code != 0:
            continue
        r = tactics.solve(board, stone, params=params)
        line = principal_line(board, stone, params, r)
        game = Game()
        game.set_position(board)
        color, played = board.to_play, []
        for move in line:
            try:
                game.play(color, move)
            except ValueError:
                break
            played.append(("B" if color == BLACK else "W") + vertex_name(board, move))
            color = 3 - color
        row = {"index": k, "goal": vertex_name(board, stone), "attacker": "B" if board.to_play == BLACK else "W",
               "solver_move": vertex_name(board, r.move), "libs_false": r.libs_false, "developed": r.developed,
               "line": " ".join(played), "gnugo_attack": code, "file": f"ladder_{k:05d}.sgf"}
        sgf = _with_root_comment(game.to_sgf(), f"block {row['goal']}: {row['attacker']} to capture; solver (PP, "
                                 f"local generator, L = {r.libs_false}) says captured by {row['solver_move']}, "
                                 f"line {row['line']}; GnuGo's attack says 0")
        (out_dir / row["file"]).write_bytes(sgf)
        summary.append(row)
    (out_dir / "index.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def _with_root_comment(data: bytes, comment: str) -> bytes:
    from sgfmill import sgf
    game = sgf.Sgf_game.from_bytes(data)
    game.get_root().set("C", comment)
    return game.serialise()


def gnugo_attacks(gnugo: str, items: list[tuple[Board, int]], timeout: float) -> list[int]:
    """GnuGo's `attack` code (0 no capture; 1 capture; 2, 3 capture by ko) for each (position, stone)."""
    from bench.gtpclient import GtpEngine
    codes = []
    with tempfile.TemporaryDirectory() as tmp:
        engine = GtpEngine([gnugo, "--mode", "gtp", "--quiet"], timeout=timeout, cwd=tmp).start()
        try:
            for k, (board, stone) in enumerate(items):
                game = Game()
                game.set_position(board)
                path = Path(tmp) / f"p{k}.sgf"
                path.write_bytes(game.to_sgf())
                engine.send(f"loadsgf {path.name}")
                codes.append(int(engine.send(f"attack {vertex_name(board, stone)}").split()[0]))
        finally:
            engine.close()
    return codes


def agreement(says_capture: list[bool], gnugo_codes: list[int]) -> dict[str, int]:
    """A reader's capture verdicts against GnuGo's (any non-zero attack code is a capture)."""
    pairs = list(zip(says_capture, (c > 0 for c in gnugo_codes)))
    return {"both_capture": sum(a and g for a, g in pairs), "both_not": sum(not a and not g for a, g in pairs),
            "only_reader": sum(a and not g for a, g in pairs), "only_gnugo": sum(g and not a for a, g in pairs)}


def run_ladder(args, pool) -> dict:
    items = ladder_positions(args.data, args.ladder_games)
    rows = list(pool.map(compare_ladder, items, [args.ladder_budget] * len(items), chunksize=64))
    cells = [f"ladder={'T' if ladder else 'F'} solver={value}" for ladder, value, _ in rows]
    table = dict(Counter(cells))
    out = {"blocks": len(rows), "budget": args.ladder_budget, "table": table,
           "solver_nodes_mean": float(np.mean([n for _, _, n in rows])) if rows else None}
    print(f"ladder reader vs solver (PP, local generator, L = 3, {args.ladder_budget} nodes) on {len(rows)} "
          f"two-liberty blocks: {table}", flush=True)
    # GnuGo's reading, which we did not write, as the reference for both readers.
    if os.path.exists(args.gnugo):
        codes = gnugo_attacks(args.gnugo, items, args.b3_timeout)
        out["against_gnugo"] = {
            "ladder_reader": agreement([lad for lad, _, _ in rows], codes),
            "solver": agreement([value == "T" for _, value, _ in rows], codes),
            "by_cell": {key: sum(c > 0 for cell, c in zip(cells, codes) if cell == key) for key in table},
        }
        print(f"against GnuGo's attack: {out['against_gnugo']}", flush=True)
        if args.ladder_dump is not None:
            out["dump"] = dump_disagreements(args.ladder_dump, items, rows, codes, args.ladder_budget)
            for row in out["dump"]:
                print(f"  only the solver: #{row['index']} {row['goal']} ({row['attacker']} to capture) "
                      f"{row['line']} -> {args.ladder_dump / row['file']}", flush=True)
    return out


# --- driver ---

def provenance(args, argv) -> dict:
    from bench.speed import git_commit
    return {"command": "python -m bench.tactics " + " ".join(argv), "commit": git_commit(),
            "date": datetime.datetime.now().isoformat(timespec="seconds"), "machine": platform.node(),
            "cpu": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}}


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python -m bench.tactics", description=__doc__.split("\n\n")[0])
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
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--b2-seeds", type=int, default=1, help="train/test splits (seeds --seed, --seed + 1, ...)")
    ap.add_argument("--b2-splits", default=None, metavar="S,S,...",
                    help="the splits' seeds, instead of --b2-seeds (the pool is still drawn from --seed): "
                         "runs of one split each can share a machine")
    ap.add_argument("--b2-references", default=None, metavar="NAMES",
                    help=f"comma-separated reference solvers (default all; pns always): {', '.join(B2_REFERENCES)}")
    ap.add_argument("--b2-regimes", default="region,local", help="comma-separated move generators: region, local")
    ap.add_argument("--b2-configs", default=None,
                    help=f"comma-separated B2 prior configurations (default all): {', '.join(B2_CONFIGS)}")
    ap.add_argument("--b2-labels", type=Path, default=None,
                    help="a file that keeps the known-TRUE labels for later runs with the same candidates")
    ap.add_argument("--b2-duplicates", action="store_true",
                    help="keep known-TRUE problems that repeat another's position (a turned or recoloured copy "
                         "from another book), as B2 records before the distinct pool did: a copy in the training "
                         "set and one in the test set leaks the answer")
    ap.add_argument("--tag", default="", help="appended to the result file names (e.g. a variant's name)")
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
    ap.add_argument("--b2-report", type=Path, default=None, metavar="FILE",
                    help="run nothing: print a recorded B2 result's node speed-ups by PNS difficulty")
    args = ap.parse_args(argv)
    args.b2_configs = parse_b2_configs(ap, args.b2_configs)
    if args.b2_splits is not None:
        try:
            args.b2_splits = sorted({int(x) for x in args.b2_splits.split(",") if x.strip()})
        except ValueError:
            ap.error(f"--b2-splits: comma-separated integers, got {args.b2_splits!r}")
        if not args.b2_splits:
            ap.error("--b2-splits: name at least one split seed")
    references = parse_names(ap, "--b2-references", args.b2_references, B2_REFERENCES, "reference")
    args.b2_references = None if references is None else [n for n in B2_REFERENCES if n in references + ["pns"]]
    if args.save_prior is not None:
        if args.b2_configs is None or len(args.b2_configs) != 1 or args.b2_regimes.strip() not in ("region", "local"):
            ap.error("--save-prior: name one configuration (--b2-configs) and one generator (--b2-regimes)")
        if args.save_prior.suffix != ".npz":
            ap.error(f"--save-prior: a .npz file name, got {args.save_prior}")
    if args.b2_test_budget is not None and args.b2_test_budget < 1:
        ap.error(f"--b2-test-budget: must be a positive number of nodes, got {args.b2_test_budget}")
    if args.b2_max_store is not None and args.b2_max_store < 1000:
        ap.error(f"--b2-max-store: must be at least 1000 nodes, got {args.b2_max_store}")
    if args.tag and not re.fullmatch(r"[A-Za-z0-9_.-]+", args.tag):
        ap.error(f"--tag: letters, digits, '_', '-' and '.' only, got {args.tag!r}")
    args.suffix = "_quick" if args.quick else ""
    if args.b2_splits:
        args.suffix += "_splits" + "-".join(map(str, args.b2_splits))
    elif args.b2_seeds > 1:              # several splits, or fewer regimes: a record of its own
        args.suffix += f"_{args.b2_seeds}seeds"
    if args.b2_regimes != "region,local":
        args.suffix += "_" + "_".join(x.strip() for x in args.b2_regimes.split(",") if x.strip())
    if args.b2_configs is not None:      # a subset of the configurations: the names go into the file name
        args.suffix += "_" + "-".join(args.b2_configs)
    if args.b2_references is not None and args.b2_references != list(B2_REFERENCES):
        args.suffix += "_refs-" + "-".join(args.b2_references)
    if args.b2_test_budget is not None:
        args.suffix += f"_test{args.b2_test_budget}"
    if args.b2_max_store is not None:
        args.suffix += f"_store{args.b2_max_store}"
    if args.b2_duplicates:
        args.suffix += "_duplicates"
    if args.tag:
        args.suffix += "_" + args.tag
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


def parse_b2_configs(ap: argparse.ArgumentParser, text: Optional[str]) -> Optional[list[str]]:
    return parse_names(ap, "--b2-configs", text, B2_CONFIGS, "configuration")


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.b2_report is not None:
        try:
            record = json.loads(args.b2_report.read_text())
            print_b2_report(b2_report(record))
            for regime, costs in b2_node_cost(record).items():
                print(f"B2 {regime} generator: CPU us per developed node of the test queries: "
                      + ", ".join(f"{name} {_f(us)}" for name, us in costs.items()))
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"--b2-report: {args.b2_report} is not a B2 result file ({type(e).__name__}: {e})", file=sys.stderr)
            return 2
        return 0
    only = {x.strip().lower() for x in args.only.split(",") if x.strip()}
    if not only <= {"b1", "b2", "b3", "ladder"}:
        print(f"--only: unknown benchmark(s) {sorted(only - {'b1', 'b2', 'b3', 'ladder'})}", file=sys.stderr)
        return 2
    for archive in ("tsumego.tar.xz", "gnugo_regression.tar.xz"):
        if not (args.data / archive).exists():
            print(f"{args.data / archive} not found (set --data)", file=sys.stderr)
            return 2
    if args.save_prior is not None:
        with concurrent.futures.ProcessPoolExecutor(max_workers=args.workers) as pool:
            save_prior(args, pool)
        return 0
    RESULTS.mkdir(parents=True, exist_ok=True)
    suffix = args.suffix
    runners = {"b1": run_b1, "b3": run_b3, "b2": run_b2, "ladder": run_ladder}
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.workers) as pool:
        for name in ("b1", "b3", "b2", "ladder"):
            if name not in only:
                continue
            t0 = time.time()
            result = runners[name](args, pool)
            record = {**provenance(args, argv), "benchmark": name, "wall_seconds": round(time.time() - t0, 1),
                      "results": result}
            path = RESULTS / f"tactics_{name}{suffix}.json"
            path.write_text(json.dumps(record, indent=1, default=str) + "\n")
            print(f"wrote {path.relative_to(ROOT)} ({record['wall_seconds']} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
