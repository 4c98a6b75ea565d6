"""Replay expert game archives on engine.board and compare every position with sgfmill's board.

    python -m bench.rules --data ../shared/data [--archive kgs6d_even.tar.xz] [--limit N] [--workers N]
                          [--out DIR]

After every move the stones must equal sgfmill's (`sgfmill.boards.Board`) exactly, and so must the
simple-ko point. Before each move the board's own predictions are checked against the move played:
`hash_after` against the hash reached, `libs_after` against the exact liberties of the stone's group,
`self_atari_size` against that group's size when it is left in atari. Setup stones (AB/AW/AE) are
applied from any node. Archives are read in place. Prints games, moves, mismatches and skipped games,
writes them to the record DIR (default bench/results/rules/<archive>/, `kgs6d-even` for kgs6d_even.tar.xz:
run.json, summary.json with the figures `games`, `moves`, `mismatches`, `skipped`, summary.txt), and exits
non-zero on any mismatch.
"""
from __future__ import annotations

import argparse
import os
import sys
import tarfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np
from sgfmill import boards, sgf, sgf_properties

from bench import records
from engine.board import BLACK, PASS, WHITE, Board, IllegalMove
from priors.training.extraction import chunks

_COLOR = {"b": BLACK, "w": WHITE}
_SGFMILL = np.array([None, "b", "w"], dtype=object)   # our colour codes as sgfmill's cell values


@dataclass
class Result:
    """What replaying some games found."""
    games: int = 0
    moves: int = 0
    skipped: dict[str, str] = field(default_factory=dict)     # game name -> reason
    mismatches: list[str] = field(default_factory=list)       # "game: move n: what differs"

    def add(self, other: Result) -> None:
        self.games += other.games
        self.moves += other.moves
        self.skipped.update(other.skipped)
        self.mismatches.extend(other.mismatches)


def iter_archive(path: str, limit: int = 0) -> Iterator[tuple[str, bytes]]:
    """(member name, SGF bytes) of the .sgf files in a tar archive, read in place."""
    n = 0
    with tarfile.open(path, "r:*") as tar:
        for member in tar:
            if member.isfile() and member.name.lower().endswith(".sgf"):
                yield member.name, tar.extractfile(member).read()
                n += 1
                if limit and n >= limit:
                    return


def same_stones(board: Board, ref: boards.Board) -> bool:
    return _SGFMILL[board.stones()].tolist() == ref.board


def diff(board: Board, ref: boards.Board) -> str:
    ours = _SGFMILL[board.stones()]
    where = [(r, c, ours[r, c], ref.board[r][c]) for r in range(ref.side) for c in range(ref.side)
             if ours[r, c] != ref.board[r][c]]
    return ", ".join(f"(row {r}, col {c}) ours {a} sgfmill {b}" for r, c, a, b in where[:5])


def check_move(board: Board, point: int, color: int) -> str | None:
    """Play a legal move after checking the board's predictions about it; None if all agree."""
    predicted_hash = board.hash_after(point, color)
    predicted_libs = board.libs_after(point, color)
    predicted_atari = board.self_atari_size(point, color)
    board.play(point, color)
    libs = board.liberties(point)
    atari = len(board.group_stones(point)) if libs == 1 else 0
    if board.hash != predicted_hash:
        return "hash_after differs from the hash reached"
    if predicted_libs != libs:
        return f"libs_after {predicted_libs}, the group has {libs}"
    if predicted_atari != atari:
        return f"self_atari_size {predicted_atari}, expected {atari}"
    return None


def replay(name: str, data: bytes, check_every: int = 0) -> Result:
    """Replay one SGF game; check_every > 0 also runs Board.check() every that many moves and at the end."""
    result = Result()
    try:
        game = sgf.Sgf_game.from_bytes(data)
        size = game.get_size()
    except ValueError as e:
        result.skipped[name] = f"unreadable SGF: {e}"
        return result
    if not 2 <= size <= 25:
        result.skipped[name] = f"board size {size} outside 2..25"
        return result
    board, ref = Board(size), boards.Board(size)
    n = 0
    try:
        for node in game.get_main_sequence():
            if node.has_setup_stones():
                ab, aw, ae = node.get_setup_stones()
                ref.apply_setup(ab, aw, ae)
                board.setup([board.point(*p) for p in ab], [board.point(*p) for p in aw],
                            [board.point(*p) for p in ae])
                if not same_stones(board, ref):
                    result.mismatches.append(f"{name}: setup before move {n + 1}: {diff(board, ref)}")
                    return result
            colour, raw = node.get_raw_move()
            if colour is None:
                continue
            move = sgf_properties.interpret_go_point(raw, size)
            n += 1
            color = _COLOR[colour]
            if move is None:
                ref_ko = None
                board.play(PASS, color)
            else:
                point = board.point(*move)
                try:
                    ref_ko = ref.play(move[0], move[1], colour)
                except ValueError:
                    result.skipped[name] = f"move {n} plays on an occupied point"
                    return result
                try:
                    problem = check_move(board, point, color)
                except IllegalMove as e:
                    result.mismatches.append(f"{name}: move {n} {move}: sgfmill plays it, ours says {e}")
                    return result
                if problem:
                    result.mismatches.append(f"{name}: move {n} {move}: {problem}")
            if not same_stones(board, ref):
                result.mismatches.append(f"{name}: move {n}: {diff(board, ref)}")
                return result
            ko = 0 if ref_ko is None else board.point(*ref_ko)
            if board.ko_point != ko:
                result.mismatches.append(f"{name}: move {n}: ko point {board.ko_point}, sgfmill {ko}")
            if check_every and n % check_every == 0:
                board.check()
        if check_every:
            board.check()
    except (ValueError, KeyError) as e:
        result.skipped[name] = f"bad record: {e}"
        return result
    except AssertionError as e:
        result.mismatches.append(f"{name}: move {n}: check() failed: {e}")
    result.games = 1
    result.moves = n
    return result


def replay_batch(batch: list[tuple[str, bytes]]) -> Result:
    total = Result()
    for name, data in batch:
        total.add(replay(name, data))
    return total


def run(path: str, limit: int = 0, workers: int = 1) -> Result:
    total = Result()
    games = iter_archive(path, limit)
    if workers <= 1:
        for name, data in games:
            total.add(replay(name, data))
        return total
    with ProcessPoolExecutor(workers) as pool:
        for part in pool.map(replay_batch, chunks(games, 200)):
            total.add(part)
    return total


def archive_folder(archive: str) -> str:
    """The default record folder of an archive: bench/results/rules/kgs6d-even/ for kgs6d_even.tar.xz."""
    return str(records.results_folder("rules", os.path.basename(archive).split(".")[0].replace("_", "-")))


def write_record(out_dir: str, path: str, args: argparse.Namespace, argv: list[str] | None, result: Result,
                 seconds: float, text: str) -> str:
    """The record: run.json, summary.json (counts, figures, the first 50 mismatches and skipped games), summary.txt."""
    config = {"data": args.data, "archive": os.path.basename(path), "limit": args.limit, "workers": args.workers}
    records.start_run(Path(out_dir), "rules", config, resume=False,
                      command=records.command_line("bench.rules", argv))
    counts = {"games": result.games, "moves": result.moves, "mismatches": len(result.mismatches),
              "skipped": len(result.skipped)}
    figures = [records.figure_entry("games", "expert games replayed", result.games, unit="games",
                                    text=f"{result.games:,} games"),
               records.figure_entry("moves", "moves compared with sgfmill", result.moves, unit="moves",
                                    text=f"{result.moves:,} moves"),
               records.figure_entry("mismatches", "positions that differ from sgfmill's", len(result.mismatches),
                                    n=result.moves, unit="positions",
                                    text=f"{len(result.mismatches)} of {result.moves:,} moves"),
               records.figure_entry("skipped", "games skipped (bad records)", len(result.skipped),
                                    n=result.games + len(result.skipped), unit="games",
                                    text=f"{len(result.skipped)} games")]
    summary = {"question": "does engine.board replay expert games exactly as sgfmill does", "figures": figures,
               "seconds": round(seconds, 1), "results": counts, "mismatch_examples": result.mismatches[:50],
               "skipped_examples": dict(list(result.skipped.items())[:50])}
    records.write_summary(Path(out_dir), summary, text)
    return out_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rules", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="directory holding the archives")
    parser.add_argument("--archive", default="kgs6d_even.tar.xz", help="archive file name in --data")
    parser.add_argument("--limit", type=int, default=0, help="replay only the first N games (0 = all)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument("--out", help="folder for the JSON record (default bench/results/rules/<archive>/; '' = none)")
    args = parser.parse_args(argv)
    if args.limit < 0 or args.workers < 1:
        parser.error("--limit must be >= 0 and --workers >= 1")
    path = os.path.join(args.data, args.archive)
    if not os.path.isfile(path):
        print(f"error: archive {path} not found", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        result = run(path, args.limit, args.workers)
    except (tarfile.TarError, OSError, EOFError) as e:
        print(f"error: cannot read archive {path}: {e}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - start
    lines = [f"archive     {path}", f"games       {result.games}", f"moves       {result.moves}",
             f"mismatches  {len(result.mismatches)}", f"skipped     {len(result.skipped)}",
             f"seconds     {seconds:.1f}"]
    lines += [f"  mismatch: {line}" for line in result.mismatches[:20]]
    lines += [f"  skipped: {name}: {reason}" for name, reason in list(result.skipped.items())[:20]]
    text = "\n".join(lines)
    print(text)
    out = archive_folder(args.archive) if args.out is None else args.out
    if out:
        print(f"record      {write_record(out, path, args, argv, result, seconds, text)}")
    return 1 if result.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
