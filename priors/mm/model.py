"""The `mm` prior: Coulom's (2007) generalized Bradley-Terry model over the shared features, fitted by
minorization-maximization (the model and its fitting: `priors.bradley_terry`).

A candidate move's team is its level of every feature group (`priors.features.GROUPS`); its gamma is
the product of theirs, and the position's distribution is the candidates' gammas normalised.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

from priors import features
from priors.base import Prior, register, require
from priors.bradley_terry import distribution, fit_gammas, strengths_of
from priors.groups import check_feature_file, expand_groups, file_patterns, group_offsets, pad_groups, unusable
from priors.patterns import PatternSet, pattern_arrays
from priors.training.competitions import Competitions, build_competitions


@dataclass(frozen=True)
class MMHyperparameters:
    """The `mm` section of a training config."""
    n_iterations: int = 100                # MM sweeps at most
    tolerance: float = 1e-4                # stop when the mean log-likelihood per competition gains less
    groups: tuple = ("all",)               # feature groups trained (names or sets of GROUP_SETS); the
                                           # others keep gamma = 1

    def __post_init__(self) -> None:
        require(isinstance(self.n_iterations, int) and self.n_iterations >= 1, "mm.n_iterations",
                "an integer >= 1", self.n_iterations)
        require(isinstance(self.tolerance, (int, float)) and self.tolerance >= 0, "mm.tolerance",
                "a number >= 0", self.tolerance)
        object.__setattr__(self, "groups", expand_groups(self.groups, "mm.groups"))


@register("mm")
class MMPrior(Prior):
    """Coulom (2007) generalized Bradley-Terry over the shared features, fitted by MM.

    Fitted: `gammas_` (flat, level 0 of each group = 1), `level_counts_`, `patterns_`, `history_`.
    """

    Hyper = MMHyperparameters
    # Its own keys, and those of files written before the hyperparameters had one key.
    HEADER_KEYS = frozenset({"groups", "zobrist_seed", "history",
                             "trained_groups", "n_iterations", "tolerance", "pattern_min_count"})

    def __init__(self, hyper: MMHyperparameters | None = None):
        super().__init__(hyper)
        self.patterns_: PatternSet | None = None
        self.level_counts_ = features.level_counts(0)
        self.gammas_ = np.ones(int(self.level_counts_.sum()), dtype=np.float64)
        self.history_: list[float] = []
        self._offsets = group_offsets(self.level_counts_)
        self._extractor = features.Extractor()

    # --- training ---
    def fit(self, positions: Iterable, patterns: PatternSet | None = None,
            callback: Callable[[int, float, np.ndarray], None] | None = None) -> "MMPrior":
        """Fit on positions (`priors.training.dataset.Position`); `patterns`: a harvested PatternSet or None."""
        comps = build_competitions(positions, patterns)
        return self.fit_competitions(comps, patterns, callback)

    def fit_competitions(self, comps: Competitions, patterns: PatternSet | None = None,
                         callback: Callable[[int, float, np.ndarray], None] | None = None) -> "MMPrior":
        """Fit on competitions built with the same `patterns` (see `priors.training.competitions`)."""
        counts = features.level_counts(len(patterns) if patterns is not None else 0)
        train = [g for g, name in enumerate(features.GROUPS) if name in self.hyper.groups]
        history: list[float] = []

        def record(sweep: int, loglik: float, gammas: np.ndarray) -> None:
            history.append(float(loglik))
            if callback is not None:
                callback(sweep, loglik, gammas)

        self.gammas_ = fit_gammas(comps, counts, self.hyper.n_iterations, self.hyper.tolerance, train, record)
        self.level_counts_ = counts
        self._offsets = group_offsets(counts)
        self.patterns_ = patterns
        self.history_ = history
        self.info_.update(n_competitions=len(comps), n_teams=int(len(comps.levels)))
        return self

    # --- prediction ---
    def strengths(self, board, color: int) -> tuple[np.ndarray, np.ndarray]:
        """(row-major index of each candidate, pass = N*N, and its gamma) for `color` to move."""
        index, levels = self._extractor.extract(board, color, self.patterns_)
        return index, strengths_of(levels, self.gammas_, self._offsets)

    def evaluate(self, board, color: int) -> np.ndarray:
        return distribution(*self.strengths(board, color), board.size * board.size)

    def gamma_table(self) -> dict[str, list[float]]:
        """Gammas of each group, level 0 first (for reports)."""
        return {name: self.gammas_[o:o + n].tolist()
                for name, o, n in zip(features.GROUPS, self._offsets, self.level_counts_)}

    # --- model file ---
    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "gammas": self.gammas_,
            "level_counts": self.level_counts_,
            **pattern_arrays(self.patterns_),
        }

    def metadata(self) -> dict[str, Any]:
        return {"groups": list(features.GROUPS), "zobrist_seed": features.ZOBRIST_SEED, "history": self.history_}

    @classmethod
    def old_hyperparameters(cls, metadata: dict[str, Any]) -> dict[str, Any]:
        """Files written before the hyperparameters had one key hold them at the top of the header."""
        default = MMHyperparameters()
        return {"n_iterations": metadata.get("n_iterations", default.n_iterations),
                "tolerance": metadata.get("tolerance", default.tolerance),
                "groups": metadata.get("trained_groups") or metadata.get("groups") or default.groups}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], metadata: dict[str, Any],
                    hyper: MMHyperparameters) -> "MMPrior":
        n_stored = check_feature_file("mm", "groups", arrays, metadata, ("gammas", "level_counts"))
        if not set(hyper.groups) <= set(features.GROUPS[:n_stored]):
            raise unusable("mm", "its groups (trained_groups in older files) name groups the file does not hold")
        counts = features.level_counts(len(arrays["pattern_keys"]))
        gammas = np.asarray(arrays["gammas"], dtype=np.float64)
        if (not np.array_equal(arrays["level_counts"], counts[:n_stored])
                or gammas.shape != (counts[:n_stored].sum(),)):
            raise unusable("mm", "array shapes do not match the feature set")
        if not np.all(np.isfinite(gammas)) or not np.all(gammas > 0):
            raise unusable("mm", "gammas must be finite and positive")
        gammas = pad_groups(gammas, counts, n_stored, 1.0)     # gamma 1: a later group changes nothing
        patterns = file_patterns("mm", arrays)
        prior = cls(hyper)
        prior.gammas_ = gammas
        prior.level_counts_ = counts
        prior._offsets = group_offsets(counts)
        prior.patterns_ = patterns
        prior.history_ = list(metadata.get("history", []))
        return prior
