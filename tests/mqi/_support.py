"""Small helpers shared by the engine behaviour tests (plain functions, no fixtures)."""

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
