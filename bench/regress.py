"""GnuGo's regression suite through any GTP engine: the move tests (`reg_genmove`, `restricted_genmove`)
of the .tst files in gnugo_regression.tar.xz, 2,536 tests in which GnuGo's authors wrote down the
move (or the moves) a good player chooses, scored as GnuGo's regress.awk scores them (a move compared in
capitals, since GTP vertices are case-insensitive).

    python -m bench.regress [TST ...] [--engine COMMAND] [--name SLUG | --out DIR] [--jobs N] [--data DIR]

Each .tst file runs in one engine process, started in a scratch folder that holds the file's positions,
and gets every line of the file but the other numbered tests (owl_attack, dragon_status and the like ask
for GnuGo's own analysis). The record, bench/results/regress/<slug>/, has run.json (the engine and
the settings), items.jsonl (a line per .tst file: every test's expected result, reply, passed, seconds, with
the commit) and summary.txt / summary.json (per file and in total; the figures `passed`, the share of tests
passed with a Wilson interval, and `star-passed`). A run resumes: a file already in items.jsonl is not run
again, and a run into the same folder with another engine is refused. Expected results marked `*` in the
.tst files are GnuGo 3.8's own known failures; the summary counts them apart. A test whose position the
archive lacks (endgame1.tst's 16) is recorded as missing, not asked and not counted.
"""
from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import re
import signal
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Optional

from bench import records
from bench.gtpclient import EngineFault, ErrorReply, GtpEngine, split_command
from bench.records import RunError
from bench.runlock import locked

ROOT = Path(__file__).resolve().parents[1]
ARCHIVE = "gnugo_regression.tar.xz"
MOVE_TESTS = ("reg_genmove", "restricted_genmove")
# The default engine on one thread, never resigning: a test asks for a move, and many of the positions
# come from games GnuGo was losing.
DEFAULT_ENGINE = "python -m gtp.cli gtp --set search.n_threads=1 --set search.resign_threshold=0"
EXPECTED = re.compile(r"#\?\s*\[(.*)\]([&*]*)\s*$")


@dataclasses.dataclass(frozen=True)
class Expectation:
    number: str
    command: str          # the test's GTP command without its number
    expected: str         # `[!]pattern`: an anchored extended regular expression
    expect_fail: bool     # marked `*`: GnuGo 3.8 fails it too


def expectations(text: str) -> dict[str, Expectation]:
    """Every numbered command of a .tst file that the next `#? [...]` line gives a result for."""
    found, pending = {}, None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#?"):
            m = EXPECTED.match(line)
            if m and pending is not None:
                found[pending[0]] = Expectation(pending[0], pending[1], m.group(1), "*" in m.group(2))
            pending = None
            continue
        command = line.split("#", 1)[0].split()
        if command and command[0].isdigit():
            pending = (command[0], " ".join(command[1:]))
    return found


def regress_match(expected: str, result: str) -> bool:
    """regress.awk: `[!]pattern`, anchored at both ends, an extended regular expression."""
    negate = expected.startswith("!")
    pattern = "^" + (expected[1:] if negate else expected) + "$"
    try:
        ok = re.search(pattern, result) is not None
    except re.error:
        ok = False
    return ok != negate


def run_tst(command: str | list[str], tst_name: str, data_dir: Path, timeout: float,
            tests: Optional[tuple[str, ...]] = None) -> list[dict]:
    """Feed one .tst file to an engine, as GnuGo's regression does, and score its tests; with `tests`,
    numbered commands of other names are not sent."""
    with tarfile.open(data_dir / ARCHIVE) as tar, tempfile.TemporaryDirectory() as tmp:
        text = tar.extractfile(f"regression/{tst_name}").read().decode(errors="replace")
        needed = {line.split()[1] for line in text.splitlines() if line.strip().startswith("loadsgf")}
        missing = needed - extract_positions(tar, needed, Path(tmp))
        expected = expectations(text)
        _put_root_on_pythonpath()
        rows, no_position = [], False
        engine = GtpEngine(command, timeout=timeout, cwd=tmp).start()
        try:
            for raw in text.splitlines():
                tokens = raw.split("#", 1)[0].split()
                number = tokens.pop(0) if tokens and tokens[0].isdigit() else None
                if not tokens or (number and tests is not None and tokens[0] not in tests):
                    continue
                if tokens[0] == "loadsgf":
                    no_position = tokens[1] in missing
                if no_position:     # a test whose position the archive lacks is recorded, not asked
                    if number in expected:
                        rows.append(_row(expected[number], "", False, 0.0, missing=True))
                    continue
                t0 = time.perf_counter()
                reply = _send(engine, " ".join(tokens))
                case = expected.get(number) if number else None
                if case is not None:
                    # GTP vertices are case-insensitive: `pass` is GnuGo's `PASS`
                    compared = reply.upper() if tokens[0] in MOVE_TESTS else reply
                    rows.append(_row(case, reply, regress_match(case.expected, compared), time.perf_counter() - t0))
        finally:
            engine.close()
    return rows


def extract_positions(tar: tarfile.TarFile, needed: set[str], folder: Path) -> set[str]:
    """Write the archive's positions named in `needed` (paths below regression/) into `folder`, in one
    pass over the archive; the names written."""
    written = set()
    for member in tar:
        name = member.name.removeprefix("regression/")
        if name in needed and member.isfile():
            dest = folder / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(tar.extractfile(member).read())
            written.add(name)
    return written


def _put_root_on_pythonpath() -> None:
    """Our engine runs from a scratch folder, so it finds its packages through PYTHONPATH."""
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if str(ROOT) not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + paths)


def _row(case: Expectation, reply: str, passed: bool, seconds: float, missing: bool = False) -> dict:
    return {"test": case.number, "command": case.command, "expected": case.expected, "got": reply, "passed": passed,
            "expect_fail": case.expect_fail, "seconds": round(seconds, 4), "missing": missing}


def _send(engine: GtpEngine, command: str) -> str:
    """The reply; `? message` for an error, `! kind` for a fault (after which the engine restarts)."""
    try:
        return engine.send(command)
    except ErrorReply as e:
        return f"? {e}"
    except EngineFault as e:
        engine.restart()
        return f"! {e.kind}"


def move_test_files(data_dir: Path) -> dict[str, int]:
    """.tst file name -> its move tests, for every file that has any, largest first."""
    counts = {}
    with tarfile.open(data_dir / ARCHIVE) as tar:
        for member in tar:
            if member.name.endswith(".tst"):
                found = expectations(tar.extractfile(member).read().decode(errors="replace"))
                n = sum(e.command.split()[0] in MOVE_TESTS for e in found.values() if e.command)
                if n:
                    counts[Path(member.name).name] = n
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


# -- the record --------------------------------------------------------------------------------------

def file_summary(rows: list[dict]) -> dict:
    """Counts over the tests asked; `missing` counts those whose position the archive lacks."""
    asked = [r for r in rows if not r.get("missing")]
    known = [r for r in asked if r["expect_fail"]]
    return {"tests": len(asked), "passed": sum(r["passed"] for r in asked),
            "gnugo_fails": len(known), "gnugo_fails_passed": sum(r["passed"] for r in known),
            "seconds": round(sum(r["seconds"] for r in asked), 1), "missing": len(rows) - len(asked)}


def summary_table(files: dict[str, dict]) -> str:
    """The per-file table and the total, as summary.txt holds it."""
    lines = [f"{'file':22s} {'tests':>5s} {'passed':>6s} {'share':>6s} {'*':>4s} {'* passed':>8s} {'s/test':>7s}"]
    total = {k: sum(f[k] for f in files.values()) for k in ("tests", "passed", "gnugo_fails",
                                                           "gnugo_fails_passed", "seconds")}
    for name, f in [*files.items(), ("total", total)]:
        share = f"{100 * f['passed'] / f['tests']:.1f}%" if f["tests"] else "-"
        per_test = f"{f['seconds'] / f['tests']:.2f}" if f["tests"] else "-"
        lines.append(f"{name:22s} {f['tests']:5d} {f['passed']:6d} {share:>6s} {f['gnugo_fails']:4d} "
                     f"{f['gnugo_fails_passed']:8d} {per_test:>7s}")
    lines.append("* : tests GnuGo 3.8 itself fails (marked * in the .tst files); s/test: wall seconds per test")
    lines += [f"{name}: {f['missing']} tests not asked, their position is not in the archive"
              for name, f in files.items() if f.get("missing")]
    return "\n".join(lines) + "\n"


def figures(files: dict[str, dict]) -> list[dict]:
    """The share of tests passed, and of those GnuGo 3.8 fails (`*`), with Wilson intervals."""
    return [records.rate_entry(key, label, sum(f[passed] for f in files.values()), sum(f[n] for f in files.values()))
            for key, passed, n, label in (
                ("passed", "passed", "tests", "move tests of GnuGo's regression suite passed"),
                ("star-passed", "gnugo_fails_passed", "gnugo_fails", "tests GnuGo 3.8 fails (*) passed"))]


def write_summary(run_dir: Path) -> str:
    items = records.read_jsonl(run_dir / records.ITEMS)
    files = {Path(item["file"]).stem: file_summary(item["rows"]) for item in items}
    files = dict(sorted(files.items(), key=lambda kv: (-kv[1]["tests"], kv[0])))
    table = summary_table(files)
    records.write_summary(run_dir, {"figures": figures(files), "files": files}, table)
    return table


def check_run(run_dir: Path, settings: dict, argv: Optional[list[str]]) -> None:
    """Add this invocation to run.json; refuse to resume a run of other settings."""
    old = records.read_run(run_dir).get("config")
    # engines compare as they run: a leading `python` is this interpreter
    if old and (split_command(old["engine"]) != split_command(settings["engine"])
                or {**old, "engine": None} != {**settings, "engine": None}):
        raise RunError(f"{run_dir} holds a run of other settings ({old}); use another --name")
    records.start_run(run_dir, "regress", old or settings, command=records.command_line("bench.regress", argv))


def run_file(command: str, tst_name: str, data_dir: Path, timeout: float) -> tuple[str, list[dict]]:
    return tst_name, run_tst(command, tst_name, data_dir, timeout, tests=MOVE_TESTS)


# -- command line ------------------------------------------------------------------------------------

def parse_args(argv: Optional[list[str]]) -> argparse.Namespace:
    from priors.training.dataset import DEFAULT_DATA_DIR
    ap = argparse.ArgumentParser(prog="python -m bench.regress", description=__doc__.split("\n\n")[0])
    ap.add_argument("tst", nargs="*", help="the .tst files to run (default: every file with move tests)")
    ap.add_argument("--engine", default=DEFAULT_ENGINE, help="the GTP engine's command line "
                    "(default: the default engine on one thread, never resigning)")
    ap.add_argument("--name", default="default", help="the record's folder name under bench/results/regress/")
    ap.add_argument("--out", type=Path, default=None, help="the record's folder (default: from --name)")
    ap.add_argument("--jobs", type=int, default=1, help="files run at once, one engine each")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="the folder holding " + ARCHIVE)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds one command may take")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error("--jobs: at least 1")
    return args


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        return run(args, argv)
    finally:
        signal.signal(signal.SIGTERM, previous)


def run(args: argparse.Namespace, argv: Optional[list[str]] = None) -> int:
    """The whole run; 2 for bad input, 1 when stopped."""
    if not (args.data / ARCHIVE).is_file():
        print(f"{args.data / ARCHIVE} not found (set --data)", file=sys.stderr)
        return 2
    available = move_test_files(args.data)
    chosen = [t if t.endswith(".tst") else t + ".tst" for t in args.tst] or list(available)
    unknown = [t for t in chosen if t not in available]
    if unknown:
        print(f"no move tests in {', '.join(unknown)}; files with move tests: {', '.join(available)}",
              file=sys.stderr)
        return 2
    try:
        run_dir = args.out or records.results_folder("regress", args.name)
        split_command(args.engine)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    settings = {"engine": args.engine, "archive": ARCHIVE, "tests": list(MOVE_TESTS)}
    try:
        with locked(run_dir):
            check_run(run_dir, settings, argv)
            done = {item["file"] for item in records.read_jsonl(run_dir / records.ITEMS)}
            todo = [t for t in chosen if t not in done]
            print(f"{len(chosen) - len(todo)} of {len(chosen)} files already run; {len(todo)} to go", flush=True)
            try:
                run_files(args, todo, run_dir)
            finally:
                print(write_summary(run_dir), end="")
    except RunError as e:
        print(e, file=sys.stderr)
        return 2
    except (KeyboardInterrupt, SystemExit):
        print("stopped: the files finished are kept, and the same command resumes", file=sys.stderr)
        return 1
    return 0


def run_files(args: argparse.Namespace, todo: list[str], run_dir: Path) -> None:
    """Run the files, --jobs at once. SIGTERM (main's handler) stops the run at once: the files under
    way are lost, and a resumed run plays them again."""
    jobs = [(args.engine, t, args.data, args.timeout) for t in todo]
    # SIGTERM is held while the workers fork: raised in a fork hook it would be ignored and lost
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    pool = multiprocessing.Pool(args.jobs, initializer=_worker_init)
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})   # a held SIGTERM is raised here
        for name, rows in pool.imap_unordered(_run_file, jobs):
            records.append_jsonl(run_dir / records.ITEMS, {"file": name, "commit": records.git_commit(), "rows": rows})
            f = file_summary(rows)
            print(f"{name}: {f['passed']} of {f['tests']} passed ({f['seconds']:.0f} s)", flush=True)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def _run_file(job: tuple) -> tuple[str, list[dict]]:
    return run_file(*job)


def _worker_init() -> None:
    """A worker stopped by SIGTERM closes its engine and scratch folder on its way out."""
    signal.signal(signal.SIGTERM, _stop)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


def _stop(signum, frame) -> None:
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    sys.exit(main())
