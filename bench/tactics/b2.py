"""B2: learned leaf priors on a train/test split, against PNS and PP with uniform leaf priors.

The pool is the tsumego capture problems that PNS or PP proves within a large labelling budget (labels),
without the copies of a problem that other books hold (problem_key), split 2:1 with a fixed seed. Each
configuration of bench/configs/tactics/b2.yaml trains its prior on the training set (training), is frozen and
run on the test set under the same node budget as PNS and the reference solvers (report: newly solved
and failed, speed-ups in nodes and CPU seconds). This runs with the region generator (every empty point
of the problem, as the paper) and with the local one, over one or more splits. `save_prior` trains one
configuration on the whole pool and saves its leaf prior for the GTP reading commands and B3.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import random
import time
from typing import Optional

from bench.records import git_commit
from bench.tactics.b2config import b2_settings
from bench.tactics.labels import known_true
from bench.tactics.problems import Problem, distinct_problems, tsumego_problems
from bench.tactics.report import against_pns, b2_summary, fmt, run_stats
from bench.tactics.training import PriorConfig, train_prior
from engine import tactics


def timed_solve(problem: Problem, params: tactics.TacticsParams, prior=None) -> tuple:
    """(value, nodes developed, wall seconds, cpu seconds) of one B2 query. The CPU time of the process
    is the time figure that a busy machine disturbs least (the paper's speed-up is time-based)."""
    t0, c0 = time.perf_counter(), time.process_time()
    r = tactics.solve(problem.board, problem.goal, params=params, prior=prior)
    return r.value, r.developed, round(time.perf_counter() - t0, 5), round(time.process_time() - c0, 5)


def solve_reference(problem: Problem, settings: dict, params: dict) -> tuple:
    """A reference solver (TacticsParams settings) on one test problem."""
    return timed_solve(problem, tactics.TacticsParams(**settings, **params))


def train_and_test(config: PriorConfig, train: list[Problem], test: list[Problem], params: dict, passes: int,
                   test_params: dict) -> dict:
    prior, solved_train, train_cpu = train_prior(config, train, params, passes)
    results = []
    p_test = tactics.TacticsParams(method="pp", **test_params, **config.search)
    t0 = time.process_time()
    for problem in test:
        results.append(timed_solve(problem, p_test, prior))
    return {"config": config.name, "prior": config.prior, "prior_params": config.params, "learn": config.learn,
            "options": config.options, "passes": config.passes if config.passes is not None else passes,
            "train_solved": solved_train, "train_cpu": round(train_cpu, 1), "test": results,
            "test_cpu": round(time.process_time() - t0, 1),
            "patterns": len(getattr(prior, "counts_", getattr(prior, "b_", {}))),
            "beta_sq": getattr(prior, "beta_sq", None)}


def b2_problems(args: argparse.Namespace, pool: concurrent.futures.Executor) -> tuple[list[Problem], list[Problem]]:
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


def save_prior(args: argparse.Namespace, pool: concurrent.futures.Executor) -> dict:
    """Train one B2 configuration on every known-TRUE problem of the pool and save the prior: a model file
    for `bps_config prior=FILE` (GTP) and B3's `--b3-prior`."""
    config, regime = b2_settings().configs[args.b2_configs[0]], args.b2_regimes.strip()
    candidates, problems = b2_problems(args, pool)
    params = {"move_gen": regime, "max_nodes": args.b2_budget if regime == "region" else args.b2_local_budget,
              "l_max": args.l_max}
    prior, solved, cpu = train_prior(config, problems, params, args.passes)
    info = {"config": config.name, "training_params": params, "search": config.search, "problems": len(problems),
            "solved": solved, "pool": len(candidates), "seed": args.seed, "commit": git_commit()}
    prior.save(args.save_prior, info)
    weight = config.search.get("branching_weight", 0.0)
    print(f"trained {config.name} ({regime} generator, {params['max_nodes']} nodes) on {len(problems)} problems, "
          f"{solved} solved while training, {cpu:.0f} CPU s; wrote {args.save_prior}\n"
          f"use it as trained: bps_config prior={args.save_prior} move_gen={regime} branching={weight:g}"
          + (f" (tesuji gtp --set reading.prior={args.save_prior} reading.branching={weight:g})"
             if regime == "local" else ""), flush=True)
    return info


def b2_test_params(args: argparse.Namespace, params: dict) -> Optional[dict]:
    """The test queries' settings when --b2-test-budget or --b2-max-store set them apart from training's."""
    if args.b2_test_budget is None and args.b2_max_store is None:
        return None
    test_params = dict(params)
    if args.b2_test_budget is not None:
        test_params["max_nodes"] = args.b2_test_budget
    if args.b2_max_store is not None:
        test_params["max_store"] = args.b2_max_store
    return test_params


def run_b2(args: argparse.Namespace, pool: concurrent.futures.Executor) -> dict:
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


def b2_regime(pool: concurrent.futures.Executor, train: list[Problem], test: list[Problem], params: dict,
              passes: int, configs: Optional[list[str]] = None, test_params: Optional[dict] = None,
              references: Optional[list[str]] = None) -> dict:
    """The B2 configurations (default all) trained and tested under one move generator and node budget
    (test_params: another budget for the test queries), with the reference solvers (default all; PNS
    always)."""
    settings = b2_settings()
    test_params = params if test_params is None else test_params
    references = list(settings.references) if references is None else references
    refs = {name: list(pool.map(solve_reference, test, [settings.references[name]] * len(test),
                                [test_params] * len(test))) for name in references}
    pns = refs["pns"]
    out = {"params": params, "test_params": test_params, "configs": {},
           "references": {name: settings.references[name] for name in references},
           "per_problem": {"names": [p.name for p in test], **refs}}
    for name, res in refs.items():
        out[f"{name}_solved"] = sum(v == "T" for v, *_ in res)
        out[f"{name}_stats"] = run_stats(res) if name == "pns" else dict(run_stats(res), **against_pns(res, pns))
    configs = [settings.configs[name] for name in (settings.configs if configs is None else configs)]
    runs = list(pool.map(train_and_test, configs, [train] * len(configs), [test] * len(configs),
                         [params] * len(configs), [passes] * len(configs), [test_params] * len(configs)))
    print(f"B2 {params['move_gen']} generator: {len(train)} train / {len(test)} test problems, budget "
          f"{params['max_nodes']} nodes (test {test_params['max_nodes']}): "
          + ", ".join(f"{name} solves {out[f'{name}_solved']}"
                      + (f" (speed-up {fmt(out[f'{name}_stats']['speedup_mean'])}, geo "
                         f"{fmt(out[f'{name}_stats']['speedup_geomean'])})" if name != "pns" else "")
                      for name in refs))
    for run in runs:
        res = run.pop("test")
        s = dict(run, **run_stats(res), **against_pns(res, pns), per_problem=res)
        out["configs"][run["config"]] = s
        print(f"   {run['config']:15s} train solved {run['train_solved']:4d}  test solved {s['solved']:3d}  "
              f"newly solved {s['newly_solved']:3d}  newly failed {s['newly_failed']:3d}  speed-up (n={s['both']}) "
              f"mean {fmt(s['speedup_mean'])} geo {fmt(s['speedup_geomean'])} median {fmt(s['speedup_median'])}"
              f"  cpu speed-up mean {fmt(s['speedup_cpu_mean'])} geo {fmt(s['speedup_cpu_geomean'])} median "
              f"{fmt(s['speedup_cpu_median'])}"
              f"  nodes/problem {s['test_nodes_mean']:.0f}  wall s/problem {s['test_seconds_per_problem']:.4f}"
              f"  [{run['train_cpu']:.0f}+{run['test_cpu']:.0f} cpu s]", flush=True)
    return out
