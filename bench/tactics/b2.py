"""B2: learned leaf priors on a train/test split, against PNS and PP with uniform leaf priors.

The pool is the tsumego capture problems that PNS or PP proves within a large labelling budget (labels),
without the copies of a problem that other books hold (problem_key), split 2:1 with a fixed seed, or by
the held-out protocol (b2_splits: settings chosen on the choosing problems, reported on the held-out ones).
Each configuration of bench/configs/tactics/b2.yaml trains its prior on the training set (training), is
frozen and run on the test set under the same node budget as PNS and the reference solvers, all of them
in one process, problem by problem (report: newly solved and failed, speed-ups in nodes and CPU seconds).
This runs with the region generator (every empty point of the problem, as the paper) and with the local
one, over one or more splits. `save_prior` trains one configuration on the whole pool and saves its leaf
prior for the GTP reading commands and B3.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import random
import tempfile
import time
from pathlib import Path
from typing import Optional

from bench.records import git_commit
from bench.tactics.b2config import b2_settings
from bench.tactics.labels import known_true
from bench.tactics.problems import Problem, distinct_problems, heldout_split, tsumego_problems
from bench.tactics.report import against_pns, at_timeout, b2_summary, cpu_timeout, fmt, run_stats
from bench.tactics.training import PriorConfig, train_prior
from engine import tactics
from engine.tactics.leafpriors import load_leaf_prior


def timed_solve(problem: Problem, params: tactics.TacticsParams, prior=None) -> tuple:
    """(value, nodes developed, wall seconds, cpu seconds) of one B2 query. The CPU time of the process
    is the time figure that a busy machine disturbs least (the paper's speed-up is time-based)."""
    t0, c0 = time.perf_counter(), time.process_time()
    r = tactics.solve(problem.board, problem.goal, params=params, prior=prior)
    return r.value, r.developed, round(time.perf_counter() - t0, 5), round(time.process_time() - c0, 5)


def train_config(config: PriorConfig, train: list[Problem], params: dict, passes: int, folder: Path) -> dict:
    """Train one configuration (in a worker) and save its prior to folder/NAME.npz for the test queries,
    which run in the calling process."""
    prior, solved_train, train_cpu, passes_run = train_prior(config, train, params, passes)
    path = folder / f"{config.name}.npz"
    prior.save(path)
    return {"config": config.name, "prior": config.prior, "prior_params": config.params, "learn": config.learn,
            "options": config.options, "passes": config.passes if config.passes is not None else passes,
            "passes_run": passes_run, "train_solved": solved_train, "train_cpu": round(train_cpu, 1),
            "patterns": len(getattr(prior, "counts_", getattr(prior, "b_", {}))),
            "beta_sq": getattr(prior, "beta_sq", None), "prior_file": str(path)}


def solve_all(test: list[Problem], solvers: list[tuple]) -> dict[str, list]:
    """Every solver (name, TacticsParams, prior or None) on every test problem, in this process and
    problem by problem, so that a change in the machine's load falls on all solvers alike."""
    out = {name: [] for name, *_ in solvers}
    for problem in test:
        for name, params, prior in solvers:
            out[name].append(timed_solve(problem, params, prior))
    return out


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
    prior, solved, cpu, _ = train_prior(config, problems, params, args.passes)
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


def b2_splits(args: argparse.Namespace, problems: list[Problem]) -> tuple[list[tuple], dict]:
    """[(split seed or "heldout", training problems, test problems)] and what the record says of them.

    Without --b2-heldout: seeded 2:1 splits of the pool. With it, the pool is cut once by the file's
    fixed rule (problems.heldout_split) into choosing and held-out problems: "choose" splits the choosing
    problems 2:1 by the seeds (settings are chosen there), "report" trains on every choosing problem and
    tests on the held-out ones."""
    seeds = args.b2_splits or [args.seed + k for k in range(args.b2_seeds)]
    info = {}
    if args.b2_heldout:
        rule = b2_settings().heldout          # the command line checked that there is one
        problems, held_out = heldout_split(problems, rule.salt, rule.every)
        info = {"heldout": args.b2_heldout, "heldout_rule": {"salt": rule.salt, "every": rule.every},
                "choosing": len(problems), "held_out": len(held_out)}
        print(f"B2 held-out split ({rule.salt}, one in {rule.every}): {len(problems)} choosing problems, "
              f"{len(held_out)} held out", flush=True)
    if args.b2_heldout == "report":
        out = [("heldout", problems, held_out)]
    else:
        out = []
        for split_seed in seeds:
            order = list(range(len(problems)))
            random.Random(split_seed).shuffle(order)
            n_train = (2 * len(problems)) // 3
            out.append((split_seed, [problems[i] for i in order[:n_train]], [problems[i] for i in order[n_train:]]))
    if any(not train or not test for _, train, test in out):
        raise SystemExit(f"B2: {len(problems)} problems leave a training or a test set empty; take a larger "
                         f"--b2-pool or --b2-label-budget")
    return out, info


def run_b2(args: argparse.Namespace, pool: concurrent.futures.Executor) -> dict:
    candidates, problems = b2_problems(args, pool)
    budgets = {"region": args.b2_budget, "local": args.b2_local_budget}
    regimes = [x.strip() for x in args.b2_regimes.split(",") if x.strip()]
    splits, info = b2_splits(args, problems)
    out = {"candidates": len(candidates), "label_budget": args.b2_label_budget, "passes": args.passes,
           "regimes": regimes, **info, "splits": [], "split_seeds": [seed for seed, *_ in splits]}
    for split_seed, train, test in splits:
        print(f"B2 split {split_seed}", flush=True)
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
    """The B2 configurations (default all) trained under one move generator and node budget, in the
    pool's workers, then tested in this process with the reference solvers (default all; PNS always),
    problem by problem (solve_all); test_params: another budget for the test queries."""
    settings = b2_settings()
    test_params = params if test_params is None else test_params
    references = list(settings.references) if references is None else references
    configs = [settings.configs[name] for name in (settings.configs if configs is None else configs)]
    with tempfile.TemporaryDirectory(prefix="b2-priors-") as folder:
        runs = list(pool.map(train_config, configs, [train] * len(configs), [params] * len(configs),
                             [passes] * len(configs), [Path(folder)] * len(configs)))
        priors = {run["config"]: load_leaf_prior(run.pop("prior_file")) for run in runs}
    for prior in priors.values():
        prior.kernel()                   # built once, outside the timings
    solvers = ([(name, tactics.TacticsParams(**settings.references[name], **test_params), None) for name in references]
               + [(c.name, tactics.TacticsParams(method="pp", **test_params, **c.search), priors[c.name])
                  for c in configs])
    results = solve_all(test, solvers)
    refs = {name: results[name] for name in references}
    pns = refs["pns"]
    out = {"params": params, "test_params": test_params, "configs": {},
           "references": {name: settings.references[name] for name in references},
           "per_problem": {"names": [p.name for p in test], **refs}}
    for name, res in refs.items():
        out[f"{name}_solved"] = sum(v == "T" for v, *_ in res)
        out[f"{name}_stats"] = run_stats(res) if name == "pns" else dict(run_stats(res), **against_pns(res, pns))
    print(f"B2 {params['move_gen']} generator: {len(train)} train / {len(test)} test problems, budget "
          f"{params['max_nodes']} nodes (test {test_params['max_nodes']}): "
          + ", ".join(f"{name} solves {out[f'{name}_solved']}"
                      + (f" (speed-up {fmt(out[f'{name}_stats']['speedup_mean'])}, geo "
                         f"{fmt(out[f'{name}_stats']['speedup_geomean'])})" if name != "pns" else "")
                      for name in refs))
    timeout = cpu_timeout(list(results.values()), test_params["max_nodes"])
    out["timeout_cpu"] = timeout
    for run in runs:
        res = results[run["config"]]
        run["test_cpu"] = round(sum(x[3] for x in res), 1)
        s = dict(run, **run_stats(res), **against_pns(res, pns), per_problem=res)
        if timeout is not None:
            s["at_timeout"] = at_timeout(res, pns, timeout)
        out["configs"][run["config"]] = s
        print(f"   {run['config']:15s} train solved {run['train_solved']:4d} ({run['passes_run']} passes)  test solved "
              f"{s['solved']:3d}  newly solved {s['newly_solved']:3d}  newly failed {s['newly_failed']:3d}  speed-up "
              f"(n={s['both']}) mean {fmt(s['speedup_mean'])} geo {fmt(s['speedup_geomean'])} median "
              f"{fmt(s['speedup_median'])}  cpu speed-up mean {fmt(s['speedup_cpu_mean'])} geo "
              f"{fmt(s['speedup_cpu_geomean'])} median {fmt(s['speedup_cpu_median'])}"
              f"  nodes/problem {s['test_nodes_mean']:.0f}  wall s/problem {s['test_seconds_per_problem']:.4f}"
              f"  [{run['train_cpu']:.0f}+{run['test_cpu']:.0f} cpu s]", flush=True)
        if timeout is not None:
            t = s["at_timeout"]
            print(f"   {'':15s} at a CPU time-out of {timeout:.3f} s: solved {t['solved']} (PNS {t['pns_solved']}), newly "
                  f"solved {t['newly_solved']}, newly failed {t['newly_failed']}, cpu speed-up mean "
                  f"{fmt(t['speedup_cpu_mean'])} geo {fmt(t['speedup_cpu_geomean'])}", flush=True)
    return out
