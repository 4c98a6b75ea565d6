"""Where a run's games are played: a local process pool of --jobs workers, or a Dask distributed cluster
(--scheduler ADDRESS; its workers need this package and the engines' commands), behind one
concurrent.futures executor.

A pool worker ends the game under way through its `finally` (which closes the engines) on a SIGTERM,
and gets that SIGTERM when the harness process dies, however it dies; Ctrl-C is the harness's to handle.
`kill -USR1 PID` prints the Python stacks of a harness or worker that seems stuck.
"""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import faulthandler
import multiprocessing
import os
import signal
import sys
from typing import Iterable, Iterator

from bench.game import GameTask, play_game
from bench.records import RunError


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


@contextlib.contextmanager
def closing(executor: cf.Executor, client: object | None) -> Iterator[None]:
    """Shut down an executor of make_executor after the block, without waiting; a process pool left by
    an exception (Ctrl-C, SIGTERM) has its workers terminated first, mid-game."""
    is_pool = isinstance(executor, cf.ProcessPoolExecutor)
    try:
        yield
    except BaseException:
        if is_pool:
            _terminate_workers(executor)
        raise
    finally:
        if is_pool:
            executor.shutdown(wait=False, cancel_futures=True)
        else:
            executor.shutdown(wait=False)
        if client is not None:
            client.close()


def submit_game(executor: cf.Executor, task: GameTask) -> cf.Future:
    """The game played on the executor: in a pool worker, through `_play_in_pool`."""
    fn = _play_in_pool if isinstance(executor, cf.ProcessPoolExecutor) else play_game
    return executor.submit(fn, task)


def cancel_queued(executor: cf.Executor, futures: Iterable[cf.Future]) -> None:
    """Cancel the games not yet started. A process pool whose workers are terminated fails its queued
    futures itself; cancelling them first makes Python 3.11's pool thread die on InvalidStateError with
    a traceback."""
    if not isinstance(executor, cf.ProcessPoolExecutor):
        for future in futures:
            future.cancel()


def stacks_on_sigusr1() -> None:
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
    stacks_on_sigusr1()
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
