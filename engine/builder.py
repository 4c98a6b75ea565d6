"""Players and searches built from parameters: the one place that turns `EngineParams` into an engine.

`tesuji gtp` (gtp.server) and the benches that measure in-process (bench.speed, bench.prior_cost,
bench.openings) build their engine here, so what they measure is what a user plays.

The engine knows no learned move model, so the caller hands over the loader of the package that does
(`priors.base.load_prior`: (prior.name, prior.model) -> a prior with `evaluate(board, color)`); this
module decides when it is called and how its errors read. Benches that time many searches load the
prior once (`load_move_prior`) and pass it to `build_search`. The solver's leaf priors live in
`engine.tactics`, so `build_leaf_prior` needs no loader.
"""
from __future__ import annotations

from typing import Callable, Optional

from engine.config import ConfigError
from engine.params import NO_PRIOR, EngineParams, PriorParams
from engine.player import Player
from engine.search import Search
from engine.tactics.leafpriors import CALIBRATED, LeafPrior, load_leaf_prior, make_leaf_prior

PriorLoader = Callable[[str, str], object]   # (prior.name, prior.model) -> a move prior


def load_move_prior(p: PriorParams, load_prior: PriorLoader) -> Optional[object]:
    """The search's prior that `prior:` names, or None for `none` (the search then needs no object).
    ConfigError naming the key for an unknown name or a missing or damaged model file."""
    if p.name == NO_PRIOR:
        return None
    try:
        return load_prior(p.name, p.model)
    except (OSError, ValueError) as e:   # unknown name, missing or damaged model file
        text = str(e)
        raise ConfigError(text if text.startswith("prior.") else f"prior.model: {text}") from None


def build_search(params: EngineParams, prior: Optional[object] = None) -> Search:
    """A search with the parameters' search, playout and prior-shaping settings and a loaded prior."""
    return Search(params.search, params.playout, prior)


def build_player(params: EngineParams, load_prior: PriorLoader) -> Player:
    """A player (game, search and clock) with the prior that `params.prior` names."""
    return Player(params, prior=load_move_prior(params.prior, load_prior))


def build_leaf_prior(name: str) -> Optional[LeafPrior]:
    """The solver's leaf prior that `reading.prior` names: None for none (PP's uniform prior_p), an untrained
    calibrated beta or hier model, or the trained model a file holds (`python -m bench.tactics
    --save-prior FILE`). ConfigError naming reading.prior when it is none of these."""
    try:
        if name == NO_PRIOR:
            return None
        if name in CALIBRATED:
            return make_leaf_prior(name, **CALIBRATED[name])
        if not name.endswith(".npz"):
            raise ValueError(f"unknown prior {name!r}: none, beta, hier or a model file (.npz)")
        prior = load_leaf_prior(name)
    except ValueError as e:   # ModelError included: missing, damaged or foreign file
        raise ConfigError(f"reading.prior: {e}") from None
    prior.kernel()   # the C table, built once here rather than on the first query
    return prior
