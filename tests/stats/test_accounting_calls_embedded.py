"""Every MQI call in the MQI accounting record, as IBM's "MQI accounting message data" counts
it: a failed MQOPEN or MQCLOSE in OpenFailCount / CloseFailCount, MQINQ in InqCount /
InqFailCount, MQSET in SetCount / SetFailCount, MQSTAT in StatCount /
StatFailCount, MQSUB in SubCountDur / SubCountNDur, MQSUBRQ in SubRqCount (a call that
fails, MQCC_FAILED, in the failed count); and every one of them, not only puts and gets,
bringing the connection's intermediate record when it is its first call after ACCTINT.
Embedded queue managers (bindings and client: test_accounting_calls_daemon)."""

from __future__ import annotations

import time

import pytest

import mqpy
from mqpy import CMQC, CMQCFC
from mqpy.stats.collector import ACCOUNTING_QUEUE

from ._support import drain

QUEUE = "ACCT.CALLS.Q"


def _text(value) -> str:
    return value.decode("latin-1").rstrip(" \0") if isinstance(value, bytes) else str(value)


def _mqi(qm, appl: str) -> list:
    return [m for _, m in drain(qm, ACCOUNTING_QUEUE)
            if m.header.Command == CMQCFC.MQCMD_ACCOUNTING_MQI
            and _text(m.get(CMQCFC.MQCACF_APPL_NAME)) == appl]


@pytest.fixture
def acct(qmgr):
    """ACCTMQI(ON), QUEUE defined, the accounting queue empty."""
    _, _, qm, eng = qmgr
    eng.alter_qmgr({"ACCTMQI": "ON"})
    eng.define("QLOCAL", QUEUE, {})
    drain(qm, ACCOUNTING_QUEUE)
    return qm, eng


CALLS = ("MQINQ", "MQSET", "MQSTAT", "MQOPEN")


def test_mqinq_mqset_mqstat_and_a_failed_mqopen_each_bring_the_intermediate_record(acct):
    """Given ACCTMQI(ON), ACCTINT(1) and four applications that each opened QUEUE at their
    MQCONN, when more than a second later the first calls MQINQ, the second MQSET, the third
    MQSTAT and the fourth an MQOPEN that fails (MQRC_UNKNOWN_OBJECT_NAME), then each one's
    intermediate record (SeqNumber 0, no DiscType) is on the accounting queue as that call
    returns."""
    qm, eng = acct
    eng.alter_qmgr({"ACCTINT": 1})
    began = time.monotonic()
    conns = {verb: eng.connect(f"acct-{verb.lower()}") for verb in CALLS}
    handles = {verb: conn.open(mqpy.OD(ObjectName=QUEUE.encode()),
                               CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)
               for verb, conn in conns.items()}
    time.sleep(max(0.0, began + 1.2 - time.monotonic()))
    records = {}
    for verb, conn in conns.items():
        hobj = handles[verb]
        if verb == "MQINQ":
            conn.inquire(hobj, CMQC.MQIA_CURRENT_Q_DEPTH)
        elif verb == "MQSET":
            conn.set(hobj, CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)
        elif verb == "MQSTAT":
            conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
        else:
            _fails(lambda c=conn: c.open(mqpy.OD(ObjectName=b"NO.SUCH.Q"), CMQC.MQOO_OUTPUT),
                   CMQC.MQRC_UNKNOWN_OBJECT_NAME)
        records[verb] = [(r.get(CMQCFC.MQIACF_SEQUENCE_NUMBER), r.get(CMQCFC.MQIAMO_DISC_TYPE))
                         for r in _mqi(qm, f"acct-{verb.lower()}")]
    for conn in conns.values():
        conn.disconnect()
    assert records == {verb: [(0, None)] for verb in CALLS}


def _fails(call, reason: int) -> None:
    with pytest.raises(mqpy.MQMIError) as e:
        call()
    assert e.value.reason == reason


def test_each_call_is_counted_where_ibm_counts_it(acct):
    """Given ACCTMQI(ON), when an application makes an MQOPEN that fails
    (MQRC_UNKNOWN_OBJECT_NAME) and an MQCLOSE that fails (MQRC_HOBJ_ERROR), two MQINQ (one of
    the queue manager's two attributes, as a bindings or client flow carries them) and one
    that fails (MQRC_SELECTOR_ERROR), one MQSET and one that fails (MQRC_NOT_OPEN_FOR_SET),
    two MQSTAT and one that fails (MQRC_STAT_TYPE_ERROR), a non-durable MQSUB, an MQSUBRQ
    and one that fails (MQRC_ACTION_ERROR) on a topic with a retained publication, then
    disconnects, then its MQI accounting record counts OpenFailCount 1, CloseFailCount 1,
    InqCount 2, InqFailCount 1, SetCount 1, SetFailCount 1, StatCount 2, StatFailCount 1,
    SubCountNDur 1, SubCountDur 0, SubRqCount 1 and SubRqFailCount 1."""
    qm, eng = acct
    conn = eng.connect("acct-counts")
    _fails(lambda: conn.open(mqpy.OD(ObjectName=b"NO.SUCH.Q"), CMQC.MQOO_OUTPUT),
           CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    _fails(lambda: conn.close(999), CMQC.MQRC_HOBJ_ERROR)
    inq = conn.open(mqpy.OD(ObjectName=QUEUE.encode()), CMQC.MQOO_INQUIRE)
    conn.inquire(inq, CMQC.MQIA_CURRENT_Q_DEPTH)
    conn.inquire_all(0, [CMQC.MQCA_Q_MGR_NAME, CMQC.MQIA_MAX_HANDLES])
    _fails(lambda: conn.inquire(inq, -1), CMQC.MQRC_SELECTOR_ERROR)
    setter = conn.open(mqpy.OD(ObjectName=QUEUE.encode()), CMQC.MQOO_SET)
    conn.set(setter, CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)
    _fails(lambda: conn.set(inq, CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED),
           CMQC.MQRC_NOT_OPEN_FOR_SET)
    conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    _fails(lambda: conn.stat(99), CMQC.MQRC_STAT_TYPE_ERROR)
    od = mqpy.OD(ObjectType=CMQC.MQOT_TOPIC)
    od.set_vs("ObjectString", "acct/calls")
    conn.put(conn.open(od, CMQC.MQOO_OUTPUT), mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_RETAIN),
             b"retained")
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_NON_DURABLE)
    sd.set_vs("ObjectString", "acct/calls")
    _, hsub = conn.sub(sd)
    conn.subrq(hsub, CMQC.MQSR_ACTION_PUBLICATION)
    _fails(lambda: conn.subrq(hsub, 99), CMQC.MQRC_ACTION_ERROR)
    conn.disconnect()
    [record] = _mqi(qm, "acct-counts")
    counts = {name: record.get(param) for name, param in (
        ("OpenFailCount", CMQCFC.MQIAMO_OPENS_FAILED),
        ("CloseFailCount", CMQCFC.MQIAMO_CLOSES_FAILED),
        ("InqCount", CMQCFC.MQIAMO_INQS), ("InqFailCount", CMQCFC.MQIAMO_INQS_FAILED),
        ("SetCount", CMQCFC.MQIAMO_SETS), ("SetFailCount", CMQCFC.MQIAMO_SETS_FAILED),
        ("StatCount", CMQCFC.MQIAMO_STATS), ("StatFailCount", CMQCFC.MQIAMO_STATS_FAILED),
        ("SubCountDur", CMQCFC.MQIAMO_SUBS_DUR), ("SubCountNDur", CMQCFC.MQIAMO_SUBS_NDUR),
        ("SubRqCount", CMQCFC.MQIAMO_SUBRQS), ("SubRqFailCount", CMQCFC.MQIAMO_SUBRQS_FAILED))}
    assert {k: sum(v) if isinstance(v, list) else v for k, v in counts.items()} == {
        "OpenFailCount": 1, "CloseFailCount": 1,
        "InqCount": 2, "InqFailCount": 1, "SetCount": 1, "SetFailCount": 1, "StatCount": 2,
        "StatFailCount": 1, "SubCountDur": 0, "SubCountNDur": 1, "SubRqCount": 1,
        "SubRqFailCount": 1}


def test_a_get_that_finds_no_message_is_counted_in_getfailcount(acct):
    """Given ACCTMQI(ON) and an application that opened the empty QUEUE for input, when it
    calls MQGET twice and finds no message (MQRC_NO_MSG_AVAILABLE), once on the fast path
    and once asking for a CorrelId, then disconnects, then its MQI accounting record counts
    GetFailCount 2 (and, being an MQI call, such a get brings the intermediate record after
    ACCTINT as the others do)."""
    qm, _eng = acct
    conn = _eng.connect("acct-getfail")
    hobj = conn.open(mqpy.OD(ObjectName=QUEUE.encode()), CMQC.MQOO_INPUT_AS_Q_DEF)
    _fails(lambda: conn.get(hobj, mqpy.MD(), mqpy.GMO(), None), CMQC.MQRC_NO_MSG_AVAILABLE)
    _fails(lambda: conn.get(hobj, mqpy.MD(CorrelId=b"c" * 24),
                            mqpy.GMO(MatchOptions=CMQC.MQMO_MATCH_CORREL_ID), None),
           CMQC.MQRC_NO_MSG_AVAILABLE)
    conn.disconnect()
    [record] = _mqi(qm, "acct-getfail")
    assert record.get(CMQCFC.MQIAMO_GETS_FAILED) == 2
