"""Two match runs against the same opponent, compared game by game.

    python -m bench.paired bench/results/match/mm-19x19 bench/results/match/baseline-19x19 [--variant main] [--second-variant V] [--json]

Runs that share a config's seeds and colour order play game i with the same seed and colour, so each
game of one run pairs with the same-numbered game of the other. Pairing removes the variance that the
opening and colour add: the comparison rests on the discordant pairs (one run won, the other did not),
tested with McNemar's exact test, a two-sided binomial test of those pairs at 1/2. Games void in either
run, numbers that only one run has played and numbers whose seed or colour differ are left out and
counted. The opponents are compared pair by pair, so a seed in the opponent's command (`{seed}`) is no
difference.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.gamerecords import read_games
from bench.records import RunError
from bench.report import player_score


@dataclass
class Paired:
    pairs: int               # games paired, both with a result
    both_won: int
    first_only: int          # the first run scored more in the pair
    second_only: int         # the second run scored more
    both_lost: int
    ties: int                # equal scores other than both won / both lost (draw against draw)
    void: int                # numbers with a void game in either run
    missing: int             # numbers only one run has played
    mismatched: int          # numbers whose seed or colour differ: not the same game
    identical: int           # pairs whose two games are move for move the same game
    p_value: float           # McNemar's exact test on first_only against second_only
    same_opponent: bool      # each pair's two games name the same opponent command


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value of b against c discordant pairs (binomial at 1/2)."""
    if b < 0 or c < 0:
        raise ValueError(f"counts must be non-negative, got {b} and {c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2.0 ** n
    return min(1.0, 2.0 * tail)


def load_games(run_dir: Path, variant: str) -> dict[int, dict]:
    """One run's games of a variant by number (read only: a line a running match is still writing is
    left out, not repaired)."""
    if not (run_dir / "games.jsonl").is_file():
        raise FileNotFoundError(f"{run_dir / 'games.jsonl'}: no games.jsonl (is {run_dir} a bench.match "
                                f"output directory?)")
    return {game: record for (v, game), record in read_games(run_dir).items() if v == variant}


def pair(first: dict[int, dict], second: dict[int, dict]) -> Paired:
    counts = dict(both_won=0, first_only=0, second_only=0, both_lost=0, ties=0, void=0, missing=0, mismatched=0,
                  identical=0)
    same_opponent = True
    for game in sorted(first.keys() | second.keys()):
        a, b = first.get(game), second.get(game)
        if a is None or b is None:
            counts["missing"] += 1
            continue
        if (a["seed"], a["player_colour"]) != (b["seed"], b["player_colour"]):
            counts["mismatched"] += 1
            continue
        same_opponent = same_opponent and a["opponent_command"] == b["opponent_command"]
        sa, sb = player_score(a), player_score(b)
        if sa is None or sb is None:
            counts["void"] += 1
            continue
        counts["identical"] += bool(a.get("moves")) and a["moves"] == b.get("moves")
        if sa > sb:
            counts["first_only"] += 1
        elif sb > sa:
            counts["second_only"] += 1
        elif sa == 1.0:
            counts["both_won"] += 1
        elif sa == 0.0:
            counts["both_lost"] += 1
        else:
            counts["ties"] += 1
    pairs = counts["both_won"] + counts["first_only"] + counts["second_only"] + counts["both_lost"] + counts["ties"]
    return Paired(pairs=pairs, **counts, p_value=mcnemar_exact(counts["first_only"], counts["second_only"]),
                  same_opponent=same_opponent)


def run_names(first: Path, second: Path) -> tuple[str, str]:
    """The two runs' folder names, or as many of their last path parts as tell them apart (two leagues'
    pairs share a folder name)."""
    a, b = first.resolve().parts, second.resolve().parts
    if a == b:
        return first.name, second.name
    k = 1
    while k < max(len(a), len(b)) and a[-k:] == b[-k:]:
        k += 1
    return "/".join(a[-k:]), "/".join(b[-k:])


def format_paired(name_a: str, name_b: str, p: Paired) -> str:
    lines = [f"{name_a} against {name_b}, game by game: {p.pairs} pairs",
             f"  both won {p.both_won}, only {name_a} won {p.first_only}, only {name_b} won {p.second_only}, "
             f"both lost {p.both_lost}" + (f", equal draws {p.ties}" if p.ties else ""),
             f"  McNemar exact p = {p.p_value:.2g} ({p.first_only} against {p.second_only} discordant pairs)",
             f"  move for move the same game in {p.identical} of the {p.pairs} pairs"]
    if p.void or p.missing:
        lines.append(f"  left out: {p.void} with a void game, {p.missing} played by one run only")
    if p.mismatched:
        lines.append(f"  warning: {p.mismatched} game numbers differ in seed or colour and were left out")
    if not p.same_opponent:
        lines.append("  warning: the runs name different opponents; the pairs do not share an opponent")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.paired", description=__doc__.split("\n\n")[0])
    ap.add_argument("first", type=Path, help="a bench.match output directory")
    ap.add_argument("second", type=Path, help="another, played with the same seeds and colours")
    ap.add_argument("--variant", default="main", help="the variant to pair (default: main)")
    ap.add_argument("--second-variant", default="", metavar="VARIANT",
                    help="the second run's variant, where it differs (e.g. a prior against the baseline's main)")
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = ap.parse_args(argv)
    try:
        result = pair(load_games(args.first, args.variant),
                      load_games(args.second, args.second_variant or args.variant))
    except (OSError, ValueError, KeyError, RunError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(asdict(result), indent=1))
    else:
        names = run_names(args.first, args.second)
        if args.second_variant:         # name the variants: they may be two of one run
            names = (f"{names[0]}:{args.variant}", f"{names[1]}:{args.second_variant}")
        print(format_paired(*names, result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
