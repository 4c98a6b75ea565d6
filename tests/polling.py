"""Waiting for something a background thread or process does: poll a predicate until it holds.

A test that waits this way takes as long as the awaited thing takes, and fails with a message naming
it when it does not happen in time, where a fixed sleep is either too short on a loaded machine or
longer than needed everywhere else.
"""
from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], what: str, timeout: float = 10.0, interval: float = 0.01) -> T:
    """The first true value of `predicate()`, polled every `interval` seconds; AssertionError naming
    `what` was awaited if there is none within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)
