"""What a raw MQI handle (a bindings connection's open, get, close, commit) holds, and how
many handles a queue has open for input."""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from tests.support.waiting import wait_for


def _drain(handle, queue: str) -> list[bytes]:
    """Every message on ``queue``, got in order, then MQCMIT."""
    hobj = handle.open(mqpy.OD(ObjectName=queue), CMQC.MQOO_INPUT_AS_Q_DEF)
    out = []
    try:
        while True:
            out.append(handle.get(hobj, mqpy.MD(), mqpy.GMO(), None))
    except mqpy.MQMIError as e:
        assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    handle.close(hobj)
    handle.commit()
    return out


def open_input_count(qm: mqpy.QueueManager, queue: str) -> int:
    """How many handles have ``queue`` open for input now (its IPPROCS, MQINQ)."""
    q = mqpy.Queue(qm, queue, CMQC.MQOO_INQUIRE)
    try:
        return q.inquire(CMQC.MQIA_OPEN_INPUT_COUNT)
    finally:
        q.close()


def wait_until_closed_before_have_ended(qm: mqpy.QueueManager, queue: str) -> None:
    """Return once no connection has ``queue`` open for input: the applications closed
    before have ended. The queue manager ends a connection once it reads its end (for a
    client, later than a new connection may be made on a loaded machine) and backs its unit
    of work out (a message got under syncpoint back on the queue) as it closes its handles,
    in one step (``engine.connection.Connection.abend``)."""
    wait_for(lambda: open_input_count(qm, queue) == 0,
             what=f"the connections closed before to end (no handle on {queue})")
