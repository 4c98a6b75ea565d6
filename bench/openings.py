"""Balanced opening suites for paired games: build them, and load one with every move checked.

    python -m bench.openings [--size 19|9] [--count N] [--data DIR] [--playouts P] [--out FILE]

A suite is a text file, one opening a line as its moves in GTP vertices separated by spaces, Black
first; lines starting with `#` are comments (the header says how the suite was built, and
`# size N` gives the board). A match plays each opening twice, colours swapped, so that what the
opening gives one side cancels within the pair.

- 19x19 (`bench/openings/19x19.txt`): the first 8 to 20 moves (the count drawn per game) of games of
  the validation split of the shared archives (priors.training.dataset's split by game id: never the test split,
  on which the priors are measured, nor the training split, whose openings the priors learned).
- 9x9 (`bench/openings/9x9.txt`): the archives hold no 9x9 games, so the moves are the default engine's
  own, 4 to 8 of them, each drawn among the prior's 5 most likely moves off the edge, in proportion to
  its probability.

Positions are kept once (a position and its 7 mirror images count as one), and only where the default
engine judges them balanced: the win rate of the side to move, after a fixed number of playouts of
its search (one thread, fixed seed) at the match komi, lies in the window (default [0.4, 0.6]).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from bench.records import git_state
from engine.board import BLACK, PASS, WHITE, Board, IllegalMove
from engine.builder import build_search, load_move_prior
from engine.config import ConfigError, load_config
from engine.coords import VertexError, point_to_vertex, vertex_to_point
from engine.game import Game
from engine.params import EngineParams
from priors.base import load_prior
from priors.training.dataset import DEFAULT_ARCHIVES, DataError, GameDataset, GameError, replay

SUITES = Path(__file__).resolve().parent / "openings"
KOMI = {19: 7.5, 9: 7.0}                  # the komi of the project's match configs
MOVES = {19: (8, 20), 9: (4, 8)}          # opening lengths, drawn uniformly per opening
TOP_MOVES = 5                             # 9x9: moves drawn among the prior's this many best
WINDOW = (0.4, 0.6)


class OpeningError(ValueError):
    """A suite file that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class Opening:
    """One opening of a suite: its index in the suite, its line in the file, and its moves (Black first)."""
    index: int
    line: int
    moves: tuple[str, ...]

    def __str__(self) -> str:
        return " ".join(self.moves)


# -- vertices and positions -----------------------------------------------------------------------------------

def vertex(board: Board, point: int) -> str:
    return point_to_vertex(point, board.size)


def parse_point(text: str, size: int) -> int:
    """An opening move (a vertex such as `D4`; not pass) as a point of a size x size board; ValueError
    otherwise."""
    try:
        point = vertex_to_point(text, size)
    except VertexError:
        point = PASS
    if point == PASS:
        raise ValueError(f"{text!r} is not a vertex of the {size}x{size} board")
    return point


def play_moves(moves: tuple[str, ...] | list[str], size: int, komi: float = 7.5) -> Game:
    """The game after `moves` (Black first, alternating); ValueError naming the move that is not legal."""
    game = Game(size, komi)
    for n, text in enumerate(moves):
        color = BLACK if n % 2 == 0 else WHITE
        point = parse_point(text, size)
        try:
            game.play(color, point, superko=True)
        except IllegalMove as err:
            raise ValueError(f"move {n + 1} ({text}) is illegal: {err}") from None
    return game


def canonical(board: Board) -> bytes:
    """The same key for a position and its mirror images (stones and side to move)."""
    stones = board.stones()
    views = [np.rot90(s, k) for s in (stones, stones.T) for k in range(4)]
    return min(v.tobytes() for v in views) + bytes([board.to_play])


# -- loading ----------------------------------------------------------------------------------------------

def load_openings(path: str | Path, size: int | None = None) -> list[Opening]:
    """The openings of a suite file, every move checked on the board (`size`, else the file's `# size N`).
    OpeningError naming the file and line for an unreadable file, an unknown size, a malformed or illegal
    move, an empty line or a suite without openings."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeError) as err:
        raise OpeningError(f"{path}: cannot read ({err})") from None
    if size is None:
        size = _header_size(path, lines)
    if size not in range(2, 26):
        raise OpeningError(f"{path}: board size {size} not supported")
    openings = []
    for number, text in enumerate(lines, start=1):
        text = text.strip()
        if text.startswith("#"):
            continue
        if not text:
            raise OpeningError(f"{path}:{number}: empty line (an opening has at least one move)")
        moves = tuple(text.split())
        try:
            play_moves(moves, size)
        except ValueError as err:
            raise OpeningError(f"{path}:{number}: {err}") from None
        openings.append(Opening(len(openings), number, moves))
    if not openings:
        raise OpeningError(f"{path}: no openings")
    return openings


def _header_size(path: Path, lines: list[str]) -> int:
    for number, text in enumerate(lines, start=1):
        words = text.lstrip("#").split()
        if text.startswith("#") and len(words) == 2 and words[0] == "size":
            if not words[1].isdigit():
                raise OpeningError(f"{path}:{number}: '# size N' expects a number, got {words[1]!r}")
            return int(words[1])
    raise OpeningError(f"{path}: no '# size N' line, and no size given")


# -- candidates -------------------------------------------------------------------------------------------

def archive_openings(data: str | Path | None, seed: int) -> Iterator[tuple[str, list[str]]]:
    """(game id, first moves) of the validation games of the archives, 8 to 20 moves each; games with
    setup stones or an early pass are left out."""
    low, high = MOVES[19]
    dataset = GameDataset(data, DEFAULT_ARCHIVES, split="validation", size=19)
    for game_id, raw in dataset.games():
        try:
            positions = replay(raw, game_id, size=19)
        except GameError:
            continue
        length = random.Random(f"{seed}:{game_id}").randint(low, high)
        first = positions[:length]
        if (len(first) < length or first[0].board.stones().any()
                or any(p.move == PASS or p.to_play != (BLACK if i % 2 == 0 else WHITE)
                       for i, p in enumerate(first))):
            continue
        yield game_id, [vertex(p.board, p.move) for p in first]


def self_play_openings(prior, size: int, seed: int) -> Iterator[tuple[str, list[str]]]:
    """(label, moves) of openings of 4 to 8 moves, each move drawn among the prior's best off the edge
    (trained on 19x19 games, the prior rates the 1-1 points of an empty 9x9 board nearly as high as the
    3-3 points)."""
    low, high = MOVES[size]
    n = 0
    while True:
        rng = random.Random(f"{seed}:{size}:{n}")
        inner = np.zeros((size, size))
        inner[1:-1, 1:-1] = 1
        inner = inner.ravel()
        game = Game(size, KOMI[size])
        moves: list[str] = []
        for k in range(rng.randint(low, high)):
            color = BLACK if k % 2 == 0 else WHITE
            probs = np.asarray(prior.evaluate(game.board, color), dtype=float)[:-1] * inner
            best = [i for i in np.argsort(-probs)[:TOP_MOVES] if probs[i] > 0]
            if not best:
                break
            i = rng.choices(best, weights=[probs[i] for i in best])[0]
            point = game.board.point(int(i) // size, int(i) % size)
            try:
                game.play(color, point, superko=True)
            except IllegalMove:
                break
            moves.append(vertex(game.board, point))
        else:
            yield f"self-play {n}", moves
        n += 1


# -- judging and building ---------------------------------------------------------------------------------

class Judge:
    """The default engine's search at fixed playouts: the win rate of the side to move after an opening."""

    def __init__(self, params: EngineParams, prior, playouts: int):
        self.search = build_search(params, prior)
        self.playouts = playouts

    def winrate(self, moves: list[str], size: int) -> float:
        game = play_moves(moves, size, KOMI[size])
        self.search.set_root(game.board, game.history_hashes())
        self.search.run(playouts=self.playouts)
        return self.search.winrate()


def engine_params(playouts: int, seed: int) -> EngineParams:
    return load_config(None, ["search.n_threads=1", f"search.playouts={playouts}", "search.reuse_tree=false",
                              f"search.seed={seed}"])


def build(size: int, count: int, data: str | None, playouts: int, window: tuple[float, float], seed: int,
          log=sys.stderr) -> tuple[list[tuple[list[str], float]], int]:
    """Up to `count` balanced, distinct openings ((moves, win rate) in the order found) and the number of
    candidates judged."""
    params = engine_params(playouts, seed)
    prior = load_move_prior(params.prior, load_prior)
    judge = Judge(params, prior, playouts)
    source = archive_openings(data, seed) if size == 19 else self_play_openings(prior, size, seed)
    kept: list[tuple[list[str], float]] = []
    seen: set[bytes] = set()
    judged = 0
    start = time.monotonic()
    for _, moves in source:
        if len(kept) >= count:
            break
        key = canonical(play_moves(moves, size).board)
        if key in seen:
            continue
        seen.add(key)
        rate = judge.winrate(moves, size)
        judged += 1
        if window[0] <= rate <= window[1]:
            kept.append((moves, rate))
        if judged % 50 == 0:
            print(f"{judged} judged, {len(kept)} kept, {time.monotonic() - start:.0f} s", file=log, flush=True)
    return kept, judged


def header(size: int, count: int, judged: int, playouts: int, window: tuple[float, float], seed: int,
           command: str) -> list[str]:
    commit, dirty = git_state()
    low, high = MOVES[size]
    if size == 19:
        source = (f"the first {low}-{high} moves (drawn per game) of games of the validation split of "
                  f"{', '.join(DEFAULT_ARCHIVES)} (priors.training.dataset), never the test split")
    else:
        source = (f"the default engine's self-play: {low}-{high} moves, each drawn among the prior's "
                  f"{TOP_MOVES} most likely off the edge, in proportion to it (the archives hold no "
                  f"{size}x{size} games)")
    return [f"# Opening suite, {size}x{size}: {count} openings, one a line as GTP vertices, Black first.",
            f"# Source: {source}.",
            "# Kept: distinct positions (up to mirror images) that the default engine judges balanced: win rate",
            f"# of the side to move in [{window[0]}, {window[1]}] after {playouts} playouts (one thread, seed "
            f"{seed}), komi {KOMI[size]}; {count} of {judged} judged.",
            f"# Built by: {command}",
            f"# Commit: {commit}{' (with local changes)' if dirty else ''}, {time.strftime('%Y-%m-%d')}",
            f"# size {size}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.openings", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, choices=sorted(KOMI), default=19)
    parser.add_argument("--count", type=int, default=300, help="openings to keep")
    parser.add_argument("--data", default=None, help="directory of the game archives (19x19; default: the "
                        "dataset's, ../shared/data beside the project)")
    parser.add_argument("--playouts", type=int, default=10000,
                        help="playouts of the balance judgement (the matches' playouts per move)")
    parser.add_argument("--window", type=float, nargs=2, default=WINDOW, metavar=("LOW", "HIGH"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="default: bench/openings/<size>x<size>.txt")
    args = parser.parse_args(argv)
    if args.count < 1 or args.playouts < 1 or not 0 <= args.window[0] < args.window[1] <= 1:
        print("error: --count and --playouts must be positive, --window LOW HIGH within [0, 1]", file=sys.stderr)
        return 2
    out = args.out or SUITES / f"{args.size}x{args.size}.txt"
    try:
        kept, judged = build(args.size, args.count, args.data, args.playouts, tuple(args.window), args.seed)
    except (ConfigError, DataError, ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    command = "python -m bench.openings " + " ".join(argv if argv is not None else sys.argv[1:])
    lines = header(args.size, len(kept), judged, args.playouts, tuple(args.window), args.seed, command)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines + [" ".join(m) for m, _ in kept]) + "\n", encoding="utf-8")
    rates = [r for _, r in kept]
    print(f"{len(kept)} openings of {judged} judged (mean win rate {np.mean(rates) if rates else float('nan'):.3f}); "
          f"wrote {out}")
    return 0 if kept else 1


if __name__ == "__main__":
    sys.exit(main())
