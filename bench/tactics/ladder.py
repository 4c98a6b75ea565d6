"""The move features' ladder reader (engine.ladder) against the solver (PP, local
generator, L = 3) on the two-liberty blocks of KGS games, with GnuGo's `attack` as the reference for both
when GnuGo is installed; `--ladder-dump DIR` writes an SGF of every block the solver captures and GnuGo
does not, with the solver's line."""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import statistics
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

from engine import tactics
from engine.board import BLACK, WHITE, Board
from engine.game import Game
from engine.coords import point_to_vertex

def ladder_positions(data_dir: Path, n_games: int, every: int = 10) -> list[tuple[Board, int]]:
    """(position, stone) for every block of 2 liberties in every `every`-th position of the first
    n_games games of kgs6d_even.tar.xz, the block's opponent to move."""
    from sgfmill import sgf, sgf_moves
    out = []
    with tarfile.open(data_dir / "kgs6d_even.tar.xz") as tar:
        members = [m for m in tar if m.isfile()][:n_games]
        for m in members:
            game = sgf.Sgf_game.from_bytes(tar.extractfile(m).read())
            setup, plays = sgf_moves.get_setup_and_moves(game)
            board = Board(game.get_size(), 0.0)
            stones = setup.list_occupied_points()
            board.setup([board.point(*pt) for col, pt in stones if col == "b"],
                        [board.point(*pt) for col, pt in stones if col == "w"])
            for i, (color, move) in enumerate(plays):
                try:
                    board.play(board.point(*move) if move else -1, BLACK if color == "b" else WHITE)
                except ValueError:
                    break
                if i % every:
                    continue
                seen = set()
                for p in board.points():
                    if board.color_at(p) in (BLACK, WHITE) and p not in seen:
                        stones = board.group_stones(p)
                        seen.update(stones)
                        if board.liberties(p) == 2:
                            pos = board.copy()
                            pos.to_play = 3 - board.color_at(p)
                            out.append((pos, p))
    return out


def ladder_params(budget: int) -> tactics.TacticsParams:
    return tactics.TacticsParams(move_gen="local", max_nodes=budget, l_max=3)


def compare_ladder(item: tuple, budget: int) -> tuple:
    from engine.ladder import is_ladder_attack
    board, stone = item
    ladder = is_ladder_attack(board, stone)
    r = tactics.solve(board, stone, params=ladder_params(budget))
    return ladder, r.value, r.developed


def principal_line(board: Board, stone: int, params: tactics.TacticsParams, result: tactics.Result) -> list[int]:
    """The solver's line for capturing the block at stone (the last search of the liberty loop that gave
    `result`): at attacker nodes the proving child (else the search's favourite), at defender nodes the
    reply with the largest subtree (the defence the proof had to work hardest against)."""
    solver = tactics.last_search(board, stone, result, params)
    nodes = [solver.node(i) for i in range(solver.n_nodes)]
    size = [1] * len(nodes)
    for i in range(len(nodes) - 1, 0, -1):          # children come after their parents
        size[nodes[i]["parent"]] += size[i]
    line, n = [], 0
    while nodes[n]["n_children"]:
        kids = range(nodes[n]["first_child"], nodes[n]["first_child"] + nodes[n]["n_children"])
        if nodes[n]["kind"] == "or":
            proving = [i for i in kids if nodes[i]["value"] == "T"]
            n = proving[0] if proving else max(kids, key=lambda i: (nodes[i].get("logodds", 0.0), -i))
        else:
            n = max(kids, key=lambda i: (size[i], -i))
        line.append(nodes[n]["move"])
    return line


def dump_disagreements(out_dir: Path, items: list, rows: list, codes: list[int], budget: int) -> list[dict]:
    """An SGF per block the solver captures and GnuGo does not (the position, then the solver's line as
    moves, a root comment with the goal and both answers); returns one summary row per file."""
    out_dir.mkdir(parents=True, exist_ok=True)
    params = ladder_params(budget)
    summary = []
    for k, ((board, stone), (_, value, _), code) in enumerate(zip(items, rows, codes)):
        if value != "T" or code != 0:
            continue
        r = tactics.solve(board, stone, params=params)
        line = principal_line(board, stone, params, r)
        game = Game()
        game.set_position(board)
        color, played = board.to_play, []
        for move in line:
            try:
                game.play(color, move)
            except ValueError:
                break
            played.append(("B" if color == BLACK else "W") + point_to_vertex(move, board.size))
            color = 3 - color
        row = {"index": k, "goal": point_to_vertex(stone, board.size),
               "attacker": "B" if board.to_play == BLACK else "W", "solver_move": point_to_vertex(r.move, board.size),
               "libs_false": r.libs_false, "developed": r.developed, "line": " ".join(played), "gnugo_attack": code, "file": f"ladder_{k:05d}.sgf"}
        sgf = _with_root_comment(game.to_sgf(), f"block {row['goal']}: {row['attacker']} to capture; solver (PP, "
                                 f"local generator, L = {r.libs_false}) says captured by {row['solver_move']}, "
                                 f"line {row['line']}; GnuGo's attack says 0")
        (out_dir / row["file"]).write_bytes(sgf)
        summary.append(row)
    (out_dir / "index.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def _with_root_comment(data: bytes, comment: str) -> bytes:
    from sgfmill import sgf
    game = sgf.Sgf_game.from_bytes(data)
    game.get_root().set("C", comment)
    return game.serialise()


def gnugo_attacks(gnugo: str, items: list[tuple[Board, int]], timeout: float) -> list[int]:
    """GnuGo's `attack` code (0 no capture; 1 capture; 2, 3 capture by ko) for each (position, stone)."""
    from bench.gtpclient import GtpEngine
    codes = []
    with tempfile.TemporaryDirectory() as tmp:
        engine = GtpEngine([gnugo, "--mode", "gtp", "--quiet"], timeout=timeout, cwd=tmp).start()
        try:
            for k, (board, stone) in enumerate(items):
                game = Game()
                game.set_position(board)
                path = Path(tmp) / f"p{k}.sgf"
                path.write_bytes(game.to_sgf())
                engine.send(f"loadsgf {path.name}")
                codes.append(int(engine.send(f"attack {point_to_vertex(stone, board.size)}").split()[0]))
        finally:
            engine.close()
    return codes


def agreement(says_capture: list[bool], gnugo_codes: list[int]) -> dict[str, int]:
    """A reader's capture verdicts against GnuGo's (any non-zero attack code is a capture)."""
    pairs = list(zip(says_capture, (c > 0 for c in gnugo_codes)))
    return {"both_capture": sum(a and g for a, g in pairs), "both_not": sum(not a and not g for a, g in pairs),
            "only_reader": sum(a and not g for a, g in pairs), "only_gnugo": sum(g and not a for a, g in pairs)}


def run_ladder(args: argparse.Namespace, pool: concurrent.futures.Executor) -> dict:
    items = ladder_positions(args.data, args.ladder_games)
    rows = list(pool.map(compare_ladder, items, [args.ladder_budget] * len(items), chunksize=64))
    cells = [f"ladder={'T' if ladder else 'F'} solver={value}" for ladder, value, _ in rows]
    table = dict(Counter(cells))
    out = {"blocks": len(rows), "budget": args.ladder_budget, "table": table,
           "solver_nodes_mean": statistics.fmean(n for _, _, n in rows) if rows else None}
    print(f"ladder reader vs solver (PP, local generator, L = 3, {args.ladder_budget} nodes) on {len(rows)} "
          f"two-liberty blocks: {table}", flush=True)
    # GnuGo's reading, which we did not write, as the reference for both readers.
    if os.path.exists(args.gnugo):
        codes = gnugo_attacks(args.gnugo, items, args.b3_timeout)
        out["against_gnugo"] = {
            "ladder_reader": agreement([lad for lad, _, _ in rows], codes),
            "solver": agreement([value == "T" for _, value, _ in rows], codes),
            "by_cell": {key: sum(c > 0 for cell, c in zip(cells, codes) if cell == key) for key in table},
        }
        print(f"against GnuGo's attack: {out['against_gnugo']}", flush=True)
        if args.ladder_dump is not None:
            out["dump"] = dump_disagreements(args.ladder_dump, items, rows, codes, args.ladder_budget)
            for row in out["dump"]:
                print(f"  only the solver: #{row['index']} {row['goal']} ({row['attacker']} to capture) "
                      f"{row['line']} -> {args.ladder_dump / row['file']}", flush=True)
    return out

