"""Waiting for a condition a test cannot be told about: polled, with a deadline (no timing is
asserted). ``came_true`` answers whether it did, ``wait_for`` fails the test if it did not,
``wait_until`` is the trio form (a cancel scope owns the deadline)."""

from __future__ import annotations

import time
from collections.abc import Callable

import trio


def came_true(predicate: Callable[[], object], timeout: float = 10.0,
              interval: float = 0.05) -> bool:
    """Whether ``predicate`` came true within ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())


def wait_for(check: Callable[[], object], timeout: float = 20.0, what: str | None = None,
             interval: float = 0.05) -> object:
    """``check``'s first true value, polled every ``interval``; an assertion fails if none
    came within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what or check}"
        time.sleep(interval)


async def wait_until(predicate: Callable[[], object], timeout: float = 15.0,
                     interval: float = 0.02) -> None:
    """Return once ``predicate`` is true; trio.TooSlowError after ``timeout`` seconds."""
    with trio.fail_after(timeout):
        while not predicate():
            await trio.sleep(interval)
