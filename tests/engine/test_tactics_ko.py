"""Ko results of the tactical solver (GnuGo's codes: 1 WIN, 2 KO_A, 3 KO_B, 0 LOSE) on drawn positions."""
from __future__ import annotations

import dataclasses

import pytest

from engine import tactics
from engine.board import PASS, WHITE
from engine.tactics import KO_A, KO_B, LOSE, WIN, TacticsParams
from tests.boards import board_from_ascii, vertex
from tests.positions import KO

PARAMS = TacticsParams(move_gen="local", l_max=3, max_nodes=20_000)

# Black B5 (on the edge) is in atari; it lives by taking the ko at C4 (capturing B4).
KO_DEFENCE = """
. X O . .
X O . O .
. X O . .
. . . . .
. . . . .
"""


def ko_just_taken(diagram: str, move: str):
    """The position after White's ko capture at `move`: Black may not retake at once."""
    b = board_from_ascii(diagram, to_play=WHITE)
    b.play(vertex(b, move), WHITE)
    assert b.ko_point != 0
    return b


def test_a_capture_by_a_ko_capture_is_ko_a():
    b = board_from_ascii(KO)
    code, move, r = tactics.attack(b, vertex(b, "B3"), PARAMS)
    assert (code, b._name(move)) == (KO_A, "C3")
    assert r.code == KO_A and r.value == "T"
    # captured when simple ko binds both sides, not when White may retake at once
    assert [(ko, value) for ko, value, _ in r.games] == [("none", "T"), ("defender", "F")]
    code, move, _ = tactics.defend(b, vertex(b, "B3"), PARAMS)
    assert (code, b._name(move)) == (WIN, "C3")           # White simply connects


def test_a_capture_that_needs_the_first_ko_threat_is_ko_b():
    b = ko_just_taken("""
        . . . . .
        . X O . .
        X . X O .
        . X O . .
        . . . . .
        """, "B3")                                         # White took C3; Black may not retake now
    assert b._name(b.ko_point) == "C3"
    code, move, r = tactics.attack(b, vertex(b, "B3"), PARAMS)
    assert (code, b._name(move)) == (KO_B, "C3")
    assert r.value == "F" and r.games[-1][:2] == ("attacker", "T")
    assert r.ko == "attacker"


def test_a_defence_by_taking_a_ko_is_ko_a():
    b = board_from_ascii(KO_DEFENCE)
    code, move, r = tactics.defend(b, vertex(b, "B5"), PARAMS)
    assert (code, b._name(move)) == (KO_A, "C4")
    assert [(ko, value) for ko, value, _ in r.games] == [("none", "F"), ("attacker", "T")]


def test_a_defence_that_needs_the_first_ko_threat_is_ko_b():
    b = ko_just_taken("""
        . X O . .
        X . X O .
        . X O . .
        . . . . .
        . . . . .
        """, "B4")
    code, move, r = tactics.defend(b, vertex(b, "B5"), PARAMS)
    assert (code, b._name(move)) == (KO_B, "C4")
    assert [(ko, value) for ko, value, _ in r.games] == [("none", "T"), ("defender", "F")]


def test_a_ko_defence_needs_a_proof_in_the_second_game():
    # With nodes for the first game (captured) but too few for the second one, no ko defence (KO_B)
    # is claimed: the string is lost as far as the search could prove.
    b = ko_just_taken("""
        . X O . .
        X . X O .
        . X O . .
        . . . . .
        . . . . .
        """, "B4")
    first = tactics.defend(b, vertex(b, "B5"), PARAMS)[2].games[0]
    assert first[:2] == ("none", "T")
    for extra in (1, 2, 3):
        params = dataclasses.replace(PARAMS, max_nodes=first[2] + extra)
        code, move, r = tactics.defend(b, vertex(b, "B5"), params)
        assert r.games[-1][:2] == ("defender", "U")
        assert (code, move) == (LOSE, PASS)


def test_a_liberty_loop_cut_by_the_budget_is_unknown():
    # One node proves that the defender reaches L = 2 liberties (by retaking the ko), which says
    # nothing of L = 3: the search is unfinished, not FALSE.
    b = ko_just_taken("""
        . X O . .
        X . X O .
        . X O . .
        . . . . .
        . . . . .
        """, "B4")
    r = tactics.solve(b, vertex(b, "B5"), attack=False, params=dataclasses.replace(PARAMS, max_nodes=1),
                      ko="defender")
    assert r.runs == [(2, "F", 1)]
    assert r.value == "U"


def test_an_unconditional_capture_is_still_win():
    b = board_from_ascii("""
        . . . . .
        . X X . .
        X O O . .
        . X X . .
        . . . . .
        """)
    code, move, r = tactics.attack(b, vertex(b, "B3"), PARAMS)
    assert (code, b._name(move)) == (WIN, "D3")
    assert r.games == [("none", "T", r.developed)]        # no ko met: one search only
    assert r.ko_banned == (0, 0)
    code, move, _ = tactics.defend(b, vertex(b, "B3"), PARAMS)
    assert (code, b._name(move)) == (WIN, "D3")


def test_a_lost_string_is_lose_with_pass():
    b = board_from_ascii("""
        . . . . .
        . X X . .
        X O O X .
        . X . X .
        . . X . .
        """)                                               # White C2 would be suicide
    code, move, r = tactics.defend(b, vertex(b, "B3"), PARAMS)
    assert (code, move, r.code) == (LOSE, PASS, LOSE)
    code, move, _ = tactics.attack(b, vertex(b, "B3"), PARAMS)
    assert (code, b._name(move)) == (WIN, "C2")


def test_ko_results_can_be_switched_off():
    b = board_from_ascii(KO)
    params = TacticsParams(move_gen="local", l_max=3, max_nodes=20_000, ko_results=False)
    code, move, r = tactics.attack(b, vertex(b, "B3"), params)
    assert (code, b._name(move)) == (WIN, "C3")            # simple ko for both: a plain capture
    b2 = ko_just_taken(KO_DEFENCE.replace("X O . O", "X . X O"), "B4")
    assert tactics.attack(b2, vertex(b2, "B5"), params)[0] in (WIN, LOSE)


@pytest.mark.parametrize("method", ["pp", "pns"])
def test_ko_results_are_deterministic(method):
    b = board_from_ascii(KO_DEFENCE)
    params = TacticsParams(method=method, move_gen="local", l_max=3, max_nodes=20_000)
    runs = [tactics.defend(b, vertex(b, "B5"), params) for _ in range(2)]
    assert runs[0][:2] == runs[1][:2]
    assert runs[0][2].developed == runs[1][2].developed and runs[0][2].games == runs[1][2].games


def test_the_komaster_may_not_lose_its_ko_and_the_search_ends():
    # Black may retake at once: after its retake at C3 White may never take that ko back, so the
    # ko-aware search ends (no endless retakes) and the solver's tree stays consistent.
    b = ko_just_taken("""
        . . . . .
        . X O . .
        X . X O .
        . X O . .
        . . . . .
        """, "B3")
    s = tactics.Solver("pp", max_depth=40)
    s.set_capture(b, vertex(b, "B3"), attack=True, libs_false=2, move_gen="local", ko="attacker")
    assert s.run(5000) == "T"
    s.check()
    s.set_capture(b, vertex(b, "B3"), attack=True, libs_false=2, move_gen="local", ko="none")
    assert s.run(5000) == "F"
    assert s.ko_banned[0] > 0                              # the banned retake was met
    with pytest.raises(ValueError):
        s.set_capture(b, vertex(b, "B3"), ko="both")
