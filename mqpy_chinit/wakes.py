"""Ending the channel initiator's tasks that wait in MQGET in a worker thread (the initiation
queue, the repository manager's command queue, the cluster pub/sub daemon's queues): a
cancel cannot interrupt a worker thread, so the task, cancelled while its get waits, wakes
that get with a wake message (:mod:`mqpy.wake`) on its queue, put by a connection of its
own, and ends at once rather than when the get's WaitInterval has passed.

The task's get takes the wake message and does nothing with it; one left on the queue
expires (``mqpy.wake``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import trio

__all__ = ["run_woken"]


async def run_woken(body: Callable[[], Awaitable[None]], wake_gets: Callable[[], None]) -> None:
    """Run ``body`` (a task whose MQGETs wait in worker threads) until it ends or is
    cancelled; cancelled, ``wake_gets`` runs in a worker thread (shielded) to end the wait
    under way. A body that ends by itself (an error) has no get waiting: nothing is woken."""
    ended = False

    async def wake_when_cancelled() -> None:
        try:
            await trio.sleep_forever()
        finally:
            if not ended:
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(wake_gets)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(wake_when_cancelled)
        try:
            await body()
        finally:
            ended = True
            nursery.cancel_scope.cancel()
