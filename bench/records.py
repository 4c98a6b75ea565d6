"""Where a benchmark's records go, and the commit they were measured at.

Every record is a folder `bench/results/<bench>/<slug>/`: the bench that made it (`match`, `predict`,
`speed`, `rules`, `tactics`, `fbt-runs`) and a short name for the run; the full configuration stays
inside the record's files. bench/results/README.md indexes the folders and bench/RESULTS.md cites them.
"""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
SLUG_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


def results_folder(bench: str, slug: str) -> Path:
    """The record folder of run `slug` of `bench` (not created here)."""
    for part, what in ((bench, "bench"), (slug, "slug")):
        if not SLUG_RE.match(part):
            raise ValueError(f"{what} {part!r}: expected letters, digits and . _ + - only")
    return RESULTS / bench / slug


def git_commit() -> str:
    """The commit of this code, with `+changes` when the work tree differs (read-only git calls)."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    where = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                              timeout=10, cwd=where, env=env).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                 capture_output=True, text=True, timeout=30, cwd=where, env=env).stdout.strip()
        return (head + ("+changes" if changed else "")) or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"
