"""The tactical solver: exact belief values, PP and PNS behaviour, capture goals on drawn positions,
pattern keys (Stern, Herbrich & Graepel 2007; acceptance tests of ../shared/specs/bayes-proof.md §6)."""
from __future__ import annotations

import math
import random
import tarfile
from fractions import Fraction

import numpy as np
import pytest

from engine import tactics
from engine.board import BLACK, PASS, WHITE, Board
from engine.tactics import Solver, TacticsParams, and_logodds, or_logodds, pattern_keys
from engine.tactics.leafpriors import make_leaf_prior
from tests.boards import board_from_ascii, vertex
from tests.positions import BREAKER, LADDER, NET

LOCAL = TacticsParams(move_gen="local", max_nodes=20_000)


# --- explicit AND/OR trees: nested lists, "T"/"F" terminals, [] a node without moves ---

def tree_arrays(tree, prior=0.0):
    """(first, count, value, prior) arrays of a nested tree, children contiguous (breadth first)."""
    first, count, value = [0], [0], [2]
    queue = [(tree, 0)]
    while queue:
        node, i = queue.pop(0)
        if isinstance(node, str):
            value[i] = 1 if node == "T" else 0
            continue
        first[i], count[i] = len(value), len(node)
        for child in node:
            queue.append((child, len(value)))
            first.append(0)
            count.append(0)
            value.append(2)
    priors = prior(len(value)) if callable(prior) else [prior] * len(value)
    return first, count, value, priors


def solver_for(tree, method="pp", root="or", prior=0.0, **kw):
    s = Solver(method, **kw)
    s.set_tree(*tree_arrays(tree, prior), root_kind=root)
    return s


def minimax(node, is_or):
    if isinstance(node, str):
        return node == "T"
    if not node:                     # no moves: the side to move loses (empty AND TRUE, empty OR FALSE)
        return not is_or
    values = [minimax(c, not is_or) for c in node]
    return any(values) if is_or else all(values)


def random_tree(rng, depth=0, max_depth=8):
    if depth == max_depth or rng.random() < 0.25:
        return rng.choice("TF")
    return [random_tree(rng, depth + 1, max_depth) for _ in range(rng.randint(0, 4))]


# --- 1. propagation: exact values ---

def test_or_and_of_two_even_children():
    assert or_logodds([0.0, 0.0]) == pytest.approx(math.log(3), abs=1e-15)
    assert and_logodds([0.0, 0.0]) == pytest.approx(-math.log(3), abs=1e-15)


def test_or_of_a_thousand_even_children_stays_finite_and_unknown():
    s = solver_for([["T"]] * 1000)
    s.develop_node(0)
    root = s.node(0)
    assert root["value"] == "U"
    assert root["logodds"] == pytest.approx(1000 * math.log(2), rel=1e-12)   # 693.147...
    assert math.isfinite(root["logodds"])
    s.check()


def test_search_does_not_stop_when_the_belief_rounds_to_one():
    s = solver_for([[["F"]]] * 60)      # 60 AND children, each with one unknown grandchild
    s.develop_node(0)
    assert s.node(0)["logodds"] == pytest.approx(60 * math.log(2), rel=1e-12)   # 41.589
    assert s.root_belief == 1.0          # the float probability says "proved" ...
    assert s.value == "U"
    assert s.step() >= 0                 # ... but the search goes on
    assert s.run(10_000) == "F"          # every grandchild is FALSE
    s.check()


def test_logodds_agree_with_exact_probabilities():
    rng = random.Random(3)
    for _ in range(300):
        ps = [Fraction(rng.randint(1, 99), 100) for _ in range(rng.randint(1, 6))]
        p_and = math.prod(ps)
        p_or = 1 - math.prod(1 - p for p in ps)
        ls = [math.log(p / (1 - p)) for p in ps]
        assert and_logodds(ls) == pytest.approx(math.log(p_and / (1 - p_and)), abs=1e-12)
        if p_or < 1:
            assert or_logodds(ls) == pytest.approx(math.log(p_or / (1 - p_or)), abs=1e-12)


def test_solved_children_give_infinite_logodds():
    assert and_logodds([math.inf, 0.0]) == 0.0
    assert and_logodds([-math.inf, 5.0]) == -math.inf
    assert or_logodds([math.inf, -5.0]) == math.inf
    assert or_logodds([-math.inf, -math.inf]) == -math.inf
    # every child within e^-800 of 1: still finite and ordered, no underflow to +inf
    assert and_logodds([800.0, 800.0]) == pytest.approx(800 - math.log(2), rel=1e-12)
    assert or_logodds([-800.0, -800.0]) == pytest.approx(-800 + math.log(2), rel=1e-12)


# --- 2, 3, 4: consistency, selection, correctness against minimax ---

def assert_selection_invariant(s: Solver) -> None:
    leaf = s.select_leaf()
    node = s.node(leaf)
    assert node["value"] == "U" and not node["developed"], node
    while node["parent"] >= 0:
        node = s.node(node["parent"])
        assert node["value"] == "U"


@pytest.mark.parametrize("method", ["pp", "pns"])
def test_consistency_and_selection_after_every_iteration(method):
    rng = random.Random(11)
    for _ in range(40):
        tree = random_tree(rng)
        if isinstance(tree, str):
            continue
        s = solver_for(tree, method, prior=lambda n: [rng.gauss(0, 2) for _ in range(n)])
        while s.value == "U":
            assert_selection_invariant(s)
            s.step()
            s.check()
    b = board_from_ascii(LADDER)
    s = Solver(method)
    s.set_capture(b, vertex(b, "D4"), move_gen="local")
    while s.value == "U":
        assert_selection_invariant(s)
        s.step()
        s.check()
    assert s.value == "T"


@pytest.mark.parametrize("method", ["pp", "pns"])
def test_random_trees_match_minimax(method):
    rng = random.Random(2024)
    n_checked = 0
    for _ in range(10_000):
        tree = random_tree(rng)
        if isinstance(tree, str):
            continue
        root_or = rng.random() < 0.5
        priors = (lambda n: [rng.gauss(0, 2) for _ in range(n)]) if method == "pp" else 0.0
        s = solver_for(tree, method, "or" if root_or else "and", priors, max_depth=50)
        assert s.run(10 ** 6) == ("T" if minimax(tree, root_or) else "F")
        n_checked += 1
    assert n_checked > 7000


def test_empty_node_convention():
    # G2: a defender without moves has lost (TRUE), an attacker without moves has failed (FALSE)
    assert solver_for([[]]).run() == "T"
    assert solver_for([[[]]]).run() == "F"
    assert solver_for([]).run() == "F"
    assert solver_for([], root="and").run() == "T"
    # the paper's literal text swaps them
    assert solver_for([[]], empty_and_true=False).run() == "F"


# --- 5. PNS reference numbers ---

def test_proof_and_disproof_numbers_by_hand():
    # root OR -> a: AND(T, leaf, leaf), b: AND(leaf), c: AND(F, leaf)
    tree = [["T", [["T"]], [["T"]]], [[["F"]]], ["F", [["T"]]]]
    s = solver_for(tree, "pns")
    s.develop_node(0)
    for child in s.children(0):
        s.develop_node(child["index"])
    a, b, c = s.children(0)
    assert (a["pn"], a["dn"]) == (2, 1)          # sum of 0 + 1 + 1; min of (inf, 1, 1)
    assert (b["pn"], b["dn"]) == (1, 1)
    assert (c["value"], c["pn"], c["dn"]) == ("F", math.inf, 0)
    root = s.node(0)
    assert (root["pn"], root["dn"]) == (1, 2)    # min(2, 1, inf); 1 + 1 + 0
    assert s.select_leaf() == b["first_child"]   # the most-proving node lies under b


# --- 6. mobility ---

def test_mobility_pp_prefers_the_or_node_with_more_children():
    # root OR -> two AND nodes, each with one OR grandchild of 1 (first) vs 3 (second) unknown leaves
    tree = [[[[["T"]]]], [[[["T"]], [["T"]], [["T"]]]]]
    pp, pns = solver_for(tree, "pp"), solver_for(tree, "pns")
    for s in (pp, pns):
        for n in range(5):                       # develop the root, both ANDs and both grandchildren
            s.develop_node(n)
    first, second = pp.children(0)
    assert first["p"] == pytest.approx(0.5) and second["p"] == pytest.approx(0.875)
    assert pp.select_leaf() in range(6, 9)       # a leaf under the second grandchild
    first, second = pns.children(0)
    assert first["pn"] == second["pn"] == 1      # PNS ties ...
    assert pns.select_leaf() == 5                # ... and takes the first


@pytest.mark.parametrize("root", ["or", "and"])
def test_pp_descends_into_the_first_of_equally_good_children(root):
    # ties at every position, odd and even numbers of children: the highest log-odds under an OR node,
    # the lowest under an AND node, the first among equals
    rng = random.Random(7)
    for _ in range(200):
        k = rng.randint(1, 9)
        logodds = [float(rng.choice([-2, -1, 0, 1, 2])) for _ in range(k)]
        s = solver_for([[["T"]]] * k, "pp", root=root, prior=lambda n: [0.0] + logodds + [0.0] * (n - 1 - k))
        s.develop_node(0)
        want = max(logodds) if root == "or" else min(logodds)
        assert s.select_leaf() == 1 + logodds.index(want), logodds
        assert s.best_child() == 1 + logodds.index(want), logodds

# --- 7. Go: ladder, net, snapback, throw-in, breaker ---

SNAPBACK = """
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    X X X X . . .
    O O O X . . .
    . . O X . . .
"""

THROW_IN = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . O O . . . . . .
    . . . O . . . . .
    X X X O X X X . .
    O O O X X O . . .
    . . . O O . . . .
"""


@pytest.mark.parametrize("method", ["pp", "pns"])
@pytest.mark.parametrize("diagram, goal, moves", [
    (LADDER, "D4", {"D5"}),                # the ladder runs to the top edge
    (NET, "E4", {"F5"}),                   # the net (geta): the ladder fails, F5 encloses
    (SNAPBACK, "A2", {"A1", "B1"}),        # either throw-in is retaken: the snapback
    (THROW_IN, "A2", {"B1"}),              # throw in at B1, then shortage of liberties
])
def test_tesuji_are_proved_with_a_correct_first_move(method, diagram, goal, moves):
    b = board_from_ascii(diagram)
    params = TacticsParams(method=method, move_gen="local", max_nodes=50_000)
    r = tactics.solve(b, vertex(b, goal), params=params)
    assert r.value == "T", r
    assert b._name(r.move) in moves
    code, move, _ = tactics.attack(b, vertex(b, goal), params)
    assert (code, move) == (1, r.move)


@pytest.mark.parametrize("method", ["pp", "pns"])
def test_ladder_with_a_breaker_fails_at_libs_plus_one(method):
    b = board_from_ascii(BREAKER)
    goal = vertex(b, "D4")
    params = TacticsParams(method=method, move_gen="local", l_max=b.liberties(goal) + 1)
    r = tactics.solve(b, goal, params=params)
    assert (r.value, r.libs_false) == ("F", 3)
    assert tactics.attack(b, goal, params)[:2] == (0, PASS)


def test_defend_answers():
    b = board_from_ascii(LADDER)
    goal = vertex(b, "D4")
    code, move, r = tactics.defend(b, goal, TacticsParams(move_gen="local", l_max=3))
    assert code == 1 and b._name(move) in {"D5", "E4"}    # moving first, the stone escapes
    b = board_from_ascii(SNAPBACK)
    assert tactics.defend(b, vertex(b, "A2"), LOCAL)[:2] == (0, PASS)   # dead whatever White does


def test_wider_defender_generators_keep_the_answers():
    b = board_from_ascii(LADDER)
    for params in (TacticsParams(move_gen="local", counter_slack=1),
                   TacticsParams(move_gen="local", defender_reach=2, l_max=3)):
        r = tactics.solve(b, vertex(b, "D4"), params=params)
        assert r.value == "T" and b._name(r.move) == "D5"
    s = Solver("pns")
    s.set_capture(b, vertex(b, "D4"), attack=False, libs_false=9, move_gen="local")
    s.develop_node(0)
    narrow = {c["move"] for c in s.children(0)}
    s.set_capture(b, vertex(b, "D4"), attack=False, libs_false=9, move_gen="local", defender_reach=2)
    s.develop_node(0)
    wide = {c["move"] for c in s.children(0)}
    # liberties and second-order liberties; then also the points behind the black stones
    assert narrow == {vertex(b, v) for v in ("D5", "E4", "C5", "D6", "E5", "F4")}
    assert wide - narrow == {vertex(b, v) for v in ("B4", "C3", "D2")}


# White to capture G1 (libs G3, J1). The white block H2 has three liberties, two of them (G3, J1) shared
# with the goal. White must first save F1 (E1, else Black captures it and escapes); Black then fills J3,
# the one liberty of H2 it does not share, and the race is a seki: whoever fills G3 or J1 is captured.
SEKI_RACE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    O O O O X X X X X
    . . . O O O X X X
    . . . . O X O O X
    . . . . O X . O .
    . . . . O X X O O
    . . . . . O X X .
"""


@pytest.mark.parametrize("method", ["pp", "pns"])
def test_local_generator_lets_the_defender_fill_an_outside_liberty(method):
    # The local generator used to leave J3 out (H2 has more liberties than the goal) and prove a
    # capture by E1 that is not there.
    b = board_from_ascii(SEKI_RACE, to_play=WHITE)
    goal = vertex(b, "G1")
    params = TacticsParams(method=method, move_gen="local", l_max=3)
    assert tactics.solve(b, goal, params=params).value == "F"
    assert tactics.attack(b, goal, params)[:2] == (0, PASS)
    b.play(vertex(b, "E1"), WHITE)
    s = Solver(method)
    s.set_capture(b, goal, attack=False, libs_false=3, move_gen="local")
    s.develop_node(0)
    assert vertex(b, "J3") in {c["move"] for c in s.children(0)}
    code, move, _ = tactics.defend(b, goal, params)
    assert (code, b._name(move)) == (1, "J3")


# The white goal A3 has two liberties, A2 and B1, that Black cannot fill without a self-atari; the black
# block D4 around it has three liberties (E1, E2, E3).
EYE_RACE = """
    . . . . . . .
    . . . . . . .
    O O O O O O .
    X X X X O O .
    O O O X . O .
    . O O X . O .
    . . O X . O .
"""


def test_local_generator_counts_goal_liberties_the_attacker_cannot_fill():
    # In the race a liberty the attacker cannot fill at once is worth two, so the defender may fill the
    # liberties of a block with more liberties than the goal has; the attacker's moves are unchanged.
    b = board_from_ascii(EYE_RACE)
    goal = vertex(b, "A3")
    moves = {}
    for attack in (True, False):
        s = Solver("pp")
        s.set_capture(b, goal, attack=attack, libs_false=3, move_gen="local")
        s.develop_node(0)
        moves[attack] = {b._name(c["move"]) for c in s.children(0)}
    assert moves[True] == {"A1", "A2", "B1"}
    assert moves[False] == {"A1", "A2", "B1", "E1", "E2", "E3"}


# The white goal A5 (liberties A3, B4) is next to the white block B3 (four liberties: A3, B4, B2, C2)
# at both of its liberties; White saves it with B2, a liberty of that block (GnuGo's reading.tst 115).
CORNER_RACE = """
    X O O . X . O O .
    X O . O . O . O X
    X X O O X O O X X
    X X X O X O X X X
    O O X X X X X O O
    O . O X . X O . O
    . O O X . X O O .
    X . . X . X . . X
    . O X X . X X O O
"""


@pytest.mark.parametrize("method", ["pp", "pns"])
def test_local_generator_extends_the_goal_through_a_block_with_four_liberties(method):
    # The goal's superstring took in defender blocks of up to three liberties, so B2 (a liberty of the
    # four-liberty block B3) was not generated and the defence was "proved" impossible.
    b = board_from_ascii(CORNER_RACE)
    goal = vertex(b, "A5")
    s = Solver(method)
    s.set_capture(b, goal, attack=False, libs_false=3, move_gen="local")
    s.develop_node(0)
    assert vertex(b, "B2") in {c["move"] for c in s.children(0)}
    params = TacticsParams(method=method, move_gen="local", l_max=5, max_depth=60, counter_slack=1,
                           max_nodes=20_000)
    code, move, _ = tactics.defend(b, goal, params)
    assert (code, b._name(move)) == (1, "B2")


# Black to capture C9 (liberties D8, E9). The white block E8 next to both liberties is in a race with
# the black stone F7, which Black F8 extends (three liberties: G7, G8, F9); White wins the race by G8
# (GnuGo's reading.tst 161: no capture).
OUTSIDE_RACE = """
    . X O O . . . . .
    . X O . O . . . .
    . X X O O X . O .
    . . X X X O O O .
    . . . . X X O . .
    . . . . . X O . .
    . . . . . X O . .
    . . . . . X O . .
    . . . . . X O . .
"""


@pytest.mark.parametrize("method", ["pp", "pns"])
def test_local_generator_lets_the_defender_attack_a_block_next_to_its_superstring(method):
    # The defender's counter-attacks took only attacker blocks next to the goal, or in atari next to
    # the superstring, so after F8 White could not fill G8 and the race was "won" by Black.
    b = board_from_ascii(OUTSIDE_RACE)
    goal = vertex(b, "C9")
    s = Solver(method)
    s.set_capture(b, goal, attack=True, libs_false=3, move_gen="local")
    s.develop_node(0)
    f8 = [c for c in s.children(0) if c["move"] == vertex(b, "F8")]
    assert len(f8) == 1
    s.develop_node(f8[0]["index"])
    assert vertex(b, "G8") in {c["move"] for c in s.children(f8[0]["index"])}
    params = TacticsParams(method=method, move_gen="local", l_max=5, max_depth=60, counter_slack=1,
                           max_nodes=20_000)
    assert tactics.attack(b, goal, params)[:2] == (0, PASS)


# White to capture J7 (libs J6, J9). After G9 the black block and the white block around it share those
# two liberties and have no other: a seki, where whoever fills one is captured.
SEKI = """
    . . . X O O . O .
    X . X . X O O X X
    . X X X X X O O X
    O O X O O X O O .
    X O O O O O X O O
    . X X O X O X X X
    X . . O X X X . X
    X X X O O O O O X
    O O X X X X X X .
"""


@pytest.mark.parametrize("method", ["pp", "pns"])
def test_a_block_in_seki_is_not_captured(method):
    # Without a pass the defender must fill a shared liberty after G9 and the block is "captured".
    b = board_from_ascii(SEKI, to_play=WHITE)
    goal = vertex(b, "J7")
    params = TacticsParams(method=method, move_gen="local", l_max=3)
    r = tactics.solve(b, goal, params=params)
    assert r.value == "F"
    assert tactics.attack(b, goal, params)[:2] == (0, PASS)
    forced = tactics.solve(b, goal, params=TacticsParams(method=method, move_gen="local", l_max=3,
                                                         defender_pass=False))
    assert (forced.value, b._name(forced.move)) == ("T", "G9")
    b.play(vertex(b, "G9"), WHITE)
    code, move, _ = tactics.defend(b, goal, params)
    assert (code, move) == (1, PASS)          # nothing to do: any local move loses


def test_a_pass_has_one_pattern_stack_per_role():
    b = board_from_ascii(SEKI, to_play=WHITE)
    s = Solver("pp")
    s.set_capture(b, vertex(b, "J7"), attack=False, libs_false=3, move_gen="local", defender_pass=True)
    s.develop_node(0)
    assert s.children(0)[-1]["move"] == PASS and s.children(0)[-1]["value"] == "U"
    here = tactics.pattern_keys(b, PASS, vertex(b, "J7"), role=1)
    elsewhere = tactics.pattern_keys(board_from_ascii(LADDER), PASS, vertex(board_from_ascii(LADDER), "D4"), role=1)
    assert here.tolist() == elsewhere.tolist()
    assert here.tolist() != tactics.pattern_keys(b, PASS, vertex(b, "J7"), role=0).tolist()


def test_region_generator_solves_the_snapback():
    b = board_from_ascii(SNAPBACK)
    for method in ("pp", "pns"):
        r = tactics.solve(b, vertex(b, "A2"), params=TacticsParams(method=method, move_gen="region"))
        assert r.value == "T" and b._name(r.move) in {"A1", "B1"}


def test_last_search_gives_the_tree_of_the_result():
    b = board_from_ascii(LADDER)
    goal = vertex(b, "D4")
    for params in (LOCAL, TacticsParams(method="pns", move_gen="local", l_max=5)):
        r = tactics.solve(b, goal, params=params)
        s = tactics.last_search(b, goal, r, params)
        assert s.n_developed == r.developed_last
        assert s.node(s.best_child())["move"] == r.move and s.node(0)["value"] == r.value


def test_attacker_colour_and_side_to_move_do_not_matter():
    # the same ladder with colours swapped and White to move in the game
    text = LADDER.replace("X", "x").replace("O", "X").replace("x", "O")
    b = board_from_ascii(text, to_play=BLACK)
    r = tactics.solve(b, vertex(b, "D4"), params=LOCAL)
    assert r.value == "T" and b._name(r.move) == "D5"


def test_capture_goal_budget_depth_and_errors():
    b = board_from_ascii(LADDER)
    goal = vertex(b, "D4")
    r = tactics.solve(b, goal, params=TacticsParams(move_gen="local", max_nodes=5))
    assert (r.value, r.developed) == ("U", 5)
    r = tactics.solve(b, goal, params=TacticsParams(move_gen="local", max_depth=4, l_max=3))
    assert r.value == "F"                        # the ladder needs more than 4 plies
    with pytest.raises(ValueError, match="stone"):
        tactics.solve(b, vertex(b, "A1"), params=LOCAL)
    with pytest.raises(ValueError, match="move_gen"):
        TacticsParams(move_gen="everywhere")
    with pytest.raises(ValueError, match="max_nodes"):
        TacticsParams(max_nodes=0)
    with pytest.raises(ValueError, match="defender_reach"):
        TacticsParams(defender_reach=3)
    with pytest.raises(ValueError, match="counter_slack"):
        TacticsParams(counter_slack=-1)
    with pytest.raises(ValueError, match="no problem"):
        Solver("pp").run()
    with pytest.raises(ValueError, match="method"):
        Solver("alphabeta")


def test_a_string_with_many_liberties_is_not_attacked():
    b = board_from_ascii(LADDER)
    r = tactics.solve(b, vertex(b, "C4"), params=TacticsParams(move_gen="local", l_start=3, l_max=3))
    assert (r.value, r.developed) == ("F", 0)    # C4 has 4 liberties >= L = 3: FALSE at the root


def test_a_book_problem_is_solved(archive):
    # Lee Changho, Tesuji 2-5: Black to capture the two stones E1-E2 (shortage of liberties at D1)
    name = "2b. Lee Changho Tesuji/2. Snapback And Shortage Of Liberties/2-5.sgf"
    with tarfile.open(archive("tsumego.tar.xz")) as tar:
        data = tar.extractfile(name).read()
    from sgfmill import sgf
    root = sgf.Sgf_game.from_bytes(data).get_root()
    b = Board(19, 0)
    black, white, _ = root.get_setup_stones()
    b.setup([b.point(*p) for p in black], [b.point(*p) for p in white])
    # The book plays D1; D2 works too (White D1 takes it, Black B1 and White is short of liberties),
    # and the local generator finds it since it has the liberties of White's C3 block (B1).
    for method in ("pp", "pns"):
        r = tactics.solve(b, vertex(b, "E2"), params=TacticsParams(method=method, move_gen="local"))
        assert r.value == "T" and b._name(r.move) in ("D1", "D2")


# --- 8. patterns ---

def test_template_sizes():
    sizes = np.cumsum([len(ring) for ring in tactics.TEMPLATE_RINGS])
    assert sizes.tolist() == [1, 5, 9, 13, 21, 25, 29, 37]
    offsets = [o for ring in tactics.TEMPLATE_RINGS for o in ring]
    assert len(set(offsets)) == 37
    for i, ring in enumerate(tactics.TEMPLATE_RINGS):     # each ring is closed under the 8 symmetries
        s = set(ring)
        assert s == {(-x, y) for x, y in s} == {(x, -y) for x, y in s} == {(y, x) for x, y in s}, i


def transforms(text: str):
    a = np.array(grid_of(text))
    for k in range(4):
        r = np.rot90(a, k)
        yield r
        yield r[:, ::-1]


PATTERN_POSITION = """
    . . . . . . .
    . . X . . . .
    . g O X . . .
    . X a . . . .
    . . O X . . .
    . . . . . . .
    . . . . . . .
"""


def keys_of(grid, role=0, swap=False, mark_block=True):
    """Pattern keys of the move `a`, the goal block being the stone `g` and its block (White, or Black
    with swap=True, which also swaps every other stone)."""
    table = {"a": ".", "g": "O", "X": "X", "O": "O", ".": "."}
    if swap:
        table.update({"g": "X", "X": "O", "O": "X"})
    n = len(grid)
    b = Board.from_ascii("\n".join(" ".join(table[c] for c in row) for row in grid))
    find = lambda ch: next(b.point(n - 1 - r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v == ch)
    return pattern_keys(b, find("a"), find("g"), role=role, mark_block=mark_block)


def grid_of(text):
    return [r.split() for r in text.strip().splitlines()]


def test_pattern_keys_are_invariant_under_the_8_symmetries():
    keys = [keys_of(g.tolist()) for g in transforms(PATTERN_POSITION)]
    assert len(keys) == 8
    for k in keys[1:]:
        assert k.tolist() == keys[0].tolist()


def test_pattern_keys_use_roles_not_colours():
    grid = grid_of(PATTERN_POSITION)
    assert keys_of(grid).tolist() == keys_of(grid, swap=True).tolist()
    # the mover's role is part of every key
    assert not set(keys_of(grid, 0).tolist()) & set(keys_of(grid, 1).tolist())


def test_pattern_keys_nest():
    grid = grid_of(PATTERN_POSITION)
    base = keys_of(grid)
    assert len(set(base.tolist())) == 8
    far = [row[:] for row in grid]
    far[3][5] = "X"                 # (dx, dy) = (3, 0) from the move: in T_5 and up only
    k = keys_of(far)
    assert k[:5].tolist() == base[:5].tolist() and k[5:].tolist() != base[5:].tolist()


def test_off_board_differs_from_empty():
    edge = grid_of("""
        a X . . .
        X g . . .
        . . . . .
        . . . . .
        . . . . .
    """)
    inner = grid_of("""
        . . . . . . .
        . a X . . . .
        . X g . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """)
    a, b = keys_of(edge), keys_of(inner)
    assert a[0] == b[0] and a[1] != b[1]


def test_the_goal_block_is_marked():
    grid = grid_of("""
        . . . . .
        . g a . .
        . O . . .
        . . . . .
        . . . . .
    """)
    block, vertex_only = keys_of(grid), keys_of(grid, mark_block=False)
    # the stone below the goal vertex is goal with mark_block, a plain defender stone without
    assert block[:2].tolist() == vertex_only[:2].tolist() and block[2] != vertex_only[2]
    lone = grid_of("""
        . . . . .
        . g a . .
        . . . . .
        . . . . .
        . . . . .
    """)
    assert keys_of(lone).tolist() == keys_of(lone, mark_block=False).tolist()


# --- 11. determinism ---

@pytest.mark.parametrize("method", ["pp", "pns"])
def test_same_problem_same_nodes_and_move(method):
    b = board_from_ascii(NET)
    params = TacticsParams(method=method, move_gen="region", max_nodes=3000)
    runs = [tactics.solve(b.copy(), vertex(b, "E4"), params=params) for _ in range(2)]
    assert (runs[0].developed, runs[0].move, runs[0].value, runs[0].logodds) == \
        (runs[1].developed, runs[1].move, runs[1].value, runs[1].logodds)


@pytest.mark.parametrize("m", [2, 5, 30, 300, 1024])
def test_branching_leaf_priors_are_the_fixed_point_of_the_and_or_recursion(m):
    x = 1.0 / (1.0 + math.exp(-tactics.branching_logodds(m)))      # P(AND leaf) with m moves below
    p_or = 1.0 - (1.0 - x) ** m
    assert p_or ** m == pytest.approx(x, rel=1e-6) and 0.0 < x < 0.5
    assert tactics.branching_logodds(m) < tactics.branching_logodds(m - 1) <= 0.0


def test_branching_leaf_priors_stop_the_dive_in_a_wide_tree():
    # the fixed prior 0.5 makes a developed AND node near 0.5^m, a developed OR node near 1: PP keeps
    # descending into the node it developed last; priors from the branching need fewer nodes for the net
    b = board_from_ascii(NET)
    goal = vertex(b, "E4")
    fixed = tactics.solve(b, goal, params=TacticsParams(move_gen="region", max_nodes=20000))
    branching = tactics.solve(b, goal, params=TacticsParams(move_gen="region", max_nodes=20000, branching_weight=1.0))
    assert fixed.value == branching.value == "T" and branching.move == fixed.move
    assert branching.developed < fixed.developed / 2
    with pytest.raises(ValueError, match="branching_weight"):
        TacticsParams(branching_weight=-1.0)


@pytest.mark.parametrize("kernel", [True, False, None])
def test_depth_decay_lowers_each_leaf_by_its_depth(kernel):
    # a leaf d plies below the root has the log-odds it has without the decay, less d times the decay,
    # with the uniform prior (kernel None) and with a learned one through the kernel or its Python path
    b = board_from_ascii(NET)
    model = None
    if kernel is not None:
        model = make_leaf_prior("hier")
        trained_on = board_from_ascii(LADDER)
        tactics.solve(trained_on, vertex(trained_on, "D4"), params=TacticsParams(move_gen="local"), prior=model,
                      learn=True)
    plain = Solver("pp", prior=model, keep_keys=True, branching_weight=1.0)
    decayed = Solver("pp", prior=model, keep_keys=True, kernel=bool(kernel), branching_weight=1.0, depth_decay=0.75)
    for s in (plain, decayed):
        s.set_capture(b, vertex(b, "E4"), move_gen="region")
        s.develop_node(0)
        s.develop_node(s.children(0)[0]["index"])
    for depth, parent in ((1, 0), (2, plain.children(0)[0]["index"])):
        leaves = [c for c in plain.children(parent) if c["value"] == "U" and not c["developed"]]
        got = {c["index"]: c["logodds"] for c in decayed.children(parent)}
        assert len(leaves) > 10
        assert [got[c["index"]] for c in leaves] == pytest.approx([c["logodds"] - 0.75 * depth for c in leaves],
                                                                 abs=1e-12)
    net = tactics.solve(b, vertex(b, "E4"), params=TacticsParams(move_gen="region", depth_decay=1.0))
    assert net.value == "T" and net.move == vertex(b, "F5")
    with pytest.raises(ValueError, match="depth_decay"):
        TacticsParams(depth_decay=-0.5)


@pytest.mark.parametrize("kernel", [True, False])
@pytest.mark.parametrize("weight", [0.5, 1.0])
def test_branching_leaf_priors_add_to_a_learned_prior(kernel, weight):
    # every UNKNOWN child's log-odds is the model's plus weight * branching_logodds(UNKNOWN children),
    # negated below an OR node, through the kernel and through the model's Python path alike
    b = board_from_ascii(NET)
    model = make_leaf_prior("hier")
    for picture, goal in ((LADDER, "D4"), (NET, "E4")):
        trained_on = board_from_ascii(picture)
        tactics.solve(trained_on, vertex(trained_on, goal), params=TacticsParams(move_gen="local"), prior=model,
                      learn=True)
    plain = Solver("pp", prior=model, keep_keys=True)
    shifted = Solver("pp", prior=model, keep_keys=True, kernel=kernel, branching_weight=weight)
    for s in (plain, shifted):
        s.set_capture(b, vertex(b, "E4"), move_gen="region")
        s.develop_node(0)
        s.develop_node(s.children(0)[0]["index"])
    for parent in (0, plain.children(0)[0]["index"]):
        unknown = [c for c in plain.children(parent) if c["value"] == "U"]
        offset = weight * tactics.branching_logodds(len(unknown)) * (1 if parent == 0 else -1)
        assert len(unknown) > 10 and len({c["logodds"] for c in unknown}) > 3
        leaves = [c for c in unknown if not c["developed"]]
        got = {c["index"]: c["logodds"] for c in shifted.children(parent)}
        assert [got[c["index"]] for c in leaves] == pytest.approx([c["logodds"] + offset for c in leaves], abs=1e-12)
