"""The `spt` prior: a forest of spatial probability trees (Tidwell 2012), after `../shared/specs/spt.md`.

A tree's internal nodes ask counting questions around a focus point f: "are there >= e cells of type t
in the w_q x w_q window centred on f?" (§4.1; the types are the cell predicates of `_kernels.TYPES`:
stones relative to the side to move, edge, empty, liberty buckets and capture flags, §4.5). Its
leaves hold a w_p x w_p table of P(next move at f + delta) and a null probability (Alg 4.5). A tree
is evaluated at every point of the board as focus, each leaf's table is added into a global table, and
that is divided by the coverage C(p) and normalised (§4.3); a forest is the mean of its trees' tables
(§4.6). The prior then keeps the legal points, and mixes in `floor` of the uniform distribution over
the legal moves and pass so that no legal move has probability 0.

Leaf tables are averaged over the 8 symmetries of the square (`leaves: symmetric`): the counting questions
cannot tell them apart, so with symmetric leaves a rotated board gives the rotated distribution.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

from engine.board import BLACK
from priors.base import Prior, register, require
from priors.modelfile import ModelError
from priors.spt import _kernels
from priors.spt.growth import Pool, Tree, grow_tree

LEAVES = ("symmetric", "oriented")
COLOURS = ("relative", "absolute")
FOREST_KEYS = ("type", "half", "threshold", "yes", "no", "leaf", "tables", "roots")
DTYPES = {"type": np.int8, "half": np.int8, "threshold": np.int16, "yes": np.int32, "no": np.int32,
          "leaf": np.int32, "tables": np.float32, "roots": np.int32}


def _is_int(x: Any) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _odd(x: Any, top: int) -> bool:
    return _is_int(x) and 1 <= x <= top and x % 2 == 1


@dataclass(frozen=True)
class SPTHyperparameters:
    """The `spt` section of a training config (Tidwell's Table 5.1 symbols; §5's values as defaults)."""
    w_p: int = 3                           # leaf window (odd)
    d: int = 10                            # maximum depth: at most d questions on a path
    m: int = 30                            # a node splits only with more than m examples
    s: int = 300                           # questions sampled per split
    n: int = 300                           # board positions per tree, drawn from the pool
    n_trees: int = 1                       # forest size K
    windows: tuple = (1, 3, 5, 7, 9)       # question windows w_q, drawn uniformly
    last_moves: int = 0                    # 1 or 2 adds the types "last" (the opponent's last stone) and
                                           # "last2" (the own stone before it) to the thesis's 14
    leaves: str = "symmetric"              # symmetric: leaf tables averaged over the 8 symmetries; oriented
    colours: str = "relative"              # relative: stones and capture points seen by the side to move;
                                           # absolute: seen by Black whoever moves, as the thesis's figures
    min_gain: float = 0.0                  # LR a split must exceed (the thesis: any LR > 0)
    floor: float = 0.001                   # share of the uniform distribution mixed into the prior
    seed: int = 1

    def __post_init__(self) -> None:
        rules = [
            (_odd(self.w_p, _kernels.MAX_HALF * 2 + 1), "w_p", "an odd integer in 1..9"),
            (_is_int(self.d) and self.d >= 0, "d", "an integer >= 0"),
            (_is_int(self.m) and self.m >= 1, "m", "an integer >= 1"),
            (_is_int(self.s) and self.s >= 1, "s", "an integer >= 1"),
            (_is_int(self.n) and self.n >= 1, "n", "an integer >= 1"),
            (_is_int(self.n_trees) and self.n_trees >= 1, "n_trees", "an integer >= 1"),
            (len(self.windows) > 0 and all(_odd(w, _kernels.MAX_HALF * 2 + 1) for w in self.windows),
             "windows", "odd window sizes in 1..9"),
            (self.leaves in LEAVES, "leaves", f"one of {', '.join(LEAVES)}"),
            (_is_int(self.last_moves) and 0 <= self.last_moves <= 2, "last_moves", "0, 1 or 2"),
            (self.colours in COLOURS, "colours", f"one of {', '.join(COLOURS)}"),
            (self.colours == "relative" or self.last_moves == 0, "colours",
             "relative when last_moves is set (the last-move types are relative to the side to move)"),
            (isinstance(self.min_gain, numbers.Real) and self.min_gain >= 0, "min_gain", "a number >= 0"),
            (isinstance(self.floor, numbers.Real) and 0 < self.floor < 1, "floor", "a number in (0, 1)"),
            (_is_int(self.seed) and self.seed >= 0, "seed", "an integer >= 0"),
        ]
        for ok, key, what in rules:
            require(ok, f"spt.{key}", what, getattr(self, key))
        object.__setattr__(self, "windows", tuple(self.windows))

    @property
    def types(self) -> tuple:
        """The cell types the questions are drawn from."""
        return _kernels.TYPES[:_kernels.N_THESIS_TYPES + self.last_moves]

    def viewer(self, to_play: int) -> int:
        """The colour whose view the cell codes take: the side to move, or Black with absolute colours."""
        return BLACK if self.colours == "absolute" else to_play


def coverage(size: int, w_p: int) -> np.ndarray:
    """C(p) = c(row) c(col), the number of foci whose w_p window covers p (§4.3), row-major float64."""
    r = (w_p - 1) // 2
    u = np.arange(size)
    c = np.minimum(u, r) + np.minimum(size - 1 - u, r) + 1
    return np.outer(c, c).reshape(-1).astype(np.float64)


def join(trees: list[Tree]) -> dict[str, np.ndarray]:
    """One forest's flat arrays from trees: node and leaf indices shifted, a root per tree."""
    out: dict[str, list] = {key: [] for key in FOREST_KEYS}
    n_nodes = n_leaves = 0
    for t in trees:
        out["roots"].append([n_nodes])
        for key in ("type", "half", "threshold"):
            out[key].append(getattr(t, key))
        for key in ("yes", "no"):
            a = getattr(t, key)
            out[key].append(np.where(a >= 0, a + n_nodes, -1))
        out["leaf"].append(np.where(t.leaf >= 0, t.leaf + n_leaves, -1))
        out["tables"].append(t.tables)
        n_nodes += t.n_nodes
        n_leaves += len(t.tables)
    # float32 tables, as in the model file: half the memory the evaluation reads, and the grown forest and
    # the one loaded from its file predict exactly alike.
    return {key: np.ascontiguousarray(np.concatenate(parts), dtype=DTYPES[key]) for key, parts in out.items()}


def check_forest(arrays: dict[str, np.ndarray], w_p: int) -> dict[str, np.ndarray]:
    """The forest arrays in the kernel's types, after every check that keeps the descent in bounds
    (children after their parent in preorder, so no path loops); a ModelError says what is wrong."""
    missing = [k for k in FOREST_KEYS if k not in arrays]
    if missing:
        raise ModelError(f"spt model without {', '.join(missing)}")
    a = {k: np.asarray(arrays[k]) for k in FOREST_KEYS}
    n = len(a["leaf"])
    tables = a["tables"]
    if any(a[k].shape != (n,) for k in ("type", "half", "threshold", "yes", "no")) or a["roots"].ndim != 1 \
            or len(a["roots"]) == 0 or tables.ndim != 2 or tables.shape[1] != w_p * w_p:
        raise ModelError("spt model arrays have inconsistent shapes")
    if any(a[k].dtype.kind not in "iu" for k in FOREST_KEYS if k != "tables") or tables.dtype.kind != "f":
        raise ModelError("spt model arrays have the wrong types")
    nodes = np.arange(n)
    internal = a["leaf"] < 0
    children_ok = all(np.all((a[k][internal] > nodes[internal]) & (a[k][internal] < n)) for k in ("yes", "no"))
    if not (children_ok and np.all(a["leaf"] < len(tables)) and np.all((a["roots"] >= 0) & (a["roots"] < n))
            and np.all((a["type"][internal] >= 0) & (a["type"][internal] < len(_kernels.TYPES)))
            and np.all((a["half"][internal] >= 0) & (a["half"][internal] <= _kernels.MAX_HALF))
            and np.all((a["threshold"][internal] >= 0) & (a["threshold"][internal] <= (2 * _kernels.MAX_HALF + 1) ** 2))):
        raise ModelError("spt model has a node pointing outside the forest")
    if not (np.all(np.isfinite(tables)) and np.all(tables >= 0)):
        raise ModelError("spt leaf tables must be finite and non-negative")
    return {k: np.ascontiguousarray(v, dtype=DTYPES[k]) for k, v in a.items()}


@register("spt")
class SPTPrior(Prior):
    """A forest of spatial probability trees (Tidwell 2012). Fitted: `forest_` (flat arrays, see
    `_kernels`), `trees_` (the grown trees with their leaves' null and support), `info_`."""

    Hyper = SPTHyperparameters
    HEADER_KEYS = frozenset({"types"})

    def __init__(self, hyper: SPTHyperparameters | None = None):
        super().__init__(hyper)
        self.trees_: list[Tree] = []
        self.forest_: dict[str, np.ndarray] = {}
        self._coverage: dict[int, np.ndarray] = {}
        self._packed: dict[int, tuple] = {}       # by board size: the forest as the kernel reads it

    # --- training ---
    def fit(self, positions: Iterable, patterns: Any = None) -> "SPTPrior":
        """Grow the forest on positions (`priors.training.dataset.Position`); passes are left out."""
        return self.fit_pool(pool_of(positions, self.hyper.colours == "absolute"))

    def fit_pool(self, pool: Pool, grown: dict[int, Tree] | None = None,
                 on_tree: Callable[[int, Tree], None] | None = None) -> "SPTPrior":
        """Grow tree k = 0 .. n_trees - 1 from the generator seeded (seed, k), unless `grown` holds it;
        `on_tree(k, tree)` after each tree grown here."""
        if len(pool) == 0:
            raise ValueError("no positions to grow trees from")
        grown = {} if grown is None else grown
        trees = []
        for k in range(self.hyper.n_trees):
            if k not in grown:
                grown[k] = grow_tree(pool, self.hyper, np.random.default_rng([self.hyper.seed, k]))
                if on_tree is not None:
                    on_tree(k, grown[k])
            trees.append(grown[k])
        self.set_trees(trees)
        self.info_.update(n_pool=len(pool), **forest_stats(trees))
        return self

    def set_trees(self, trees: list[Tree]) -> None:
        self.trees_ = list(trees)
        self.forest_ = check_forest(join(self.trees_), self.hyper.w_p)
        self._packed = {}

    # --- prediction ---
    def packed(self, size: int) -> tuple:
        """(nodes packed for a size x size board, tables, roots): the forest as the kernel reads it."""
        if size not in self._packed:
            f = self.forest_
            nodes = _kernels.pack_forest(*(f[k] for k in ("type", "half", "threshold", "yes", "no", "leaf")), size)
            self._packed[size] = (nodes, f["tables"], f["roots"])
        return self._packed[size]

    def coverage(self, size: int) -> np.ndarray:
        if size not in self._coverage:
            self._coverage[size] = coverage(size, self.hyper.w_p)
        return self._coverage[size]

    def table(self, board, color: int) -> np.ndarray:
        """P_F over every point (float64 N*N, row-major), before the legal-move mask."""
        out = np.empty(board.size * board.size, dtype=np.float64)
        _kernels.forest_on_board(board, self.hyper.viewer(color), self.packed(board.size), self.hyper.w_p,
                                 self.coverage(board.size), out)
        return out

    def evaluate(self, board, color: int) -> np.ndarray:
        """P_F on the legal points (spec §4 item 8) mixed with `floor` of the uniform over the legal
        moves and pass; float32 N*N+1, pass last, 0 on illegal points."""
        return mask(self.table(board, color), board.legal_points(color), self.hyper.floor)

    # --- model file ---
    def arrays(self) -> dict[str, np.ndarray]:
        return dict(self.forest_)

    def metadata(self) -> dict[str, Any]:
        return {"types": list(self.hyper.types)}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], metadata: dict[str, Any],
                    hyper: SPTHyperparameters) -> "SPTPrior":
        prior = cls(hyper)
        if metadata.get("types") != list(prior.hyper.types):
            raise ModelError(f"spt model of another type set ({metadata.get('types')})")
        prior.forest_ = check_forest(arrays, prior.hyper.w_p)
        return prior


def mask(table: np.ndarray, legal: np.ndarray, floor: float) -> np.ndarray:
    """(1 - floor) P restricted to the legal points and renormalised (uniform there if P has no mass on
    them) + floor uniform over the legal points and pass: float32 N*N+1."""
    p = np.where(legal, table, 0.0)
    total = p.sum()
    p = p / total if total > 0 else legal / max(1, legal.sum())
    out = np.empty(len(table) + 1, dtype=np.float64)
    out[:-1] = (1 - floor) * p + floor * legal / (legal.sum() + 1)
    out[-1] = floor / (legal.sum() + 1)
    return (out / out.sum()).astype(np.float32)


def pool_of(positions: Iterable, absolute: bool = False) -> Pool:
    """The pool of positions (passes left out) for growth: cell codes for the side to move (for Black if
    `absolute`), moves."""
    codes, moves, size = [], [], 0
    for pos in positions:
        if pos.move_index == pos.board.size ** 2:
            continue
        size = pos.board.size
        codes.append(_kernels.cell_codes(pos.board, BLACK if absolute else pos.to_play))
        moves.append(pos.move_index)
    return Pool(np.array(codes, dtype=np.uint8).reshape(len(codes), size * size),
                np.array(moves, dtype=np.int32), size)


def forest_stats(trees: list[Tree]) -> dict[str, Any]:
    """Sizes of the grown trees, for the model header."""
    return {"n_trees": len(trees), "nodes": [t.n_nodes for t in trees], "leaves": [len(t.tables) for t in trees],
            "depths": [t.depth for t in trees],
            "min_support": int(min(t.support.min() for t in trees)) if trees else 0}

