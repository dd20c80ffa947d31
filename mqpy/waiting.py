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
    socket watched for its end): it returns once it has set it.

    All in this task: it waits for the connection's end (the watch, or ``gone``) inside a
    cancel scope whose deadline is the wait's, and a message that may have arrived cancels
    that scope -- no helper task, no nursery, one wake-up per wait."""
    token = trio.lowlevel.current_trio_token()
    if watch is not None:
        until_gone = watch
    elif gone is not None:
        until_gone = gone.wait
    else:
        until_gone = trio.sleep_forever
    while True:
        scope = trio.CancelScope(deadline=deadline)
        woken: list[bool] = []

        def wake(scope: trio.CancelScope = scope, woken: list[bool] = woken) -> None:
            woken.append(True)
            scope.cancel()  # a no-op once the wait is over

        def waiter(wake: Callable[[], None] = wake) -> None:
            try:
                token.run_sync_soon(wake)
            except trio.RunFinishedError:
                pass

        try:
            return await attempt(waiter)
        except MQMIError as e:
            if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                raise
        try:
            with scope:
                await until_gone()  # returns once the application has gone
        finally:
            drop(waiter)
        if gone is not None and gone.is_set():
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CONNECTION_BROKEN)  # nobody to answer
        if not woken:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)
