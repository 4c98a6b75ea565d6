"""What a match run reports: the summary table, gogui-twogtp `.dat` files and the win-rate plot, and
with an SPRT or an opening suite the sequential summary (`sequential`).

All three are computed from the game records alone (games.jsonl), so a resumed or interrupted
run reports exactly the games it holds. Win rates are the player's (the engine under test, the
`-black` engine of the `.dat`), draws counting half; void games (faults without a result) are
left out of the rate and counted under faults. Unfinished games (two passes left regions open and
the referee's and the engines' counts differ, bench.game) are scored as recorded, and counted and
named apart (`<variant>-<game>`, as bench.sgf names their files).
"""
from __future__ import annotations

import math
import socket
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from bench import sprt
from bench.gamerecords import game_id
from bench.records import figure, save_plot
from bench.stats import elo_interval, wilson_interval

DAT_KEYS = ("Black", "BlackCommand", "BlackLabel", "BlackVersion", "Date", "Host", "Komi", "Referee",
            "Size", "White", "WhiteCommand", "WhiteLabel", "WhiteVersion", "Xml")
DAT_COLUMNS = ("GAME", "RES_B", "RES_W", "RES_R", "ALT", "DUP", "LEN", "TIME_B", "TIME_W", "CPU_B",
               "CPU_W", "ERR", "ERR_MSG")


@dataclass
class VariantSummary:
    variant: str
    games: int                # games recorded
    wins: int                 # by the player
    losses: int
    draws: int
    void: int                 # no result (a fault with fault_result: void)
    win_rate: float           # (wins + draws / 2) / decided games; NaN when none
    win_low: float            # 95% Wilson interval
    win_high: float
    elo: float                # player minus opponent
    elo_low: float
    elo_high: float
    player_seconds_per_move: float
    opponent_seconds_per_move: float
    player_cpu_per_move: float     # CPU-seconds, over the games whose engine CPU time was read; NaN when none
    opponent_cpu_per_move: float
    faults: int               # games that ended in a fault, any engine
    faults_by_role: dict
    illegal: int              # games lost to an illegal move, either side
    disagreements: int        # area score and referee differ
    move_limit: int           # games stopped at the move limit
    unfinished: int           # games marked unfinished (scored as recorded)
    unfinished_games: list    # their ids, `<variant>-<game>`
    playouts: int | None = None
    clock: dict | None = None   # timed games: per role, used and available seconds (all games), losses on time


def player_score(record: dict) -> float | None:
    """1, 0.5 or 0 for the player, None for a void game."""
    if not record.get("result") or record["result"] == "Void":
        return None
    if record.get("winner") is None:
        return 0.5
    return 1.0 if record["winner"] == record["player_colour"] else 0.0


def summarize(variant: str, records: Iterable[dict], playouts: int | None = None) -> VariantSummary:
    records = list(records)
    scores = [player_score(r) for r in records]
    decided = [s for s in scores if s is not None]
    points = sum(decided)
    n = len(decided)
    low, high = wilson_interval(points, n)
    elo, elo_low, elo_high = elo_interval(points, n)
    faults_by_role: dict = {}
    for r in records:
        if r.get("fault"):
            role = r["fault"]["role"]
            faults_by_role[role] = faults_by_role.get(role, 0) + 1
    unfinished = [game_id(r) for r in records if r.get("unfinished")]
    return VariantSummary(
        variant=variant, games=len(records),
        wins=sum(1 for s in decided if s == 1.0), losses=sum(1 for s in decided if s == 0.0),
        draws=sum(1 for s in decided if s == 0.5), void=len(scores) - n,
        win_rate=points / n if n else math.nan, win_low=low, win_high=high,
        elo=elo, elo_low=elo_low, elo_high=elo_high,
        player_seconds_per_move=_per_move(records, "player"),
        opponent_seconds_per_move=_per_move(records, "opponent"),
        player_cpu_per_move=_per_move(records, "player", "cpu"),
        opponent_cpu_per_move=_per_move(records, "opponent", "cpu"),
        faults=sum(faults_by_role.values()), faults_by_role=faults_by_role,
        illegal=sum(1 for r in records if r.get("end") == "illegal"),
        disagreements=sum(1 for r in records if r.get("disagreement")),
        move_limit=sum(1 for r in records if r.get("end") == "move_limit"),
        unfinished=len(unfinished), unfinished_games=unfinished,
        playouts=playouts, clock=_clock(records))


def _clock(records: list[dict]) -> dict | None:
    """Per role: seconds used and available over the timed games, the share used, and the games lost on time."""
    timed = [r for r in records if r.get("clock")]
    if not timed:
        return None
    out = {}
    for role in ("player", "opponent"):
        used = sum(r["clock"][role]["used"] for r in timed)
        available = sum(r["clock"][role]["available"] for r in timed)
        out[role] = {"games": len(timed), "used": round(used, 3), "available": round(available, 3),
                     "share": used / available if available else math.nan,
                     "lost_on_time": sum(1 for r in timed if r["clock"][role]["lost"])}
    return out


def _per_move(records: list[dict], role: str, clock: str = "seconds") -> float:
    """Wall (`seconds`) or CPU (`cpu`) seconds per move of one role, over the games that have the time."""
    timed = [r for r in records if r.get(f"{role}_{clock}") is not None]
    moves = sum(r.get(f"{role}_moves", 0) for r in timed)
    seconds = sum(r[f"{role}_{clock}"] for r in timed)
    return seconds / moves if moves else math.nan


# -- the sequential test and the game pairs ------------------------------------------------------

DECISIONS = {"H1": "H1 accepted", "H0": "H0 accepted", "cap": "cap reached", "running": "running"}


@dataclass
class Sequential:
    """A variant's games as a sequential test sees them: counted per game (trinomial) or, on an opening
    suite, per complete pair (pentanomial); the LLR (with an SPRT) and the Elo estimate on those counts."""
    variant: str
    games: int                    # games recorded (void ones included)
    wins: int
    losses: int
    draws: int
    counts: sprt.Trinomial | sprt.Pentanomial
    elo: sprt.EloEstimate
    test: sprt.SprtConfig | None
    llr: float | None             # at the final counts
    result: str                   # "H1", "H0", "cap", "running"; "" without a test
    decided_at: int | None = None    # games recorded when the LLR first crossed a bound
    llr_at_decision: float | None = None
    in_flight: int = 0            # games recorded after the decision: those in flight then

    @property
    def paired(self) -> bool:
        return isinstance(self.counts, sprt.Pentanomial)


def count_rows(records: Iterable[dict], paired: bool) -> np.ndarray:
    """The counts (rising score) after each record, in the order given (the order games finished). A
    pair (games 2k and 2k+1) counts once both games have a result; a pair with a void game never does."""
    counts = np.zeros(5 if paired else 3, dtype=int)
    scores: dict[int, float] = {}
    rows = []
    for r in records:
        score = player_score(r)
        if score is not None and not paired:
            counts[int(2 * score)] += 1
        elif score is not None:
            scores[r["game"]] = score
            partner = scores.get(r["game"] ^ 1)
            if partner is not None:
                counts[int(2 * (score + partner))] += 1
        rows.append(counts.copy())
    return np.array(rows).reshape(-1, len(counts))


def sequential(variant: str, records: Iterable[dict], test: sprt.SprtConfig | None, paired: bool,
               finished: bool) -> Sequential:
    """The sequential summary of a variant's records in the order they finished (games.jsonl's). The
    decision is the first crossing of a bound in that order, so a resumed run finds the one it stopped
    on; the games recorded after it were in flight then, and count in the final figures. `finished`:
    no game is left to play (without a decision, the cap is reached)."""
    records = list(records)
    rows = count_rows(records, paired)
    final = rows[-1] if len(rows) else np.zeros(5 if paired else 3, dtype=int)
    counts = sprt.Pentanomial(tuple(int(c) for c in final)) if paired else \
        sprt.Trinomial(wins=int(final[2]), draws=int(final[1]), losses=int(final[0]))
    scores = [player_score(r) for r in records]
    wins, losses, draws = (sum(1 for x in scores if x == v) for v in (1.0, 0.0, 0.5))
    elo = sprt.elo_interval(counts, test.model if test else "logistic")
    out = Sequential(variant, len(records), wins, losses, draws, counts, elo, test, None, "")
    if test is None:
        return out
    values = sprt.llr_rows(rows, test, counts.games_per_unit) if len(rows) else np.zeros(0)
    out.llr = sprt.llr(counts, test)
    crossed = np.flatnonzero((values >= test.upper) | (values <= test.lower))
    if crossed.size:
        first = int(crossed[0])
        out.result = "H1" if values[first] >= test.upper else "H0"
        out.decided_at, out.llr_at_decision = first + 1, float(values[first])
        out.in_flight = len(records) - first - 1
    else:
        out.result = "cap" if finished else "running"
    return out


def format_sequential(s: Sequential, suite: str | None = None) -> str:
    """The lines summary.txt gives a variant's test: the decision and LLR, the counts, the Elo."""
    lines = []
    unit = "nElo" if s.elo.model == "normalized" else "Elo"
    model = f"pentanomial, game pairs on {suite or 'an opening suite'}" if s.paired else "trinomial"
    if s.test:
        t = s.test
        lines.append(f"SPRT {s.variant}: elo0 {t.elo0:g}, elo1 {t.elo1:g} ({t.model} {unit}), alpha {t.alpha:g}, "
                     f"beta {t.beta:g}; {model}")
        bounds = f"[{t.lower:.2f}, {t.upper:.2f}]"
        if s.decided_at is not None:
            lines.append(f"  {DECISIONS[s.result]} after {s.decided_at} games (LLR {s.llr_at_decision:.2f} {bounds}); "
                         f"{_games(s.in_flight)} in flight then, finished and recorded: LLR {s.llr:.2f} "
                         f"after {s.games} games")
        else:
            lines.append(f"  {DECISIONS[s.result]}: LLR {s.llr:.2f} {bounds} after {s.games} games")
    else:
        lines.append(f"{s.variant}: {model}")
    lines.append(f"  W-L-D {s.wins}-{s.losses}-{s.draws}" + (f"; {s.counts}" if s.paired else ""))
    lines.append(f"  {s.elo} (95%, {'pentanomial' if s.paired else 'trinomial'})")
    return "\n".join(lines)


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


def sequential_dict(s: Sequential) -> dict:
    """summary.json's entry of a variant's test (NaN and infinities as strings)."""
    def num(x: float | None) -> float | str | None:
        return x if x is None or math.isfinite(x) else str(x)
    out = {"variant": s.variant, "games": s.games, "wins": s.wins, "losses": s.losses, "draws": s.draws,
           "model": "pentanomial" if s.paired else "trinomial",
           "elo": num(s.elo.elo), "elo_low": num(s.elo.low), "elo_high": num(s.elo.high), "elo_scale": s.elo.model}
    if s.paired:
        out["pairs"] = list(s.counts.counts)
    if s.test:
        t = s.test
        out["sprt"] = {"elo0": t.elo0, "elo1": t.elo1, "alpha": t.alpha, "beta": t.beta, "model": t.model,
                       "lower": t.lower, "upper": t.upper}
        out.update(llr=s.llr, decision=s.result, decided_at=s.decided_at, llr_at_decision=s.llr_at_decision,
                   in_flight=s.in_flight)
    return out


def sequential_figures(s: Sequential, label: str) -> list[dict]:
    """summary.json `figures` of a variant's test: its Elo with the 95% interval, and the decision."""
    unit = "nElo" if s.elo.model == "normalized" else "Elo"
    model = "pentanomial" if s.paired else "trinomial"
    finite = not math.isnan(s.elo.elo)
    out = [{"key": f"{s.variant}/elo", "label": f"{label}: {unit} ({model})",
            "value": s.elo.elo if finite else None, "low": s.elo.low if finite else None,
            "high": s.elo.high if finite else None, "n": s.games, "unit": unit,
            "text": f"{s.elo}, {s.counts}" if s.paired else f"{s.elo}, {s.wins}-{s.losses}-{s.draws}"}]
    if s.test:
        t = s.test
        at = f" after {s.decided_at} games ({s.in_flight} more in flight)" if s.decided_at is not None else ""
        out.append({"key": f"{s.variant}/sprt", "label": f"{label}: SPRT elo0 {t.elo0:g} elo1 {t.elo1:g}",
                    "value": s.llr, "low": None, "high": None, "n": s.games, "unit": "LLR",
                    "text": f"{DECISIONS[s.result]}{at}: LLR {s.llr:.2f} [{t.lower:.2f}, {t.upper:.2f}]"})
    return [{k: (str(v) if isinstance(v, float) and not math.isfinite(v) else v) for k, v in f.items()} for f in out]


# -- the table ---------------------------------------------------------------------------------

def format_table(summaries: list[VariantSummary], title: str = "") -> str:
    header = ("variant", "games", "W-L-D", "win rate", "95% CI", "Elo", "Elo 95% CI",
              "s/move P", "s/move O", "faults", "illegal", "disagree", "unfinished")
    timed = any(s.clock for s in summaries)
    if timed:
        header += ("clock P", "clock O", "lost on time")
    rows = [header]
    for s in summaries:
        row = (
            s.variant, str(s.games), f"{s.wins}-{s.losses}-{s.draws}", _pct(s.win_rate),
            f"[{_pct(s.win_low)}, {_pct(s.win_high)}]" if s.games - s.void else "-",
            _elo(s.elo), f"[{_elo(s.elo_low)}, {_elo(s.elo_high)}]" if s.games - s.void else "-",
            _secs(s.player_seconds_per_move), _secs(s.opponent_seconds_per_move),
            _faults(s), str(s.illegal), str(s.disagreements), str(s.unfinished))
        if timed:
            row += _clock_cells(s.clock)
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [title] if title else []
    for row in rows:
        lines.append("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                               for i, (cell, w) in enumerate(zip(row, widths))).rstrip())
    lines.append("W-L-D and win rate are the player's (draws count half); P player, O opponent, "
                 "R referee; s/move is wall time.")
    unfinished = [g for s in summaries for g in s.unfinished_games]
    if unfinished:
        lines.append("unfinished: two passes left regions open and the counts differ; scored by the "
                     "harness's count: " + " ".join(unfinished))
    if timed:
        lines.append("clock: seconds used per game and the share of the time available (main time, and "
                     "the byo-yomi the moves in it could use); lost on time: P/O.")
    return "\n".join(lines)


def _clock_cells(clock: dict | None) -> tuple[str, str, str]:
    if not clock:
        return "-", "-", "-"
    cells = tuple(f"{c['used'] / c['games']:.1f} s {_pct(c['share'])}" for c in (clock["player"], clock["opponent"]))
    return (*cells, f"{clock['player']['lost_on_time']}/{clock['opponent']['lost_on_time']}")


def _pct(p: float) -> str:
    return "-" if math.isnan(p) else f"{100 * p:.1f}%"


def _elo(e: float) -> str:
    if math.isnan(e):
        return "-"
    if math.isinf(e):
        return "+inf" if e > 0 else "-inf"
    return f"{e + 0.0:+.0f}" if round(e) else "0"


def _secs(s: float) -> str:
    return "-" if math.isnan(s) else f"{s:.2f}"


def _faults(s: VariantSummary) -> str:
    if not s.faults:
        return "0"
    detail = ",".join(f"{role[0].upper()}{n}" for role, n in sorted(s.faults_by_role.items()))
    return f"{s.faults} ({detail})"


def summary_dict(summary: VariantSummary) -> dict:
    """JSON-ready (infinities and NaNs as strings)."""
    out = {}
    for key, value in asdict(summary).items():
        if isinstance(value, float) and not math.isfinite(value):
            value = str(value)
        out[key] = value
    return out


def figure_dict(summary: VariantSummary, label: str) -> dict:
    """The variant's entry of summary.json's `figures`: the player's score rate with its Wilson interval."""
    s = summary
    n = s.games - s.void
    text = f"{s.wins}-{s.losses}-{s.draws} of {n}"
    if n:
        text += f", {100 * s.win_rate:.1f}% [{100 * s.win_low:.1f}, {100 * s.win_high:.1f}]"
    if s.unfinished:
        text += f"; {s.unfinished} unfinished"
    return {"key": s.variant, "label": label, "value": s.win_rate if n else None,
            "low": s.win_low if n else None, "high": s.win_high if n else None, "n": n,
            "unit": "win rate", "text": text}


# -- gogui-twogtp .dat ---------------------------------------------------------------------------

def invert_result(result: str) -> str:
    """B+ <-> W+, as gogui-twogtp writes the games where the colours were exchanged."""
    if result.startswith("B+"):
        return "W+" + result[2:]
    if result.startswith("W+"):
        return "B+" + result[2:]
    return result


def dat_row(record: dict) -> list[str]:
    """One row of the table, every result from the point of view of the player (the -black engine)."""
    end = record.get("end")
    if end in ("passes", "move_limit", "cleanup"):
        results = [record["engine_results"].get("player") or "?",
                   record["engine_results"].get("opponent") or "?",
                   # a dispute played out: the result of play stands for the referee's
                   (record["result"] if end == "cleanup" else record.get("result_referee")) or "?"]
    elif record.get("result") and record["result"] != "Void":
        results = [record["result"]] * 3
    else:
        results = ["?"] * 3
    if record.get("alternated"):
        results = [invert_result(r) for r in results]
    error = ""
    if end == "illegal":
        error = f"illegal move: {record.get('reason')}"
    elif end == "fault":
        fault = record["fault"]
        error = f"{fault['role']} {fault['kind']}: {fault['message']}"
    elif end == "move_limit":
        error = "move limit exceeded"
    error = " ".join(error.split())
    return [str(record["game"]), *results, "1" if record.get("alternated") else "0", "-",
            str(len(record.get("moves", []))),
            _num(record.get("player_seconds")), _num(record.get("opponent_seconds")),
            _num(record.get("player_cpu")), _num(record.get("opponent_cpu")),
            "1" if error else "0", error]


def _num(x: float | None) -> str:
    return f"{x or 0.0:.1f}"


def write_dat(path: str | Path, records: Iterable[dict], header: dict) -> None:
    """A gogui-twogtp results file: `# Key: value` lines, `#`, then the tab-separated table.

    header holds the DAT_KEYS values; Host and Xml, and Date when it has none, are filled in here."""
    values = {"Date": time.strftime("%Y-%m-%d %H:%M:%S"), "Host": socket.gethostname(), "Xml": "0",
              **header}
    lines = [f"# {key}: {' '.join(str(values.get(key, '')).split())}" for key in DAT_KEYS]
    lines.append("#")
    lines.append("#" + "\t".join(DAT_COLUMNS))
    for record in sorted(records, key=lambda r: r["game"]):
        lines.append("\t".join(dat_row(record)))
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_dat(path: str | Path) -> tuple[dict, list[dict]]:
    """Header properties and rows (as dicts keyed by column) of a .dat file."""
    header: dict = {}
    columns: list[str] = []
    rows = []
    in_header = True
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            text = line[1:].strip()
            if in_header and not text:
                in_header = False
            elif in_header:
                key, _, value = text.partition(":")
                header[key.strip()] = value.strip()
            else:
                columns = text.split("\t")
            continue
        if line.strip():
            rows.append(dict(zip(columns, line.split("\t"))))
    return header, rows


# -- the plot ------------------------------------------------------------------------------------

def plot(path: str | Path, summaries: list[VariantSummary], title: str = "") -> None:
    """Win rate with its 95% interval per variant, and against playouts when variants sweep them."""
    shown = [s for s in summaries if not math.isnan(s.win_rate)]
    sweep = sorted((s for s in shown if s.playouts), key=lambda s: s.playouts)
    panels = 2 if len(sweep) >= 2 else 1
    fig, axes = figure(5.5 * panels, 4, ncols=panels)
    axes = list(axes) if panels > 1 else [axes]
    ax = axes[0]
    xs = range(len(shown))
    _errorbars(ax, list(xs), shown)
    ax.set_xticks(list(xs), [s.variant for s in shown], rotation=30 if len(shown) > 4 else 0)
    ax.set_xlim(-0.5, max(len(shown), 1) - 0.5)
    ax.set_xlabel("variant")
    if panels == 2:
        ax = axes[1]
        _errorbars(ax, [s.playouts for s in sweep], sweep, line=True)
        ax.set_xscale("log")
        ax.set_xlabel("playouts per move")
    for ax in axes:
        ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)
        ax.set_ylim(0, 1)
        ax.set_ylabel("player win rate (95% Wilson interval)")
        ax.grid(alpha=0.3)
    if title:
        fig.suptitle(title)
    save_plot(fig, path)


def _errorbars(ax, xs: list, summaries: list[VariantSummary], line: bool = False) -> None:
    ys = [s.win_rate for s in summaries]
    below = [s.win_rate - s.win_low for s in summaries]
    above = [s.win_high - s.win_rate for s in summaries]
    ax.errorbar(xs, ys, yerr=[below, above], fmt="o-" if line else "o", capsize=4)
    for x, s in zip(xs, summaries):
        ax.annotate(f"{s.wins + s.draws / 2:g}/{s.games - s.void}", (x, s.win_rate),
                    textcoords="offset points", xytext=(6, 4), fontsize=8)
