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
from dataclasses import dataclass
from pathlib import Path

from bench.game import same_result
from bench.gtpclient import EngineFault, ErrorReply, GtpEngine
from bench import records
from bench.gamerecords import read_games
from bench.records import RESULTS, RunError

OURS = "gtp.cli"         # how a recorded engine command names our engine


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

    @property
    def agrees(self) -> bool:
        return same_result(self.ours, self.referee)

    @property
    def dead_agrees(self) -> bool:
        return self.ours_dead == self.referee_dead


def finished_games(run_dir: Path) -> list[dict]:
    """The games of a run folder that ended by two passes with a referee's score, in game order."""
    return [r for _, r in sorted(read_games(run_dir).items())
            if r.get("end") == "passes" and r.get("result_referee")]


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
    return Check(run=run, game=f"{record['variant']}-{record['game']}", referee=record["result_referee"],
                 referee_dead=sorted(record.get("dead_stones") or []), ours=ours, ours_dead=dead,
                 recorded=recorded_claim(record))


def tally(checks: list[Check]) -> dict[str, int]:
    """The finished games, and how many of our scores and dead lists equal GnuGo's."""
    return {"finished": len(checks), "score_agrees": sum(c.agrees for c in checks),
            "dead_agrees": sum(c.dead_agrees for c in checks)}


def by_run(checks: list[Check]) -> dict[str, list[Check]]:
    """The checks of each run folder, folders in name order."""
    return {run: [c for c in checks if c.run == run] for run in sorted({c.run for c in checks})}


def format_table(checks: list[Check]) -> str:
    head = f"{'run':<22}{'finished':>9}{'score =':>9}{'dead =':>8}{'recorded =':>12}"
    lines = [head, "-" * len(head)]
    for run, rows in [*by_run(checks).items(), ("all", checks)]:
        ours = [c for c in rows if c.recorded is not None]
        recorded = f"{sum(same_result(c.recorded, c.referee) for c in ours)}/{len(ours)}"
        n = tally(rows)
        lines.append(f"{run:<22}{n['finished']:>9}{n['score_agrees']:>9}{n['dead_agrees']:>8}{recorded:>12}")
    wrong = [c for c in checks if not c.agrees]
    lines.append(f"\n{len(wrong)} score disagreement(s)" + (":" if wrong else ""))
    for c in wrong:
        lines.append(f"  {c.run}/{c.game}.sgf: ours {c.ours}, GnuGo {c.referee}; dead ours "
                     f"{' '.join(c.ours_dead) or '-'}, GnuGo {' '.join(c.referee_dead) or '-'}")
    return "\n".join(lines)


def figures(checks: list[Check]) -> list[dict]:
    """The share of finished games whose score (`score`) and dead list (`dead`) equal the referee's."""
    n = tally(checks)
    return [records.rate_entry(key, f"our {what} equals GnuGo's on finished games", agrees, n["finished"])
            for key, agrees, what in (("score", n["score_agrees"], "final_score"),
                                      ("dead", n["dead_agrees"], "dead stones"))]


def write_record(folder: Path, argv: list[str], config: dict, checks: list[Check], seconds: float) -> Path:
    records.start_run(folder, "scorecheck", config, resume=False,
                      command=records.command_line("bench.scorecheck", argv))
    summary = {"question": "does our final_score agree with the GnuGo referee's on finished games",
               "figures": figures(checks), "seconds": round(seconds, 1),
               "runs": {run: tally(rows) for run, rows in by_run(checks).items()},
               "disagreements": [{"game": f"{c.run}/{c.game}", "ours": c.ours, "referee": c.referee}
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
