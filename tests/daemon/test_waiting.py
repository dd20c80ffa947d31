"""A waiting MQGET with a watched connection (``mqpy.waiting.get_with_wait`` as the bindings
server runs it): one task waits for the message, the deadline and the application's end."""

from __future__ import annotations

import math
import threading

import pytest
import trio
import trio.testing

from mqpy import CMQC, waiting
from mqpy.errors import MQMIError


class _Queue:
    """An engine get in miniature: no message until ``arrive``, which calls the waiter the
    failed attempt left (from another thread, as the engine does)."""

    def __init__(self) -> None:
        self.message: bytes | None = None
        self.waiters: list = []
        self.dropped: list = []
        self.attempts = 0

    async def attempt(self, waiter) -> bytes:
        self.attempts += 1
        if self.message is not None:
            return self.message
        self.waiters.append(waiter)
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)

    def drop(self, waiter) -> None:
        self.dropped.append(waiter)

    def arrive(self, message: bytes) -> None:
        self.message = message
        for w in self.waiters:
            w()


class _Watch:
    """The connection's watch: waits until the application goes (``leave``), then sets gone."""

    def __init__(self) -> None:
        self.gone = trio.Event()
        self.left = trio.Event()
        self.running = False
        self.cancelled = 0

    async def __call__(self) -> None:
        self.running = True
        try:
            await self.left.wait()
            self.gone.set()
        except trio.Cancelled:
            self.cancelled += 1
            raise
        finally:
            self.running = False


async def test_a_message_arriving_from_another_thread_ends_the_wait_with_the_message():
    """Given a get waiting with no deadline, when a message arrives and the waiter is called
    from another thread, then the get returns it, its watch was cancelled, and the waiter
    was dropped."""
    queue, watch = _Queue(), _Watch()
    async with trio.open_nursery() as nursery:
        got: list[bytes] = []

        async def get() -> None:
            got.append(await waiting.get_with_wait(queue.attempt, queue.drop, math.inf,
                                                   watch.gone, watch))

        nursery.start_soon(get)
        await trio.testing.wait_all_tasks_blocked()
        assert watch.running
        threading.Thread(target=queue.arrive, args=(b"here",)).start()
    assert got == [b"here"]
    assert queue.attempts == 2 and watch.cancelled == 1 and not watch.running
    assert queue.dropped == queue.waiters[:1]


async def test_the_deadline_ends_the_wait_with_no_message_available(autojump_clock):
    """Given a get waiting 5 s and no message, when the 5 s pass, then 2033, and the watch is
    no longer running."""
    queue, watch = _Queue(), _Watch()
    deadline = trio.current_time() + 5
    with pytest.raises(MQMIError) as info:
        await waiting.get_with_wait(queue.attempt, queue.drop, deadline, watch.gone, watch)
    assert info.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    assert trio.current_time() >= deadline
    assert watch.cancelled == 1 and not watch.running and queue.attempts == 1


async def test_an_application_that_goes_ends_the_wait_with_connection_broken():
    """Given a get waiting with no deadline, when its application goes (the watch sets
    gone), then 2009 at once, even though a message arrives at the same moment."""
    queue, watch = _Queue(), _Watch()
    async with trio.open_nursery() as nursery:
        errors: list[int] = []

        async def get() -> None:
            try:
                await waiting.get_with_wait(queue.attempt, queue.drop, math.inf, watch.gone,
                                            watch)
            except MQMIError as e:
                errors.append(e.reason)

        nursery.start_soon(get)
        await trio.testing.wait_all_tasks_blocked()
        watch.left.set()
        queue.arrive(b"too late")
    assert errors == [CMQC.MQRC_CONNECTION_BROKEN]
    assert queue.dropped == queue.waiters[:1]


async def test_a_message_that_arrives_before_the_wait_begins_is_not_missed():
    """Given a message that arrives between the failed attempt and the wait (its waiter
    called at once), then the wait ends straight away and the get returns it."""
    queue, watch = _Queue(), _Watch()

    async def attempt(waiter) -> bytes:
        try:
            return await queue.attempt(waiter)
        finally:
            if queue.attempts == 1:
                queue.arrive(b"early")  # after the check, before the wait

    got = await waiting.get_with_wait(attempt, queue.drop, math.inf, watch.gone, watch)
    assert got == b"early" and queue.attempts == 2
