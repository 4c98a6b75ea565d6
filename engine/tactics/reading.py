"""The GnuGo-facing reading API of the tactical solver: the paper's liberty loop (`solve`), GnuGo's
four-valued ko results (`solve_ko`, WIN, KO_A, KO_B, LOSE) and its `attack` / `defend`.

Python orchestrates here; every search runs in `engine.tactics.solver.Solver`.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from engine.board import BLACK, PASS, WHITE, Board
from engine.params import TacticsParams
from engine.tactics.solver import Solver


@dataclass
class Result:
    value: str                   # "T" captured, "F" safe at every L tried, "U" budget spent
    move: int                    # first move of the proof (or the search's choice), PASS if none
    developed: int               # developed nodes, summed over the liberty loop (paper's Fig. 4 count)
    developed_last: int          # ... in the last search alone
    generated: int               # nodes in the last tree
    logodds: float               # root log-odds of TRUE in the last search (PP)
    libs_false: int              # L of the last search
    seconds: float
    runs: list = field(default_factory=list)   # (L, value, developed) per search
    code: int = 0                # GnuGo's answer for the side asked: 1 WIN, 2 KO_A, 3 KO_B, 0 LOSE (solve:
                                 # 1 or 0 only; a spent budget counts as "not captured")
    ko: str = "none"             # the game whose search gave `move`: who could retake a ko at once
    ko_banned: tuple = (0, 0)    # ko retakes banned by simple ko, attacker's and defender's (last search)
    games: list = field(default_factory=list)  # solve_ko: (ko, value, developed) per game searched, and
                                               # ("board move", value, developed) for a pass's replacement


# GnuGo's reading results (its source's engine/liberty.h), as its GTP `attack` / `defend` print them
WIN = 1                          # success, whatever happens in any ko
KO_A = 2                         # success if the side wins a ko in which the other side must make the first threat
KO_B = 3                         # success if the side wins a ko in which it must make the first threat
LOSE = 0

_LEARN_MODES = (False, True, "all", "consistent", "priced", "consistent_priced")


def solve(position: Board, goal: int, *, attack: bool = True, params: TacticsParams = TacticsParams(),
          prior=None, learn=False, ko: str = "none", kernel: bool = True,
          learn_unsolved: bool = False) -> Result:
    """Can the block at `goal` be captured? attack=True: the attacker moves first; else the defender.
    ko: who may retake a ko at once ("none": simple ko binds both; see Solver.set_capture).

    Runs the paper's liberty loop: L starts at libs + 1 (or params.l_start) and grows by one after each
    FALSE, until TRUE, L > l_max, or the node budget is spent (then the value is "U", also after a
    FALSE at an L below l_max: the block reached L liberties, which does not make it safe). With
    learn=True (or "all") the prior's
    `observe(keys, roles, values)` is called with every solved node after each search that ends solved
    (the paper). learn="consistent" (ours) keeps a FALSE only from the last search: FALSE at L means
    "the defender reaches L liberties" and may turn TRUE at L + 1, while a TRUE (a capture) holds at
    every L. learn="priced" (ours) learns only from the nodes the prior priced (UNKNOWN when generated),
    the population it is asked about, not from moves the goal decided at once; "consistent_priced"
    does both. learn_unsolved=True (ours) also learns from a search that spent the budget (UNKNOWN):
    the nodes it did solve are facts as well; in the consistent modes only its TRUE nodes, since it
    did not end the loop solved. kernel=False prices the leaves through prior.logodds even if the prior
    has a C kernel (the same numbers, slower)."""
    if learn not in _LEARN_MODES:
        raise ValueError(f"learn must be one of {_LEARN_MODES}, got {learn!r}")
    if learn and (prior is None or not callable(getattr(prior, "observe", None))):
        raise ValueError("learn=True needs a prior with an observe(keys, roles, values) method")
    solver = Solver.for_params(params, prior, keep_keys=bool(learn), kernel=kernel)
    libs = position.liberties(goal) if position.color_at(goal) in (BLACK, WHITE) else 0
    L = params.l_start if params.l_start > 0 else libs + 1
    L = max(L, 1)
    runs = []
    total = 0
    seconds = 0.0
    value = "U"
    while True:
        solver.set_capture_params(position, goal, params, attack=attack, libs_false=L, ko=ko)
        value = solver.run(params.max_nodes - total, params.max_store)
        total += solver.n_developed
        seconds += solver.seconds
        runs.append((L, value, solver.n_developed))
        last = value != "F" or L >= params.l_max or total >= params.max_nodes
        if learn and (value != "U" or learn_unsolved):
            keys, roles, values = solver.observations(priced_only=learn in ("priced", "consistent_priced"))
            if learn in ("consistent", "consistent_priced") and (not last or value == "U"):
                keys, roles, values = keys[values], roles[values], values[values]
            if len(keys):
                prior.observe(keys, roles, values)
        if last:
            break
        L += 1
    if value == "F" and L < params.l_max:
        value = "U"                     # the budget ended the loop: the block reached L liberties, no more
    child = solver.best_child()
    move = solver.node(child)["move"] if child >= 0 else PASS
    code = WIN if (value == "T") == attack else LOSE
    return Result(value=value, move=move, developed=total, developed_last=solver.n_developed,
                  generated=solver.n_nodes, logodds=solver.root_logodds, libs_false=L, seconds=seconds,
                  runs=runs, code=code, ko=ko, ko_banned=solver.ko_banned)


def last_search(position: Board, goal: int, result: Result, params: TacticsParams = TacticsParams(), *,
                attack: bool = True, prior=None) -> Solver:
    """The last search of the liberty loop that gave `result` (solve's, with the same arguments), run
    again to the same node count, for its tree: solve keeps only the result."""
    solver = Solver.for_params(params, prior)
    solver.set_capture_params(position, goal, params, attack=attack, libs_false=result.libs_false, ko=result.ko)
    solver.run(max(1, result.developed_last), params.max_store)
    return solver


def solve_ko(position: Board, goal: int, *, attack: bool = True,
             params: TacticsParams = TacticsParams(), prior=None) -> Result:
    """GnuGo's four-valued reading result for the side asked (the attacker when attack=True, moving
    first, else the defender, moving first): WIN, KO_A, KO_B or LOSE in `code`.

    Two binary searches (`solve`) with at most params.max_nodes nodes between them. The first is the
    game where simple ko binds both sides (no ko threats). Success there is worth KO_A at least: the
    side has taken the ko first, the other side must find the first threat. Then:
    - success: WIN if the side still succeeds when the other side may retake kos at once (has
      threats enough), else KO_A;
    - failure: KO_B if the side succeeds when it may retake kos at once itself (it must make the first
      threat), else LOSE.
    A retake made that way (GnuGo's conditional ko capture) makes its side the "komaster": the other
    side may not take that ko back, and the komaster may take another ko only if it is nested (the
    captured stone diagonal to the last one). The second search is skipped when the first one met no
    ko retake of that side (it would be the same search). A spent budget counts as "not captured",
    except that KO_B, a success claimed through a ko, needs the second search to prove it. When the
    game that proved a success did so with a pass (the defender may pass; GnuGo's reading names the
    move that fights the ko), the rest of the budget looks for a board move that succeeds there too
    (`_board_move_instead_of_pass`); the pass stays when none is proved."""
    first = solve(position, goal, attack=attack, params=params, prior=prior)
    captured = first.value == "T"
    succeeded = captured == attack
    other = "defender" if captured else "attacker"      # the side whose ko retakes could change it
    games = [("none", first.value, first.developed)]
    second = first
    if first.ko_banned[0 if other == "attacker" else 1] > 0 and first.developed < params.max_nodes:
        rest = dataclasses.replace(params, max_nodes=params.max_nodes - first.developed)
        second = solve(position, goal, attack=attack, params=rest, prior=prior, ko=other)
        games.append((other, second.value, second.developed))
    again = (second.value == "T") == captured            # the second game has the first one's outcome
    if succeeded:
        code = WIN if again else KO_A
    else:
        # KO_B claims a success through a ko, so it needs the second game's proof: a defence that
        # spent the budget there (UNKNOWN) is no defence
        code = KO_B if second.value == ("T" if attack else "F") else LOSE
    # the move comes from the game that proved the code (a defence proved only against simple ko, or
    # the favourite of a search that ran out of nodes, comes from the first game)
    if code == LOSE:
        source, move = first, PASS
    elif code == KO_A or (code == WIN and not attack and second.value != "F"):
        source, move = first, first.move
    else:
        source, move = second, second.move
    spent = sum(n for _, _, n in games)
    if move == PASS and code != LOSE and spent < params.max_nodes:
        move, extra = _board_move_instead_of_pass(position, goal, attack, source, params, prior,
                                                  params.max_nodes - spent)
        games.append(("board move", ("T" if attack else "F") if move != PASS else "U", extra))
    return dataclasses.replace(first, move=move, developed=sum(n for _, _, n in games), code=code,
                               ko=source.ko, games=games,
                               seconds=first.seconds + (second.seconds if second is not first else 0.0))


def _board_move_instead_of_pass(position: Board, goal: int, attack: bool, source: Result, params: TacticsParams,
                                prior, budget: int, tries: int = 3) -> tuple:
    """(move, nodes): a board move that succeeds in the game where `source` succeeded with a pass (a
    side that may pass proves its first proof with it, while GnuGo's reading names the move that fights
    the ko). The search's root children other than the pass (its last search run again: solve keeps no
    tree), the side's favourites first, each checked from the position after it with the other side to
    move, `tries` at most, sharing what the budget has left. PASS when none is proved; the nodes count
    the search run again."""
    solver = last_search(position, goal, source, params, attack=attack, prior=prior)   # its tree, again
    mover = (BLACK + WHITE - position.color_at(goal)) if attack else position.color_at(goal)
    sign = -1.0 if attack else 1.0      # the attacker wants a high belief in the capture, the defender a low one
    children = [c for c in solver.children(0) if c["move"] != PASS and c["value"] != ("F" if attack else "T")]
    children.sort(key=lambda c: sign * c.get("p", 0.5))
    spent = solver.n_developed
    candidates = children[:tries]
    for k, c in enumerate(candidates):
        share = (budget - spent) // (len(candidates) - k)
        if share < 1:
            break
        after = position.copy()
        try:
            after.play(c["move"], mover)
        except ValueError:
            continue
        if after.color_at(goal) not in (BLACK, WHITE):
            return c["move"], spent     # the move itself captured the string
        r = solve(after, goal, attack=not attack, params=dataclasses.replace(params, max_nodes=share), prior=prior,
                  ko=source.ko)
        spent += r.developed
        if r.value == ("T" if attack else "F"):
            return c["move"], spent
    return PASS, spent


def attack(position: Board, goal: int, params: TacticsParams = TacticsParams(), prior=None):
    """GnuGo's `attack`: (code, move, result) with code 1 (WIN) if the attacker, moving first, captures
    the block at goal whatever happens in any ko, 2 (KO_A) or 3 (KO_B) if only through a ko (see
    solve_ko), else (0, PASS, result); a budget that runs out counts as no capture. With
    params.ko_results off, simple ko binds both sides and the code is 1 or 0."""
    r = solve_ko(position, goal, attack=True, params=params, prior=prior) if params.ko_results else \
        solve(position, goal, attack=True, params=params, prior=prior)
    return (r.code, r.move if r.code else PASS, r)


def defend(position: Board, goal: int, params: TacticsParams = TacticsParams(), prior=None):
    """GnuGo's `defend`: (0, PASS, result) if the attacker captures the block at goal even when the
    defender moves first (and wins every ko), else (code, move, result): code 1 (WIN), 2 (KO_A) or 3
    (KO_B, the defender must win a ko in which it makes the first threat), with the defender's move (a
    proved one when the search ended FALSE, the search's favourite when the budget ran out; PASS when
    the block needs no move: it already has l_max liberties, or passing is its proved defence, as in a
    seki)."""
    r = solve_ko(position, goal, attack=False, params=params, prior=prior) if params.ko_results else \
        solve(position, goal, attack=False, params=params, prior=prior)
    return (r.code, r.move if r.code else PASS, r)
