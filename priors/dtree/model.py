"""The `dtree` prior: decision-tree features (van Niekerk 2014) in Coulom's generalized Bradley-Terry
model, next to the shared features.

Each of the tau trees of a forest is one feature group whose levels are its leaves (numbered 1.. in
pre-order; pass gets level 0, gamma 1): a candidate move's team is its levels of the shared groups
named in `groups` plus one leaf per tree, and its strength the product of their gammas. The trees are
grown online from descents (`priors.dtree._kernels`), each tree taking a position with probability
`growth_sample`; the gammas are then fitted by MM, as for `mm` (`priors.bradley_terry.fit_gammas`),
on competitions whose extra columns are the tree levels (`priors.training.competitions.build_competitions`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

from priors import features
from priors.base import Prior, register, require
from priors.bradley_terry import distribution, fit_gammas, strengths_of
from priors.dtree._kernels import CRITERIA, SYSTEMS, Forest
from priors.groups import check_feature_file, expand_groups, file_patterns, group_offsets, unusable
from priors.patterns import PatternSet, pattern_arrays
from priors.training.competitions import Competitions, build_competitions

HISTORY = ("dist_last", "dist_last2", "cfg_last", "cfg_last2")
TACTICAL = ("pass", "capture", "extension", "self_atari", "atari", "border") + HISTORY
# The thesis's feature sets by name, besides the names of features.GROUPS and priors.groups.GROUP_SETS:
# T (Table 5.1), T_HA (T without its four distance features), P (the large patterns); TREES names the
# forest's own groups.
FEATURE_SETS = {"tactical": TACTICAL, "tactical_ha": TACTICAL[:6], "patterns": ("pattern",)}
TREES = "trees"


def shared_groups(names: Iterable[str] | str) -> tuple:
    """The shared feature groups a `groups` list names (besides `trees`)."""
    if isinstance(names, str):
        names = [names]
    spelled = [g for name in names if name != TREES for g in FEATURE_SETS.get(name, (name,))]
    return expand_groups(spelled, "dtree.groups") if spelled else ()


@dataclass(frozen=True)
class DTreeHyperparameters:
    """The `dtree` section of a training config."""
    n_trees: int = 16                  # tau; 0 = no trees (the shared groups alone)
    systems: tuple = ("sg", "ig")      # query systems, taken in turn by the trees (SG0, IG0)
    criterion: str = "wwls"            # split quality (van Niekerk Table 3.1)
    growth_games: int = 800            # rho: training games the trees grow from
    growth_sample: float = 0.1         # probability of each tree taking a position
    split_descents: int = 1000         # descents at a leaf before it may split
    groups: tuple = ("tactical", TREES)  # the feature set fitted: shared group names, sets of
                                       # FEATURE_SETS or GROUP_SETS, and `trees`; without `trees` the
                                       # forest is grown (sharing its caches) but left out of the model
    fitted_trees: int = 0              # trees kept in the model: the first ones grown (0 = all), so
                                       # that a smaller, faster model shares the forest and its caches
    n_iterations: int = 100            # MM sweeps at most
    tolerance: float = 1e-4            # stop when the mean log-likelihood per competition gains less
    seed: int = 1                      # growth: game order and per-tree sampling

    def __post_init__(self) -> None:
        require(isinstance(self.n_trees, int) and 0 <= self.n_trees <= 256, "dtree.n_trees",
                "an integer in 0..256", self.n_trees)
        require(len(self.systems) >= 1 and set(self.systems) <= set(SYSTEMS), "dtree.systems",
                f"a non-empty list of {', '.join(SYSTEMS)}", self.systems)
        require(self.criterion in CRITERIA, "dtree.criterion", f"one of {', '.join(CRITERIA)}", self.criterion)
        require(isinstance(self.growth_games, int) and self.growth_games >= 1, "dtree.growth_games",
                "an integer >= 1", self.growth_games)
        require(0 < self.growth_sample <= 1, "dtree.growth_sample", "a probability in (0, 1]", self.growth_sample)
        require(isinstance(self.split_descents, int) and self.split_descents >= 10, "dtree.split_descents",
                "an integer >= 10", self.split_descents)
        require(isinstance(self.n_iterations, int) and self.n_iterations >= 1, "dtree.n_iterations",
                "an integer >= 1", self.n_iterations)
        require(isinstance(self.fitted_trees, int) and 0 <= self.fitted_trees <= self.n_trees,
                "dtree.fitted_trees", "an integer in 0..n_trees", self.fitted_trees)
        require(self.tolerance >= 0, "dtree.tolerance", "a number >= 0", self.tolerance)
        object.__setattr__(self, "systems", tuple(self.systems))
        object.__setattr__(self, "groups", tuple(self.groups))
        require(bool(shared_groups(self.groups)) or (TREES in self.groups and self.n_trees > 0),
                "dtree.groups", "a non-empty feature set (`trees` needs n_trees >= 1)", self.groups)

    def tree_systems(self) -> list[str]:
        return [self.systems[t % len(self.systems)] for t in range(self.n_trees)]


@register("dtree")
class DTreePrior(Prior):
    """Decision-forest features with MM weights.

    Fitted: `forest_` (its trees), `gammas_` (flat: the shared groups, then one group per tree),
    `level_counts_`, `patterns_` (when `pattern` is fitted), `history_`.
    """

    Hyper = DTreeHyperparameters
    HEADER_KEYS = frozenset({"groups", "zobrist_seed", "history"})

    def __init__(self, hyper: DTreeHyperparameters | None = None):
        super().__init__(hyper)
        self.forest_ = Forest(self.hyper.tree_systems(), self.hyper.criterion, self.hyper.split_descents)
        self.forest_.finish()
        self.patterns_: PatternSet | None = None
        self.history_: list[float] = []
        self._extractor = features.Extractor()
        self._set_gammas(None)

    def _set_gammas(self, gammas: np.ndarray | None) -> None:
        n_patterns = len(self.patterns_) if self.patterns_ is not None else 0
        self.level_counts_ = np.concatenate([features.level_counts(n_patterns), self.extra_level_counts()])
        self._offsets = group_offsets(self.level_counts_)
        self.gammas_ = np.ones(int(self.level_counts_.sum())) if gammas is None else gammas

    # --- the tree columns (the hook of priors.training.competitions.build_competitions) ---
    def extra_level_counts(self) -> np.ndarray:
        return np.asarray(self.forest_.n_leaves, dtype=np.int64) + 1

    def extra_levels(self, board, color: int, index: np.ndarray) -> np.ndarray:
        out = np.empty((len(index), self.forest_.n_trees), dtype=np.int32)
        self.forest_.levels(board, color, np.ascontiguousarray(index, dtype=np.int32), out)
        return out

    # --- training ---
    def grow(self, positions: Iterable, progress: Callable[[int], None] | None = None) -> int:
        """Grow the trees from positions (before `finish_growth`); returns the splits made."""
        rng = np.random.default_rng(self.hyper.seed)
        splits = 0
        for pos in positions:
            take = (rng.random(self.forest_.n_trees) < self.hyper.growth_sample).astype(np.uint8)
            if take.any():
                row, col = divmod(pos.move_index, pos.board.size)
                row = -1 if row == pos.board.size else row
                splits += self.forest_.grow(pos.board, pos.to_play, row, col, take)
            if progress is not None:
                progress(1)
        return splits

    def finish_growth(self) -> None:
        self.forest_.finish()
        self._set_gammas(None)

    def start_growth(self) -> None:
        """Fresh single-leaf trees."""
        self.forest_ = Forest(self.hyper.tree_systems(), self.hyper.criterion, self.hyper.split_descents)

    def uses_patterns(self) -> bool:
        return "pattern" in shared_groups(self.hyper.groups)

    def uses_trees(self) -> bool:
        return TREES in self.hyper.groups and self.hyper.n_trees > 0

    def competitions(self, positions: Iterable, patterns: PatternSet | None = None,
                     progress: Callable[[int], None] | None = None) -> Competitions:
        """Competitions over the shared features (large patterns from `patterns`) and the tree columns."""
        return build_competitions(positions, patterns, progress, self)

    def fit(self, positions: Iterable, patterns: PatternSet | None = None) -> "DTreePrior":
        """Grow the trees on the positions, then fit the gammas on the same positions."""
        positions = list(positions)
        self.start_growth()
        if self.uses_trees():
            self.grow(positions)
        self.finish_growth()
        return self.fit_competitions(self.competitions(positions, patterns), patterns)

    def prepare(self, patterns: PatternSet | None) -> None:
        """The gamma layout of competitions built with `patterns` and the trees (gammas 1)."""
        self.patterns_ = patterns
        self._set_gammas(None)

    def fit_competitions(self, comps: Competitions, patterns: PatternSet | None = None,
                         callback: Callable[[int, float, np.ndarray], None] | None = None) -> "DTreePrior":
        """MM on competitions built by `competitions` with the same `patterns` and trees; then the
        pattern group and the trees are dropped when the feature set leaves them out (their gammas
        stayed 1)."""
        self.prepare(patterns)
        history: list[float] = []

        def record(sweep: int, loglik: float, gammas: np.ndarray) -> None:
            history.append(float(loglik))
            if callback is not None:
                callback(sweep, loglik, gammas)

        gammas = fit_gammas(comps, self.level_counts_, self.hyper.n_iterations, self.hyper.tolerance,
                            self.trained_groups(), record)
        if not self.uses_patterns() and patterns is not None:
            g = features.GROUPS.index("pattern")
            start = self._offsets[g] + 1
            gammas = np.delete(gammas, np.s_[start:start + len(patterns)])
        keep = self.n_fitted_trees()
        if keep < self.forest_.n_trees:
            gammas = gammas[:len(gammas) - int(self.extra_level_counts()[keep:].sum())]
            trees = self.forest_.arrays()
            self.forest_ = Forest.from_arrays(trees["nodes"], trees["roots"][:keep], trees["systems"][:keep],
                                              trees["n_leaves"][:keep], self.hyper.criterion,
                                              self.hyper.split_descents)
        self.patterns_ = patterns if self.uses_patterns() else None
        self._set_gammas(gammas)
        self.history_ = history
        self.info_.update(n_competitions=len(comps), n_teams=int(len(comps.levels)),
                          n_leaves=[int(n) for n in self.forest_.n_leaves])
        return self

    def n_fitted_trees(self) -> int:
        if not self.uses_trees():
            return 0
        return min(self.hyper.fitted_trees or self.forest_.n_trees, self.forest_.n_trees)

    def trained_groups(self) -> list[int]:
        shared = shared_groups(self.hyper.groups)
        n_shared = len(features.GROUPS)
        trees = range(n_shared, n_shared + self.n_fitted_trees())
        return [g for g, name in enumerate(features.GROUPS) if name in shared] + list(trees)

    # --- prediction ---
    def strengths(self, board, color: int) -> tuple[np.ndarray, np.ndarray]:
        """(row-major index of each candidate, pass = N*N, and its gamma) for `color` to move."""
        index, levels = self._extractor.extract(board, color, self.patterns_)
        if self.forest_.n_trees:
            levels = np.concatenate([levels, self.extra_levels(board, color, index)], axis=1)
        return index, strengths_of(levels, self.gammas_, self._offsets)

    def evaluate(self, board, color: int) -> np.ndarray:
        return distribution(*self.strengths(board, color), board.size * board.size)

    # --- model file ---
    def arrays(self) -> dict[str, np.ndarray]:
        trees = self.forest_.arrays()
        return {"gammas": self.gammas_, "level_counts": self.level_counts_,
                **{f"tree_{k}": v for k, v in trees.items()}, **pattern_arrays(self.patterns_)}

    def metadata(self) -> dict[str, Any]:
        return {"groups": list(features.GROUPS), "zobrist_seed": features.ZOBRIST_SEED, "history": self.history_}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], metadata: dict[str, Any],
                    hyper: DTreeHyperparameters) -> "DTreePrior":
        tree_keys = ("tree_nodes", "tree_roots", "tree_systems", "tree_n_leaves")
        n_stored = check_feature_file("dtree", "groups", arrays, metadata, ("gammas", "level_counts") + tree_keys)
        if n_stored != len(features.GROUPS):
            raise unusable("dtree", "written for another feature set")
        try:
            forest = Forest.from_arrays(*(arrays[k] for k in tree_keys), hyper.criterion, hyper.split_descents)
        except (TypeError, ValueError) as err:
            raise unusable("dtree", f"bad trees ({err})") from None
        prior = cls(hyper)
        prior.forest_ = forest
        prior.patterns_ = file_patterns("dtree", arrays) if len(arrays["pattern_keys"]) else None
        gammas = np.asarray(arrays["gammas"], dtype=np.float64)
        prior._set_gammas(gammas)
        if not np.array_equal(arrays["level_counts"], prior.level_counts_) or gammas.shape != (
                prior.level_counts_.sum(),):
            raise unusable("dtree", "array shapes do not match the feature set and trees")
        if not np.all(np.isfinite(gammas)) or not np.all(gammas > 0):
            raise unusable("dtree", "gammas must be finite and positive")
        prior.history_ = list(metadata.get("history", []))
        return prior
