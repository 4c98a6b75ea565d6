"""The node store: bump allocation within the bound, contiguous children, compaction of a subtree."""
import pytest

from engine.board import PASS
from engine.tree import Tree


def test_node_size_fits_a_million_nodes_in_well_under_a_gibibyte():
    assert Tree.bytes_per_node() <= 64
    assert Tree.bytes_per_node() * 1_000_000 < 2**30 // 10


def test_allocation_is_contiguous_and_respects_the_bound():
    tree = Tree(10)
    assert tree.max_nodes == 10
    assert tree.alloc(3) == 0
    assert tree.alloc(5) == 3
    assert tree.n_nodes() == 8
    assert tree.alloc(3) == -1          # only 2 left: refused, nothing taken
    assert tree.n_nodes() == 8
    assert tree.alloc(2) == 8
    assert tree.alloc(1) == -1
    assert tree.n_nodes() == 10
    tree.clear()
    assert tree.n_nodes() == 0
    assert tree.alloc(10) == 0


def test_fresh_nodes_are_empty_leaves():
    tree = Tree(4)
    first = tree.alloc(4)
    node = tree.node(first + 2)
    assert node["move"] == PASS and node["visits"] == 0 and node["n_children"] == 0
    assert node["first_child"] == -1 and node["wins"] == 0.0 and node["amaf_visits"] == 0.0


@pytest.mark.parametrize("bad", [0, -5, 2**31 - 1])
def test_absurd_bounds_are_refused(bad):
    with pytest.raises(ValueError, match="max_nodes"):
        Tree(bad)


def build_sample(tree: Tree) -> dict:
    """root(0) -> a b c; b -> d e; e -> f g h; plus garbage nodes. Returns name -> index."""
    root = tree.alloc(1)
    tree.alloc(2)                                     # garbage before the kept subtree
    a = tree.add_children(root, [10, 11, 12])
    b = a + 1
    d = tree.add_children(b, [20, 21])
    e = d + 1
    f = tree.add_children(e, [30, 31, PASS])
    tree.add_children(a, [40])                        # outside b's subtree
    for i, visits in ((b, 7), (d, 2), (e, 4), (f, 1), (f + 2, 3)):
        tree.set_stats(i, visits, visits / 2)
    return dict(root=root, a=a, b=b, d=d, e=e, f=f)


def test_subtree_size_counts_every_descendant():
    tree = Tree(100)
    n = build_sample(tree)
    assert tree.subtree_size(n["b"]) == 6
    assert tree.subtree_size(n["root"]) == 10
    assert tree.subtree_size(n["f"]) == 1


def test_compaction_keeps_the_subtree_contiguous_at_the_front():
    tree = Tree(100)
    n = build_sample(tree)
    before = tree.n_nodes()
    assert tree.compact(n["b"]) == 0
    assert tree.n_nodes() == 6 < before
    root = tree.node(0)
    assert root["move"] == 11 and root["visits"] == 7 and root["n_children"] == 2
    kids = tree.children(0)
    assert kids == [1, 2]
    assert [tree.node(i)["move"] for i in kids] == [20, 21]
    assert [tree.node(i)["visits"] for i in kids] == [2, 4]
    grandkids = tree.children(2)
    assert grandkids == [3, 4, 5]
    assert [tree.node(i)["move"] for i in grandkids] == [30, 31, PASS]
    assert [tree.node(i)["visits"] for i in grandkids] == [1, 0, 3]
    assert all(tree.children(i) == [] for i in (1, 3, 4, 5))
    # The freed space is usable again.
    assert tree.alloc(94) == 6
