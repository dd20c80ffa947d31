"""The wake message: how a process that ends wakes its own MQGET waiting in a thread that
nothing else can interrupt (a trio worker thread, the command server's threads), so that it
ends at once rather than when the get's WaitInterval has passed.

A wake message is put by the ending process itself, on the queue its get waits on: not
persistent, empty, of Format :data:`WAKE_FORMAT`, with an Expiry of :data:`WAKE_EXPIRY`. The
get that takes it does nothing with it (a get under syncpoint commits it away); one that no
get takes (the get had just ended, or another getter took a real message) expires, and is
removed as IBM removes an expired message: by the next get or browse that meets it, or by
the queue manager's expiry scan. No application or operator command ever acts on it.

This module never waits and never raises: a queue manager that cannot take a wake message
(it is quiescing, the queue is put-inhibited or full) leaves the get to end as it would have
(MQGMO_FAIL_IF_QUIESCING: a quiescing queue manager ends the waiting gets itself; or its
WaitInterval).
"""

from __future__ import annotations

from collections.abc import Callable

from mqpy import CMQC
from mqpy.errors import MQMIError, PYIFError
from mqpy.mqi import QueueManager
from mqpy.structs.tables import MD, PMO

__all__ = ["WAKE_EXPIRY", "WAKE_FORMAT", "is_wake", "put_wakes", "put_wakes_through", "wake_md"]

#: the Format of a wake message
WAKE_FORMAT = b"MQPYWAKE"
#: a wake message's Expiry (tenths of a second): long enough for the get it wakes to take
#: it, short enough that one nobody took does not stay on the queue
WAKE_EXPIRY = 50


def wake_md() -> MD:
    """The MQMD of a wake message."""
    return MD(Format=WAKE_FORMAT, Persistence=CMQC.MQPER_NOT_PERSISTENT, Expiry=WAKE_EXPIRY)


def is_wake(md: MD) -> bool:
    """Whether a message got is a wake message (to be taken and ignored)."""
    return md.Format == WAKE_FORMAT


def put_wakes(qm: QueueManager, queue: str, count: int = 1) -> int:
    """``count`` wake messages on ``queue`` (one for each get that may wait on it), outside
    any unit of work; how many the queue manager took."""
    put = 0
    for _ in range(count):
        try:
            qm.put1(queue, b"", wake_md(), PMO(Options=CMQC.MQPMO_NO_SYNCPOINT
                                               | CMQC.MQPMO_FAIL_IF_QUIESCING))
        except (MQMIError, PYIFError):
            break
        put += 1
    return put


def put_wakes_through(connect: Callable[[], QueueManager], queue: str, count: int = 1) -> None:
    """``count`` wake messages on ``queue`` through a connection of their own, made by
    ``connect`` (the ending task's own is busy in the get they wake) and ended after; none
    if the queue manager cannot be reached (its gets ended with it)."""
    try:
        qm = connect()
    except (MQMIError, PYIFError):
        return
    try:
        put_wakes(qm, queue, count)
    finally:
        try:
            qm.disconnect()
        except (MQMIError, PYIFError):
            pass
