"""Helpers for the MQI-semantics suite: addressed puts and reading what the queue manager made.

The message on a transmission queue is read the way a sending MCA reads it: its own MQMD, then
an MQXQH (428 bytes) naming the destination and embedding the original MQMD, then the data.
"""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from tests.mqi._support import IN, OUT

XQH_LEN = CMQC.MQXQH_LENGTH_1  # 428
DLH_LEN = CMQC.MQDLH_LENGTH_1  # 172
TM_LEN = CMQC.MQTM_LENGTH_1  # 684


def s(value: bytes) -> str:
    """A fixed-length MQ character field as a Python string."""
    return value.rstrip(b" \x00").decode("latin-1")


def od(qname: str, qmname: str = "") -> mqpy.OD:
    return mqpy.OD(ObjectName=qname.encode(), ObjectQMgrName=qmname.encode())


def put_to(qm: mqpy.QueueManager, qname: str, qmname: str = "", data: bytes = b"payload", *,
           md: mqpy.MD | None = None, pmo: mqpy.PMO | None = None) -> mqpy.MD:
    """MQOPEN (queue, queue manager) for output, MQPUT, MQCLOSE; returns the MD as filled."""
    md = md if md is not None else mqpy.MD()
    pmo = pmo if pmo is not None else mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)
    q = mqpy.Queue(qm, od(qname, qmname), OUT)
    try:
        q.put(data, md, pmo)
    finally:
        q.close()
    return md


def get_one(qm: mqpy.QueueManager, qname: str) -> tuple[mqpy.MD, bytes]:
    """One destructive get outside syncpoint (fails with 2033 if the queue is empty)."""
    md = mqpy.MD()
    q = mqpy.Queue(qm, qname, IN)
    try:
        data = q.get(None, md, mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    finally:
        q.close()
    return md, data


def get_xmit(qm: mqpy.QueueManager, xmitq: str) -> tuple[mqpy.MD, mqpy.XQH, bytes]:
    """The next message on a transmission queue: (its own MD, the MQXQH, the application data)."""
    md, data = get_one(qm, xmitq)
    assert md.Format == CMQC.MQFMT_XMIT_Q_HEADER, md.Format
    assert data[:4] == b"XQH ", data[:8]
    xqh = mqpy.XQH().unpack(data[:XQH_LEN])
    return md, xqh, data[XQH_LEN:]


def get_dlq(qm: mqpy.QueueManager, dlq: str) -> tuple[mqpy.MD, mqpy.DLH, bytes]:
    md, data = get_one(qm, dlq)
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER, md.Format
    return md, mqpy.DLH().unpack(data[:DLH_LEN]), data[DLH_LEN:]


def get_trigger(qm: mqpy.QueueManager, initq: str) -> tuple[mqpy.MD, mqpy.TM]:
    md, data = get_one(qm, initq)
    assert md.Format == CMQC.MQFMT_TRIGGER, md.Format
    assert len(data) == TM_LEN, len(data)
    return md, mqpy.TM().unpack(data)


def curdepth(eng, qname: str) -> int:
    return int(eng.queue_status(qname)["CURDEPTH"])


def depths(eng, *names: str) -> dict[str, int]:
    return {n: curdepth(eng, n) for n in names}
