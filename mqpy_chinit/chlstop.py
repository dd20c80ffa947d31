"""A sending MCA's MQGET of its transmission queue that waits (in a worker thread, which a
cancel cannot interrupt), ended at once by the channel's operator: STOP CHANNEL MODE(QUIESCE)
(the channel's stop request, when the get is one the request ends: the idle channel's) and
MODE(FORCE) or TERMINATE (the MCA cancelled, as when the channel initiator ends) wake the
get (``mqpy.waitingget``) rather than wait for its WaitInterval to pass. A batch in progress
is not ended by QUIESCE here: its gets are made without the stop request, and the batch
completes (spec dqm-intercommunication 9.39).

Nothing is put on the transmission queue to wake the get: the connection's own wake ends it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TypeVar

import outcome
import trio

from mqpy.waitingget import WaitingGets

__all__ = ["WAKE_AGAIN", "WAKE_LIMIT", "waiting_get"]

_T = TypeVar("_T")

#: seconds after which a wake is repeated while the get it means to end has not ended (the
#: first reached the queue manager before the get's request, and was dropped)
WAKE_AGAIN = 0.1
#: seconds a cancelled MCA goes on waking its get before it leaves it to end by itself (its
#: unit of work is backed out at the MCA's end whatever the get did)
WAKE_LIMIT = 5.0


async def waiting_get(gets: WaitingGets, get: Callable[[], _T],
                      stop: trio.Event | None = None) -> _T:
    """``get`` (a blocking call of ``gets.get``) in a worker thread; its wait woken when
    ``stop`` is set (the get then fails MQRC_NO_MSG_AVAILABLE, as at the end of its wait) or
    when this task is cancelled (woken, then the cancel goes on: whatever the get took is in
    the connection's unit of work, which the MCA's end backs out)."""
    ended = threading.Event()
    lock = threading.Lock()
    state = {"started": False, "abandoned": False}

    def call() -> _T | None:
        with lock:
            if state["abandoned"]:  # cancelled before it began: no get at all (nobody
                return None  # reads what an abandoned call returns)
            state["started"] = True
        try:
            return get()
        finally:
            ended.set()

    async def wake_when_stopped(stop: trio.Event) -> None:
        await stop.wait()
        await _wake_until_ended(gets, ended)

    async with trio.open_nursery() as nursery:
        if stop is not None:
            nursery.start_soon(wake_when_stopped, stop)
        # captured, not raised out of the nursery's body (an exception group): the MCA
        # reads the get's MQMIError as it is
        result = await outcome.acapture(trio.to_thread.run_sync, call, abandon_on_cancel=True)
        if isinstance(result, outcome.Error) and isinstance(result.error, trio.Cancelled):
            with lock:  # (a cancel may come before the worker thread began, or was asked)
                state["abandoned"] = True
                started = state["started"]
            if started:
                with trio.CancelScope(shield=True), trio.move_on_after(WAKE_LIMIT):
                    await _wake_until_ended(gets, ended)
        nursery.cancel_scope.cancel()
    return result.unwrap()  # type: ignore[no-any-return]


async def _wake_until_ended(gets: WaitingGets, ended: threading.Event) -> None:
    """Wake the get until it has ended (a worker thread's wake, then its wait for the end),
    every WAKE_AGAIN seconds."""
    while not await trio.to_thread.run_sync(functools.partial(_wake_and_wait, gets, ended)):
        pass


def _wake_and_wait(gets: WaitingGets, ended: threading.Event) -> bool:
    if ended.is_set():
        return True
    gets.wake()
    return ended.wait(WAKE_AGAIN)
