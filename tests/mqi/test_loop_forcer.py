"""The log forces of one event loop's calls share worker threads (mqpy.loopcalls.LoopForcer):
one thread hand-over per group of calls, none answered before its LSN is durable, failures
reaching every caller of their group, and no caller stranded by another's cancellation."""

from __future__ import annotations

import threading

import pytest
import trio

from mqpy import loopcalls
from tests.support.waiting import wait_until


class _Log:
    def __init__(self) -> None:
        self.flushed_lsn = 0


class _SlowData:
    """A data manager whose force blocks until the test lets it go, recording each call."""

    def __init__(self) -> None:
        self.log = _Log()
        self.calls: list[int] = []
        self.go = threading.Semaphore(0)
        self.fail_at: int | None = None

    def force(self, lsn: int) -> None:
        self.calls.append(lsn)
        self.go.acquire()
        if self.fail_at is not None and len(self.calls) == self.fail_at:
            raise OSError(28, "No space left on device")
        self.log.flushed_lsn = max(self.log.flushed_lsn, lsn)



async def test_the_forces_of_many_calls_take_one_thread_per_group():
    """Given five calls of one loop needing forces at LSNs 10..50, when the first takes a
    thread and the other four queue behind it, then the four share one second force at the
    highest LSN: two thread hand-overs, and each call returns only once its LSN is durable."""
    data = _SlowData()
    forcer = loopcalls.LoopForcer(data)
    limiter = trio.CapacityLimiter(4)
    durable_at_return: list[bool] = []

    async def call(lsn: int) -> None:
        await forcer.force(lsn, limiter)
        durable_at_return.append(data.log.flushed_lsn >= lsn)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(call, 10)
        await wait_until(lambda: data.calls == [10], 5, 0.001)
        for lsn in (20, 30, 40, 50):
            nursery.start_soon(call, lsn)
        await wait_until(lambda: len(forcer.queue) == 4, 5, 0.001)
        data.go.release()
        await wait_until(lambda: len(data.calls) == 2, 5, 0.001)
        data.go.release()
    assert data.calls == [10, 50]
    assert durable_at_return == [True] * 5
    assert not forcer.busy and not forcer.queue


async def test_a_failed_force_fails_every_call_it_covered():
    """Given a group queued behind a first force, when the group's force fails (a full
    disk), then every call of the group raises that error, the first call does not, and the
    forcer takes the next call afresh."""
    data = _SlowData()
    data.fail_at = 2
    forcer = loopcalls.LoopForcer(data)
    limiter = trio.CapacityLimiter(4)
    outcome: dict[int, object] = {}

    async def call(lsn: int) -> None:
        try:
            await forcer.force(lsn, limiter)
            outcome[lsn] = "durable"
        except OSError as e:
            outcome[lsn] = e.errno

    async with trio.open_nursery() as nursery:
        nursery.start_soon(call, 10)
        await wait_until(lambda: data.calls == [10], 5, 0.001)
        nursery.start_soon(call, 20)
        nursery.start_soon(call, 30)
        await wait_until(lambda: len(forcer.queue) == 2, 5, 0.001)
        data.go.release()
        await wait_until(lambda: len(data.calls) == 2, 5, 0.001)
        data.go.release()
    assert outcome == {10: "durable", 20: 28, 30: 28}
    data.go.release()
    await forcer.force(40, limiter)
    assert data.log.flushed_lsn == 40


@pytest.mark.parametrize("attempt", range(10))  # trio schedules a batch in random order
async def test_a_cancelled_call_never_strands_the_others(attempt):
    """Given calls B and C queued behind A's force, when B is cancelled just as A's thread
    comes back (B may or may not have been handed the next turn by then), then C's force is
    still made and C returns durable; B raises Cancelled."""
    data = _SlowData()
    forcer = loopcalls.LoopForcer(data)
    limiter = trio.CapacityLimiter(4)
    done: list[str] = []
    token = trio.lowlevel.current_trio_token()

    async def call(name: str, lsn: int, scope_box: list | None = None) -> None:
        with trio.CancelScope() as scope:
            if scope_box is not None:
                scope_box.append(scope)
            await forcer.force(lsn, limiter)
            done.append(name)

    b_scope: list[trio.CancelScope] = []
    real_force = data.force

    def force_then_cancel_b(lsn: int) -> None:
        real_force(lsn)
        if lsn == 10:  # A's force: cancel B from the thread, in the same batch as A's return
            trio.from_thread.run_sync(b_scope[0].cancel, trio_token=token)

    data.force = force_then_cancel_b
    async with trio.open_nursery() as nursery:
        nursery.start_soon(call, "A", 10)
        await wait_until(lambda: data.calls == [10], 5, 0.001)
        nursery.start_soon(call, "B", 20, b_scope)
        await wait_until(lambda: len(forcer.queue) == 1, 5, 0.001)
        nursery.start_soon(call, "C", 30)
        await wait_until(lambda: len(forcer.queue) == 2, 5, 0.001)
        data.go.release()
        await wait_until(lambda: len(data.calls) >= 2, 5, 0.001)
        data.go.release()
    assert "A" in done and "C" in done
    assert data.log.flushed_lsn >= 30
    assert not forcer.busy and not forcer.queue


async def test_the_forces_of_a_loop_are_made_by_one_long_lived_writer_thread(monkeypatch):
    """Given one loop's forcer, when its calls force one after the other, then every force
    ran on the same thread, not the loop's; once that thread has been idle WRITER_IDLE_S it
    ends, and the next force starts it again and is still made."""
    monkeypatch.setattr(loopcalls, "WRITER_IDLE_S", 0.05)
    data = _SlowData()
    threads: list[int] = []
    real_force = data.force

    def recording_force(lsn: int) -> None:
        threads.append(threading.get_ident())
        data.go.release()
        real_force(lsn)

    data.force = recording_force
    forcer = loopcalls.LoopForcer(data)
    limiter = trio.CapacityLimiter(4)
    for lsn in (10, 20, 30):
        await forcer.force(lsn, limiter)
    assert len(set(threads)) == 1 and threads[0] != threading.get_ident()
    await wait_until(lambda: forcer.writer.thread is None, 5, 0.01)
    await forcer.force(40, limiter)
    assert data.log.flushed_lsn == 40
