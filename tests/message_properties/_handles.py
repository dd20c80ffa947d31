"""Getting a message into a message handle, for the tests of properties that crossed a
channel: the message's data, its MQMD and the handle holding its properties."""

from __future__ import annotations

import mqpy
from mqpy import CMQC


def get_into_handle(conn: mqpy.QueueManager, queue: str) -> tuple[bytes, mqpy.MD,
                                                                  mqpy.MessageHandle]:
    """The next message of ``queue`` got with MQGMO_PROPERTIES_IN_HANDLE (no wait)."""
    handle = mqpy.MessageHandle(conn, mqpy.CMHO())
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4,
                   Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    gmo.MsgHandle = handle.msg_handle
    md = mqpy.MD()
    q = mqpy.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    try:
        return q.get(None, md, gmo), md, handle
    finally:
        q.close()
