"""Config-driven matches between two GTP engines: `python -m bench.match CONFIG.yaml`.

    python -m bench.match bench/configs/match/quick.yaml [--jobs N] [--scheduler ADDRESS] [--out DIR]
                                                   [--variants NAME ...] [--games N] [--sprt ELO0 ELO1]
                                                   [--program NAME=PATH]

Every variant of the player plays `games` games against the opponent (see bench.matchconfig); with a
`time:` section the games are played on the clock (bench.game, bench.gameclock).
Games run in parallel through a concurrent.futures executor: a local process pool of --jobs
workers, or a Dask distributed cluster with --scheduler ADDRESS (its workers need this package and
the engines' commands). An engine built outside the project is named by a placeholder, `{pachi}`, whose
path --program pachi=PATH gives (bench.programs; a missing program stops the run before its first game).
The run folder (default bench/results/match/<name>/, see bench.records) gets:

    run.json              bench.records' run (config, one provenance entry per invocation), plus
                          `settings` (what a resume must match), `engines` (each engine's name, version,
                          label and command, as probed) and `game_common` (below)
    games.jsonl           one line per game, appended as games finish (below)
    <variant>.dat         gogui-twogtp results table, from the player's (-black) point of view
    summary.txt/.json     the table printed at the end, and its `figures`; winrate.png, the plot
    run.lock              while the run lasts: its flock, and the process holding it

SGF files are derived from the records: `python -m bench.sgf RUN_DIR` (bench.sgf).

games.jsonl is compact: a line holds one game record of bench.game without what the whole run shares.
`read_games` is the one reader; it gives every game back as bench.game's record:
- a key missing from the line is taken from run.json's `game_common` (run, board_size, komi, handicap,
  host, and the commands), then from GAME_DEFAULTS (null, false, [] and the like); a line's own value
  always wins, so a game that differs from the rest (another host, say) keeps its own;
- `player_command`, `opponent_command` and `referee_command` in `game_common` are the config's commands
  with `{seed}` and `{game}` filled in per game (`player_command` maps each variant to its command);
- `moves` is one space-separated string ("F3 F5 pass"), or a list where a move is not one word (an
  engine's reply that was not a vertex);
- `times` is one space-separated string of whole centiseconds, each move's wall time ("103 4 91"),
  which is what an SGF shows; `player_seconds`, `opponent_seconds`, `seconds` and the CPU times keep
  their milliseconds.

One run at a time per folder: a second run on a folder in use exits at once (status 2) naming the
process that holds it. The lock is the kernel's (flock), so a crashed or killed run leaves none.

Running the same config with the same folder again (the same --out, or none for the default
folder) resumes: games already in games.jsonl are not replayed, and a config with more
games plays only the new ones. With `replay_void: N` a void game (a fault, with fault_result: void) is
replaced by the game after the last planned one, up to N per variant; the void game stays in the
records and out of the counts. `--variants` plays the games of the named variants only, so one
variant of a long run can be finished first; the reports still show every variant's games so far.
`--games N` plays N games per variant in place of the config's `games` (fewer for one run folder,
more to narrow an interval), as gogui-twogtp's -games does.
A folder whose games were played with another board, komi, seed, opening suite or
engine command is refused.

Sequential tests (`sprt:` in the config, or `--sprt ELO0 ELO1`, which keeps the config's alpha, beta
and model): each variant runs the generalized SPRT of bench.sprt on its games against the opponent
and stops playing when the log-likelihood ratio crosses a bound (H1: the player is elo1 stronger; H0:
elo0); `games` is then a cap, reached without a decision. Only as many games as can run at once are
submitted (--jobs, or the Dask cluster's threads), so a decision leaves no queue: the games in flight
then are finished and recorded, and count in the final figures. The decision is the first crossing in
the order the games finished (games.jsonl's), so a resume recomputes the same one and plays nothing
more; other bounds on a resume are a new test on the same games.

Game pairs (`openings:` a suite file, bench.openings): games 2k and 2k+1 start from opening k of the
suite (modulo its length) with colours swapped; the harness sends the opening's moves to every engine
with `play`, and they are the game's first moves in its record, which names the opening (`opening`,
its index; `opening_file`, in game_common; `opening_moves`). A pair counts once both its games have a
result, in points of 2 (0, 0.5, 1, 1.5, 2: the pentanomial model of the test and of the Elo interval);
a pair with a void game never counts, and with `replay_void` the whole pair is replaced by the next.
Without a suite the games count one by one (trinomial).

summary.txt and summary.json then give per variant the decision (H1 accepted, H0 accepted, cap
reached, running), the LLR and its bounds, the games at the decision and those in flight, W-L-D, the
pair counts and the Elo with its 95% interval (summary.json: `sequential`; `figures` gain
`<variant>/elo` and `<variant>/sprt`); the progress line shows the LLR as the games come in.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import contextlib
import dataclasses
import fcntl
import faulthandler
import multiprocessing
import os
import signal
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from tqdm import tqdm

from bench import programs as external
from bench import report
from bench.game import GameTask, play_game
from bench.gtpclient import EngineFault, ErrorReply, GtpEngine
from bench.matchconfig import ConfigError, EngineSpec, MatchConfig, check_pairs, fill, load_config, parse_sprt
from bench.records import append_jsonl, iter_jsonl, read_jsonl, read_run, start_run, write_summary

# Keys whose change makes earlier games of a run folder incomparable with new ones.
RESUME_KEYS = ("board_size", "komi", "handicap", "alternate", "move_limit", "seed", "fault_result")
LOCK_NAME = "run.lock"


class RunError(Exception):
    """The run cannot start: an engine does not answer, or the folder holds another match."""


@dataclass
class EngineInfo:
    name: str
    version: str
    label: str
    command: str


# -- engines, checked before the first game ------------------------------------------------------

def probe(spec: EngineSpec, what: str, cfg: MatchConfig) -> EngineInfo:
    """Start the engine once: name, version, and that it takes the board size and setup commands."""
    engine = GtpEngine(spec.command_for(cfg.seed, 0), timeout=spec.timeout, label=what)
    try:
        engine.start()
        name = _ask(engine, "name") or os.path.basename(engine.argv[0])
        version = _ask(engine, "version")
        timed = [cfg.time.gtp_time_settings()] if cfg.time else []
        for command in [f"boardsize {cfg.board_size}", "clear_board"] + spec.setup_for(cfg.seed, 0) + timed:
            try:
                engine.send(command)
            except ErrorReply as e:
                raise RunError(f"{what}: {command!r} failed: {e} (command: {spec.command})") from None
    except EngineFault as e:
        raise RunError(f"{what}: {e} (command: {spec.command})") from None
    finally:
        engine.close()
    return EngineInfo(name=name, version=version, label=spec.label or name, command=spec.command)


def _ask(engine: GtpEngine, command: str) -> str:
    try:
        return " ".join(engine.send(command).split())
    except ErrorReply:
        return ""


# -- the run folder -------------------------------------------------------------------------------

def settings(cfg: MatchConfig) -> dict:
    """What identifies the games of a run, for the resume check."""
    return {
        **{key: getattr(cfg, key) for key in RESUME_KEYS},
        "opponent": [cfg.opponent.command, list(cfg.opponent.setup)],
        "referee": [cfg.referee.command, list(cfg.referee.setup)] if cfg.referee else None,
        "variants": {v.name: [v.player.command, list(v.player.setup)] for v in cfg.variants},
        "time": dataclasses.asdict(cfg.time) if cfg.time else None,
        **({"disputes": cfg.disputes} if cfg.disputes != "referee" else {}),   # runs from before it resume
        **({"openings": cfg.openings_file} if cfg.openings_file else {}),
    }


@contextlib.contextmanager
def locked(run_dir: Path) -> Iterator[None]:
    """Hold an exclusive flock on run_dir/run.lock for the block, or raise RunError naming the
    process that holds it. The kernel drops the lock when its process ends, however it ends; the
    file (which says who holds it) is removed on the way out, still locked."""
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / LOCK_NAME
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 200).decode(errors="replace").strip() or "a process not yet known"
            os.close(fd)
            raise RunError(f"{run_dir} is in use by another run ({holder}); wait for it to end "
                           f"or use another --out") from None
        if _is_same_file(fd, path):
            break
        os.close(fd)            # the holder removed the file while we opened it: lock the new one
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"process {os.getpid()} on {socket.gethostname()}\n".encode())
        yield
    finally:
        path.unlink(missing_ok=True)
        os.close(fd)


def _is_same_file(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False


def check_resume(old: dict, new: dict, run_dir: Path) -> None:
    for key, value in new.items():
        if key == "variants":
            for name, player in value.items():
                if name in old.get("variants", {}) and old["variants"][name] != player:
                    raise RunError(f"{run_dir} holds games of variant {name!r} played with another "
                                   f"command or setup ({old['variants'][name]}); use another --out")
        elif old.get(key) != value:
            raise RunError(f"{run_dir} holds games played with {key} = {old.get(key)!r}, "
                           f"the config says {value!r}; use another --out")


# -- games.jsonl: the compact game records (see the module docstring) -------------------------------

GAME_DEFAULTS: dict[str, Any] = {
    "alternated": False, "handicap": 0, "handicap_stones": [], "referee_command": None, "reason": None,
    "fault": None, "score": None, "result_referee": None, "disagreement": False, "dead_stones": [],
    "engine_results": {"player": "?", "opponent": "?"}, "notes": [], "opening": None, "opening_file": None,
    "opening_moves": 0}
COMMAND_KEYS = ("player_command", "opponent_command", "referee_command")


def game_common(cfg: MatchConfig) -> dict[str, Any]:
    """What every game of a run shares, kept once in run.json."""
    return {"run": cfg.name, "board_size": cfg.board_size, "komi": cfg.komi, "handicap": cfg.handicap,
            "host": socket.gethostname(),
            "player_command": {v.name: v.player.command for v in cfg.variants},
            "opponent_command": cfg.opponent.command,
            "referee_command": cfg.referee.command if cfg.referee else None,
            **({"opening_file": cfg.openings_file} if cfg.openings_file else {})}


def _shared(common: dict[str, Any], variant: str, seed: int, game: int) -> dict[str, Any]:
    """GAME_DEFAULTS under `common`, its command templates filled in for one game."""
    shared = {**GAME_DEFAULTS, **common}
    for key in COMMAND_KEYS:
        template = shared.get(key)
        if isinstance(template, dict):          # player_command: one per variant
            template = template.get(variant)
            if template is None:
                del shared[key]
                continue
        if template is not None:
            shared[key] = fill(template, seed, game)
    return shared


def compact_game(record: dict[str, Any], common: dict[str, Any]) -> dict[str, Any]:
    """A game record as its games.jsonl line: what `common` and GAME_DEFAULTS give dropped, moves and
    times as strings."""
    shared = _shared(common, record["variant"], record["seed"], record["game"])
    line = {k: v for k, v in record.items() if k not in shared or shared[k] != v}
    moves = line.get("moves")
    if isinstance(moves, list) and all(m and len(m.split()) == 1 and m == m.strip() for m in moves):
        line["moves"] = " ".join(moves)
    if isinstance(line.get("times"), list):
        line["times"] = " ".join(str(round(float(f"{t:.2f}") * 100)) for t in line["times"])
    return line


def expand_game(line: dict[str, Any], common: dict[str, Any]) -> dict[str, Any]:
    """The game record of a games.jsonl line (the inverse of compact_game, times to the centisecond)."""
    record = {**_shared(common, line["variant"], line["seed"], line["game"]), **line}
    if isinstance(record.get("moves"), str):
        record["moves"] = record["moves"].split()
    if isinstance(record.get("times"), str):
        record["times"] = [int(cs) / 100 for cs in record["times"].split()]
    return record


def read_games(run_dir: Path, repair: bool = False) -> dict[tuple[str, int], dict]:
    """The games of a run folder keyed by (variant, game), as bench.game's records.

    With `repair` (a run about to resume) a line cut short by a kill is dropped from the file, so the
    game is played again and the next line starts on a line of its own; without it the file is only
    read, and a line still being written is left out."""
    run_dir = Path(run_dir)
    path = run_dir / "games.jsonl"
    lines = read_jsonl(path) if repair else (iter_jsonl(path) if path.exists() else [])
    common = read_run(run_dir).get("game_common", {})
    games = {}
    for line in lines:
        try:
            games[(line["variant"], int(line["game"]))] = expand_game(line, common)
        except (KeyError, TypeError, ValueError) as e:
            raise RunError(f"{path}: a game line without {e} ({str(line)[:80]})") from None
    return games


def planned_games(cfg: MatchConfig, records: Iterable[dict]) -> int:
    """The game indices one variant plays, given its records: `games`, and its void games replayed
    (see replay_void); records at higher indices do not count."""
    return cfg.planned_games(r["game"] for r in records if report.player_score(r) is None)


class Run:
    """One match run: its folder, its records and its reports."""

    def __init__(self, cfg: MatchConfig, run_dir: Path, variants: Sequence[str] | None = None):
        names = [v.name for v in cfg.variants]
        unknown = sorted(set(variants or ()) - set(names))
        if unknown:
            raise RunError(f"--variants: no variant named {', '.join(unknown)} in {cfg.source} "
                           f"(it has: {', '.join(names)})")
        self.cfg = cfg
        self.playing = tuple(variants) if variants else tuple(names)
        self.dir = run_dir
        self.records_path = run_dir / "games.jsonl"
        self.records: dict[tuple[str, int], dict] = {}
        self.info: dict[str, EngineInfo] = {}
        self.common: dict[str, Any] = {}     # run.json's game_common
        self.started = ""                   # the first invocation's date: the .dat files' Date

    def prepare(self, argv: list[str]) -> None:
        old = read_run(self.dir)
        if old:
            check_resume(old.get("settings", {}), settings(self.cfg), self.dir)
        self.records = read_games(self.dir, repair=True)
        self._probe_engines()
        common = old.get("game_common") or game_common(self.cfg)
        played = {v for v, _ in self.records}
        for v in self.cfg.variants:         # a variant new to the folder: its command joins the rest
            if v.name not in played:
                common["player_command"][v.name] = v.player.command
        run = start_run(self.dir, "match", self.cfg.raw, command=" ".join(argv),
                        invocation={"games_already_played": len(self.records)}, settings=settings(self.cfg),
                        engines={k: vars(v) for k, v in self.info.items()}, game_common=common)
        self.common = common
        self.started = run["invocations"][0]["date"]

    def _probe_engines(self) -> None:
        try:
            external.check(self.cfg.programs)
        except external.ProgramError as e:
            raise RunError(str(e)) from None
        for v in self.cfg.variants:
            self.info[f"player:{v.name}"] = probe(v.player, f"player ({v.name})", self.cfg)
        self.info["opponent"] = probe(self.cfg.opponent, "opponent", self.cfg)
        if self.cfg.referee:
            self.info["referee"] = probe(self.cfg.referee, "referee", self.cfg)

    def planned_games(self, variant: str) -> int:
        return planned_games(self.cfg, (r for (v, _), r in self.records.items() if v == variant))

    def task(self, variant: str, index: int) -> GameTask:
        cfg = self.cfg
        player = next(v.player for v in cfg.variants if v.name == variant)
        opening = cfg.opening(index)
        return GameTask(run=cfg.name, variant=variant, index=index, seed=cfg.seed + index,
                        board_size=cfg.board_size, komi=cfg.komi, handicap=cfg.handicap,
                        move_limit=cfg.move_limit, swapped=cfg.swapped(index), player=player,
                        opponent=cfg.opponent, referee=cfg.referee, fault_result=cfg.fault_result,
                        time=cfg.time, disputes=cfg.disputes,
                        opening=cfg.openings[opening] if opening is not None else (),
                        opening_index=opening, opening_file=cfg.openings_file)

    def pending(self) -> list[GameTask]:
        """The games still to play, in index order, the variants interleaved; none of a variant whose
        SPRT has decided."""
        planned = {v.name: self.planned_games(v.name) for v in self.cfg.variants
                   if v.name in self.playing and not self.decided(v.name)}
        return [self.task(v, i) for i in range(max(planned.values(), default=0)) for v in planned
                if i < planned[v] and (v, i) not in self.records]

    def decided(self, variant: str) -> bool:
        return self.cfg.sprt is not None and self.sequential(variant).result in ("H0", "H1")

    def sequential(self, variant: str) -> report.Sequential:
        """The variant's sequential summary, its games in the order they finished (games.jsonl's)."""
        planned = self.planned_games(variant)
        ordered = [r for (v, i), r in self.records.items() if v == variant and i < planned]
        return report.sequential(variant, ordered, self.cfg.sprt, self.cfg.paired,
                                 finished=len(ordered) == planned)

    def add(self, record: dict) -> None:
        """Keep a finished game: its line in games.jsonl (what resume trusts)."""
        line = compact_game(record, self.common)
        append_jsonl(self.records_path, line)
        self.records[(record["variant"], record["game"])] = expand_game(line, self.common)

    def variant_records(self, name: str) -> list[dict]:
        planned = self.planned_games(name)
        return [r for (v, i), r in sorted(self.records.items()) if v == name and i < planned]

    def summaries(self) -> list[report.VariantSummary]:
        return [report.summarize(v.name, self.variant_records(v.name), v.playouts)
                for v in self.cfg.variants]

    def title(self) -> str:
        games = f"SPRT, at most {self.cfg.games}" if self.cfg.sprt else f"{self.cfg.games}"
        pairs = f" in pairs on {self.cfg.openings_file}" if self.cfg.paired else ""
        return f"{self.setting()}, {games} games per variant{pairs}"

    def sequentials(self) -> list[report.Sequential]:
        """Every variant's sequential summary, with an SPRT or an opening suite; none without."""
        if self.cfg.sprt is None and not self.cfg.paired:
            return []
        return [self.sequential(v.name) for v in self.cfg.variants]

    def setting(self) -> str:
        """Who plays whom, on what board, komi, handicap and clock."""
        cfg = self.cfg
        first = self.info[f"player:{cfg.variants[0].name}"]
        player = first.label if len(cfg.variants) == 1 else (cfg.player.label or first.name)
        handicap = f", handicap {cfg.handicap}" if cfg.handicap else ""
        timed = f", {cfg.time.describe()}" if cfg.time else ""
        return (f"{player} vs {self.info['opponent'].label}: {cfg.board_size}x"
                f"{cfg.board_size}, komi {cfg.komi:g}{handicap}{timed}")

    def score_line(self) -> str:
        """The progress line: each variant's W-L(-D), and with an SPRT its LLR and bounds (or decision)."""
        tests = {t.variant: t for t in self.sequentials()}
        parts = []
        for s in self.summaries():
            text = f"{s.wins}-{s.losses}" + (f"-{s.draws}" if s.draws else "")
            text = f"{s.variant} {text}" + (f" ({s.faults}F)" if s.faults else "")
            t = tests.get(s.variant)
            if t is not None and t.test is not None:
                text += f" LLR {t.llr:.2f} [{t.test.lower:.2f}, {t.test.upper:.2f}]"
                text += f" {report.DECISIONS[t.result]}" if t.result in ("H0", "H1") else ""
            parts.append(text)
        return " | ".join(parts)

    def report_text(self) -> str:
        """summary.txt: the table, then each variant's test or pair counts."""
        tests = self.sequentials()
        table = report.format_table(self.summaries(), self.title())
        return "\n\n".join([table] + [report.format_sequential(t, self.cfg.openings_file) for t in tests])

    def write_reports(self, with_plot: bool = True) -> str:
        summaries = self.summaries()
        tests = self.sequentials()
        text = self.report_text()
        figures = [report.figure_dict(s, self.setting()) for s in summaries]
        for t in tests:
            figures += report.sequential_figures(t, self.setting())
        summary = {"title": self.title(), "variants": [report.summary_dict(s) for s in summaries],
                   "figures": figures}
        if tests:
            summary["sequential"] = [report.sequential_dict(t) for t in tests]
        write_summary(self.dir, summary, text)
        for v in self.cfg.variants:
            report.write_dat(self.dir / f"{v.name}.dat", self.variant_records(v.name),
                             self._dat_header(v.name))
        if with_plot:
            report.plot(self.dir / "winrate.png", summaries, self.title())
        return text

    def _dat_header(self, variant: str) -> dict:
        black, white = self.info[f"player:{variant}"], self.info["opponent"]
        referee = self.info.get("referee")
        return {"Date": self.started, "Black": black.name, "BlackCommand": black.command,
                "BlackLabel": black.label, "BlackVersion": black.version, "White": white.name, "WhiteCommand": white.command,
                "WhiteLabel": white.label, "WhiteVersion": white.version,
                "Komi": f"{self.cfg.komi:g}", "Size": self.cfg.board_size,
                "Referee": referee.name if referee else "-"}


# -- playing --------------------------------------------------------------------------------------

def make_executor(jobs: int, scheduler: str | None) -> tuple[cf.Executor, object]:
    """A process pool, or the executor of a Dask client (returned too, to be closed)."""
    if scheduler:
        from distributed import Client
        try:
            client = Client(scheduler, timeout=30)
        except (OSError, TimeoutError, ValueError) as e:
            raise RunError(f"cannot connect to the Dask scheduler {scheduler}: {e}") from None
        return client.get_executor(pure=False), client
    return cf.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                  initializer=_worker_init), None


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _stacks_on_sigusr1() -> None:
    """`kill -USR1 PID` prints every thread's Python stack to stderr (for a run that seems stuck)."""
    try:
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    except (AttributeError, ValueError, OSError):   # no SIGUSR1 here, or stderr is not a file
        pass


def _worker_init() -> None:
    """In each pool worker: a SIGTERM ends the game under way through its `finally` (which closes the
    engines), and on Linux the worker gets that SIGTERM when the harness process dies, however it dies.
    Ctrl-C is the harness's to handle (it terminates the workers): a worker that took it itself would
    only give up its game and start a queued one."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_once)
    _stacks_on_sigusr1()
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)      # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _exit_once(signum, frame) -> None:
    """A worker's first SIGTERM exits through the game's `finally`; later ones (the pool terminating its
    workers once one has gone, the harness's death) are ignored, lest they cut short the closing of an
    engine and leave it running."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.exit(128 + signum)


def _play_in_pool(task: GameTask) -> dict:
    """play_game in a pool worker. A SIGTERM ends the game through its `finally` (which closes the
    engines) and then the worker too, where the pool would otherwise wait for its next game."""
    try:
        return play_game(task)
    except SystemExit as e:
        os._exit(e.code if isinstance(e.code, int) else 1)


def _terminate_workers(executor: cf.ProcessPoolExecutor) -> None:
    """Stop a pool's workers now, mid-game (Python 3.14 has ProcessPoolExecutor.terminate_workers)."""
    terminate = getattr(executor, "terminate_workers", None)
    if terminate is not None:
        terminate()
        return
    for proc in list((getattr(executor, "_processes", None) or {}).values()):
        if proc.is_alive():
            proc.terminate()
    for proc in list((getattr(executor, "_processes", None) or {}).values()):
        proc.join(10)


def play(run: Run, executor: cf.Executor, progress: bool = True, window: int | None = None) -> int:
    """Play the pending games of a run on the executor, and the replays of the void games among
    them; returns the number of games that failed in the harness itself (they are not recorded,
    so a resume plays them again).

    With `window` at most that many games are submitted at once (a run with an SPRT: when its test
    decides, no queued game is left to cancel, and the games in flight are finished and recorded);
    without, every game is submitted at the start."""
    failed: set[tuple[str, int]] = set()
    total = sum(run.planned_games(v) for v in run.playing)
    bar = tqdm(total=total, initial=len([k for k in run.records if k[0] in run.playing]), desc=run.cfg.name,
               unit="game", disable=not progress, dynamic_ncols=True)
    fn = _play_in_pool if isinstance(executor, cf.ProcessPoolExecutor) else play_game
    futures: dict[cf.Future, GameTask] = {}

    def submit() -> None:
        busy = {(t.variant, t.index) for t in futures.values()} | failed
        for task in run.pending():
            if window is not None and len(futures) >= window:
                break
            if (task.variant, task.index) not in busy:
                futures[executor.submit(fn, task)] = task
        bar.total = max(bar.n + len(futures), sum(run.planned_games(v) for v in run.playing))

    try:
        submit()
        bar.set_postfix_str(run.score_line())
        while futures:
            done, _ = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
            for future in done:
                task = futures.pop(future)
                try:
                    record = future.result()
                except Exception as e:      # a harness error: report it, keep the other games going
                    failed.add((task.variant, task.index))
                    tqdm.write(f"error: game {task.variant}-{task.index} failed in the harness: "
                               f"{type(e).__name__}: {e}", file=sys.stderr)
                    continue
                run.add(record)
                bar.update(1)
            submit()
            bar.set_postfix_str(run.score_line())
            run.write_reports(with_plot=False)
    except BaseException:
        # A process pool whose workers are terminated fails its queued futures itself; cancelling
        # them first makes Python 3.11's pool thread die on InvalidStateError with a traceback.
        if not isinstance(executor, cf.ProcessPoolExecutor):
            for future in futures:
                future.cancel()
        raise
    finally:
        bar.close()
    return len(failed)


def has_pending(cfg: MatchConfig, run_dir: Path) -> bool:
    """Whether the run folder still lacks games of `cfg`; nothing is locked, probed or written."""
    run = Run(cfg, run_dir)
    run.records = read_games(run_dir)
    return bool(run.pending())


def run_match(cfg: MatchConfig, run_dir: Path, executor: cf.Executor | None = None, jobs: int | None = None,
              scheduler: str | None = None, progress: bool = True, argv: list[str] | None = None,
              variants: Sequence[str] | None = None) -> tuple[Run, int]:
    """Lock the run folder, prepare it, play what is missing (of `variants` only, when given) and
    write the reports."""
    run = Run(cfg, run_dir, variants)       # checks the variants' names before the folder is touched
    with locked(run_dir):
        run.prepare(argv if argv is not None else sys.argv)
        client = None
        own = executor is None
        if own:
            executor, client = make_executor(jobs or cfg.jobs, scheduler)
        try:
            failed = play(run, executor, progress, window(cfg, jobs, client))
        except BaseException:
            if isinstance(executor, cf.ProcessPoolExecutor) and own:
                _terminate_workers(executor)
            raise
        finally:
            if isinstance(executor, cf.ProcessPoolExecutor) and own:
                executor.shutdown(wait=False, cancel_futures=True)
            elif own:
                executor.shutdown(wait=False)
            if client is not None:
                client.close()
            run.write_reports()
    return run, failed


def window(cfg: MatchConfig, jobs: int | None, client: object | None) -> int | None:
    """How many games a run keeps in flight: with an SPRT, the games that can run at once (the Dask
    cluster's threads, else --jobs), so that a decision leaves few to finish; without, all of them."""
    if cfg.sprt is None:
        return None
    if client is not None:
        return max(1, sum(client.nthreads().values()))
    return jobs or cfg.jobs


def with_sprt(cfg: MatchConfig, bounds: Sequence[float]) -> MatchConfig:
    """The configuration with --sprt ELO0 ELO1 in place of its test's bounds (its alpha, beta and model
    kept); a ConfigError naming --sprt when they cannot be used."""
    section = {**(cfg.raw.get("sprt") or {}), "elo0": bounds[0], "elo1": bounds[1]}
    try:
        test = parse_sprt(section)
    except ConfigError as e:
        raise ConfigError(f"--sprt: {e}") from None
    return dataclasses.replace(cfg, sprt=test, raw={**cfg.raw, "sprt": section})


def run_arguments(prog: str, doc: str, what: str, extra: list[tuple[str, dict]] = ()) -> argparse.ArgumentParser:
    """The command line of a run of games (a match, a league): CONFIG, --jobs, --scheduler, --out,
    --no-progress, --program, and `extra` options; `parse_run_arguments` checks --jobs."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.splitlines()[0])
    parser.add_argument("config", help=f"{what} configuration (YAML)")
    parser.add_argument("--jobs", type=int, default=None, help="games played at once (default: the config's jobs)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="run the games on this Dask scheduler")
    parser.add_argument("--out", metavar="DIR", help=f"run folder (default bench/results/{what}/<name>/)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    external.add_option(parser)
    for flag, options in extra:
        parser.add_argument(flag, **options)
    return parser


def parse_run_arguments(parser: argparse.ArgumentParser, argv: list[str] | None,
                        load: Callable[[str, dict[str, str]], Any]) -> tuple[argparse.Namespace, Any] | None:
    """(arguments, the configuration `load` reads from CONFIG with the --program paths); None, with the
    error printed, when the configuration cannot be used. A SIGTERM then stops the run as Ctrl-C does."""
    args = parser.parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        parser.error("--jobs must be at least 1")
    try:
        cfg = load(args.config, external.paths(args.program))
    except (ConfigError, external.ProgramError) as e:
        print(f"error: {e}", file=sys.stderr)
        return None
    signal.signal(signal.SIGTERM, _raise_interrupt)
    return args, cfg


VARIANTS_OPTION = ("--variants", dict(nargs="+", metavar="NAME",
                                      help="play only these variants' games (default: every variant)"))
GAMES_OPTION = ("--games", dict(type=int, metavar="N", help="games per variant (default: the config's games)"))
SPRT_OPTION = ("--sprt", dict(type=float, nargs=2, metavar=("ELO0", "ELO1"),
                              help="stop each variant when an SPRT of elo0 against elo1 decides (the config's "
                                   "alpha, beta and model, default 0.05, 0.05, logistic); `games` is the cap"))


def main(argv: list[str] | None = None) -> int:
    parser = run_arguments("python -m bench.match", __doc__, "match", [VARIANTS_OPTION, GAMES_OPTION, SPRT_OPTION])
    parsed = parse_run_arguments(parser, argv, load_config)
    if parsed is None:
        return 2
    args, cfg = parsed
    if args.games is not None:
        if args.games < 1:
            parser.error("--games must be at least 1")
        cfg = dataclasses.replace(cfg, games=args.games, raw={**cfg.raw, "games": args.games})
    try:
        if args.games is not None and cfg.paired:
            check_pairs(args.games, "--games")
        if args.sprt is not None:
            cfg = with_sprt(cfg, args.sprt)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    run_dir = Path(args.out) if args.out else cfg.run_dir
    _stacks_on_sigusr1()
    command = ["python", "-m", "bench.match"] + (sys.argv[1:] if argv is None else list(argv))
    try:
        run, failed = run_match(cfg, run_dir, jobs=args.jobs, scheduler=args.scheduler,
                                progress=not args.no_progress, argv=command, variants=args.variants)
    except RunError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ninterrupted: the games played are in {run_dir}; run the same command again to resume",
              file=sys.stderr)
        return 130
    print(run.report_text())
    print(f"\nrun folder: {run_dir}")
    if failed:
        print(f"error: {failed} games failed in the harness and were not recorded; run again to retry",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
