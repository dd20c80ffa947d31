"""A client's NOTIFICATION CONN_STATE on a SVRCONN channel (``mqpy.connstate``): its MQCTL
STOP / SUSPEND or MQDISC, from another thread than its asynchronous-consume dispatcher's,
wakes that conversation's MQGET (or read ahead's REQUEST_MSGS) waiting in the queue manager
of this process, which then ends as one whose WaitInterval passed (MQRC_NO_MSG_AVAILABLE).

A conversation served by the engine of this process (``loopcalls.EngineVerbs``: the
channel initiator's own engine, or the queue manager's FASTPATH client host) waits through
:func:`watch_waits`' watch; a wake that comes while its call is queued or served but not yet
waiting (one read brought both) is noted, and ends that call's wait as soon as it begins. One relayed to the queue manager's socket (MQIBindType
STANDARD) passes the flow on when its relayed MQGET waits there
(``QMConnection.wake_waiting_get``); otherwise the flow is dropped, as when no get waits,
and the get ends at the end of its wait.
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from mqpy import loopcalls
from mqpy.fap.tsh import OtherSegment

__all__ = ["watch_waits", "woken"]

#: the conversations whose get waits now, and what wakes each
_waiting: weakref.WeakKeyDictionary[Any, trio.Event] = weakref.WeakKeyDictionary()


def watch_waits(cc: Any) -> None:
    """Give conversation ``cc``'s engine MQI a watch for its waiting gets: it returns (the
    wait then ends with MQRC_NO_MSG_AVAILABLE) when the client's CONN_STATE comes."""
    backend = cc.backend
    if isinstance(backend, loopcalls.EngineVerbs) and backend.watch is None:
        backend.watch = _watch_for(cc)


def _watch_for(cc: Any) -> Callable[[], Awaitable[None]]:
    ref = weakref.ref(cc)

    async def watch() -> None:
        conversation = ref()
        if conversation is None:
            await trio.sleep_forever()
        if conversation.wake_due:  # the wake came before the wait began
            conversation.wake_due = False
            return
        if conversation.last_read:  # the client sends nothing more: no get waits
            return
        event = _waiting[conversation] = trio.Event()
        del conversation
        try:
            await event.wait()
        finally:
            conversation = ref()
            if conversation is not None and _waiting.get(conversation) is event:
                del _waiting[conversation]

    return watch


def woken(conversations: dict[Any, Any], ev: OtherSegment, sharing: bool) -> None:
    """The client's CONN_STATE ``ev``: the waiting get of its conversation ends (if one
    waits now; else nothing)."""
    cc = conversations.get(ev.conv_id if sharing else None)
    if cc is not None:
        wake(cc)


def wake(cc: Any) -> None:
    """Conversation ``cc``'s waiting get ends (if one waits now; else nothing)."""
    event = _waiting.get(cc)
    if event is not None:
        event.set()
        return
    if getattr(cc.backend, "watch", None) is not None and (cc.queued or cc.calling):
        cc.wake_due = True  # its call, read with the wake, has not begun to wait yet
        return
    relay = getattr(cc.backend, "wake_waiting_get", None)  # relayed to the queue manager
    if relay is not None:
        relay()
