"""The capture problems the benchmarks solve, and their sources.

- The tesuji collections of `tsumego.tar.xz`: Black or White to play; the goal is the opponent block of
  2-3 liberties nearest the book's first move (`tsumego_problem`).
- GnuGo's `reading.tst` (in `gnugo_regression.tar.xz`): its parser (`read_tst`), the position each test
  is asked in (`tst_position`), and every `attack` test as a problem (`reading_problems`).
- `problem_key`: a problem up to the board's symmetries and the colours, so that `distinct_problems`
  drops the copies that other books hold and `heldout_split` keeps copies on one side of its split.
"""
from __future__ import annotations

import dataclasses
import hashlib
import random
import re
import tarfile
from pathlib import Path
from typing import Optional

from bench.regress import EXPECTED
from engine.board import BLACK, WHITE, Board
from engine.game import Game
from engine.coords import vertex_to_point

TESUJI_DIRS = ("2a. Tesuji/", "2b. Lee Changho Tesuji/", "2c. Great Tesuji Encyclopedia/")


@dataclasses.dataclass
class Problem:
    name: str
    board: Board
    goal: int                   # a stone of the block to capture
    answers: tuple = ()         # the book's (or the test's) first moves, points
    libs: int = 0


def tsumego_problem(name: str, data: bytes) -> Optional[Problem]:
    """A capture problem from a book problem, or None when no opponent block qualifies.

    The side to play is the attacker. The goal is the opponent block with 2 or 3 liberties nearest
    (Manhattan distance <= 2) to one of the accepted first moves; ties go to the larger block, then
    the lower point."""
    from sgfmill import sgf
    try:
        game = sgf.Sgf_game.from_bytes(data)
        root = game.get_root()
        board = Board(game.get_size(), 0.0)
        black, white, _ = root.get_setup_stones()
        board.setup([board.point(*p) for p in black], [board.point(*p) for p in white])
        firsts = []
        for child in root:
            color, move = child.get_move()
            if color and move:
                firsts.append((color, board.point(*move)))
    except (ValueError, KeyError, IndexError):
        return None
    if not firsts:
        return None
    to_play = root.get("PL").lower() if root.has_property("PL") else firsts[0][0]
    attacker = BLACK if to_play == "b" else WHITE
    answers = tuple(p for c, p in firsts if c == to_play)
    if not answers:
        return None
    best, seen = None, set()
    for p in board.points():
        if board.color_at(p) != 3 - attacker or p in seen:
            continue
        stones = board.group_stones(p)
        seen.update(stones)
        libs = board.liberties(p)
        if not 2 <= libs <= 3:
            continue
        dist = min(abs(a - c) + abs(b - d) for s in stones for (a, b) in [board.coords(s)]
                   for (c, d) in [board.coords(f) for f in answers])
        if dist <= 2:
            key = (dist, -len(stones), stones[0])
            if best is None or key < best[0]:
                best = (key, stones[0], libs)
    if best is None:
        return None
    board.to_play = attacker
    return Problem(name, board, best[1], answers, best[2])


def problem_key(problem: Problem) -> tuple:
    """The problem up to the board's 8 symmetries and the colours (attacker as Black): the collections
    share problems, and a copy in another book, turned or with the colours swapped, has the same key."""
    b, n = problem.board, problem.board.size
    attacker = b.to_play
    stones = [(b.coords(p), b.color_at(p) == attacker) for p in b.points() if b.color_at(p) in (BLACK, WHITE)]
    block = [b.coords(p) for p in b.group_stones(problem.goal)]

    def turned(t: int, r: int, c: int) -> tuple[int, int]:
        r, c = (n - 1 - r if t & 1 else r), (n - 1 - c if t & 2 else c)
        return (c, r) if t & 4 else (r, c)

    return min((n, tuple(sorted((turned(t, *rc), mine) for rc, mine in stones)),
                tuple(sorted(turned(t, *rc) for rc in block))) for t in range(8))


def distinct_problems(problems: list[Problem]) -> list[Problem]:
    """The problems without the ones whose problem_key an earlier one has."""
    seen, out = set(), []
    for p in problems:
        k = problem_key(p)
        if k not in seen:
            seen.add(k)
            out.append(p)
    return out


def heldout_split(problems: list[Problem], salt: str, every: int) -> tuple[list[Problem], list[Problem]]:
    """(choosing problems, held-out problems), in the problems' order: a problem is held out when the
    SHA-256 of "<salt>:<its problem_key>" is 0 modulo `every`. The rule reads the problem alone, so it
    does not move with the pool's size or order, and copies of a problem fall on the same side."""
    if every < 2:
        raise ValueError(f"every must be at least 2, got {every}")
    choosing, held_out = [], []
    for p in problems:
        digest = hashlib.sha256(f"{salt}:{problem_key(p)!r}".encode()).digest()
        (held_out if int.from_bytes(digest[:8], "big") % every == 0 else choosing).append(p)
    return choosing, held_out


def tsumego_problems(data_dir: Path, n: int, seed: int = 1) -> list[Problem]:
    """n capture problems from the tesuji collections, in a seeded random order of the files."""
    with tarfile.open(data_dir / "tsumego.tar.xz") as tar:
        members = sorted((m for m in tar if m.isfile() and m.name.startswith(TESUJI_DIRS)), key=lambda m: m.name)
        random.Random(seed).shuffle(members)
        out = []
        for m in members:
            p = tsumego_problem(m.name, tar.extractfile(m).read())
            if p is not None:
                out.append(p)
                if len(out) == n:
                    break
    return out


@dataclasses.dataclass
class TstCase:
    number: str
    command: str                # attack / defend
    vertex: str
    expected: str               # text inside the brackets
    expect_fail: bool           # marked with * (GnuGo itself is known to fail)
    sgf: str
    move_number: Optional[int]
    tries: tuple                # (color, vertex) played by trymove before the test


def read_tst(text: str) -> list[TstCase]:
    """The attack/defend tests of a GnuGo .tst file with the position each one is asked in."""
    cases, sgf_file, move_number, tries = [], None, None, []
    pending = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#?") and pending is not None:
            m = EXPECTED.match(line)
            if m:
                cases.append(dataclasses.replace(pending, expected=m.group(1), expect_fail="*" in m.group(2)))
            pending = None
            continue
        if not line or line.startswith("#"):
            continue
        tokens = line.split()
        number = tokens.pop(0) if tokens[0].isdigit() else None
        name = tokens[0]
        if name == "loadsgf":
            sgf_file = tokens[1]
            move_number = int(tokens[2]) if len(tokens) > 2 else None
            tries = []
        elif name == "trymove":
            tries.append((tokens[1], tokens[2]))
        elif name == "popgo":
            tries.pop()
        elif name in ("attack", "defend") and number is not None:
            pending = TstCase(number, name, tokens[1], "", False, sgf_file, move_number, tuple(tries))
    return cases


def tst_position(tar: tarfile.TarFile, case: TstCase) -> Board:
    game = Game()
    game.load_sgf(tar.extractfile("regression/" + case.sgf).read(), case.move_number)
    for color, v in case.tries:
        game.play(BLACK if color.lower().startswith("b") else WHITE, vertex_to_point(v, game.board.size))
    return game.board


def reading_problems(data_dir: Path) -> list[Problem]:
    """Every `attack` test of reading.tst as a capture problem (the expected moves as answers)."""
    out = []
    with tarfile.open(data_dir / "gnugo_regression.tar.xz") as tar:
        cases = read_tst(tar.extractfile("regression/reading.tst").read().decode())
        for case in cases:
            if case.command != "attack":
                continue
            board = tst_position(tar, case)
            goal = vertex_to_point(case.vertex, board.size)
            answers = tuple(vertex_to_point(v, board.size) for v in re.findall(r"[A-HJ-T][0-9]+", case.expected))
            out.append(Problem(f"reading.tst:{case.number}", board, goal, answers, board.liberties(goal)))
    return out
