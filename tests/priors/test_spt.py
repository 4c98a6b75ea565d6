"""The spt prior on hand-drawn positions (spec §5, unit tests 1-10): window counts, coverage, leaves,
the likelihood ratio, growth invariants, evaluation and forests."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.board import BLACK, WHITE, Board
from engine.config import load_config
from priors.base import load_prior
from priors.modelfile import ModelError
from priors.spt import SPTHyperparameters, SPTPrior, _kernels
from priors.spt.growth import Pool, Tree, example_features, grow, local_examples, question_columns
from priors.spt.model import check_forest, coverage, mask, pool_of
from priors.training import train
from tests.priors.test_contract import random_positions
from tests.priors.tiny_archive import data_dir, write_config  # noqa: F401 (data_dir is a fixture)

N = 19
TYPE = {name: t for t, name in enumerate(_kernels.TYPES)}

# Black to move: White's C2 (row 1, col 2) is in atari (its liberty C1), Black's E4-F4 block has four
# liberties, White's G4 two and F3 three.
DIAGRAM = """
. . . . . . .
. . . . . . .
. . . . . . .
. . . . X X O
. . X . . O .
. X O X . . .
. . . . . . .
"""


def counts(board: Board, color: int, focus: list[tuple[int, int]], type_name: str, window: int) -> list[int]:
    n = board.size
    codes = _kernels.cell_codes(board, color).reshape(1, -1)
    X = np.empty((len(focus), 1), dtype=np.uint8)
    _kernels.example_counts(codes, n, np.zeros(len(focus), np.int32),
                            np.array([r * n + c for r, c in focus], np.int32),
                            np.array([TYPE[type_name]], np.int8), np.array([window // 2], np.int8), X)
    return X[:, 0].tolist()


def one_leaf(cells: np.ndarray, null: float = 0.0) -> Tree:
    w_p = int(round(len(cells) ** 0.5))
    return Tree(np.zeros(1, np.int8), np.zeros(1, np.int8), np.zeros(1, np.int16), np.full(1, -1, np.int32),
                np.full(1, -1, np.int32), np.zeros(1, np.int32), cells.reshape(1, w_p * w_p).astype(np.float64),
                np.array([null]), np.array([100], np.int32), 0)


def prior_of(trees: list[Tree], **hyper) -> SPTPrior:
    prior = SPTPrior(SPTHyperparameters(**hyper))
    prior.set_trees(trees)
    return prior


# --- 1, 2: window counts and the >= question -------------------------------------------------------

def test_edge_counts_at_the_corner_the_edge_and_inside():
    board = Board(N)
    assert counts(board, BLACK, [(0, 0), (0, 9), (9, 9)], "edge", 3) == [5, 3, 0]
    assert counts(board, BLACK, [(0, 0), (0, 9), (18, 18)], "edge", 5) == [16, 10, 16]
    assert counts(board, BLACK, [(0, 0), (0, 9), (9, 9)], "empty", 5) == [25 - 16, 25 - 10, 25]


def test_stones_liberties_and_captures_are_counted_from_the_side_to_move():
    board = Board.from_ascii(DIAGRAM)
    c2, c1, e4, g4, f3 = (1, 2), (0, 2), (3, 4), (3, 6), (2, 5)
    # Black to move: C2 is an opponent stone with one liberty, and Black captures it at C1.
    assert counts(board, BLACK, [c2, g4, f3], "opp_lib1", 1) == [1, 0, 0]
    assert counts(board, BLACK, [c2, g4, f3], "opp_lib2", 1) == [0, 1, 0]
    assert counts(board, BLACK, [c2, g4, f3], "opp_lib3", 1) == [0, 0, 1]
    assert counts(board, BLACK, [c1, c1], "capture", 1) + counts(board, BLACK, [c1], "opp_capture", 1) == [1, 1, 0]
    assert counts(board, BLACK, [c2], "opponent", 3) + counts(board, BLACK, [c2], "own", 3) == [1, 3]
    assert counts(board, BLACK, [e4], "own_lib4+", 3) == [2]
    # White to move: the same stone is its own, and Black threatens to take it at C1.
    assert counts(board, WHITE, [c2], "own_lib1", 1) == [1]
    assert counts(board, WHITE, [c1], "opp_capture", 1) + counts(board, WHITE, [c1], "capture", 1) == [1, 0]
    assert counts(board, WHITE, [e4], "opp_lib4+", 5) == [2]


def test_a_question_asks_count_at_least_threshold():
    board = Board(N)
    yes = one_leaf(np.eye(3)[1].repeat(3) / 3)      # every mass on the row above the focus
    tree = Tree(np.array([TYPE["edge"], 0, 0], np.int8), np.array([1, 0, 0], np.int8),
                np.array([5, 0, 0], np.int16), np.array([1, -1, -1], np.int32), np.array([2, -1, -1], np.int32),
                np.array([-1, 0, 1], np.int32), np.stack([yes.tables[0], np.zeros(9)]), np.zeros(2),
                np.array([1, 1], np.int32), 1)
    table = prior_of([tree]).table(board, BLACK).reshape(N, N)
    # Only the four corners (exactly 5 edge cells in 3x3) answer yes: their leaf puts mass on the row
    # through the corner and its neighbours on the board.
    assert np.count_nonzero(table) == 4 * 2
    assert table[0, 0] > 0 and table[0, 1] > 0 and table[18, 17] > 0 and table[9, 9] == 0


# --- 3, 4: coverage ------------------------------------------------------------------------------

def test_coverage_counts_the_windows_over_each_point():
    c = coverage(N, 3).reshape(N, N)
    assert (c[0, 0], c[0, 9], c[9, 9]) == (4, 6, 9) and c.sum() == 3025
    assert coverage(N, 5).reshape(N, N)[0, :4].tolist() == [9, 12, 15, 15]


def test_a_uniform_leaf_gives_a_uniform_board():
    for w_p in (3, 5):
        prior = prior_of([one_leaf(np.full(w_p * w_p, 0.5 / w_p ** 2), 0.5)], w_p=w_p)
        np.testing.assert_allclose(prior.table(Board(N), BLACK), 1 / N ** 2, rtol=1e-12)


# --- 5, 10: examples and leaves --------------------------------------------------------------------

def pool_with_move(row: int, col: int) -> Pool:
    return Pool(_kernels.cell_codes(Board(N), BLACK).reshape(1, -1), np.array([row * N + col], np.int32), N)


def test_an_interior_move_gives_nine_positives_and_nine_distant_negatives():
    position, focus, outcome = local_examples(pool_with_move(9, 9), 3, np.random.default_rng(1))
    positive = outcome < 9
    assert sorted(outcome[positive]) == list(range(9)) and np.sum(~positive) == 9
    far = np.maximum(np.abs(focus[~positive] // N - 9), np.abs(focus[~positive] % N - 9))
    assert np.all(far > 1) and len(set(focus)) == 18 and np.all(position == 0)


def test_a_corner_move_gives_four_and_four():
    _, _, outcome = local_examples(pool_with_move(0, 0), 3, np.random.default_rng(1))
    assert np.sum(outcome < 9) == 4 and np.sum(outcome == 9) == 4


def test_the_root_leaf_is_half_null_under_balanced_sampling():
    pool = pool_of(random_positions(n_games=2, n_moves=20))
    hyper = SPTHyperparameters(d=0, leaves="oriented")
    position, focus, outcome = local_examples(pool, 3, np.random.default_rng(1))
    tree = grow(example_features(pool, position, focus, hyper.windows), outcome, hyper, np.random.default_rng(1))
    assert tree.n_nodes == 1 and tree.null[0] == 0.5
    assert tree.tables[0].sum() == pytest.approx(0.5) and tree.tables[0].sum() + tree.null[0] == pytest.approx(1)


# --- 6: the likelihood ratio ------------------------------------------------------------------------

def log_likelihood(outcomes: np.ndarray, leaf: np.ndarray) -> float:
    """Alg 4.8: the sum of ln leaf(outcome) over the data."""
    return float(np.sum(np.log(leaf[outcomes])))


def mle(outcomes: np.ndarray, n_cat: int) -> np.ndarray:
    """Alg 4.5."""
    return np.bincount(outcomes, minlength=n_cat) / len(outcomes)


def test_the_closed_form_ratio_is_alg_4_7():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(300, 4)).astype(np.uint8)
    outcome = rng.integers(0, 10, size=300).astype(np.int32)
    outcome[X[:, 0] >= 3] %= 3                         # column 0 tells the outcomes apart
    idx = np.arange(300, dtype=np.int32)
    cols = np.array([0, 1, 2, 3, 0, 0], np.int32)
    thresholds = np.array([3, 2, 4, 1, 0, 6], np.uint8)
    out = np.empty(len(cols))
    _kernels.split_scores(np.ascontiguousarray(X.T), outcome, idx, cols, thresholds, 10, out)
    for j, (col, e) in enumerate(zip(cols, thresholds)):
        yes = X[:, col] >= e
        if yes.all() or not yes.any():
            assert out[j] == -1                         # an empty child: never taken
            continue
        lr = (log_likelihood(outcome[yes], mle(outcome[yes], 10)) + log_likelihood(outcome[~yes], mle(outcome[~yes], 10))
              - log_likelihood(outcome, mle(outcome, 10)))
        assert out[j] == pytest.approx(lr, abs=1e-9) and out[j] >= 0
    assert out[0] == max(out)


def test_the_ratio_is_zero_when_both_sides_share_one_histogram():
    X = np.array([[0], [0], [1], [1]], np.uint8)
    outcome = np.array([2, 5, 2, 5], np.int32)
    out = np.empty(1)
    _kernels.split_scores(np.ascontiguousarray(X.T), outcome, np.arange(4, dtype=np.int32), np.zeros(1, np.int32),
                          np.ones(1, np.uint8), 10, out)
    assert out[0] == pytest.approx(0.0, abs=1e-12)


# --- 7: growth ----------------------------------------------------------------------------------

def walk(tree: Tree, X: np.ndarray, cols: tuple, idx: np.ndarray, node: int = 0, depth: int = 0):
    """Yield (leaf node, its examples, depth) after checking the internal nodes on the way."""
    types, halves = cols
    if tree.leaf[node] >= 0:
        yield node, idx, depth
        return
    col = int(np.flatnonzero((types == tree.type[node]) & (halves == tree.half[node]))[0])
    yes = X[idx, col] >= tree.threshold[node]
    assert yes.any() and not yes.all()                  # no empty child
    yield from walk(tree, X, cols, idx[yes], tree.yes[node], depth + 1)
    yield from walk(tree, X, cols, idx[~yes], tree.no[node], depth + 1)


@pytest.mark.parametrize("d, m", [(10, 30), (3, 5), (6, 60)])
def test_growth_keeps_depth_support_and_leaf_estimates(d, m):
    pool = pool_of(random_positions(n_games=4, n_moves=40))
    hyper = SPTHyperparameters(d=d, m=m, s=50, leaves="oriented")
    position, focus, outcome = local_examples(pool, 3, np.random.default_rng(2))
    X = example_features(pool, position, focus, hyper.windows)
    tree = grow(X, outcome, hyper, np.random.default_rng(2))
    assert tree.n_nodes > 1
    leaves = list(walk(tree, X, question_columns(hyper.windows), np.arange(len(outcome))))
    for node, idx, depth in leaves:
        assert depth <= d
        p = mle(outcome[idx], 10)
        np.testing.assert_allclose(tree.tables[tree.leaf[node]], p[:9])
        assert tree.null[tree.leaf[node]] == pytest.approx(p[9]) and tree.support[tree.leaf[node]] == len(idx)
    internal_sizes = [len(idx) for idx in _internal_examples(tree, X, question_columns(hyper.windows), len(outcome))]
    assert min(internal_sizes) > m
    again = grow(X, outcome, hyper, np.random.default_rng(2))
    assert all(np.array_equal(getattr(tree, k), getattr(again, k)) for k in ("type", "half", "threshold", "leaf"))


def _internal_examples(tree, X, cols, n):
    """The example sets of the internal nodes."""
    types, halves = cols
    stack = [(0, np.arange(n))]
    while stack:
        node, idx = stack.pop()
        if tree.leaf[node] >= 0:
            continue
        yield idx
        col = int(np.flatnonzero((types == tree.type[node]) & (halves == tree.half[node]))[0])
        yes = X[idx, col] >= tree.threshold[node]
        stack += [(tree.yes[node], idx[yes]), (tree.no[node], idx[~yes])]


# --- 8, 9: evaluation and forests -------------------------------------------------------------------

@pytest.fixture(scope="module")
def forest() -> SPTPrior:
    return SPTPrior(SPTHyperparameters(n_trees=3, s=50, m=10)).fit(random_positions(n_games=6, n_moves=40))


def test_evaluation_is_a_distribution_on_the_legal_moves(forest):
    board = Board.from_ascii(DIAGRAM)
    p = forest.evaluate(board, BLACK)
    legal = board.legal_points(BLACK)
    assert p.sum() == pytest.approx(1, abs=1e-6) and np.all(p >= 0) and np.all(p[:-1][~legal] == 0)


def test_a_shape_moved_away_from_the_edges_moves_its_distribution(forest):
    def around_shape(row, col):
        board = Board(N)
        board.play(board.point(row, col), BLACK)
        board.play(board.point(row + 1, col + 1), WHITE)
        near = forest.table(board, BLACK).reshape(N, N)[row - 2:row + 3, col - 2:col + 3]
        return near / near.sum()
    # The windows that reach these 5x5 cells see neither edge: the same shape, the same shares.
    here = around_shape(9, 9)
    np.testing.assert_allclose(around_shape(10, 11), here, rtol=1e-9)
    assert here.max() > 1.2 * here.min()


def reference_table(prior: SPTPrior, board: Board, color: int) -> np.ndarray:
    """Alg 4.2-4.4 with the coverage division, written out: each focus descends by window counts taken
    the way growth takes them, its leaf's table is added around it, each tree's grid normalised."""
    f, w_p, n = prior.forest_, prior.hyper.w_p, board.size
    r = (w_p - 1) // 2
    out = np.zeros(n * n)
    for root in f["roots"]:
        grid = np.zeros((n, n))
        for row in range(n):
            for col in range(n):
                node = root
                while f["leaf"][node] < 0:
                    kind, window = _kernels.TYPES[f["type"][node]], 2 * f["half"][node] + 1
                    count = counts(board, color, [(row, col)], kind, window)[0]
                    node = f["yes"][node] if count >= f["threshold"][node] else f["no"][node]
                table = f["tables"][f["leaf"][node]].astype(np.float64).reshape(w_p, w_p)
                for dr in range(-r, r + 1):
                    for dc in range(-r, r + 1):
                        if 0 <= row + dr < n and 0 <= col + dc < n:
                            grid[row + dr, col + dc] += table[dr + r, dc + r]
        grid = grid.reshape(-1) / coverage(n, w_p)
        if grid.sum() > 0:
            out += grid / grid.sum()
    return out / len(f["roots"])


@pytest.mark.parametrize("color", [BLACK, WHITE])
def test_the_packed_descent_is_the_written_out_evaluation(forest, color):
    assert max(forest.trees_[k].depth for k in range(3)) >= 3
    swapped = DIAGRAM.replace("X", "#").replace("O", "X").replace("#", "O")
    for board in (Board.from_ascii(DIAGRAM), Board.from_ascii(swapped)):
        np.testing.assert_allclose(forest.table(board, color), reference_table(forest, board, color), rtol=1e-12)


def test_a_threshold_out_of_range_is_a_damaged_model(forest, tmp_path):
    arrays = {k: v.copy() for k, v in forest.arrays().items()}
    arrays["threshold"][int(np.flatnonzero(arrays["leaf"] < 0)[0])] = 200
    with pytest.raises(ModelError, match="outside the forest"):
        check_forest(arrays, forest.hyper.w_p)


def test_a_forest_is_the_mean_of_its_trees(forest):
    board = Board.from_ascii(DIAGRAM)
    alone = [prior_of([t], m=10).table(board, WHITE) for t in forest.trees_]
    np.testing.assert_allclose(forest.table(board, WHITE), np.mean(alone, axis=0), rtol=1e-12)
    copies = prior_of([forest.trees_[0]] * 4, m=10)
    np.testing.assert_allclose(copies.table(board, WHITE), alone[0], rtol=1e-12)


def test_absolute_colours_see_the_board_as_black_whoever_moves(forest):
    board = Board.from_ascii(DIAGRAM)
    seen = prior_of(forest.trees_, m=10, colours="absolute")
    np.testing.assert_array_equal(seen.table(board, WHITE), seen.table(board, BLACK))
    np.testing.assert_array_equal(seen.table(board, WHITE), forest.table(board, BLACK))
    assert not np.array_equal(forest.table(board, WHITE), forest.table(board, BLACK))
    grown = SPTPrior(SPTHyperparameters(s=20, m=10, colours="absolute")).fit(random_positions(n_games=2, n_moves=30))
    assert grown.trees_[0].n_nodes > 1


def test_absolute_colours_without_the_last_move_types_only():
    with pytest.raises(ValueError, match="spt.colours"):
        SPTHyperparameters(colours="absolute", last_moves=2)
    with pytest.raises(ValueError, match="spt.colours"):
        SPTHyperparameters(colours="black")


def test_the_mask_keeps_every_legal_move_and_pass():
    table = np.array([0.0, 0.6, 0.4, 0.0])
    legal = np.array([True, True, False, True])
    p = mask(table, legal, 0.01)
    assert p[2] == 0 and np.all(p[[0, 1, 3, 4]] > 0) and p[1] > 0.98 and p.sum() == pytest.approx(1)


# --- training --------------------------------------------------------------------------------------

def test_training_keeps_each_tree_and_a_larger_forest_reuses_them(tmp_path, data_dir, capsys):
    config = write_config(tmp_path, data_dir, model="spt", cache_dir=tmp_path / "cache")
    out = tmp_path / "spt.npz"
    common = [str(config), "--output", str(out), "--set", "spt.m=5", "--set", "spt.s=20"]
    assert train.main(common + ["--set", "spt.n_trees=2"]) == 0
    two = SPTPrior.load(out)
    saved = sorted((tmp_path / "cache" / "spt-trees").glob("*/tree-*.npz"))
    assert [p.name for p in saved] == ["tree-0.npz", "tree-1.npz"]
    assert two.info_["config"]["spt"]["seed"] == 1 and two.info_["train_games"]["games"] > 0
    assert train.main(common + ["--set", "spt.n_trees=3"]) == 0
    assert "2 of 3 trees read back" in capsys.readouterr().out
    three = SPTPrior.load(out)
    n_two = len(two.forest_["leaf"])
    for key in ("type", "threshold", "leaf"):
        np.testing.assert_array_equal(three.forest_[key][:n_two], two.forest_[key])
    assert len(three.forest_["roots"]) == 3


def test_the_preset_plays_with_the_shipped_forest():
    params = load_config(str(Path(__file__).resolve().parents[2] / "configs" / "spt.yaml"))
    prior = load_prior(params.prior.name, params.prior.model)
    assert isinstance(prior, SPTPrior) and params.search.additive
    board = Board(N)
    board.play(board.point(15, 15), BLACK)          # Q16
    p = prior.evaluate(board, WHITE)
    assert p.shape == (N * N + 1,) and p.sum() == pytest.approx(1.0, abs=1e-5) and p[15 * N + 15] == 0
    grid = p[:-1].reshape(N, N)
    assert grid[3, 3] > 5 * grid[9, 9] and grid[2, 3] > 5 * grid[9, 9]   # the corners before tengen
