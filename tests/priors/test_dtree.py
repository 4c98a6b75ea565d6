"""The `dtree` prior on hand-drawn positions: the graphs, each query's answers, the tie-breaks and the
single-leaf rule, the split criteria on hand-computed cases, online growth, and MM recovering known
leaf gammas on synthetic competitions."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine.board import BLACK, WHITE, Board
from priors import features
from priors.dtree._kernels import Forest, graph_arrays, sg_weight, split_quality
from priors.dtree.model import DTreeHyperparameters, DTreePrior
from priors.training.competitions import CompetitionBuilder

# Black X: a 3-stone chain with 3 liberties (A1, C1, A3) but 4 pseudo-liberties; White O: a 3-stone
# chain with 6 pseudo-liberties; A1 is an empty region of one point.
CORNER = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. O O . . . . . .
X X O . . . . . .
. X . . . . . . .
"""
# Black's three stones have one liberty (A2), next to two of them: pseudo-liberties 2, in atari.
ATARI = """
. . . . .
. . . . .
. O . . .
. X O . .
X X O . .
"""
# Two lone Black stones, both at distance 2 from E5 (the move); a White stone near the right one.
TWINS = """
. . . . . . . . .
. . . . . . . . .
. . . . . . O . .
. . . . . . . . .
. . X . . . X . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


def board(text: str) -> Board:
    return Board.from_ascii(text)


def tree(system: str) -> Forest:
    return Forest([system])


def reached(forest: Forest, b: Board, color: int, row: int, col: int) -> list[int]:
    return forest.leaves_reached(b, color, row, col, 0)


# --- the graphs ---------------------------------------------------------------------------------------

def test_statuses_are_the_movers_and_sizes_are_those_of_chains_and_regions():
    status, size, libs = graph_arrays(board(CORNER), BLACK)
    assert status[1, 0] == status[0, 1] == 1 and status[1, 2] == status[2, 2] == 2 and status[0, 0] == 0
    assert size[1, 1] == 3 and size[2, 1] == 3
    assert size[0, 0] == 1 and size[5, 5] == 81 - 6 - 1
    swapped, _, _ = graph_arrays(board(CORNER), WHITE)
    assert swapped[1, 0] == 2 and swapped[1, 2] == 1


def test_liberties_are_modified_pseudo_liberties():
    _, _, libs = graph_arrays(board(CORNER), BLACK)
    assert libs[1, 0] == libs[1, 1] == 4          # A1 and C1 once, A3 and A1 again: 4 (3 real)
    assert libs[2, 2] == 6 and libs[0, 0] == 0
    _, _, libs = graph_arrays(board(ATARI), BLACK)
    assert libs[0, 0] == 1                          # in atari: 1


def test_stone_graph_weights_to_the_sides():
    b = Board(19)
    assert sg_weight(b, (3, 3), "side0") == 3 and sg_weight(b, (3, 3), "side2") == 3
    assert sg_weight(b, (3, 3), "side1") == 15
    assert sg_weight(b, "side0", "side1") == 19 and sg_weight(b, "side2", "side3") == 19
    assert sg_weight(b, "side0", "side2") == 0
    assert sg_weight(b, (3, 3), (5, 2)) == 3


# --- the queries --------------------------------------------------------------------------------------

def test_sg_new_takes_the_nearest_allowed_node_and_none_beyond_d():
    f = tree("sg")
    first = f.set_node(0, "new", a=0b001, val=1)            # own within 1: children own, none
    assert reached(f, board(CORNER), BLACK, 0, 2) == [first]
    assert reached(f, board(CORNER), BLACK, 4, 4) == [first + 1]
    f = tree("sg")
    first = f.set_node(0, "new", a=0b010, val=0)            # opponent at distance 0: none
    assert reached(f, board(CORNER), BLACK, 0, 2) == [first + 1]


def test_sg_new_prefers_the_nearest_then_own_then_opponent_then_side():
    f = tree("sg")
    first = f.set_node(0, "new", a=0b111, val=5)            # children own, opponent, side, none
    assert reached(f, board(CORNER), BLACK, 0, 2) == [first + 2]     # C1 is on the first line: side at 0
    assert reached(f, board(CORNER), BLACK, 1, 3) == [first + 1]     # D2: White C2 at 1, Black B2 at 2
    f = tree("sg")
    first = f.set_node(0, "new", a=0b011, val=5)
    assert reached(f, board(CORNER), BLACK, 0, 2) == [first]         # B1 (own) and C2 (opponent) at 1
    assert reached(f, board(CORNER), WHITE, 0, 2) == [first]         # for White, C2 is own


def test_ig_new_takes_a_neighbour_of_the_anchor():
    f = tree("ig")
    first = f.set_node(0, "new", a=0b110, b=0)              # opponent or empty next to node 0
    assert reached(f, board(CORNER), BLACK, 0, 2) == [first]         # C2 is White's
    assert set(reached(f, board(CORNER), BLACK, 5, 5)) == {first + 1}  # 4 empty neighbours tie: 4 branches
    f = tree("ig")
    first = f.set_node(0, "new", a=0b001, b=0)
    assert reached(f, board(CORNER), BLACK, 4, 4) == [first + 1]     # no own neighbour: none


def test_edge_and_attr_queries_read_the_discovered_nodes():
    f = tree("sg")
    own = f.set_node(0, "new", a=0b001, val=5)              # node 1: B1, the nearest own stone
    yes = f.set_node(own, "libs", a=1, rel="=", val=4)
    assert reached(f, board(CORNER), BLACK, 0, 2) == [yes]
    size = f.set_node(yes, "size", a=1, rel="<", val=3)
    assert reached(f, board(CORNER), BLACK, 0, 2) == [size + 1]
    dist = f.set_node(size + 1, "dist", a=0, b=1, rel="=", val=1)
    assert reached(f, board(CORNER), BLACK, 0, 2) == [dist]
    assert reached(f, board(CORNER), BLACK, 0, 4) == [dist + 1]       # E1: B1 is 3 away


def test_ig_connectivity_and_graph_distance():
    f = tree("ig")
    new = f.set_node(0, "new", a=0b100, b=0)                # an empty neighbour of node 0
    conn = f.set_node(new, "conn", a=0, b=1, rel="=", val=1)
    assert set(reached(f, board(CORNER), BLACK, 4, 4)) == {conn}
    size = f.set_node(conn, "size", a=0, rel="=", val=74)   # node 0's empty region (clamped: 31)
    assert set(reached(f, board(CORNER), BLACK, 4, 4)) == {size + 1}


def test_ties_go_to_the_larger_chain():
    text = TWINS.replace(". . X . . . X . .", ". . X . . . X X .").replace(". . . . . . O . .", ". . . . . . . . .")
    f = tree("sg")
    own = f.set_node(0, "new", a=0b001, val=5)
    size = f.set_node(own, "size", a=1, rel="=", val=2)
    assert reached(f, board(text), BLACK, 4, 4) == [size]


def test_tied_nodes_branch_and_the_leftmost_leaf_is_the_answer():
    f = tree("sg")
    own = f.set_node(0, "new", a=0b001, val=5)              # C5 and G5 tie (distance 2, size 1, 4 libs)
    opp = f.set_node(own, "new", a=0b010, val=10)           # G7, the only White stone
    near = f.set_node(opp, "dist", a=1, b=2, rel="<", val=3)
    b = board(TWINS)
    assert sorted(reached(f, b, BLACK, 4, 4)) == [near, near + 1]
    f.finish()
    out = np.zeros((1, 1), dtype=np.int32)
    f.levels(b, BLACK, np.array([4 * 9 + 4], dtype=np.int32), out)
    assert out[0, 0] == 1                                    # the "near" leaf, first in pre-order
    mirrored = Board.from_ascii("\n".join(line[::-1] for line in TWINS.strip().splitlines()))
    f.levels(mirrored, BLACK, np.array([4 * 9 + 4], dtype=np.int32), out)
    assert out[0, 0] == 1


# --- split criteria -----------------------------------------------------------------------------------

def test_split_criteria_on_a_hand_computed_split():
    d, w = [10, 90], [5, 5]                  # D = 100, W = 10, r = 0.1; r_c = 0.5 and 1/18
    assert split_quality("wwls", d, w) == pytest.approx(10 * 0.4 + 90 * (0.1 - 1 / 18))
    assert split_quality("wls", d, w) == pytest.approx(0.4 + (0.1 - 1 / 18))
    assert split_quality("wrs", d, w) == pytest.approx(-(0.4 + (0.1 - 1 / 18)))
    assert split_quality("nds", d, w) == pytest.approx(-0.4)
    assert split_quality("ds", d, w) == pytest.approx(-0.8)
    assert split_quality("ws", d, w) == pytest.approx(0.0)
    assert split_quality("ls", d, w) == pytest.approx(-2 * (0.5 - 5 / 90))
    assert split_quality("ews", d, w) == pytest.approx(1.0)
    assert split_quality("eds", d, w) == pytest.approx(-(0.1 * math.log2(0.1) + 0.9 * math.log2(0.9)))
    ss = min(0.5 / 0.1, 0.5 / 0.9) + min((1 / 18) / 0.1, (17 / 18) / 0.9)
    assert split_quality("ss", d, w) == pytest.approx(-ss)
    we = math.log2(0.5) + math.log2(17 / 18)
    assert split_quality("we", d, w) == pytest.approx(we)


def test_suitability_conditions_reject_splits():
    assert split_quality("wwls", [100, 0], [10, 0]) is None         # S1: a child with every descent
    assert split_quality("wwls", [10, 90], [1, 0]) is None          # S2: one win only
    assert split_quality("ws", [10, 90], [10, 0]) is None           # S3: a child with every win
    assert split_quality("ls", [10, 90], [10, 5]) is None           # S4: a child with every loss


# --- growth ---------------------------------------------------------------------------------------

def test_a_leaf_splits_once_it_has_seen_enough_descents_and_wins():
    b = Board(9)
    b.play(b.point(4, 4), BLACK)
    b.play(b.point(0, 0), WHITE)
    f = Forest(["sg"], "wwls", 50)
    take = np.ones(1, dtype=np.uint8)
    assert f.grow(b, BLACK, 4, 5, take) == 0                 # 78 descents, one win: S2 fails
    assert f.describe(0)[0] == "leaf"
    assert f.grow(b, BLACK, 4, 5, take) == 1
    assert f.describe(0)[0] != "leaf"
    f.finish()
    assert f.n_leaves[0] >= 2


def test_grown_trees_give_the_same_levels_for_either_colour():
    black = Board.from_ascii(CORNER)
    white = Board.from_ascii(CORNER.replace("X", "o").replace("O", "X").replace("o", "O"))
    f = Forest(["sg", "ig"], "wwls", 50)
    for _ in range(6):
        f.grow(black, BLACK, 1, 3, np.ones(2, dtype=np.uint8))
    f.finish()
    index = np.flatnonzero(black.legal_points(BLACK)).astype(np.int32)
    a = np.zeros((len(index), 2), dtype=np.int32)
    c = np.zeros((len(index), 2), dtype=np.int32)
    f.levels(black, BLACK, index, a)
    f.levels(white, WHITE, index, c)
    assert f.n_leaves.sum() > 2 and np.array_equal(a, c)


# --- MM with tree features ------------------------------------------------------------------------

def test_mm_recovers_known_leaf_gammas():
    prior = DTreePrior(DTreeHyperparameters(n_trees=1, systems=("sg",), groups=("capture", "trees")))
    f = Forest(["sg"])
    first = f.set_node(0, "size", a=0, rel="<", val=3)
    f.set_node(first, "libs", a=0, rel="<", val=2)
    f.finish()                                               # 3 leaves
    prior.forest_ = f
    prior.finish_growth()
    counts = prior.level_counts_
    capture, tree_col = features.GROUPS.index("capture"), len(features.GROUPS)
    truth_capture = np.array([1.0, 4.0, 0.5, 2.0, 1.0, 8.0, 0.25])
    truth_tree = np.array([1.0, 0.2, 3.0, 1.5])
    rng = np.random.default_rng(3)
    builder = CompetitionBuilder(counts)
    for _ in range(3000):
        levels = np.zeros((40, len(counts)), dtype=np.int32)
        levels[:, capture] = rng.integers(0, 7, 40)
        levels[:, tree_col] = rng.integers(1, 4, 40)
        gamma = truth_capture[levels[:, capture]] * truth_tree[levels[:, tree_col]]
        builder.add(levels, int(rng.choice(40, p=gamma / gamma.sum())))
    prior.fit_competitions(builder.build())
    o = prior._offsets
    fitted = np.r_[prior.gammas_[o[capture] + 1:o[capture] + 7], prior.gammas_[o[tree_col] + 1:o[tree_col] + 4]]
    truth = np.r_[truth_capture[1:], truth_tree[1:]]
    # Leaf gammas are relative (every move has a leaf): compare them after fixing their scale.
    fitted[6:] *= truth[6] / fitted[6]
    assert np.corrcoef(np.log(fitted), np.log(truth))[0, 1] > 0.99
