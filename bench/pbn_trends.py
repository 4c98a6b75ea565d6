"""The paper's prediction trends on held-out games (Michalowski et al. 2011, Figs 3-5; cortigo.md T5, T6):
`python -m bench.pbn_trends CONFIG --model MODEL.npz [--stones 3 5 10] [--sizes 30 700 5000]`.

For each region kind, stone count s and training size N it fits the (kind, s) pyramid on N samples of
the config's training games (the model file's own N is read from it, as it was fitted the same way) and
scores the held-out samples of that s whose next move falls inside the region (the test split, or
`--split validation` for choosing settings): top-k for k = 1..20 of the sample's own view, and pooled with
its mirror view (the corner's diagonal transpose, the strip seen from its other end: the two views of one
region that the whole-board prior averages), against two baselines, uniform over the region's empty
points (expected top-k, min(1, k / empty points)) and the board-blind P(m | s) (the top node's prior).
The combined model of each corner (its 9x9 corner and the two 5x19 strips through it, the linear pool of
the whole-board prior restricted to their union, illegal points taken as the occupied ones; or with
`--pool geometric` the product of the views, each a whole-board distribution, see `view_logs`) is scored
with the shipped model's pyramids on the test positions whose corner holds s stones and whose move falls
in the union, and like for like against the corner's own views where the move falls in the corner's 9x9
(both then rank the same 81 points).
Intervals are 95% bootstraps over samples. Prints one table and writes the record `<out>/pbn-trends/<name>/`
(run.json; summary.json with the rows and the figures, top-5/10/20 of each row with its interval; summary.txt).
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench import records
from priors.base import load_file
from priors.pbn.model import (PBNHyperparameters, PBNPrior, RegionModel, fit_stone_model, pyramid_for,
                              stack_networks)
from priors.pbn.regions import KINDS, Samples, inverse_views, position_arrays, relative, stone_counts
from priors.pbn.train import split_samples
from priors.training.extraction import split_dataset
from priors.training.trainconfig import load_config

TOP_K = 20
POOLS = ("linear", "geometric")
LOG_FLOOR = 1e-12          # a view's zero on a legal point counts as this probability in the geometric pool


def ranks(p: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """Pessimistic rank of each expert move: candidates with probability at least its own."""
    return (p >= p[np.arange(len(moves)), moves][:, None]).sum(axis=1)


def top_k(rank: np.ndarray, rng: np.random.Generator) -> dict:
    """Top-k for k = 1..20 and the 95% bootstrap interval of top-5, 10 and 20."""
    curve = [float(np.mean(rank <= k)) for k in range(1, TOP_K + 1)]
    boot = rng.integers(0, len(rank), (1000, len(rank)))
    ci = {k: [float(np.percentile(np.mean(rank[boot] <= k, axis=1), q)) for q in (2.5, 97.5)] for k in (5, 10, 20)}
    return {"n": int(len(rank)), "top_k": curve, "ci": ci}


def uniform_top_k(points: np.ndarray) -> list[float]:
    empty = np.count_nonzero(points == 0, axis=1)
    return [float(np.mean(np.minimum(1.0, k / empty))) for k in range(1, TOP_K + 1)]


def mirror(views: np.ndarray, board_size: int) -> np.ndarray:
    """The region point each point of view 0 maps to in the region's other view: the one view that reads
    the same board points (the corner's diagonal transpose, the strip seen from its other end)."""
    other = next(v for v in views[1:] if set(v) == set(views[0]))
    return inverse_views(views[:1], board_size)[0][other]


def pooled(model: RegionModel, points: np.ndarray, stones: np.ndarray, own: np.ndarray) -> np.ndarray:
    """P(m | x) averaged over a sample's own view (`own`, its `predict`) and its mirror view, as the
    whole-board prior pools a region's two views."""
    perm = mirror(model.views, model.board_size)
    return (own + model.predict(points[:, perm], stones)[:, perm]) / 2


def fitted(prior: PBNPrior, hyper: PBNHyperparameters, train: Samples, kind: str, stones: int,
           n: int) -> RegionModel:
    """A region model whose only pyramid is the one for `stones`, fitted on n samples as training would
    with the config's settings."""
    hyper = replace(hyper, n_samples=n)
    pyramid = pyramid_for(kind, prior.size_, hyper)
    params = stack_networks(pyramid, [None] * stones + [fit_stone_model(pyramid, train, stones, hyper, kind)])
    return RegionModel(kind, pyramid, prior.size_, params, [0] * stones + [n], [1] * (stones + 1), [1] * (stones + 1))


def region_rows(prior: PBNPrior, hyper: PBNHyperparameters, train: dict[str, Samples],
                test: dict[str, Samples], stones: list[int], sizes: list[int], max_test: int,
                rng: np.random.Generator, log, kinds: tuple[str, ...] = KINDS) -> list[dict]:
    """One row per (kind, s, N): the pyramid fitted on N training samples, scored on the held-out samples;
    the model file's own pyramid where N and every setting are its own."""
    rows = []
    for kind in kinds:
        for s in stones:
            chosen = np.flatnonzero(test[kind].stones == s)[:max_test]
            points, moves = test[kind].points[chosen], test[kind].moves[chosen]
            if not len(chosen):
                continue
            for n in sizes:
                started = time.time()
                shipped = replace(hyper, n_samples=n) == prior.hyper
                model = prior.regions_[kind] if shipped else fitted(prior, hyper, train[kind], kind, s, n)
                fit_seconds = time.time() - started
                index = np.full(len(chosen), s)
                p = model.predict(points, index)
                blind = np.broadcast_to(model.params["move_prior"][s], p.shape)
                row = {"kind": kind, "stones": s, "train_samples": int(min(n, np.sum(train[kind].stones == s))),
                       "fit_seconds": round(fit_seconds, 1), "pbn": top_k(ranks(p, moves), rng),
                       "pbn_pooled": top_k(ranks(pooled(model, points, index, p), moves), rng),
                       "blind": top_k(ranks(blind, moves), rng), "uniform_empty": uniform_top_k(points)}
                rows.append(row)
                log(f"{kind:6} s={s:2} N={row['train_samples']:5}  top-5/10/20 "
                    + " / ".join(f"{100 * row['pbn']['top_k'][k - 1]:.1f}" for k in (5, 10, 20))
                    + "".join(f"  {name} " + " / ".join(f"{100 * row[key]['top_k'][k - 1]:.1f}" for k in (5, 10, 20))
                              for name, key in (("pooled", "pbn_pooled"), ("blind", "blind")))
                    + f"  ({row['pbn']['n']} test samples, fit {fit_seconds:.0f} s)")
    return rows


def corner_groups(prior: PBNPrior) -> dict[int, dict[str, list[int]]]:
    """For each board corner (row-major index), the views of each kind that belong to its combined model:
    the corner's two orientations and both views of the two strips through it."""
    n = prior.size_
    corners = {0, n - 1, n * (n - 1), n * n - 1}
    groups: dict[int, dict[str, list[int]]] = {c: {k: [] for k in KINDS} for c in corners}
    for kind, region in prior.regions_.items():
        width = region.pyramid.width
        for v, view in enumerate(region.views):
            ends = {int(view[0])} if kind == "corner" else {int(view[0]), int(view[width - 1])}
            for c in ends & corners:
                groups[c][kind].append(v)
    return groups


def dense_views(region: RegionModel, colors: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Each view's weight on every board point (8, N*N), as the whole-board prior adds them."""
    on, p = region.view_distributions(colors, legal)
    out = np.zeros((len(region.views), len(colors)))
    out[on[:, None], region.views[on]] = p
    return out


def view_logs(region: RegionModel, weights: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The region's views (`weights`, from `dense_views`) each as a whole-board distribution, in logs
    (8, N*N): its region's share w = P(move in region | s) spread over the view's points as P(m | x), the
    rest, 1 - w, evenly over the other legal points. A view without weight (past the region's stone
    counts) stays a row of zeros: a constant, it ranks nothing."""
    out = np.zeros_like(weights)
    n_legal = legal.sum()
    for v in np.flatnonzero(weights.any(axis=1)):
        points = region.views[v]
        inside = 2 * weights[v, points]             # dense_views gives each orientation w / 2
        outside = max(1.0 - inside.sum(), LOG_FLOOR) / max(n_legal - legal[points].sum(), 1.0)
        out[v] = np.log(outside)
        out[v, points] = np.log(np.maximum(inside, LOG_FLOOR))
    return out


def pooled_views(scores: dict[str, np.ndarray], group: dict[str, list[int]], strip_weight: float = 1.0) -> np.ndarray:
    """A corner's combined model on every point: its views' scores added up, the strips' times
    `strip_weight`. On `dense_views` this is the linear pool (as the whole-board prior adds them); on
    `view_logs` it is the geometric pool, `strip_weight` the strips' exponent against the corner's 1."""
    return sum((strip_weight if kind == "strip" else 1.0) * scores[kind][group[kind]].sum(axis=0) for kind in KINDS)


def combined_rows(prior: PBNPrior, positions: tuple, stones: list[int], rng: np.random.Generator, log,
                  pool: str = "linear", strip_exponent: float = 1.0) -> list[dict]:
    """Top-k of each corner's combined model (`pooled_views`) on the test positions with s stones in that
    corner, over the union (181 points), and like for like: on the positions whose move is in the
    corner's 9x9, the corner's own views (their linear pool, as the whole-board prior) against the
    combined model, both ranking the same 81 points; and the same for each strip through the corner (its
    95 points, the strip's two views against the combined model; rows keyed by the corner's s)."""
    boards, to_play, moves = positions
    groups = corner_groups(prior)
    corner = prior.regions_["corner"]
    n_points = prior.size_ ** 2
    unions, owns = {}, {}                  # each corner's union of views, and its own 9x9, as point masks
    for c, group in groups.items():
        unions[c], owns[c] = np.zeros(n_points, dtype=bool), np.zeros(n_points, dtype=bool)
        for kind in KINDS:
            unions[c][prior.regions_[kind].views[group[kind]].ravel()] = True
        owns[c][corner.views[group["corner"]].ravel()] = True
    strips = {c: strip_masks(prior, group["strip"], n_points) for c, group in groups.items()}
    found: dict[str, dict[int, list[int]]] = {k: {s: [] for s in stones} for k in (
        "combined", "corner-alone", "combined-on-corner", "strip-alone", "combined-on-strip")}
    for b, color, move in zip(boards, to_play, moves):
        colors = relative(b, color)
        counts = stone_counts(colors[corner.views])
        if not np.isin(counts, stones).any() or move >= len(b):
            continue
        legal = (colors == 0).astype(np.float64)
        scores = {kind: dense_views(region, colors, legal) for kind, region in prior.regions_.items()}
        logs = scores if pool == "linear" else {kind: view_logs(region, scores[kind], legal)
                                                for kind, region in prior.regions_.items()}
        for c, group in groups.items():
            s = int(counts[group["corner"][0]])
            if s not in stones:
                continue
            union, own = unions[c], owns[c]
            combined = pooled_views(logs, group, strip_exponent if pool == "geometric" else 1.0)
            if pool == "geometric":                  # occupied points out of the ranking, as the linear pool's zeros
                combined = np.where(legal > 0, combined, -np.inf)
            if union[move]:
                found["combined"][s].append(rank_in(combined, union, move))
            if own[move]:
                alone = scores["corner"][group["corner"]].sum(axis=0)
                found["corner-alone"][s].append(rank_in(alone, own, move))
                found["combined-on-corner"][s].append(rank_in(combined, own, move))
            for mask, strip_views in strips[c]:
                if mask[move]:
                    found["strip-alone"][s].append(rank_in(scores["strip"][strip_views].sum(axis=0), mask, move))
                    found["combined-on-strip"][s].append(rank_in(combined, mask, move))
    rows = []
    for kind, by_stones in found.items():
        for s in stones:
            if by_stones[s]:
                rows.append({"kind": kind, "stones": s, "pbn": top_k(np.array(by_stones[s]), rng)})
                log(f"{kind} s={s:2}  top-1/5/10/20 " + " / ".join(
                    f"{100 * rows[-1]['pbn']['top_k'][k - 1]:.1f}" for k in (1, 5, 10, 20))
                    + f"  ({len(by_stones[s])} test samples)")
    return rows


def strip_masks(prior: PBNPrior, strip_views: list[int], n_points: int) -> list[tuple[np.ndarray, list[int]]]:
    """Each distinct strip among these views: its points as a mask, and its views (the two ends)."""
    by_points: dict[frozenset, list[int]] = {}
    for v in strip_views:
        by_points.setdefault(frozenset(prior.regions_["strip"].views[v].tolist()), []).append(v)
    masks = []
    for points, views_of_strip in by_points.items():
        mask = np.zeros(n_points, dtype=bool)
        mask[list(points)] = True
        masks.append((mask, views_of_strip))
    return masks


def rank_in(p: np.ndarray, points: np.ndarray, move: int) -> int:
    """Pessimistic rank of `move` among the board points where `points` is set."""
    return int(np.count_nonzero(p[points] >= p[move]))


def held_out_positions(config, split: str, max_games: int) -> tuple:
    ds = split_dataset(config.data, split, 1.0, max_games)
    parts = [position_arrays(ds.positions_of(gid, raw)) for gid, raw in ds.games()]
    parts = [p for p in parts if len(p[0])]
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))


def figures(rows: list[dict]) -> list[dict]:
    """Top-5, 10 and 20 of each row's model with their intervals: `corner/s3/N700/top5`, `combined/s5/top10`."""
    out = []
    for row in rows:
        name = f"{row['kind']}/s{row['stones']}" + (f"/N{row['train_samples']}" if "train_samples" in row else "")
        for k in (5, 10, 20):
            low, high = row["pbn"]["ci"].get(str(k)) or row["pbn"]["ci"][k]
            out.append(records.figure_entry(f"{name}/top{k}", f"{name}: top-{k} of held-out moves in the region",
                                            row["pbn"]["top_k"][k - 1], low=low, high=high, n=row["pbn"]["n"],
                                            unit=f"top-{k}"))
    return out


def table(rows: list[dict]) -> str:
    """One line per row: the model's top-5/10/20, beside its pooled views and the board-blind baseline."""
    lines = [f"{'kind':18} {'s':>2} {'N':>5} {'samples':>7}  top-5/10/20 (%)      pooled               blind"]
    for row in rows:
        cells = ["/".join(f"{100 * row[key]['top_k'][k - 1]:.1f}" for k in (5, 10, 20)) if key in row else "-"
                 for key in ("pbn", "pbn_pooled", "blind")]
        lines.append(f"{row['kind']:18} {row['stones']:2} {row.get('train_samples', '-'):>5} {row['pbn']['n']:7}  "
                     + "  ".join(f"{c:19}" for c in cells).rstrip())
    lines.append("95% bootstrap intervals over samples in summary.json")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pbn_trends", description=__doc__.splitlines()[0])
    parser.add_argument("config", help="the training config (its data and pbn sections), e.g. bench/configs/train/pbn.yaml")
    parser.add_argument("--model", required=True, help="a fitted pbn model file (for the combined models)")
    parser.add_argument("--stones", type=int, nargs="+", default=[3, 5, 10])
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 700, 5000])
    parser.add_argument("--test-games", type=int, default=500, help="held-out games read")
    parser.add_argument("--split", choices=("test", "validation"), default="test",
                        help="the held-out split scored (validation: for choosing settings)")
    parser.add_argument("--max-test", type=int, default=3000, help="held-out samples per (kind, s) at most")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override")
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--name", default="kgs")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS), help="region kinds fitted")
    parser.add_argument("--regions-only", action="store_true", help="only the region models (no combined rows)")
    parser.add_argument("--combined-only", action="store_true",
                        help="only the combined models (no region pyramids fitted, no training samples read)")
    parser.add_argument("--pool", choices=POOLS, default="linear",
                        help="how a corner's combined model joins its views (the paper gives no rule)")
    parser.add_argument("--strip-exponent", type=float, default=1.0,
                        help="geometric pool: the strips' exponent against the corner's 1")
    args = parser.parse_args(argv)
    config = load_config(args.config, args.set)
    prior, _ = load_file(args.model)
    if not isinstance(prior, PBNPrior):
        print(f"error: {args.model} is not a pbn model", file=sys.stderr)
        return 2
    rng = np.random.default_rng(0)
    rows, test_stats = [], {}
    if not args.combined_only:
        train, _ = split_samples(config, "train", config.data.max_games)
        test, test_stats = split_samples(config, args.split, args.test_games)
        rows = region_rows(prior, config.hyper, train, test, args.stones, args.sizes, args.max_test, rng, print,
                           tuple(args.kinds))
    if not args.regions_only:
        rows += combined_rows(prior, held_out_positions(config, args.split, args.test_games), args.stones, rng, print,
                              args.pool, args.strip_exponent)
    folder = Path(args.out) / "pbn-trends" / args.name
    run_config = {"config": args.config, "set": args.set, "model": args.model, "stones": args.stones,
                  "sizes": args.sizes, "test_games": args.test_games, "split": args.split, "max_test": args.max_test,
                  "kinds": args.kinds, "regions_only": args.regions_only, "combined_only": args.combined_only,
                  "pool": args.pool, "strip_exponent": args.strip_exponent}
    records.start_run(folder, "pbn-trends", run_config, resume=False,
                      command=records.command_line("bench.pbn_trends", argv))
    summary = {"figures": figures(rows), "model": args.model, "model_digest": prior.digest(),
               "archives": list(config.data.archives), "split": args.split, "test_games": test_stats,
               "pool": args.pool, "strip_exponent": args.strip_exponent,
               "interval": "95% bootstrap over samples, 1000 resamples", "rows": rows}
    records.write_summary(folder, summary, table(rows))
    print(f"wrote {folder / 'summary.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
