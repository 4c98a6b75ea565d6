"""Round robins between engine variants, rated by Bradley-Terry Elo: `python -m bench.league CONFIG`.

    python -m bench.league bench/configs/league/9x9.yaml [--jobs N] [--scheduler ADDRESS] [--out DIR] [--rate-only]
                                                  [--program NAME=PATH]

Every pair of engines plays `games` games as one bench.match run (the same run.json, games.jsonl and
.dat records, resumed the same way, on a process pool or a Dask cluster). The engines are any GTP commands:
Tesuji with each prior or none, GnuGo at several levels, other programs (Pachi as `{pachi}`, whose
path --program pachi=PATH gives: bench.programs). An engine with `handicap: N`
takes Black with N stones in every game it plays (at its own `komi`, default 0.5), so that "GnuGo 10
with 3 stones" is rated beside the others; two handicapped engines do not meet. An engine with
`games: N` plays N games in each of its pairs (the larger where both engines give one), so that one
pairing can be firmed up without replaying the rest. The ratings
(bench.ratings: maximum-likelihood Bradley-Terry by choix, the anchor at 0, 95% intervals) are written
after each pair, so an interrupted league reports what it holds.

```yaml
name: league-9x9            # run folder bench/results/league/<name>/; default: the file name
board_size: 9
komi: 7
games: 100                  # per pair, colours alternating (except handicap games)
seed: 1                     # game i of every pair gets seed + i ({seed} in commands)
jobs: 2
max_moves: 0                # as in a match config; fault_result, replay_void and disputes too
referee: /usr/games/gnugo --mode gtp --chinese-rules --positional-superko
anchor: gnugo-10            # the engine rated 0 (default: the last one)
engines:                    # name (letters, digits, . _ + -) plus a match engine's keys
  - name: fbt
    command: python -m gtp.cli gtp --set search.playouts=10000 --set search.n_threads=1 --set search.seed={seed}
  - name: gnugo-10
    command: /usr/games/gnugo --mode gtp --level 10 --chinese-rules
    setup: ["set_random_seed {seed}"]
  - name: gnugo-10-h3
    command: /usr/games/gnugo --mode gtp --level 10 --chinese-rules
    handicap: 3
    games: 200              # this engine's pairs play 200 games instead of the league's 100
pairs: all                  # or a list: [[fbt, gnugo-10], ...]
sprt: {elo0: 0, elo1: 50}   # optional: every pair stops when its SPRT decides, `games` its cap (bench.match)
openings: bench/openings/9x9.txt   # optional: every pair plays game pairs on the suite (no handicap pairs)
```

The run folder holds one bench.match folder per pair (`<a>-vs-<b>/`; `python -m bench.sgf` on it or on
the league folder writes the games' SGFs), the league's run.json (its config and invocations,
bench.records), and the ratings: summary.txt, summary.json (ratings, the points table, and `figures`:
each engine's Elo with its interval, keyed by the engine's name, and each pair's score rate, keyed
`<a>-vs-<b>`) and ratings.png.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench import report
from bench.gamerecords import read_games
from bench.match import SPRT_OPTION, parse_run_arguments, run_arguments, run_match, with_sprt
from bench.matchrun import has_pending, planned_games
from bench.matchconfig import NAME_RE, MatchConfig, _check_keys, _int, _name, load_yaml_config, parse_config
from bench.ratings import Ratings, fit
from bench.records import RunError, figure, results_folder, save_plot, start_run, write_summary
from bench.stats import wilson_interval
from engine.configfile import ConfigError

SHARED_KEYS = ("board_size", "komi", "games", "seed", "jobs", "max_moves", "fault_result", "replay_void",
               "disputes", "referee", "sprt", "openings")
TOP_KEYS = {"name", "anchor", "engines", "pairs", *SHARED_KEYS}
ENTRY_KEYS = {"name", "handicap", "komi", "games"}  # beside a match engine's keys
HANDICAP_KOMI = 0.5


@dataclass(frozen=True)
class Entry:
    name: str
    engine: dict                  # a match config's engine mapping (command, label, setup, timeout)
    handicap: int = 0
    komi: float = HANDICAP_KOMI   # komi of its handicap games
    games: int = 0                # games of each of its pairs; 0 means the league's


@dataclass(frozen=True)
class Pair:
    player: str                   # the match's player: the handicapped engine if there is one
    opponent: str
    match: MatchConfig


@dataclass(frozen=True)
class LeagueConfig:
    name: str
    entries: tuple[Entry, ...]
    anchor: str
    pairs: tuple[Pair, ...]
    source: str = ""
    raw: dict = field(default_factory=dict, compare=False)   # the YAML mapping, for run.json

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entries]

    @property
    def run_dir(self) -> Path:
        return results_folder("league", self.name)


# -- configuration --------------------------------------------------------------------------------

def load_config(path: str, programs: dict[str, str] | None = None) -> LeagueConfig:
    """Read and validate a league file; every error is a ConfigError naming the file and the key.
    `programs`: the paths of the external programs its commands name ({pachi}; bench.programs)."""
    return load_yaml_config(path, parse_league, programs)


def parse_league(data: Any, default_name: str = "league", source: str = "",
                 programs: dict[str, str] | None = None) -> LeagueConfig:
    if not isinstance(data, dict):
        raise ConfigError("the file must hold a mapping of keys (board_size, games, engines, ...)")
    _check_keys(data, TOP_KEYS, "")
    name = _name(data.get("name", default_name), "name")
    entries = _entries(data.get("engines"))
    names = [e.name for e in entries]
    anchor = data.get("anchor", names[-1])
    if anchor not in names:
        raise ConfigError(f"anchor: {anchor!r} is not an engine's name ({', '.join(names)})")
    shared = {key: data[key] for key in SHARED_KEYS if key in data}
    for i, entry in enumerate(entries):    # every engine checked on its own, so that errors name it
        _match(entry, entry, shared, "check", f"engines[{i}]", programs)
    pairs = tuple(_pair(entries[a], entries[b], shared, name, programs)
                  for a, b in _pair_indices(data.get("pairs", "all"), entries))
    return LeagueConfig(name, entries, anchor, pairs, source, data)


def _entries(items: Any) -> tuple[Entry, ...]:
    if not isinstance(items, list) or len(items) < 2:
        raise ConfigError("engines: expected a list of at least two engines")
    entries, seen = [], set()
    for i, item in enumerate(items):
        where = f"engines[{i}]"
        if not isinstance(item, dict) or "name" not in item:
            raise ConfigError(f"{where}: expected a mapping with a name and a command")
        name = str(item["name"])
        if not NAME_RE.match(name) or name in seen:
            raise ConfigError(f"{where}.name: must be unique, letters, digits and . _ + - only, got {name!r}")
        seen.add(name)
        handicap = item.get("handicap", 0)
        if not isinstance(handicap, int) or isinstance(handicap, bool) or handicap == 1 or not 0 <= handicap <= 9:
            raise ConfigError(f"{where}.handicap: must be 0 or 2..9, got {handicap!r}")
        komi = item.get("komi", HANDICAP_KOMI)
        if not isinstance(komi, (int, float)) or isinstance(komi, bool):
            raise ConfigError(f"{where}.komi: expected a number, got {komi!r}")
        games = _int(item["games"], f"{where}.games", 1) if "games" in item else 0
        engine = {k: v for k, v in item.items() if k not in ENTRY_KEYS}
        engine.setdefault("label", name)
        entries.append(Entry(name, engine, handicap, float(komi), games))
    return tuple(entries)


def _pair_indices(value: Any, entries: tuple[Entry, ...]) -> list[tuple[int, int]]:
    """The pairs that play: every two engines (`all`) but two handicapped ones, or the listed pairs."""
    if value == "all":
        return [(a, b) for a, b in itertools.combinations(range(len(entries)), 2)
                if not (entries[a].handicap and entries[b].handicap)]
    if not isinstance(value, list) or not value:
        raise ConfigError("pairs: expected `all` or a list of [name, name] pairs")
    index = {e.name: i for i, e in enumerate(entries)}
    out = []
    for i, pair in enumerate(value):
        if not (isinstance(pair, list) and len(pair) == 2 and all(p in index for p in pair) and pair[0] != pair[1]):
            raise ConfigError(f"pairs[{i}]: expected two different engine names, got {pair!r}")
        a, b = index[pair[0]], index[pair[1]]
        if entries[a].handicap and entries[b].handicap:
            raise ConfigError(f"pairs[{i}]: both engines take a handicap")
        if (a, b) in out or (b, a) in out:
            raise ConfigError(f"pairs[{i}]: {pair[0]} and {pair[1]} are paired twice")
        out.append((a, b))
    return out


def _pair(a: Entry, b: Entry, shared: dict, league: str, programs: dict[str, str] | None) -> Pair:
    player, opponent = (b, a) if b.handicap else (a, b)
    name = f"{player.name}-vs-{opponent.name}"
    return Pair(player.name, opponent.name,
                _match(player, opponent, shared, f"{league}/{name}", "engines", programs))


def _match(player: Entry, opponent: Entry, shared: dict, name: str, where: str,
           programs: dict[str, str] | None) -> MatchConfig:
    """The bench.match configuration of one pair; its engine errors are reported under `where`."""
    data = {**shared, "name": name.replace("/", "."), "player": player.engine, "opponent": opponent.engine}
    if player.games or opponent.games:
        data["games"] = max(player.games, opponent.games)
    if player.handicap:
        data.update(handicap=player.handicap, komi=player.komi, alternate=False)
    try:
        return parse_config(data, source=name, programs=programs)
    except ConfigError as e:
        text = str(e)
        for role in ("player", "opponent"):
            if text.startswith(role):
                raise ConfigError(f"{where}{text[len(role):]}") from None
        raise


# -- results --------------------------------------------------------------------------------------

def points_table(cfg: LeagueConfig, run_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    """(points[i, j] that engine i scored against j, draws[i, j]) over the games the pair folders hold."""
    names = cfg.names
    points = np.zeros((len(names), len(names)))
    draws = np.zeros_like(points)
    for pair in cfg.pairs:
        i, j = names.index(pair.player), names.index(pair.opponent)
        records = read_games(_pair_dir(run_dir, pair)).values()
        planned = planned_games(pair.match, records)
        for record in records:
            score = report.player_score(record)
            if score is None or record["game"] >= planned:
                continue
            points[i, j] += score
            points[j, i] += 1.0 - score
            if score == 0.5:
                draws[i, j] += 1
                draws[j, i] += 1
    return points, draws


def _pair_dir(run_dir: Path, pair: Pair) -> Path:
    return run_dir / f"{pair.player}-vs-{pair.opponent}"


def format_ratings(cfg: LeagueConfig, ratings: Ratings, points: np.ndarray, draws: np.ndarray) -> str:
    m = cfg.pairs[0].match
    low, high = min(p.match.games for p in cfg.pairs), max(p.match.games for p in cfg.pairs)
    games = f"{low}" if low == high else f"{low} to {high}"
    games = f"SPRT, at most {games}" if m.sprt else games
    lines = [f"League {cfg.name}: {m.board_size}x{m.board_size}, komi {m.komi:g}, {games} games per pair; "
             f"Bradley-Terry Elo, {cfg.anchor} at 0, 95% intervals",
             f"{'rank':>4}  {'engine':<20} {'Elo':>6}  {'95% CI':>15}  {'games':>5}  {'score':>6}"]
    for rank, r in enumerate(ratings.ratings, 1):
        lines.append(f"{rank:>4}  {r.name:<20} {r.elo:>+6.0f}  [{r.low:>+6.0f}, {r.high:>+6.0f}]  "
                     f"{r.games:>5.0f}  {100 * r.score:>5.1f}%")
    if ratings.regularised:
        lines.append("Some engines won or lost every game against the rest: no maximum-likelihood estimate "
                     "exists, and these ratings are regularised (choix alpha); read them as bounds.")
    lines.append("")
    lines.append("Each row's W-L-D against each column:")
    width = max(len(n) for n in cfg.names) + 2
    lines.append(" " * width + "".join(f"{n:>{width}}" for n in cfg.names))
    for i, name in enumerate(cfg.names):
        cells = []
        for j in range(len(cfg.names)):
            games = points[i, j] + points[j, i]
            wins = points[i, j] - draws[i, j] / 2
            cells.append("-" if i == j or not games else f"{wins:.0f}-{games - wins - draws[i, j]:.0f}-{draws[i, j]:.0f}")
        lines.append(f"{name:<{width}}" + "".join(f"{c:>{width}}" for c in cells))
    return "\n".join(lines)


def plot(path: Path, ratings: Ratings, title: str) -> None:
    rows = list(reversed(ratings.ratings))
    fig, ax = figure(7, 0.5 * len(rows) + 1.5)
    ys = range(len(rows))
    ax.errorbar([r.elo for r in rows], ys, xerr=[[r.elo - r.low for r in rows], [r.high - r.elo for r in rows]],
                fmt="o", capsize=4)
    ax.set_yticks(list(ys), [r.name for r in rows])
    ax.axvline(0, color="grey", lw=0.8, ls="--")
    ax.set_xlabel(f"Elo (Bradley-Terry, {ratings.anchor} = 0), 95% interval")
    ax.set_title(textwrap.fill(title, 90), fontsize=9)   # a long league title wraps, never clips
    save_plot(fig, path)


def figures(cfg: LeagueConfig, ratings: Ratings, points: np.ndarray, draws: np.ndarray) -> list[dict]:
    """summary.json's `figures`: each engine's Elo, then each pair's score rate for its player."""
    out = [{"key": r.name, "label": f"{r.name}: Bradley-Terry Elo, {ratings.anchor} at 0", "value": r.elo,
            "low": r.low, "high": r.high, "n": round(r.games), "unit": "Elo",
            "text": f"{r.elo:+.0f} [{r.low:+.0f}, {r.high:+.0f}], {r.games:.0f} games"}
           for r in ratings.ratings]
    names = cfg.names
    for pair in cfg.pairs:
        i, j = names.index(pair.player), names.index(pair.opponent)
        n = points[i, j] + points[j, i]
        d = draws[i, j]
        wins, losses = points[i, j] - d / 2, points[j, i] - d / 2
        low, high = wilson_interval(points[i, j], int(n))
        text = f"{wins:.0f}-{losses:.0f}-{d:.0f} of {n:.0f}"
        if n:
            text += f", {100 * points[i, j] / n:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"
        out.append({"key": f"{pair.player}-vs-{pair.opponent}", "label": f"{pair.player} against {pair.opponent}",
                    "value": points[i, j] / n if n else None, "low": low if n else None,
                    "high": high if n else None, "n": int(n), "unit": "win rate", "text": text})
    return out


def write_ratings(cfg: LeagueConfig, run_dir: Path) -> str | None:
    """Rate the games the league holds and write summary.txt/.json and ratings.png; None while no game
    links them."""
    points, draws = points_table(cfg, run_dir)
    try:
        ratings = fit(cfg.names, points, cfg.anchor)
    except ValueError as e:
        return f"no ratings yet: {e}"
    text = format_ratings(cfg, ratings, points, draws)
    run_dir.mkdir(parents=True, exist_ok=True)
    write_summary(run_dir, {
        "name": cfg.name, "anchor": cfg.anchor, "regularised": ratings.regularised,
        "ratings": [_finite(vars(r)) for r in ratings.ratings], "engines": cfg.names,
        "points": points.tolist(), "draws": draws.tolist(),
        "figures": [_finite(f) for f in figures(cfg, ratings, points, draws)]}, text)
    plot(run_dir / "ratings.png", ratings, text.splitlines()[0])
    return text


def _finite(item: dict) -> dict:
    """NaN and infinities as strings, as JSON has neither."""
    return {k: str(v) if isinstance(v, float) and not math.isfinite(v) else v for k, v in item.items()}


# -- running --------------------------------------------------------------------------------------

def run_league(cfg: LeagueConfig, run_dir: Path, jobs: int | None = None, scheduler: str | None = None,
               progress: bool = True, argv: list[str] | None = None) -> str | None:
    """Play what every pair still lacks, one pair after another, rating after each; a finished pair's
    folder is left as it is (no engines started, no invocation added)."""
    started = False
    for pair in cfg.pairs:
        folder = _pair_dir(run_dir, pair)
        if has_pending(pair.match, folder):
            if not started:
                start_run(run_dir, "league", cfg.raw, command=" ".join(argv or sys.argv))
                started = True
            run_match(pair.match, folder, jobs=jobs, scheduler=scheduler, progress=progress, argv=argv)
            write_ratings(cfg, run_dir)
        print((folder / "summary.txt").read_text(encoding="utf-8"), flush=True)
    return write_ratings(cfg, run_dir)


def main(argv: list[str] | None = None) -> int:
    parser = run_arguments("python -m bench.league", __doc__, "league", [
        ("--rate-only", {"action": "store_true", "help": "rate the games already played; play none"}), SPRT_OPTION])
    parsed = parse_run_arguments(parser, argv, load_config)
    if parsed is None:
        return 2
    args, cfg = parsed
    if args.sprt is not None:
        try:
            pairs = tuple(dataclasses.replace(p, match=with_sprt(p.match, args.sprt)) for p in cfg.pairs)
        except ConfigError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        cfg = dataclasses.replace(cfg, pairs=pairs, raw={**cfg.raw, "sprt": pairs[0].match.raw["sprt"]})
    run_dir = Path(args.out) if args.out else cfg.run_dir
    command = ["python", "-m", "bench.league"] + (sys.argv[1:] if argv is None else list(argv))
    try:
        text = write_ratings(cfg, run_dir) if args.rate_only else run_league(
            cfg, run_dir, args.jobs, args.scheduler, not args.no_progress, command)
    except RunError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; run the same command again to resume", file=sys.stderr)
        print(write_ratings(cfg, run_dir) or "")
        return 130
    print(text or "no games yet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
