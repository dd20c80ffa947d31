"""What the events tests share: one embedded queue manager per module, and the events read
back as amqsevt reads them (MQGET from the event queue, the MQMD's Format MQEVENT, the data
parsed as PCF with ``mqpy.pcf``)."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, pcf
from mqpy.errors import MQMIError

QMGR_EVENTS = "SYSTEM.ADMIN.QMGR.EVENT"
PERFM_EVENTS = "SYSTEM.ADMIN.PERFM.EVENT"


def read_events(qm: mqpy.QueueManager, queue: str = QMGR_EVENTS
                ) -> list[tuple[mqpy.MD, pcf.PCFMessage]]:
    """Every event message on ``queue``, got (as amqsevt does) and parsed."""
    q = mqpy.Queue(qm, queue, CMQC.MQOO_INPUT_SHARED)
    got = []
    try:
        while True:
            md = mqpy.MD()
            try:
                data = q.get(None, md, mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT))
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return got
                raise
            got.append((md, pcf.parse(data)))
    finally:
        q.close()


def params(msg: pcf.PCFMessage) -> list[tuple[int, object]]:
    """The event's parameters in their order: (parameter id, value blank-trimmed)."""
    out = []
    for p in msg.params:
        value = getattr(p, "Value", None)
        if value is None and hasattr(p, "Strings"):
            value = [s.rstrip(b" ").decode("latin-1") for s in p.Strings]
        elif value is None:
            value = p.String.rstrip(b" ").decode("latin-1")
        out.append((p.Parameter, value))
    return out


def put(qm, qname: str, n: int) -> None:
    q = mqpy.Queue(qm, qname, CMQC.MQOO_OUTPUT)
    try:
        for _ in range(n):
            q.put(b"m", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    finally:
        q.close()


def get(qm, qname: str, n: int) -> None:
    q = mqpy.Queue(qm, qname, CMQC.MQOO_INPUT_SHARED)
    try:
        for _ in range(n):
            q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    finally:
        q.close()


def perfm_events(qm) -> list[tuple[int, dict]]:
    return [(m.header.Reason, dict(params(m))) for _, m in read_events(qm, PERFM_EVENTS)]


def high_then_full(qmgr) -> None:
    put(qmgr.qm, "EV.DEPTH", 10)
    with pytest.raises(MQMIError) as full:
        put(qmgr.qm, "EV.DEPTH", 1)
    assert full.value.reason == CMQC.MQRC_Q_FULL
    got = perfm_events(qmgr.qm)
    assert [r for r, _ in got] == [CMQC.MQRC_Q_DEPTH_HIGH, CMQC.MQRC_Q_FULL]
    high, full_event = got[0][1], got[1][1]
    assert high[CMQC.MQCA_BASE_Q_NAME] == "EV.DEPTH"
    assert (high[CMQC.MQIA_HIGH_Q_DEPTH], high[CMQC.MQIA_MSG_ENQ_COUNT]) == (5, 5)
    # the High event reset the statistics: the Full event counts from there
    assert (full_event[CMQC.MQIA_HIGH_Q_DEPTH], full_event[CMQC.MQIA_MSG_ENQ_COUNT]) == (10, 5)
    a = qmgr.eng.lookup("QLOCAL", "EV.DEPTH").attributes
    assert (a["QDPHIEV"], a["QDPLOEV"], a["QDPMAXEV"]) == ("DISABLED", "ENABLED", "DISABLED")
