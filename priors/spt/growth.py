"""Growing one spatial probability tree (Tidwell 2012 §4.4, Alg 4.5-4.10) from a pool of positions.

A pool is the positions' cell codes (`_kernels.cell_codes`, side to move's view) and their expert moves.
Each position gives local examples (§4.4, Figs 4.17-4.19): every focus f whose w_p window holds the
move is a positive, its outcome the move's cell in the window; as many other foci, drawn without
replacement, are negatives with the outcome NULL (undersampling, per position). An example's
features are the window counts of every (type, window) question column, computed once, so that
scoring a question is a comparison of one column with its threshold.

Growth follows Alg 4.10 depth-first, the yes child first: a node with more than m examples and depth
below d asks the best of s sampled questions (type and window uniform, threshold the count of a random
example of the node, so that example answers yes), scored by the likelihood ratio of Alg 4.7 in closed
form. A question leaving a child empty, or with LR <= 1e-9, is never taken (spec §2.5: otherwise the
thesis's `v >= 0` accepts degenerate splits); ties go to the later question (`>=`). A leaf holds the
MLE of its examples' outcomes (Alg 4.5), no smoothing.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from priors.spt import _kernels

MIN_GAIN = 1e-9


@dataclass
class Pool:
    """Positions to grow trees from: codes (P, N*N) uint8 and the expert move's row-major index."""
    codes: np.ndarray
    moves: np.ndarray
    size: int

    def __len__(self) -> int:
        return len(self.moves)

    def subset(self, rows: np.ndarray) -> "Pool":
        return Pool(self.codes[rows], self.moves[rows], self.size)


@dataclass
class Tree:
    """One grown tree as flat arrays in preorder (the root is node 0); see `_kernels` for the layout.
    `null` is each leaf's null probability (growth only), `support` its number of examples."""
    type: np.ndarray         # int8 per node (internal nodes)
    half: np.ndarray         # int8: window (2 half + 1)
    threshold: np.ndarray    # int16: e of "count >= e"
    yes: np.ndarray          # int32 child nodes, -1 at leaves
    no: np.ndarray
    leaf: np.ndarray         # int32 row of `tables`, -1 at internal nodes
    tables: np.ndarray       # float64 (n_leaves, w_p * w_p)
    null: np.ndarray         # float64 (n_leaves,)
    support: np.ndarray      # int32 (n_leaves,)
    depth: int

    @property
    def n_nodes(self) -> int:
        return len(self.leaf)


def question_columns(windows: tuple, n_types: int = _kernels.N_THESIS_TYPES) -> tuple[np.ndarray, np.ndarray]:
    """(type, half) of every question column: each of the first n_types types with each window size."""
    halves = [(w - 1) // 2 for w in windows]
    types = np.repeat(np.arange(n_types, dtype=np.int8), len(halves))
    return types, np.tile(np.array(halves, dtype=np.int8), n_types)


def local_examples(pool: Pool, w_p: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(position row, focus, outcome) of the balanced local examples of every position of the pool;
    outcome (dr + r) w_p + (dc + r) for a positive, w_p^2 (NULL) for a negative."""
    n, r = pool.size, (w_p - 1) // 2
    rows = np.arange(n * n) // n
    cols = np.arange(n * n) % n
    out_pos, out_focus, out_outcome = [], [], []
    for i, move in enumerate(pool.moves):
        dr = move // n - rows
        dc = move % n - cols
        near = (np.abs(dr) <= r) & (np.abs(dc) <= r)
        positives = np.flatnonzero(near)
        negatives = rng.choice(np.flatnonzero(~near), size=min(len(positives), int((~near).sum())), replace=False)
        out_pos.append(np.full(len(positives) + len(negatives), i, dtype=np.int32))
        out_focus.append(np.concatenate([positives, np.sort(negatives)]).astype(np.int32))
        out_outcome.append(np.concatenate([(dr[positives] + r) * w_p + dc[positives] + r,
                                           np.full(len(negatives), w_p * w_p)]).astype(np.int32))
    return np.concatenate(out_pos), np.concatenate(out_focus), np.concatenate(out_outcome)


def example_features(pool: Pool, position: np.ndarray, focus: np.ndarray, windows: tuple,
                     n_types: int = _kernels.N_THESIS_TYPES) -> np.ndarray:
    """X[e, q]: the count of question column q at example e (uint8)."""
    types, halves = question_columns(windows, n_types)
    X = np.empty((len(focus), len(types)), dtype=np.uint8)
    _kernels.example_counts(np.ascontiguousarray(pool.codes), pool.size, position, focus, types, halves, X)
    return X


def best_split(columns: np.ndarray, outcome: np.ndarray, idx: np.ndarray, n_cat: int, s: int,
               rng: np.random.Generator, min_gain: float = 0.0) -> tuple[int, int] | None:
    """FindBestSplit (Alg 4.9): the (column, threshold) of the best of s sampled questions, or None;
    `columns` is the feature matrix by column, X.T."""
    cols = rng.integers(columns.shape[0], size=s).astype(np.int32)
    source = idx[rng.integers(len(idx), size=s)]
    thresholds = np.ascontiguousarray(columns[cols, source])
    scores = np.empty(s, dtype=np.float64)
    _kernels.split_scores(columns, outcome, idx, cols, thresholds, n_cat, scores)
    if scores.max() <= max(MIN_GAIN, min_gain):
        return None
    j = s - 1 - int(np.argmax(scores[::-1]))            # the later of equal scores, as `>=` keeps it
    return int(cols[j]), int(thresholds[j])


class _Builder:
    """Accumulates nodes in preorder while GrowSPT recurses."""

    def __init__(self, n_cat: int, w_p: int, symmetric: bool):
        self.n_cat, self.w_p, self.symmetric = n_cat, w_p, symmetric
        self.nodes: list[list[int]] = []                 # [type, half, threshold, yes, no, leaf]
        self.tables: list[np.ndarray] = []
        self.null: list[float] = []
        self.support: list[int] = []
        self.depth = 0

    def leaf(self, outcomes: np.ndarray, depth: int) -> int:
        """CreateLeafNode (Alg 4.5): the MLE of the outcomes; D4-averaged cells if `symmetric`."""
        p = np.bincount(outcomes, minlength=self.n_cat) / len(outcomes)
        cells = p[:-1].reshape(self.w_p, self.w_p)
        if self.symmetric:
            cells = symmetrize(cells)
        self.nodes.append([0, 0, 0, -1, -1, len(self.tables)])
        self.tables.append(cells.reshape(-1))
        self.null.append(float(p[-1]))
        self.support.append(len(outcomes))
        self.depth = max(self.depth, depth)
        return len(self.nodes) - 1

    def tree(self) -> Tree:
        a = np.array(self.nodes, dtype=np.int64).reshape(-1, 6)
        return Tree(a[:, 0].astype(np.int8), a[:, 1].astype(np.int8), a[:, 2].astype(np.int16),
                    a[:, 3].astype(np.int32), a[:, 4].astype(np.int32), a[:, 5].astype(np.int32),
                    np.array(self.tables, dtype=np.float64).reshape(-1, self.w_p * self.w_p),
                    np.array(self.null), np.array(self.support, dtype=np.int32), self.depth)


def symmetrize(cells: np.ndarray) -> np.ndarray:
    """The mean of a square table over the 8 symmetries of the square."""
    views = [np.rot90(cells, k) for k in range(4)]
    return sum(views + [v.T for v in views]) / 8.0


def grow(X: np.ndarray, outcome: np.ndarray, hyper, rng: np.random.Generator) -> Tree:
    """GrowSPT (Alg 4.10) over every example of X; `hyper` gives w_p, d, m, s, windows, types, leaves, min_gain."""
    n_cat = hyper.w_p * hyper.w_p + 1
    types, halves = question_columns(hyper.windows, len(hyper.types))
    b = _Builder(n_cat, hyper.w_p, hyper.leaves == "symmetric")
    columns = np.ascontiguousarray(X.T)

    def node(idx: np.ndarray, depth: int) -> int:
        if depth < hyper.d and len(idx) > hyper.m:
            split = best_split(columns, outcome, idx, n_cat, hyper.s, rng, hyper.min_gain)
            if split is not None:
                col, e = split
                here = len(b.nodes)
                b.nodes.append([int(types[col]), int(halves[col]), e, -1, -1, -1])
                answer = columns[col, idx] >= e
                b.nodes[here][3] = node(idx[answer], depth + 1)
                b.nodes[here][4] = node(idx[~answer], depth + 1)
                return here
        return b.leaf(outcome[idx], depth)

    node(np.arange(len(outcome), dtype=np.int32), 0)
    return b.tree()


def grow_tree(pool: Pool, hyper, rng: np.random.Generator) -> Tree:
    """One tree on n positions drawn from the pool without replacement (all of a smaller pool)."""
    rows = np.sort(rng.choice(len(pool), size=min(hyper.n, len(pool)), replace=False))
    sample = pool.subset(rows)
    position, focus, outcome = local_examples(sample, hyper.w_p, rng)
    X = example_features(sample, position, focus, hyper.windows, len(hyper.types))
    return grow(X, outcome, hyper, rng)
