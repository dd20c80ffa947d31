"""NOTIFICATION CONN_STATE (packet-mq.c's MQ_NC_CONN_STATE): the application's side of a
connection telling the queue manager's side that its asynchronous consumption changed state
(MQCTL STOP or SUSPEND, or MQDISC, from a thread other than the dispatcher's).

The flow is written beside the call in progress -- the dispatcher's MQGET (or read ahead's
REQUEST_MSGS) waiting there for a message -- so that the dispatcher is woken rather than
left to the end of its wait: the queue manager's side ends that wait as one whose
WaitInterval passed (MQRC_NO_MSG_AVAILABLE), and the dispatcher, back, sees the new state.
A flow that comes when no get waits (the get ended meanwhile) is dropped. Nothing answers
it.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from mqpy import CMQC
from mqpy.fap import asyncflows
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import ByteOrder, OtherSegment, SegmentType

__all__ = ["CONN_STATE", "flow", "is_wake", "take_leading_wakes", "take_wakes"]

#: packet-mq.c's MQ_NC_CONN_STATE
CONN_STATE = 3


def flow(conv_id: int | None = None, order: ByteOrder = ByteOrder.LITTLE) -> bytes:
    """The NOTIFICATION segment (of conversation ``conv_id`` on a shared channel instance),
    in ``order``."""
    return asyncflows.notification(CMQC.MQHO_NONE, CONN_STATE,  # type: ignore[arg-type]
                                   CMQC.MQCS_STOPPED, conv_id, order)


def is_wake(event: Any, order: ByteOrder = ByteOrder.LITTLE) -> bool:
    """Is ``event`` (a segment read, its integers in ``order``) a CONN_STATE NOTIFICATION?"""
    if type(event) is not OtherSegment or event.segment_type != SegmentType.NOTIFICATION:
        return False
    try:
        return asyncflows.parse_notification(event.body, order).code == CONN_STATE
    except ProtocolError:  # too short: not one
        return False


def take_wakes(received: deque[Any]) -> bool:
    """Remove the CONN_STATE flows from ``received`` (a session's events not yet served):
    whether there was one."""
    if not any(is_wake(e) for e in received):
        return False
    kept = [e for e in received if not is_wake(e)]
    received.clear()
    received.extend(kept)
    return True


def take_leading_wakes(received: deque[Any]) -> bool:
    """Remove the CONN_STATE flows at the front of ``received``, those written before the
    next request (no get of theirs waits); those after it stay, for that request's wait
    (``take_wakes``): whether there was one."""
    taken = False
    while received and is_wake(received[0]):
        received.popleft()
        taken = True
    return taken
