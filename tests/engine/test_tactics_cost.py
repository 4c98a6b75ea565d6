"""The solver's bookkeeping for speed changes no search: the best child each node keeps is the one a
full scan of its children finds, and a solver that inherits a freed solver's node array searches as
a fresh one does."""
from __future__ import annotations

import pytest

from engine import tactics
from engine.tactics import Solver, TacticsParams
from engine.tactics.leafpriors import HierGaussPrior
from tests.boards import board_from_ascii, vertex
from tests.positions import BREAKER, LADDER, NET


def scanned_leaf(s: Solver, method: str) -> int:
    """Alg. 1 (PP) or the most-proving node (PNS) by a scan of the children, the first among equals."""
    n = 0
    while s.node(n)["developed"] and s.node(n)["n_children"] > 0:
        kids = s.children(n)
        is_or = s.node(n)["kind"] == "or"
        if method == "pp":
            key = (lambda c: -c["logodds"]) if is_or else (lambda c: c["logodds"])
        else:
            key = (lambda c: c["pn"]) if is_or else (lambda c: c["dn"])
        best = kids[0]
        for c in kids[1:]:
            if key(c) < key(best):
                best = c
        n = best["index"]
    return n


@pytest.mark.parametrize("method", ["pp", "pns"])
def test_the_kept_best_child_is_the_scanned_one(method):
    b = board_from_ascii(NET)
    s = Solver(method)
    s.set_capture(b, vertex(b, "E4"), move_gen="region", margin=9)
    steps = 0
    while s.value == "U" and steps < 150:
        assert s.select_leaf() == scanned_leaf(s, method)
        s.step()
        steps += 1
    assert steps > 20


def results(prior=None, keep=False):
    out = []
    for picture, goal in ((LADDER, "D4"), (NET, "E4"), (BREAKER, "D4")):
        b = board_from_ascii(picture)
        s = Solver("pp", prior=prior, keep_keys=keep)
        s.set_capture(b, vertex(b, goal), move_gen="region", margin=9)
        out.append((s.run(2_000), s.n_developed, s.n_nodes, s.root_logodds, s.best_child(),
                    s.observations()[0].tolist() if keep else None))
        del s                            # its node array passes to the next solver
    return out


def test_solvers_that_inherit_a_node_array_search_as_fresh_ones():
    first = results()
    assert results() == first
    assert results(keep=True)[0][:5] == first[0][:5]      # keys allocated beside an inherited array
    assert results(keep=True) == results(keep=True)
    prior = HierGaussPrior()
    for picture, goal in ((LADDER, "D4"), (NET, "E4")):
        b = board_from_ascii(picture)
        tactics.solve(b, vertex(b, goal), params=TacticsParams(move_gen="region", margin=9, max_nodes=2_000),
                      prior=prior, learn=True)
    assert results(prior) == results(prior)
