"""One run at a time per folder: an exclusive flock on its run.lock for as long as the run lasts.

A second run on a folder in use stops at once with a RunError naming the process that holds it. The lock
is the kernel's (flock), so a crashed or killed run leaves none: the kernel drops it when its process
ends, however it ends.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from pathlib import Path
from typing import Iterator

from bench.records import RunError

LOCK_NAME = "run.lock"


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
