"""Small helpers shared by the MQI behaviour tests (plain functions, no fixtures): puts and gets
through fresh handles, and addressed puts with readers of what the queue manager made."""

from __future__ import annotations

import contextlib

import pytest

import mqpy
from mqpy import CMQC
from mqpy.constants import lookup

IN = CMQC.MQOO_INPUT_AS_Q_DEF
OUT = CMQC.MQOO_OUTPUT
BROWSE = CMQC.MQOO_BROWSE
INQ = CMQC.MQOO_INQUIRE


@contextlib.contextmanager
def raises_mq(reason: int, comp: int = CMQC.MQCC_FAILED):
    """Expect an MQMIError with exactly these codes, whose text names the reason."""
    with pytest.raises(mqpy.MQMIError) as info:
        yield info
    err = info.value
    assert (err.comp, err.reason) == (comp, reason), str(err)
    assert lookup("MQRC_", reason) in str(err)


def put(qm, qname, data: bytes, *, persistent: bool | None = None, priority: int | None = None,
        syncpoint: bool = False, msgid: bytes | None = None, correlid: bytes | None = None,
        pmo_options: int = 0) -> mqpy.MD:
    """MQPUT1-free put through a fresh handle; returns the MD as the put filled it."""
    md = mqpy.MD()
    if persistent is not None:
        md.Persistence = CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT
    if priority is not None:
        md.Priority = priority
    if msgid is not None:
        md.MsgId = msgid
    if correlid is not None:
        md.CorrelId = correlid
    opts = pmo_options | (CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT)
    q = mqpy.Queue(qm, qname, OUT)
    try:
        q.put(data, md, mqpy.PMO(Options=opts))
    finally:
        q.close()
    return md


def get(qm, qname, *, syncpoint: bool = False, options: int = 0, md: mqpy.MD | None = None,
        gmo: mqpy.GMO | None = None, max_length: int | None = None) -> tuple[bytes, mqpy.MD]:
    """One destructive MQGET through a fresh handle; returns (data, MD)."""
    md = md if md is not None else mqpy.MD()
    gmo = gmo if gmo is not None else mqpy.GMO()
    gmo.Options |= options | (CMQC.MQGMO_SYNCPOINT if syncpoint else CMQC.MQGMO_NO_SYNCPOINT)
    q = mqpy.Queue(qm, qname, IN)
    try:
        data = q.get(max_length, md, gmo)
    finally:
        q.close()
    return data, md


def drain(qm, qname) -> list[bytes]:
    """Get every available message outside syncpoint, in delivery order."""
    out = []
    q = mqpy.Queue(qm, qname, IN)
    try:
        while True:
            try:
                out.append(q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)))
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return out
                raise
    finally:
        q.close()


def depth(qm, qname) -> int:
    q = mqpy.Queue(qm, qname, INQ)
    try:
        return int(q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH))
    finally:
        q.close()


def blank(value: bytes) -> bool:
    return not value.strip(b" \x00")


# -- addressed puts, and what the queue manager made -------------------------------------------
# A message on a transmission queue is read the way a sending MCA reads it: its own MQMD, then
# an MQXQH (428 bytes) naming the destination and embedding the original MQMD, then the data.

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
