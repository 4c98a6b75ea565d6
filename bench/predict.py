"""Move-prediction accuracy on games a model never saw:
`python -m bench.predict MODEL [MODEL ...] --data DIR [--split test] [--max-games N]`.

MODEL is a model file (its kind is read from the file) or the name of a prior that needs none
(`none`, the uniform baseline). Every model scores the same positions through its public
`evaluate(board, color)`, timed per call, exactly what the search gets. Prints one table and writes the
record `bench/results/predict/<name>/`: run.json, summary.json (every model's scores and the "figures":
top-1 with its interval, top-5/10/20, ms per position), summary.txt (the table) and two plots (topk.png,
phase.png; `--plot FOLDER` draws them again from a record's summary.json).

Ranks are pessimistic: the expert move's rank is the number of candidate moves whose probability is
at least the expert move's, so every tie counts against the model. Top-k accuracy is the share of
positions with rank <= k; the log-likelihood is the natural log of the expert move's probability.
Beside it the summary gives top-k with ties broken at random (the expectation over the order of the
tied moves) and optimistically (the expert move first among its ties), and how many positions have
the expert move tied with another: a model whose tables give many moves equal probabilities is not
judged by the tie rule alone.
The 95% interval of top-1 is a bootstrap over games (positions of one game are not independent). Every
model after the first is also compared with the first on the same positions: the differences of top-1
and of log-likelihood, with paired 95% intervals from the same bootstrap over games.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from bench import records
from priors.base import Prior, load_file, registered
from priors.modelfile import ModelError
from priors.training.dataset import DEFAULT_ARCHIVES, DEFAULT_FRACTIONS, GameDataset

TOP_K = 20
PHASE_MOVES = 30
N_PHASES = 10               # the last phase holds every move after 270
TIE_RULE = ("pessimistic: rank = number of candidate moves with probability >= the expert move's "
            "(ties count against the model); top_k_random_ties and top_k_optimistic give the other two rules")


def open_model(spec: str) -> tuple[Prior, dict[str, Any]]:
    """A prior from a model file (its class picked by the header's kind) or a registry name needing no file."""
    if spec in registered() and not Path(spec).is_file():
        return registered()[spec](), {"kind": spec}
    if not Path(spec).is_file():
        raise ModelError(f"{spec}: no such model file, and not a prior name ({', '.join(sorted(registered()))})")
    return load_file(spec)


class Scores:
    """Running per-position results of one model."""

    def __init__(self) -> None:
        self.rank: list[int] = []
        self.tied: list[int] = []          # candidate moves with exactly the expert move's probability
        self.loglik: list[float] = []
        self.seconds: list[float] = []
        self.cpu_seconds: list[float] = []
        self.phase: list[int] = []
        self.game: list[int] = []

    def add(self, p: np.ndarray, move_index: int, seconds: float, move_number: int, game: int,
            cpu_seconds: float = 0.0) -> None:
        expert = p[move_index]
        self.rank.append(int(np.count_nonzero(p >= expert)))
        self.tied.append(int(np.count_nonzero(p == expert)))
        self.loglik.append(float(np.log(expert)) if expert > 0 else float("-inf"))
        self.seconds.append(seconds)
        self.cpu_seconds.append(cpu_seconds)
        self.phase.append(min((move_number - 1) // PHASE_MOVES, N_PHASES - 1))
        self.game.append(game)

    def summary(self, rng: np.random.Generator) -> dict[str, Any]:
        rank = np.asarray(self.rank)
        ll = np.asarray(self.loglik)
        ms = np.asarray(self.seconds) * 1e3
        phase = np.asarray(self.phase)
        tied = np.asarray(self.tied)
        top_k = [float(np.mean(rank <= k)) for k in range(1, TOP_K + 1)]
        phases = []
        for k in range(N_PHASES):
            sel = phase == k
            label = f"{k * PHASE_MOVES + 1}-{(k + 1) * PHASE_MOVES}" if k < N_PHASES - 1 else f"{k * PHASE_MOVES + 1}+"
            phases.append({"moves": label, "positions": int(sel.sum()),
                           "top1": float(np.mean(rank[sel] == 1)) if sel.any() else None})
        return {
            "positions": int(len(rank)),
            "top_k": top_k,
            "top1": top_k[0],
            "top1_ci95": bootstrap_mean(rank == 1, np.asarray(self.game), rng),
            "top_k_random_ties": random_ties_top_k(rank, tied),
            "top_k_optimistic": [float(np.mean(rank - tied + 1 <= k)) for k in range(1, TOP_K + 1)],
            "tied_positions": int(np.sum(tied > 1)),
            "mean_tied": float(tied[tied > 1].mean()) if np.any(tied > 1) else 0.0,
            "mean_loglik": float(np.mean(ll[np.isfinite(ll)])),
            "zero_probability_experts": int(np.sum(~np.isfinite(ll))),
            "mean_rank": float(rank.mean()),
            "phases": phases,
            "ms_per_position": {"mean": float(ms.mean()), "median": float(np.median(ms)),
                                "p90": float(np.percentile(ms, 90))},
            # this thread's CPU time: apart from the other processes on a shared machine
            "cpu_ms_per_position": float(np.mean(self.cpu_seconds) * 1e3),
        }


def random_ties_top_k(rank: np.ndarray, tied: np.ndarray) -> list[float]:
    """Top-k for k = 1..TOP_K with the expert move placed uniformly at random among its ties: its rank is
    above + j, j uniform in 1..tied, where above = rank - tied moves are strictly more probable."""
    above = rank - tied
    return [float(np.mean(np.clip((k - above) / tied, 0.0, 1.0))) for k in range(1, TOP_K + 1)]


def bootstrap_mean(values: np.ndarray, games: np.ndarray, rng: np.random.Generator, n: int = 1000) -> list[float]:
    """95% interval of the mean of per-position values (a top-1 hit, a difference), resampling whole games."""
    ids, inverse = np.unique(games, return_inverse=True)
    per_sum = np.bincount(inverse, weights=np.asarray(values, dtype=float), minlength=len(ids))
    per_n = np.bincount(inverse, minlength=len(ids)).astype(float)
    picks = rng.integers(0, len(ids), size=(n, len(ids)))
    means = per_sum[picks].sum(axis=1) / per_n[picks].sum(axis=1)
    return [float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))]


def against_first(first: Scores, other: Scores, rng: np.random.Generator) -> dict[str, Any]:
    """`other` minus `first` on the same positions: top-1 and log-likelihood (where both are finite)."""
    games = np.asarray(first.game)
    hits = (np.asarray(other.rank) == 1).astype(float) - (np.asarray(first.rank) == 1)
    ll_a, ll_b = np.asarray(first.loglik), np.asarray(other.loglik)
    finite = np.isfinite(ll_a) & np.isfinite(ll_b)
    ll = ll_b[finite] - ll_a[finite]
    return {"top1": float(hits.mean()), "top1_ci95": bootstrap_mean(hits, games, rng),
            "only_first_top1": int(np.sum(hits < 0)), "only_this_top1": int(np.sum(hits > 0)),
            "loglik": float(ll.mean()), "loglik_ci95": bootstrap_mean(ll, games[finite], rng)}


def evaluate_models(models: list[tuple[str, Prior]], dataset: GameDataset, progress: bool = True) -> list[Scores]:
    scores = [Scores() for _ in models]
    game_index: dict[str, int] = {}
    n_games = len(dataset.game_ids())
    bar = tqdm(total=n_games, desc="evaluate", unit="game", file=sys.stderr, disable=not progress,
               dynamic_ncols=True)
    for game_id, data in dataset.games():
        for pos in dataset.positions_of(game_id, data):
            g = game_index.setdefault(pos.game_id, len(game_index))
            for (_, prior), sc in zip(models, scores):
                start, cpu = time.perf_counter(), time.thread_time()
                p = prior.evaluate(pos.board, pos.to_play)
                sc.add(p, pos.move_index, time.perf_counter() - start, pos.move_number, g,
                       time.thread_time() - cpu)
        bar.update(1)
    bar.close()
    return scores


def table(results: list[dict[str, Any]]) -> str:
    lines = [f"{'model':28s} {'top1':>6s} {'95% CI':>14s} {'top5':>6s} {'top10':>6s} {'top20':>6s} "
             f"{'loglik':>7s} {'ms/pos':>7s} {'cpu ms':>7s}"]
    for r in results:
        s = r["scores"]
        lo, hi = s["top1_ci95"]
        lines.append(f"{r['label'][:28]:28s} {s['top1'] * 100:5.1f}% {lo * 100:6.1f}-{hi * 100:4.1f}% "
                     f"{s['top_k'][4] * 100:5.1f}% {s['top_k'][9] * 100:5.1f}% {s['top_k'][19] * 100:5.1f}% "
                     f"{s['mean_loglik']:7.3f} {s['ms_per_position']['mean']:7.3f} "
                     f"{s['cpu_ms_per_position']:7.3f}")
    for r in results:
        s = r["scores"]
        ties = " / ".join(f"{100 * s['top_k_random_ties'][k - 1]:.1f}" for k in (1, 5, 10, 20))
        best = " / ".join(f"{100 * s['top_k_optimistic'][k - 1]:.1f}" for k in (1, 5, 10, 20))
        lines.append(f"  {r['label'][:26]:26s} ties at the expert move in {s['tied_positions']} positions "
                     f"(mean {s['mean_tied']:.1f} moves); top-1/5/10/20 ties random {ties}, optimistic {best}")
    phases = [p["moves"] for p in results[0]["scores"]["phases"]]
    lines.append("top-1 by game phase (moves): " + "  ".join(phases))
    for r in results:
        cells = [f"{p['top1'] * 100:.1f}" if p["top1"] is not None else "-" for p in r["scores"]["phases"]]
        lines.append(f"  {r['label'][:26]:26s} " + "  ".join(cells))
    for r in results[1:]:
        d = r["against_first"]
        (lo, hi), (llo, lhi) = d["top1_ci95"], d["loglik_ci95"]
        lines.append(f"{r['label']} - {results[0]['label']} on the same positions (95% CI over games): top-1 "
                     f"{d['top1'] * 100:+.1f} points [{lo * 100:+.1f}, {hi * 100:+.1f}] ({d['only_this_top1']} "
                     f"against {d['only_first_top1']} positions), log-likelihood {d['loglik']:+.4f} "
                     f"[{llo:+.4f}, {lhi:+.4f}]")
    return "\n".join(lines)


def figures(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """summary.json's figures: per model top-1 (with its interval over games), top-5/10/20 and ms per
    position; per later model its top-1 against the first's on the same positions."""
    out = []
    for r in results:
        s, label, n = r["scores"], r["label"], r["scores"]["positions"]
        lo, hi = s["top1_ci95"]
        out.append(records.figure_entry(f"{label}/top1", f"{label}: top-1 on unseen games", s["top1"],
                                        low=lo, high=hi, n=n, unit="top-1"))
        out += [records.figure_entry(f"{label}/top{k}", f"{label}: top-{k} on unseen games", s["top_k"][k - 1],
                                     n=n, unit=f"top-{k}") for k in (5, 10, 20)]
        out.append(records.figure_entry(f"{label}/ms", f"{label}: milliseconds per position",
                                        s["ms_per_position"]["mean"], n=n, unit="ms"))
        if "against_first" in r:
            d, first = r["against_first"], results[0]["label"]
            lo, hi = d["top1_ci95"]
            out.append(records.figure_entry(f"{label}/top1-vs-{first}", f"{label} - {first}: top-1 difference",
                                            d["top1"], low=lo, high=hi, n=n, unit="share"))
    return out


def unique_labels(results: list[dict[str, Any]]) -> None:
    """Give a model that shares its label with an earlier one a `#2`, `#3`: figure keys are unique."""
    seen: dict[str, int] = {}
    for r in results:
        seen[r["label"]] = seen.get(r["label"], 0) + 1
        if seen[r["label"]] > 1:
            r["label"] += f"#{seen[r['label']]}"


def plot(results: list[dict[str, Any]], folder: Path) -> list[Path]:
    """topk.png (accuracy against k) and phase.png (top-1 by game phase) in `folder`."""
    fig, ax = records.figure()
    for r in results:
        ax.plot(range(1, TOP_K + 1), [100 * v for v in r["scores"]["top_k"]], marker="o", ms=3, label=r["label"])
    ax.set_xlabel("k")
    ax.set_ylabel("expert move in top k (%)")
    ax.set_title("Cumulative move-prediction accuracy (ties pessimistic)")
    ax.set_xticks(range(1, TOP_K + 1, 2))
    ax.grid(alpha=0.3)
    ax.legend()
    files = [records.save_plot(fig, folder / "topk.png")]
    fig, ax = records.figure()
    width = 0.8 / len(results)
    for i, r in enumerate(results):
        phases = r["scores"]["phases"]
        ax.bar(np.arange(len(phases)) + i * width, [100 * (p["top1"] or 0) for p in phases], width, label=r["label"])
    ax.set_xticks(np.arange(len(phases)) + 0.4 - width / 2)
    ax.set_xticklabels([p["moves"] for p in results[0]["scores"]["phases"]], rotation=45, fontsize=8)
    ax.set_xlabel("moves")
    ax.set_ylabel("top-1 (%)")
    ax.set_title("Top-1 accuracy by game phase")
    ax.legend(loc="lower right", framealpha=0.9)
    files.append(records.save_plot(fig, folder / "phase.png"))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.predict", description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="model files (.npz) or prior names such as none")
    parser.add_argument("--data", default="../shared/data", help="directory of the game archives")
    parser.add_argument("--archives", nargs="+", default=list(DEFAULT_ARCHIVES))
    parser.add_argument("--split", default="test", choices=["train", "validation", "test"])
    parser.add_argument("--fractions", nargs=3, type=float, default=list(DEFAULT_FRACTIONS))
    parser.add_argument("--max-games", type=int, default=None, help="games of the split (default: all)")
    parser.add_argument("--sample", type=float, default=1.0, help="probability of scoring a position")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=19, help="board size of the games scored")
    parser.add_argument("--out", default="bench/results", help="results root; a run writes to OUT/predict/NAME/")
    parser.add_argument("--name", default="", help="results folder name (default: the models' labels)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--plot", type=Path, metavar="FOLDER",
                        help="score nothing: draw a record's plots again from its summary.json")
    args = parser.parse_args(argv)
    if args.plot:
        try:
            files = plot(records.read_summary(args.plot)["results"], args.plot)
        except (OSError, ValueError, KeyError) as err:
            print(f"error: {args.plot}: not a predict record ({err})", file=sys.stderr)
            return 2
        print("wrote " + ", ".join(map(str, files)))
        return 0
    if not args.models:
        parser.error("name at least one model")
    try:
        models = []
        for spec in args.models:
            prior, metadata = open_model(spec)
            models.append((spec, prior, metadata))
        dataset = GameDataset(args.data, args.archives, args.split, args.fractions, args.sample,
                              "none", args.seed, args.max_games, args.size)
        started = time.time()
        scores = evaluate_models([(s, p) for s, p, _ in models], dataset, not args.quiet)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not scores or not scores[0].rank:
        print("error: no positions to score (empty split?)", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    results = []
    for (spec, _, metadata), sc in zip(models, scores):
        trained = {k: metadata.get(k) for k in ("train_games", "n_patterns", "n_competitions", "validation",
                                                "digest") if k in metadata}
        results.append({"label": Path(spec).stem if Path(spec).is_file() else spec, "model": spec,
                        "kind": metadata.get("kind"), "trained": trained, "scores": sc.summary(rng)})
    for result, sc in zip(results[1:], scores[1:]):      # after every summary: their intervals stay as they were
        result["against_first"] = against_first(scores[0], sc, rng)
    folder = Path(args.out) / "predict" / (args.name or "-".join(r["label"] for r in results))
    unique_labels(results)
    config = {"models": args.models, "data_dir": str(args.data), "archives": args.archives, "split": args.split,
              "fractions": args.fractions, "max_games": args.max_games, "sample": args.sample, "seed": args.seed,
              "size": args.size}
    records.start_run(folder, "predict", config, resume=False,
                      command=records.command_line("bench.predict", argv))
    summary = {
        "question": "move prediction on unseen games",
        "figures": figures(results),
        "seconds": round(time.time() - started, 1),
        "tie_rule": TIE_RULE,
        "data": {"games": dataset.stats.games, "positions": dataset.stats.positions,
                 "skipped": dict(dataset.stats.skipped)},
        "results": results,
    }
    head = (f"{dataset.stats.games} games, {dataset.stats.positions} positions of the {args.split} split; "
            f"ties broken pessimistically")
    text = head + "\n" + table(results)
    print(text)
    records.write_summary(folder, summary, text)
    files = plot(results, folder)
    print(f"wrote {folder / 'summary.json'}, " + ", ".join(map(str, files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
