"""A match game as an SGF file (sgfmill), with the true result and the time of every move:
`python -m bench.sgf RUN_DIR [--out DIR] [--games 0,5-9] [--variants NAME ...]`.

    python -m bench.sgf bench/results/match/default-9x9 --games 0-9 --out /tmp/sgf
    python -m bench.sgf bench/results/league/league-19x19            # every pair, each in its folder

SGFs are derived from a run's records (games.jsonl and run.json, see bench.gamerecords), never stored: the
command writes `<variant>-<n>.sgf` for the chosen games (default: every game) into --out (default: the
run folder itself). Given a league folder, it does every pair, each into its own folder under --out.
Black and White are named by the labels of the engines the run probed (run.json's `engines`).

Unlike gogui-twogtp's SGFs, `RE` is the result of the game as played (who won on the board), also
in the games where the player took White. A game without a result is `RE[Void]`; a forfeit for an
illegal move (or a fault counted as a loss) is `B+F`/`W+F`, a resignation `B+R`/`W+R`. A game played
from an opening suite names the opening (its index and the suite file) in `GN` and the root comment, and
its opening moves are commented `opening`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterable

from sgfmill import sgf

from bench.gamerecords import game_id, read_games
from bench.position import parse_vertex
from bench.records import RunError, read_run


def game_sgf(record: dict, black: str, white: str) -> bytes:
    """The SGF of one game record (see bench.game) between engines labelled black and white."""
    size = record["board_size"]
    game = sgf.Sgf_game(size)
    root = game.get_root()
    root.set("KM", record["komi"])
    root.set("PB", black)
    root.set("PW", white)
    root.set("RU", "Chinese")
    root.set("RE", record["result"] or "Void")
    root.set("DT", record["date"].split()[0])
    root.set("EV", record["run"])
    opening = record.get("opening")
    root.set("GN", game_id(record)
                   + (f", opening {opening} of {record['opening_file']}" if opening is not None else ""))
    if record["handicap"]:
        root.set("HA", record["handicap"])
        root.set_setup_stones([parse_vertex(v, size) for v in record["handicap_stones"]], [])
    root.set("C", _root_comment(record, black, white))
    colour = "w" if record["handicap"] else "b"
    for i, (vertex, seconds) in enumerate(zip(record["moves"], record["times"])):
        try:
            move = parse_vertex(vertex, size)
        except ValueError:
            break          # not a vertex at all: the root comment gives the reply
        node = game.extend_main_sequence()
        node.set_move(colour, move)
        comment = "opening" if i < record.get("opening_moves", 0) else f"{seconds:.2f} s"
        if record["end"] == "illegal" and i == len(record["moves"]) - 1:
            comment += f"\nillegal: {record['reason']}"
        node.set("C", comment)
        colour = "w" if colour == "b" else "b"
    return game.serialise()


def _root_comment(record: dict, black: str, white: str) -> str:
    player_is_black = record["player_colour"] == "b"
    lines = [
        f"Black: {black} ({'player' if player_is_black else 'opponent'})",
        f"White: {white} ({'opponent' if player_is_black else 'player'})",
        f"Player command: {record['player_command']}",
        f"Opponent command: {record['opponent_command']}",
        f"Variant: {record['variant']}, game {record['game']}, seed {record['seed']}",
        *([f"Opening: {record['opening']} of {record['opening_file']} (its {record['opening_moves']} moves "
           f"played first, in no one's time)"] if record.get("opening") is not None else []),
        f"End: {record['end']}",
        f"Result: {record['result'] or 'Void'}",
    ]
    if record.get("referee_command"):
        lines.append(f"Referee: {record['referee_command']}")
        lines.append(f"Referee result: {record.get('result_referee') or '?'}")
        if record.get("disagreement"):
            lines.append("Area score and referee DISAGREE")
    if record.get("dead_stones"):
        lines.append("Dead stones (referee): " + " ".join(record["dead_stones"]))
    if record.get("dispute"):
        d = record["dispute"]
        claims = ", ".join(f"{role} {result}" for role, result in d["engine_results"].items())
        lines.append(f"Disputed after move {d['after_moves']}: referee {d['result_referee']}, {claims}; "
                     "played out with kgs-genmove_cleanup, every stone left alive")
    if record.get("reason"):
        lines.append(f"Illegal move: {record['reason']}")
    if record.get("fault"):
        fault = record["fault"]
        lines.append(f"Fault: {fault['role']} {fault['kind']}: {fault['message']}")
    for role in ("player", "opponent"):
        moves, seconds = record.get(f"{role}_moves", 0), record.get(f"{role}_seconds", 0.0)
        per_move = seconds / moves if moves else 0.0
        cpu = record.get(f"{role}_cpu")
        cpu_text = "?" if cpu is None else f"{cpu:.1f}"
        lines.append(f"Time {role}: {seconds:.1f} s wall for {moves} moves ({per_move:.2f} s/move), "
                     f"{cpu_text} s CPU")
    lines += record.get("notes", [])
    lines.append(f"Host: {record['host']}")
    lines.append(f"Date: {record['date']}")
    return "\n".join(lines)


# -- the command --------------------------------------------------------------------------------------------

def parse_games(text: str) -> set[int]:
    """Game numbers from "0,5-9" (single numbers and inclusive ranges, comma-separated)."""
    games: set[int] = set()
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        try:
            first, last = int(low), int(high if dash else low)
        except ValueError:
            raise ValueError(f"--games: {part.strip()!r} is not a number or a range like 5-9") from None
        if first < 0 or last < first:
            raise ValueError(f"--games: {part.strip()!r} is not a range of game numbers from 0 up")
        games.update(range(first, last + 1))
    return games


def players(run: dict, record: dict) -> tuple[str, str]:
    """The labels of Black and White in one game, as the run probed its engines."""
    engines = run.get("engines", {})
    try:
        player = engines[f"player:{record['variant']}"]["label"]
        opponent = engines["opponent"]["label"]
    except KeyError as e:
        raise RunError(f"run.json: no engine {e} under `engines`") from None
    return (opponent, player) if record["alternated"] else (player, opponent)


def write_sgfs(run_dir: Path, out: Path, games: set[int] | None = None,
               variants: Iterable[str] | None = None) -> list[Path]:
    """Write the SGF of every chosen game of one run folder into `out`; returns the files written."""
    run = read_run(run_dir)
    records = read_games(run_dir)
    known = {v for v, _ in records}
    unknown = sorted(set(variants or ()) - known)
    if unknown:
        raise RunError(f"{run_dir}: no games of variant {', '.join(unknown)} (it has: {', '.join(sorted(known))})")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for (variant, game), record in sorted(records.items()):
        if (games is None or game in games) and (not variants or variant in variants):
            path = out / f"{game_id(record)}.sgf"
            path.write_bytes(game_sgf(record, *players(run, record)))
            written.append(path)
    return written


def run_folders(folder: Path) -> list[Path]:
    """The match runs a folder holds: itself, or each pair of a league."""
    if (folder / "games.jsonl").is_file():
        return [folder]
    pairs = sorted(p.parent for p in folder.glob("*/games.jsonl"))
    if not pairs:
        raise RunError(f"{folder}: no games.jsonl, here or in a pair folder (a match or league run folder?)")
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sgf", description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a match run folder, a league pair's, or a league's")
    parser.add_argument("--out", type=Path, help="where the SGFs go (default: the run folder)")
    parser.add_argument("--games", type=str, help="game numbers, e.g. 0,5-9 (default: every game)")
    parser.add_argument("--variants", nargs="+", metavar="NAME", help="these variants only (default: every one)")
    args = parser.parse_args(argv)
    try:
        games = parse_games(args.games) if args.games is not None else None
    except ValueError as e:
        parser.error(str(e))
    try:
        folders = run_folders(args.run)
        league = folders != [args.run]
        n = 0
        for folder in folders:
            out = args.out or folder
            if league and args.out:
                out = args.out / folder.name
            n += len(write_sgfs(folder, out, games, args.variants))
    except (RunError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{n} SGF file(s) written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
