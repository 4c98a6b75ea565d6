"""wait_until: returns as soon as the awaited thing happens, fails naming it when it does not."""
import threading
import time

import pytest

from tests.polling import wait_until


def test_returns_the_first_true_value_once_a_thread_made_it_true():
    seen: list[int] = []
    threading.Timer(0.05, seen.append, args=(7,)).start()
    assert wait_until(lambda: seen, "a value from the timer") == [7]


def test_fails_naming_what_it_waited_for_after_the_timeout():
    start = time.monotonic()
    with pytest.raises(AssertionError, match="waiting for the moon"):
        wait_until(lambda: False, "the moon", timeout=0.1)
    assert 0.1 <= time.monotonic() - start < 2.0
