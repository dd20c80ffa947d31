"""Engine calls served from a trio loop (mqpy.loopcalls): memory work in the loop, forces on a
thread, and never an answer before the log that covers it is on disk."""

from __future__ import annotations

import threading

import pytest
import trio

import mqpy
from mqpy import CMQC, loopcalls

OUT, IN = CMQC.MQOO_OUTPUT, CMQC.MQOO_INPUT_AS_Q_DEF


def _recording_forces(eng, seen: list) -> None:
    """Wrap the engine's log force so that each call records (lsn, thread, durable before)."""
    force = eng.data.force

    def recorded(lsn):
        force(lsn)
        seen.append((lsn, threading.current_thread() is threading.main_thread(),
                     eng.data.log.flushed_lsn >= lsn))

    eng.data.force = recorded


def _serve(conn, *calls):
    """Run each (method name, args) through EngineVerbs in a trio loop; return the results."""

    async def main():
        verbs = loopcalls.EngineVerbs(conn, trio.CapacityLimiter(2))
        return [await getattr(verbs, name)(*args) for name, args in calls]

    return trio.run(main)


def test_a_persistent_put_outside_syncpoint_is_forced_on_a_thread_before_it_answers(qmgr):
    """Given a queue, when a persistent MQPUT outside syncpoint is served from the loop, then
    its log force ran once, on a worker thread, and was durable before the call returned;
    the connection defers nothing afterwards."""
    qmgr.define("SERVQ")
    conn = qmgr.qm.connection()
    hobj = conn.open(mqpy.OD(ObjectName="SERVQ"), OUT | IN)
    seen: list = []
    _recording_forces(qmgr.eng, seen)
    md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
    _serve(conn, ("put", (hobj, md, mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), b"p")))
    assert len(seen) == 1
    lsn, on_loop_thread, durable = seen[0]
    assert not on_loop_thread and durable
    assert conn.deferred_lsn is None


def test_non_persistent_work_and_work_under_syncpoint_never_force(qmgr):
    """Given a queue, when non-persistent puts and gets and a persistent put under syncpoint
    are served from the loop, then no force happens until the commit, which forces once."""
    qmgr.define("SERVQ")
    conn = qmgr.qm.connection()
    hobj = conn.open(mqpy.OD(ObjectName="SERVQ"), OUT | IN)
    seen: list = []
    _recording_forces(qmgr.eng, seen)
    got = _serve(
        conn,
        ("put", (hobj, mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT), mqpy.PMO(), b"np")),
        ("get", (hobj, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT), None)),
        ("put", (hobj, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
                 mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT), b"p")),
    )
    assert got[1] == b"np" and seen == []
    _serve(conn, ("commit", ()))
    assert len(seen) == 1 and seen[0][2]


def test_a_blocking_caller_still_forces_inline(qmgr):
    """Given a connection used directly (not from a loop), when it puts a persistent message
    outside syncpoint, then the force happens in the call itself, on the caller's thread."""
    qmgr.define("SERVQ")
    conn = qmgr.qm.connection()
    hobj = conn.open(mqpy.OD(ObjectName="SERVQ"), OUT)
    seen: list = []
    _recording_forces(qmgr.eng, seen)
    conn.put(hobj, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT), mqpy.PMO(), b"p")
    assert len(seen) == 1 and seen[0][1] and seen[0][2]


def test_a_waiting_get_served_from_the_loop_is_woken_by_a_put(qmgr):
    """Given a get waiting through EngineVerbs, when another connection puts, then the get
    returns the message (no thread held while it waited)."""
    qmgr.define("SERVQ")
    conn = qmgr.qm.connection()
    hobj = conn.open(mqpy.OD(ObjectName="SERVQ"), IN)
    other = qmgr.connect()

    async def main():
        verbs = loopcalls.EngineVerbs(conn, trio.CapacityLimiter(1))
        async with trio.open_nursery() as nursery:
            async def put_soon():
                await trio.sleep(0.2)
                mqpy.Queue(other, "SERVQ", OUT).put(b"late")
            nursery.start_soon(put_soon)
            with trio.fail_after(20):
                return await verbs.get(hobj, mqpy.MD(), mqpy.GMO(
                    Options=CMQC.MQGMO_WAIT, WaitInterval=30_000), None)

    assert trio.run(main) == b"late"


def test_mqput1_runs_in_the_loop_and_never_defines_a_queue(qmgr):
    """Given a local queue and a model queue, when MQPUT1s are served from the loop, then the
    one to the local queue is forced on a worker thread, and the one to the model queue fails
    MQRC_Q_TYPE_ERROR (2057) without defining a dynamic queue (whose definition would force
    the log in the loop)."""
    qmgr.define("SERVQ")
    qmgr.define("SERV.MODEL", {"DEFTYPE": "PERMDYN"}, objtype="QMODEL")
    conn = qmgr.qm.connection()
    eng = qmgr.eng
    seen: list = []
    _recording_forces(eng, seen)
    defined: list = []
    define = eng.define

    def recording_define(*args, **kwargs):
        defined.append(args)
        return define(*args, **kwargs)

    eng.define = recording_define
    persistent = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
    _serve(conn, ("put1", (mqpy.OD(ObjectName="SERVQ"), persistent, mqpy.PMO(), b"p")))
    assert len(seen) == 1 and not seen[0][1]  # forced off the loop
    with pytest.raises(mqpy.MQMIError) as e:
        _serve(conn, ("put1", (mqpy.OD(ObjectName="SERV.MODEL", DynamicQName="SERV.DYN.*"),
                               mqpy.MD(), mqpy.PMO(), b"m")))
    assert e.value.reason == CMQC.MQRC_Q_TYPE_ERROR and defined == []


def test_a_report_made_by_a_put_served_from_the_loop_is_forced_on_a_thread(qmgr):
    """Given a queue and a reply queue, when a persistent MQPUT outside syncpoint asking for
    a COA report is served from the loop, then both the message and the (persistent) report
    the queue manager puts are forced on a worker thread, never in the loop, and durable
    before the call returned."""
    qmgr.define("SERVQ")
    qmgr.define("REPLYQ")
    conn = qmgr.qm.connection()
    hobj = conn.open(mqpy.OD(ObjectName="SERVQ"), OUT)
    seen: list = []
    _recording_forces(qmgr.eng, seen)
    md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, Report=CMQC.MQRO_COA,
                 ReplyToQ=b"REPLYQ")
    _serve(conn, ("put", (hobj, md, mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), b"p")))
    assert qmgr.eng.queue_status("REPLYQ")["CURDEPTH"] == 1
    assert seen and all(not on_loop_thread and durable for _, on_loop_thread, durable in seen)
    assert qmgr.eng.data.log.flushed_lsn >= max(lsn for lsn, _, _ in seen)


def test_a_report_made_by_a_commit_served_from_the_loop_is_forced_on_a_thread(qmgr):
    """Given a persistent message asking for a COD report, when it is got under syncpoint
    and the commit is served from the loop, then the report's force is made on a worker
    thread, not in the loop."""
    qmgr.define("SERVQ")
    qmgr.define("REPLYQ")
    conn = qmgr.qm.connection()
    hobj = conn.open(mqpy.OD(ObjectName="SERVQ"), OUT | IN)
    conn.put(hobj, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, Report=CMQC.MQRO_COD,
                           ReplyToQ=b"REPLYQ"), mqpy.PMO(), b"p")
    seen: list = []
    _recording_forces(qmgr.eng, seen)
    _serve(conn, ("get", (hobj, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT), None)),
           ("commit", ()))
    assert qmgr.eng.queue_status("REPLYQ")["CURDEPTH"] == 1
    assert seen and all(not on_loop_thread and durable for _, on_loop_thread, durable in seen)
