"""Fit a product of experts: `python -m priors.product.fit MODEL MODEL ... --out FILE`.

The weights maximise the mean log-likelihood of the expert moves of validation-split positions (never the
test split, nor the training games the components learned from). The model file holds the components
whole and records the fit: its positions, the weights, and the validation log-likelihood and top-1 of the
product beside each component alone.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from priors.base import Prior, load_file
from priors.modelfile import ModelError
from priors.product.model import Case, ProductPrior, case_of, fit_weights, loglik, top1
from priors.training.dataset import DEFAULT_ARCHIVES, DEFAULT_FRACTIONS, GameDataset


def collect(components: list[Prior], dataset: GameDataset, progress: bool = True) -> list[Case]:
    """The components' log-tables of every sampled position of the dataset's games."""
    cases = []
    with tqdm(total=len(dataset.game_ids()), desc="positions", unit="game", file=sys.stderr,
              disable=not progress, dynamic_ncols=True) as bar:
        for game_id, data in dataset.games():
            for pos in dataset.positions_of(game_id, data):
                case = case_of(components, pos.board, pos.to_play, pos.move_index)
                if case is not None:
                    cases.append(case)
            bar.update(1)
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m priors.product.fit", description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", help="the components' model files")
    parser.add_argument("--out", required=True, help="the product's model file")
    parser.add_argument("--data", default="../shared/data", help="directory of the game archives")
    parser.add_argument("--archives", nargs="+", default=list(DEFAULT_ARCHIVES))
    parser.add_argument("--fractions", nargs=3, type=float, default=list(DEFAULT_FRACTIONS))
    parser.add_argument("--max-games", type=int, default=100, help="validation-split games")
    parser.add_argument("--sample", type=float, default=0.2, help="probability of using a position")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=19, help="board size of the games used")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    started = time.time()
    try:
        components = [(path, load_file(path)[0]) for path in args.models]
        dataset = GameDataset(args.data, args.archives, "validation", args.fractions, args.sample, "none",
                              args.seed, args.max_games, args.size)
        cases = collect([p for _, p in components], dataset, not args.quiet)
    except (ValueError, OSError, ModelError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not cases:
        print("error: no validation positions (empty split?)", file=sys.stderr)
        return 2
    weights = fit_weights(cases)
    alone = {str(path): {"loglik": loglik(w, cases)[0], "top1": top1(w, cases)}
             for (path, _), w in zip(components, np.eye(len(components)))}
    prior = ProductPrior.of([p for _, p in components], weights)
    prior.info_ = {"fit": {"models": args.models, "positions": len(cases), "games": dataset.stats.games, "split": "validation",
                           "archives": args.archives, "sample": args.sample, "seed": args.seed,
                           "loglik": loglik(weights, cases)[0], "top1": top1(weights, cases), "alone": alone,
                           "command": "python -m priors.product.fit " + " ".join(argv if argv is not None else sys.argv[1:]),
                           "seconds": round(time.time() - started, 1)}}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    prior.save(out)
    fit = prior.info_["fit"]
    print(f"{len(cases)} validation positions of {dataset.stats.games} games")
    for (path, _), w in zip(components, weights):
        print(f"  {path}: weight {w:.3f}; alone log-likelihood {alone[str(path)]['loglik']:.4f}, "
              f"top-1 {alone[str(path)]['top1']:.1%}")
    print(f"  product: log-likelihood {fit['loglik']:.4f}, top-1 {fit['top1']:.1%}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
