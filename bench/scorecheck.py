"""Does our `final_score` agree with GnuGo's on finished games? `python -m bench.scorecheck`.

    python -m bench.scorecheck [RUN_DIR ...] [--engine COMMAND] [--max-games N] [--name NAME]

Every game of the match records (default: every bench/results/match/*/games.jsonl) that ended by
two passes and that the GnuGo referee scored is replayed into one engine (default: `tesuji gtp`
with the default config, as `python -m gtp.cli gtp`), which is asked `final_score` and
`final_status_list dead`. The table gives, per run folder, the finished games, how many of our
scores equal the referee's, how many of our dead lists equal its, and how many of the scores the
engine claimed during the match (its recorded `final_score`, when the engine was ours) agreed; then
every disagreement with the game's SGF. With `--name` (or `--out DIR`), the counts also go to a record,
bench/results/scorecheck/NAME/ (run.json; summary.json with the counts per run folder, the disagreements
and the figures: `score` and `dead`, the share of games agreeing with a Wilson interval; summary.txt),
which the suite's guard reads.
"""
from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.game import same_result, signed_score
from bench.gtpclient import EngineFault, ErrorReply, GtpEngine
from bench import records
from bench.gamerecords import game_id, read_games
from bench.position import Position, format_vertex, parse_vertex
from bench.records import RESULTS, RunError
from engine import lifedeath, scoring
from engine.board import BLACK, PASS, WHITE, Board
from engine.params import EngineParams

OURS = "gtp.cli"         # how a recorded engine command names our engine
JUDGE_PLAYOUTS = 2000    # default playouts that judge a block in dispute the reading does not settle


@dataclass
class Check:
    """One finished game scored again."""
    run: str
    game: str
    referee: str
    referee_dead: list[str]
    ours: str
    ours_dead: list[str]
    recorded: str | None    # our engine's final_score recorded during the match, None if not ours
    open_points: int = 0    # empty points of regions reaching both colours, GnuGo's dead removed, not seki
    unfinished: bool = False    # the match record marks the game unfinished (bench.game)
    kind: str = ""          # a disagreement's class (`classify`), "" when the scores agree
    reason: str = ""

    @property
    def agrees(self) -> bool:
        return same_result(self.ours, self.referee)

    @property
    def dead_agrees(self) -> bool:
        return self.ours_dead == self.referee_dead


def finished_games(run_dir: Path) -> list[dict]:
    """The games of a run folder that ended by two passes with a referee's score, in game order
    (unfinished ones included: they are counted apart)."""
    return [r for _, r in sorted(read_games(run_dir).items())
            if r.get("end") == "passes" and r.get("result_referee")]


def final_board(record: dict) -> Board:
    """The record's final position on the engine's board (handicap stones, then the moves)."""
    board = Board(record["board_size"], record["komi"])
    colour = BLACK
    if record.get("handicap_stones"):
        board.setup(black=[_point(board, v) for v in record["handicap_stones"]])
        colour = WHITE
    for move in record["moves"]:
        board.play(PASS if move.lower() == "pass" else _point(board, move), colour)
        colour = 3 - colour
    return board


def _point(board: Board, vertex: str) -> int:
    row, col = parse_vertex(vertex, board.size)
    return board.point(row, col)


def _name(board: Board, p: int) -> str:
    return format_vertex(board.coords(p))


def open_points(board: Board, dead: list[str], seki: list[str]) -> int:
    """What two passes left open on the final board, counted as the match harness counts it
    (`Position.open_points`: regions reaching both colours once `dead` is removed, seki liberties aside)."""
    stones = board.stones()
    position = Position(board.size)
    position.board.apply_setup([tuple(p) for p in np.argwhere(stones == BLACK)],
                               [tuple(p) for p in np.argwhere(stones == WHITE)], [])
    return position.open_points([parse_vertex(v, board.size) for v in dead],
                                [parse_vertex(v, board.size) for v in seki])


def classify(board: Board, check: Check) -> tuple[str, str]:
    """A disagreement's class and reason. "unfinished": the game ended by two passes with regions
    still open (or the match record says so), which GnuGo's count plays out and ours leaves neutral;
    else, when the dead lists differ, each block in dispute is judged by the local reading of
    `engine.lifedeath` ("gnugo" or "ours"), or where it does not settle the block, for GnuGo when the
    default playouts (JUDGE_PLAYOUTS) capture it in most games as GnuGo counts ("gnugo by playouts"):
    "ours wrong" if every block goes GnuGo's way, "GnuGo wrong" if the reading sides with us on every
    one, "unread" otherwise (read by hand); "count" when the dead lists agree on a closed board (a
    seki or a ko counted differently)."""
    moved = _favour(check)
    if check.unfinished or check.open_points:
        return "unfinished", f"{check.open_points} open point(s); {moved}"
    if check.ours_dead == check.referee_dead:
        return "count", f"same dead stones on a closed board; {moved}"
    reader = lifedeath.Reader(board)
    blocks: dict[int, str] = {}
    for v in sorted(set(check.ours_dead) ^ set(check.referee_dead)):
        blocks.setdefault(board.group_stones(_point(board, v))[0], v)
    verdicts = {first: _read(reader, first, v in check.referee_dead) for first, v in blocks.items()}
    unsettled = [first for first, verdict in verdicts.items() if verdict is None]
    if unsettled:
        own = scoring.playout_ownership(board, EngineParams().playout, JUDGE_PLAYOUTS, seed=1)
        for first in unsettled:
            mean = scoring.mean_for_owner(board, own, board.group_stones(first))
            if (mean < 0) == (blocks[first] in check.referee_dead):
                verdicts[first] = "gnugo by playouts"
    disputed = " ".join(f"{v} ({verdicts[first] or 'unsettled'})" for first, v in blocks.items())
    if all(verdict and verdict.startswith("gnugo") for verdict in verdicts.values()):
        return "ours wrong", f"as GnuGo counts: {disputed}; {moved}"
    if all(verdict == "ours" for verdict in verdicts.values()):
        return "GnuGo wrong", f"as we count: {disputed}; {moved}"
    return "unread", f"{disputed}; {moved}"


def _read(reader: lifedeath.Reader, first: int, gnugo_dead: bool) -> str | None:
    """Whose status of a block in dispute the local reading settles: "gnugo", "ours" or None."""
    if reader.status(first, dead_now=not gnugo_dead) == ("dead" if gnugo_dead else "alive"):
        return "gnugo"
    if reader.status(first, dead_now=gnugo_dead) == ("alive" if gnugo_dead else "dead"):
        return "ours"
    return None


def _favour(check: Check) -> str:
    """Which side our count favours against GnuGo's, and by how much."""
    ours, theirs = signed_score(check.ours), signed_score(check.referee)
    if ours is None or theirs is None:
        return "not comparable"
    diff = ours - theirs
    return f"ours favours {'B' if diff > 0 else 'W'} by {abs(diff):g}"


def replay(engine: GtpEngine, record: dict) -> None:
    """Set up the record's board, komi and handicap in the engine and play its moves."""
    for command in [f"boardsize {record['board_size']}", "clear_board", f"komi {record['komi']:g}"]:
        engine.send(command)
    colour = "b"
    if record.get("handicap_stones"):
        engine.send("set_free_handicap " + " ".join(record["handicap_stones"]))
        colour = "w"
    for move in record["moves"]:
        engine.send(f"play {colour} {move}")
        colour = "w" if colour == "b" else "b"


def recorded_claim(record: dict) -> str | None:
    """Our engine's final_score as recorded in the match (the player's first, if both were ours)."""
    for role in ("player", "opponent"):
        if OURS in (record.get(f"{role}_command") or ""):
            return (record.get("engine_results") or {}).get(role)
    return None


def check_game(engine: GtpEngine, run: str, record: dict) -> Check:
    replay(engine, record)
    ours = engine.send("final_score").split()[0]
    dead = sorted(engine.send("final_status_list dead").split())
    seki = engine.send("final_status_list seki").split()
    check = Check(run=run, game=game_id(record), referee=record["result_referee"],
                  referee_dead=sorted(record.get("dead_stones") or []), ours=ours, ours_dead=dead,
                  recorded=recorded_claim(record), unfinished=bool(record.get("unfinished")))
    board = final_board(record)
    check.open_points = open_points(board, check.referee_dead, seki)
    if not check.agrees:
        check.kind, check.reason = classify(board, check)
    return check


def closed(checks: list[Check]) -> list[Check]:
    """The games that ended with no region open (and are not marked unfinished)."""
    return [c for c in checks if not (c.unfinished or c.open_points)]


def tally(checks: list[Check]) -> dict[str, int]:
    """The finished games, how many of our scores and dead lists equal GnuGo's, and the same on the
    closed ones."""
    shut = closed(checks)
    return {"finished": len(checks), "score_agrees": sum(c.agrees for c in checks),
            "dead_agrees": sum(c.dead_agrees for c in checks), "closed": len(shut),
            "closed_score_agrees": sum(c.agrees for c in shut)}


def kinds(checks: list[Check]) -> dict[str, int]:
    """How many disagreements fall in each class."""
    return dict(sorted(Counter(c.kind for c in checks if not c.agrees).items()))


def by_run(checks: list[Check]) -> dict[str, list[Check]]:
    """The checks of each run folder, folders in name order."""
    return {run: [c for c in checks if c.run == run] for run in sorted({c.run for c in checks})}


def format_table(checks: list[Check]) -> str:
    head = f"{'run':<22}{'finished':>9}{'score =':>9}{'dead =':>8}{'closed':>8}{'score =':>9}{'recorded =':>12}"
    lines = [head, "-" * len(head)]
    for run, rows in [*by_run(checks).items(), ("all", checks)]:
        ours = [c for c in rows if c.recorded is not None]
        recorded = f"{sum(same_result(c.recorded, c.referee) for c in ours)}/{len(ours)}"
        n = tally(rows)
        lines.append(f"{run:<22}{n['finished']:>9}{n['score_agrees']:>9}{n['dead_agrees']:>8}{n['closed']:>8}"
                     f"{n['closed_score_agrees']:>9}{recorded:>12}")
    wrong = [c for c in checks if not c.agrees]
    counts = ", ".join(f"{kind} {n}" for kind, n in kinds(checks).items())
    lines.append(f"\n{len(wrong)} score disagreement(s)" + (f" ({counts}):" if wrong else ""))
    for c in wrong:
        lines.append(f"  {c.run}/{c.game}.sgf: ours {c.ours}, GnuGo {c.referee}; {c.kind}: {c.reason}; dead ours "
                     f"{' '.join(c.ours_dead) or '-'}, GnuGo {' '.join(c.referee_dead) or '-'}")
    return "\n".join(lines)


def figures(checks: list[Check]) -> list[dict]:
    """The share of finished games whose score (`score`) and dead list (`dead`) equal the referee's,
    and of those ended with no region open (`closed_score`)."""
    n = tally(checks)
    return [records.rate_entry(key, label, agrees, total) for key, label, agrees, total in (
        ("score", "our final_score equals GnuGo's on finished games", n["score_agrees"], n["finished"]),
        ("dead", "our dead stones equal GnuGo's on finished games", n["dead_agrees"], n["finished"]),
        ("closed_score", "our final_score equals GnuGo's on finished games with no region open",
         n["closed_score_agrees"], n["closed"]))]


def write_record(folder: Path, argv: list[str], config: dict, checks: list[Check], seconds: float) -> Path:
    records.start_run(folder, "scorecheck", config, resume=False,
                      command=records.command_line("bench.scorecheck", argv))
    summary = {"question": "does our final_score agree with the GnuGo referee's on finished games",
               "figures": figures(checks), "seconds": round(seconds, 1),
               "runs": {run: tally(rows) for run, rows in by_run(checks).items()},
               "classes": kinds(checks),
               "disagreements": [{"game": f"{c.run}/{c.game}", "ours": c.ours, "referee": c.referee,
                                  "class": c.kind, "reason": c.reason, "open_points": c.open_points,
                                  "ours_dead": c.ours_dead, "referee_dead": c.referee_dead}
                                 for c in checks if not c.agrees]}
    records.write_summary(folder, summary, format_table(checks))
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scorecheck", description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, help="run folders (default: every match run)")
    parser.add_argument("--engine", default=shlex.join([sys.executable, "-m", "gtp.cli", "gtp"]),
                        help="the engine's command (default: tesuji gtp with the default config)")
    parser.add_argument("--max-games", type=int, default=0, help="at most this many games per folder")
    parser.add_argument("--name", help="also write the counts to the record bench/results/scorecheck/NAME/")
    parser.add_argument("--out", type=Path, help="also write the counts to this record folder")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    folder = args.out
    if args.name and not folder:
        try:
            folder = records.results_folder("scorecheck", args.name)
        except ValueError as e:
            parser.error(f"--name: {e}")
    started = time.time()
    runs = args.runs or sorted(p.parent for p in (RESULTS / "match").glob("*/games.jsonl"))
    checks = []
    try:
        with GtpEngine(args.engine, timeout=300, label="engine") as engine:
            for run_dir in runs:
                games = finished_games(run_dir)
                for record in games[:args.max_games or None]:
                    checks.append(check_game(engine, run_dir.name, record))
    except (EngineFault, ErrorReply, RunError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(format_table(checks))
    if folder:
        config = {"runs": [str(r) for r in runs], "engine": args.engine, "max_games": args.max_games}
        print(f"record: {write_record(folder, argv, config, checks, time.time() - started)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
