"""Config-driven matches between two GTP engines: `python -m bench.match CONFIG.yaml`.

    python -m bench.match bench/configs/match/quick.yaml [--jobs N] [--scheduler ADDRESS] [--out DIR]
                                                   [--variants NAME ...] [--games N] [--sprt ELO0 ELO1]
                                                   [--program NAME=PATH]

Every variant of the player plays `games` games against the opponent (see bench.matchconfig); with a
`time:` section the games are played on the clock (bench.game, bench.gameclock).
Games run in parallel through a concurrent.futures executor: a local process pool of --jobs
workers, or a Dask distributed cluster with --scheduler ADDRESS (its workers need this package and
the engines' commands; bench.executors). Each engine is started once before the first game, and one
that cannot play stops the run (bench.probe). An engine built outside the project is named by a
placeholder, `{pachi}`, whose path --program pachi=PATH gives, and the engine at an earlier commit as
`{base}` (`make base COMMIT=REV`), for an A/B match of a change (bench.programs; a missing program stops
the run before its first game). The run folder (default bench/results/match/<name>/, see
bench.records) gets:

    run.json              bench.records' run (config, one provenance entry per invocation), plus
                          `settings` (what a resume must match), `engines` (each engine's name, version,
                          label and command, as probed) and `game_common` (what every game shares)
    games.jsonl           one line per game, appended as games finish (bench.gamerecords)
    <variant>.dat         gogui-twogtp results table, from the player's (-black) point of view
    summary.txt/.json     the table printed at the end, and its `figures`; winrate.png, the plot
                          (bench.runreport)
    run.lock              while the run lasts: its flock, and the process holding it

SGF files are derived from the records: `python -m bench.sgf RUN_DIR` (bench.sgf).

games.jsonl is compact (what the whole run shares is kept once, in run.json): bench.gamerecords reads
it back, game by game, as bench.game's records.

One run at a time per folder: a second run on a folder in use exits at once (status 2) naming the
process that holds it. The lock is the kernel's (flock), so a crashed or killed run leaves none
(bench.runlock).

Running the same config with the same folder again (the same --out, or none for the default
folder) resumes: games already in games.jsonl are not replayed, and a config with more
games plays only the new ones. With `replay_void: N` a void game (a fault, with fault_result: void) is
replaced by the game after the last planned one, up to N per variant; the void game stays in the
records and out of the counts. `--variants` plays the games of the named variants only, so one
variant of a long run can be finished first; the reports still show every variant's games so far.
`--games N` plays N games per variant in place of the config's `games` (fewer for one run folder,
more to narrow an interval), as gogui-twogtp's -games does.
A folder whose games were played with another board, komi, seed, opening suite or
engine command is refused (bench.matchrun).

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
import signal
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from tqdm import tqdm

from bench import programs as external
from bench.executors import cancel_queued, closing, make_executor, stacks_on_sigusr1, submit_game
from bench.game import GameTask
from bench.matchconfig import ConfigError, MatchConfig, check_pairs, load_config, parse_sprt
from bench.matchrun import Run
from bench.records import RunError
from bench.runlock import locked
from bench.runreport import progress_line, summary_text, write_reports


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


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
    futures: dict[cf.Future, GameTask] = {}

    def submit() -> None:
        busy = {(t.variant, t.index) for t in futures.values()} | failed
        for task in run.pending():
            if window is not None and len(futures) >= window:
                break
            if (task.variant, task.index) not in busy:
                futures[submit_game(executor, task)] = task
        bar.total = max(bar.n + len(futures), sum(run.planned_games(v) for v in run.playing))

    try:
        submit()
        bar.set_postfix_str(progress_line(run))
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
            bar.set_postfix_str(progress_line(run))
            write_reports(run, with_plot=False)
    except BaseException:
        cancel_queued(executor, futures)
        raise
    finally:
        bar.close()
    return len(failed)


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
            with closing(executor, client) if own else contextlib.nullcontext():
                failed = play(run, executor, progress, window(cfg, jobs, client))
        finally:
            write_reports(run)
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
    stacks_on_sigusr1()
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
    print(summary_text(run))
    print(f"\nrun folder: {run_dir}")
    if failed:
        print(f"error: {failed} games failed in the harness and were not recorded; run again to retry",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
