"""Putting a message with properties toward QM2 and getting one into a message handle, for
the tests of properties that crossed a channel: the message's data, its MQMD and the handle
holding its properties."""

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


def put_with_properties(qm1, body: bytes, persistent: bool) -> None:
    """MQPUT1 of ``body`` to TARGET on QM2 through ``qm1`` (a string property "colour" and
    an MQTYPE_INT32 "mq_usr.n" in its handle)."""
    conn = qm1.connect()
    try:
        handle = mqpy.MessageHandle(conn, mqpy.CMHO())
        handle.properties.set("colour", "blue")
        handle.properties.set("mq_usr.n", 5, property_type=CMQC.MQTYPE_INT32)
        pmo = mqpy.PMO(Version=CMQC.MQPMO_VERSION_3)
        pmo.OriginalMsgHandle = handle.msg_handle
        md = mqpy.MD(Format=CMQC.MQFMT_STRING, Persistence=int(persistent))
        conn.put1(mqpy.OD(ObjectName=b"TARGET", ObjectQMgrName=b"QM2"), body, md, pmo)
    finally:
        conn.disconnect()
