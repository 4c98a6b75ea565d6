"""Records: where a bench writes, what a run folder holds, and the provenance every record carries.

Every record is a folder `bench/results/<bench>/<slug>/` (`match`, `league`, `speed`, `predict`, `tactics`,
`regress`, `rules`, `scorecheck`, `spt-study`, `pbn-trends`, `fbt-runs`, `harvest`; `train` holds training
runs: the model file's header and the run's log) holding

    run.json        the run: bench, slug, config, and one provenance entry per invocation (a resumed run
                    has several): date, command, commit, dirty flag, machine, load average
    games.jsonl     one game per line (match, league), appended as games finish; what a resumed run trusts
    items.jsonl     the same for the other benches' items, one per line: a .tst file's tests (regress), a
                    problem set's rows (tactics), a study value (spt-study), a seed's run (fbt-runs)
    summary.json    the run's figures, as the results page reads them: a "figures" list (`figure_entry`)
                    beside the bench's own fields
    summary.txt     the same for a reader
    *.png           its plots

This module is the only one that writes run.json or asks git for the commit. Derived files (SGFs, gogui
`.dat` tables, the predict plots) are written on demand from the records (`python -m bench.sgf`,
`python -m bench.predict --plot FOLDER`).
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SLUG_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
ITEMS = "items.jsonl"          # the items of a bench other than match and league


class RunError(Exception):
    """A run cannot start or its folder cannot be read: an engine does not answer, the folder is in use
    or holds another run's games, a record is damaged."""


def results_folder(bench: str, slug: str) -> Path:
    """The record folder of run `slug` of `bench` (not created here)."""
    for part, what in ((bench, "bench"), (slug, "slug")):
        if not SLUG_RE.match(part):
            raise ValueError(f"{what} {part!r}: expected letters, digits and . _ + - only")
    return RESULTS / bench / slug


# -- provenance ---------------------------------------------------------------------------------------------

def run_git(*args: str, cwd: Path | None = None, text: bool = True,
            timeout: float = 30) -> subprocess.CompletedProcess:
    """A read-only git command in `cwd` (this repository by default) that takes no locks."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    return subprocess.run(["git", *args], capture_output=True, text=text, timeout=timeout, cwd=cwd or ROOT,
                          env=env)


def _git(*args: str) -> str:
    return run_git(*args).stdout.strip()


def git_state() -> tuple[str, bool]:
    """The commit of this code (12 hex digits, or "unknown") and whether the work tree differs from it
    outside bench/results."""
    try:
        head = _git("rev-parse", "--short=12", "HEAD")
        # Records are data: a run that rewrote one (a rerun, a resumed match) is not measured on changed code.
        dirty = bool(_git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)bench/results"))
        return (head or "unknown"), dirty
    except (OSError, subprocess.SubprocessError):
        return "unknown", False


def git_commit() -> str:
    """The commit as one label: `abc123def456`, with `+changes` when the work tree differs."""
    commit, dirty = git_state()
    return commit + ("+changes" if dirty else "")


def machine() -> dict[str, Any]:
    """The machine a figure was measured on, spelled one way for every bench."""
    return {"host": platform.node(), "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
            "python": platform.python_version()}


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages, where the system has them."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def command_line(module: str, argv: Iterable[str] | None = None) -> str:
    """`python -m MODULE ARGS`, the command that gives a run again (ARGS: sys.argv[1:] by default)."""
    return shlex.join(["python", "-m", module, *(sys.argv[1:] if argv is None else argv)])


def provenance(argv: Iterable[str] | None = None, command: str | None = None) -> dict[str, Any]:
    """One invocation's provenance: date, command, commit, dirty flag, machine, load average.

    `command` is the whole command line (`python -m bench.X ...`); without it, `argv` (sys.argv by
    default) is joined behind `python -m <the running module>`."""
    if command is None:
        args = list(sys.argv[1:] if argv is None else argv)
        module = sys.modules["__main__"].__spec__
        head = f"python -m {module.name.removesuffix('.__main__')}" if module else "python"
        command = " ".join([head, *args])
    commit, dirty = git_state()
    return {"date": datetime.datetime.now().isoformat(sep=" ", timespec="seconds"), "command": command,
            "commit": commit, "dirty": dirty, "machine": machine(), "load": load_average()}


# -- run.json -----------------------------------------------------------------------------------------------

def read_run(folder: Path) -> dict[str, Any]:
    """A record's run.json, or {} where it has none yet."""
    path = Path(folder) / "run.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def start_run(folder: Path, bench: str, config: Mapping[str, Any], *, argv: Iterable[str] | None = None,
              command: str | None = None, invocation: Mapping[str, Any] | None = None, resume: bool = True,
              **extra: Any) -> dict[str, Any]:
    """Make `folder` and add this invocation to its run.json (created on the first); returns the run.

    `config` is the run's whole configuration; `extra` keys (engines probed, settings a resume must
    match) are stored beside it and replace earlier values; `invocation` keys (the games a resumed run
    already held, say) join this invocation's provenance entry. A bench that does not resume passes
    `resume=False`: its run replaces the record, and run.json starts again with this invocation."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    run = read_run(folder) if resume else {}
    entry = {**provenance(argv, command), **(invocation or {})}
    run.setdefault("bench", bench)
    run.setdefault("slug", folder.name)
    run["config"] = config
    run.update(extra)
    run.setdefault("invocations", []).append(entry)
    write_json(folder / "run.json", run)
    return run


def commits(run: Mapping[str, Any]) -> list[str]:
    """The commits a run was measured at, oldest first, without repeats."""
    seen: list[str] = []
    for inv in run.get("invocations", []):
        c = inv.get("commit")
        if c and c not in seen:
            seen.append(c)
    return seen


# -- items, one per line ------------------------------------------------------------------------------------

def append_jsonl(path: Path, item: Mapping[str, Any]) -> None:
    """Append one item and make it durable before returning (a resume trusts every whole line)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(item, separators=(",", ":")) + "\n")
        f.flush()
        os.fsync(f.fileno())


def write_jsonl(path: Path, items: Iterable[Mapping[str, Any]]) -> None:
    """Write a finished run's items at once, one per line (replacing the file)."""
    Path(path).write_text("".join(json.dumps(item, separators=(",", ":")) + "\n" for item in items),
                          encoding="utf-8")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every whole line of a JSONL file; a torn last line (a run killed mid-write) is dropped and
    cut from the file, so the next append starts on a line of its own. A missing file is empty."""
    path = Path(path)
    if not path.exists():
        return []
    items, good = [], []
    original = path.read_text(encoding="utf-8")
    for line in original.splitlines(keepends=True):
        try:
            items.append(json.loads(line))
            good.append(line if line.endswith("\n") else line + "\n")
        except json.JSONDecodeError:
            if line.strip():
                print(f"{path}: dropped a torn line ({len(line)} characters)", file=sys.stderr)
    text = "".join(good)
    if text != original:
        path.write_text(text, encoding="utf-8")
    return items


def iter_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The items of a JSONL file without rewriting it (for readers of finished records)."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    return


# -- summaries and plots ------------------------------------------------------------------------------------

def write_json(path: Path, data: Any) -> None:
    """One line, no indentation: records stay small (`python -m json.tool` shows one indented)."""
    Path(path).write_text(json.dumps(data, default=str) + "\n", encoding="utf-8")


SHARE_UNITS = {"top-1", "top-5", "top-10", "top-20", "share", "rate", "win rate"}   # shown as percentages


def figure_entry(key: str, label: str, value: float | None, *, unit: str, low: float | None = None,
                 high: float | None = None, n: int | None = None, text: str | None = None) -> dict[str, Any]:
    """One entry of summary.json's "figures": what the results page shows of a record. `low`/`high` are
    the 95% interval where one exists; `text` defaults to the value (a share as a percentage) with it."""
    if text is None:
        text = _figure_text(value, low, high, n, unit)
    return {"key": key, "label": label, "value": value, "low": low, "high": high, "n": n, "unit": unit,
            "text": text}


def rate_entry(key: str, label: str, k: float, n: int, unit: str = "rate") -> dict[str, Any]:
    """A figure_entry for k of n with its Wilson 95% interval: `156 of 161, 96.9% [92.9, 98.7]`."""
    from bench.stats import wilson_interval
    if not n:
        return figure_entry(key, label, None, n=0, unit=unit, text=f"{k:g} of 0")
    low, high = wilson_interval(k, n)
    return figure_entry(key, label, k / n, low=low, high=high, n=n, unit=unit,
                        text=f"{k:g} of {n}, {100 * k / n:.1f}% [{100 * low:.1f}, {100 * high:.1f}]")


def _figure_text(value: float | None, low: float | None, high: float | None, n: int | None, unit: str) -> str:
    if value is None:
        return "-"
    share = unit in SHARE_UNITS
    show = (lambda x: f"{100 * x:.1f}%") if share else (lambda x: f"{x:,.4g}" if abs(x) < 1000 else f"{x:,.0f}")
    text = show(value) + ("" if share else f" {unit}")
    if low is not None and high is not None:
        text += f" [{show(low)}, {show(high)}]"
    return text + (f" of {n:,}" if n is not None else "")


def write_summary(folder: Path, summary: Mapping[str, Any], text: str) -> None:
    """summary.json (what the results page reads) and summary.txt (the same for a reader)."""
    write_json(Path(folder) / "summary.json", summary)
    Path(folder, "summary.txt").write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def read_summary(folder: Path) -> dict[str, Any]:
    return json.loads(Path(folder, "summary.json").read_text(encoding="utf-8"))


def figure(width: float = 6.0, height: float = 4.0, **subplots: Any):
    """A matplotlib figure and axes drawn off screen (Agg), the one way benches start a plot; `subplots`
    (ncols=4, sharex=True, ...) go to plt.subplots."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt.subplots(figsize=(width, height), **subplots)


def save_plot(fig, path: Path, dpi: int = 80) -> Path:
    """Save and close a plot; one resolution for every bench keeps records small."""
    import matplotlib.pyplot as plt
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return Path(path)
