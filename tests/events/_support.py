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


def params(msg: pcf.PCFMessage | pcf.CFGR) -> list[tuple[int, object]]:
    """The event's (or a group's) parameters in their order: (parameter id, value), a
    string blank-trimmed, a byte string (MQCFBS) as its bytes, an integer list (MQCFIL) as a
    list, a group (MQCFGR) as the list of its members' pairs."""
    members = msg.Parameters if isinstance(msg, pcf.CFGR) else msg.params
    return [(p.Parameter, _value(p)) for p in members]


def _value(p: pcf.Parameter) -> object:
    if isinstance(p, pcf.CFGR):
        return params(p)
    if isinstance(p, pcf.CFBS):
        return bytes(p.String)
    if isinstance(p, pcf.CFSL):
        return [s.rstrip(b" ").decode("latin-1") for s in p.Strings]
    if isinstance(p, (pcf.CFIL, pcf.CFIL64)):
        return list(p.Values)
    if isinstance(p, pcf.CFST):
        return p.String.rstrip(b" ").decode("latin-1")
    return p.Value


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
