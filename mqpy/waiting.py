"""A waiting MQGET served over trio, shared by the local server and SVRCONN channels.

The engine calls a waiter when a message may have arrived; the waiter sets a trio Event through
the run's token, so the wait holds no thread and is cancelled with the conversation.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from mqpy import CMQC
from mqpy.errors import MQMIError

Waiter = Callable[[], None]


def wait_deadline(gmo: Any) -> float:
    """The trio clock time at which the MQGMO_WAIT of gmo gives up (inf for MQWI_UNLIMITED)."""
    interval = gmo.WaitInterval
    if interval == CMQC.MQWI_UNLIMITED:
        return math.inf
    if interval < 0:
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_WAIT_INTERVAL_ERROR)
    return trio.current_time() + interval / 1000


async def get_with_wait(attempt: Callable[[Waiter], Awaitable[bytes]],
                        drop: Callable[[Waiter], None], deadline: float,
                        gone: trio.Event | None = None,
                        watch: Callable[[], Awaitable[None]] | None = None) -> bytes:
    """Try attempt(waiter) until a message comes, the deadline passes, or gone is set.
    ``watch``, run only while actually waiting, is what sets ``gone`` (the connection's
    socket watched for its end): it returns once it has set it."""
    token = trio.lowlevel.current_trio_token()
    while True:
        arrived = trio.Event()

        def waiter(arrived: trio.Event = arrived) -> None:
            try:
                token.run_sync_soon(arrived.set)
            except trio.RunFinishedError:
                pass

        try:
            return await attempt(waiter)
        except MQMIError as e:
            if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                raise
        try:
            with trio.move_on_at(deadline):
                if gone is None:
                    await arrived.wait()
                else:
                    # one helper task: the watch (which sets gone when it returns), else a
                    # task waiting for gone; this task waits for the message itself
                    async with trio.open_nursery() as nursery:
                        if watch is not None:
                            nursery.start_soon(_run_then_cancel, watch, nursery)
                        else:
                            nursery.start_soon(_set_then_cancel, gone, nursery)
                        await arrived.wait()
                        nursery.cancel_scope.cancel()
        finally:
            drop(waiter)
        if gone is not None and gone.is_set():
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CONNECTION_BROKEN)  # nobody to answer
        if not arrived.is_set():
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)


async def _set_then_cancel(event: trio.Event, nursery: trio.Nursery) -> None:
    await event.wait()
    nursery.cancel_scope.cancel()


async def _run_then_cancel(watch: Callable[[], Awaitable[None]], nursery: trio.Nursery) -> None:
    await watch()
    nursery.cancel_scope.cancel()
