"""A sender-receiver channel between two queue managers moves messages once and once only."""

from __future__ import annotations

import trio

from mqpy import CMQC
from mqpy_chinit.states import ChannelState
from tests.channels.pairs import define_pair, listening, started
from tests.support.waiting import wait_until


async def test_messages_cross_the_channel_in_order_exactly_once(two_qmgrs):
    """Given QM1 with xmitq QM2 and SDR QM1.TO.QM2, QM2 with RCVR QM1.TO.QM2 and a listener,
    when 120 persistent messages for TARGET@QM2 are put on QM1 and the channel is started,
    then all 120 arrive on QM2's TARGET in order, the xmitq is empty, and sequence numbers are
    120 at both ends.  spec: dqm-intercommunication 9.23; dqm-intercommunication 9.28"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c2 = await listening(nursery, qm2)
        port = c2.ports[0]
        define_pair(qm1, qm2, port)
        for i in range(120):
            qm1.put("TARGET", b"msg %03d" % i, qmgr="QM2")
        assert qm1.depth("QM2") == 120
        c1 = await started(nursery, qm1, "QM1.TO.QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 120)
        await wait_until(lambda: qm1.depth("QM2") == 0)
        st1 = c1.status_of("QM1.TO.QM2")
        st2 = c2.status_of("QM1.TO.QM2")
        await wait_until(lambda: st2.last_seqno == 120 and st1.last_seqno == 120)
        assert st1.state is ChannelState.RUNNING
        assert st1.batches >= 3 and st1.msgs == 120
        c1.stop_channel("QM1.TO.QM2")
        await wait_until(lambda: st1.state is ChannelState.STOPPED)
        nursery.cancel_scope.cancel()
    assert qm2.drain("TARGET") == [b"msg %03d" % i for i in range(120)]


async def test_unknown_target_queue_goes_to_the_dead_letter_queue(two_qmgrs):
    """Given a message for a queue QM2 does not have and QM2 has a DLQ, when the channel
    delivers it, then it is on QM2's DLQ behind an MQDLH with reason 2085 and the channel
    goes on delivering.  spec: dqm-intercommunication 9.27 (aliases-channels-storage 4.27)"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c2 = await listening(nursery, qm2)
        define_pair(qm1, qm2, c2.ports[0])
        qm1.put("NO.SUCH.Q", b"lost?", qmgr="QM2")
        qm1.put("TARGET", b"fine", qmgr="QM2")
        await started(nursery, qm1, "QM1.TO.QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert qm2.depth("SYSTEM.DEAD.LETTER.QUEUE") == 1
        nursery.cancel_scope.cancel()
    import mqpy

    (dead,) = qm2.drain("SYSTEM.DEAD.LETTER.QUEUE")
    dlh = mqpy.DLH().unpack(dead)
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert dlh.DestQName.rstrip() == b"NO.SUCH.Q" and dlh.DestQMgrName.rstrip() == b"QM2"
    assert dead[172:] == b"lost?"


async def test_receiver_auto_defined_when_chad_is_enabled(two_qmgrs):
    """Given QM2 with CHAD(ENABLED) and no RCVR of the sender's name, when the sender starts,
    then a RCVR is defined from SYSTEM.AUTO.RECEIVER with DESCR 'Auto-defined by QM1' in its
    first 44 characters and the partner's SEQWRAP, and messages flow; with CHAD(DISABLED) the
    start is refused.  spec: dqm-intercommunication 9.25"""
    qm1, qm2 = two_qmgrs
    qm2.engine.alter_qmgr({"CHAD": "ENABLED"})
    async with trio.open_nursery() as nursery:
        c2 = await listening(nursery, qm2)
        qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
        qm1.define("CHANNEL", "NEW.CHL", CHLTYPE="SDR", XMITQ="QM2", SEQWRAP=5000,
                   CONNAME=f"127.0.0.1({c2.ports[0]})")
        qm2.define("QLOCAL", "TARGET")
        qm1.put("TARGET", b"hello", qmgr="QM2")
        await started(nursery, qm1, "NEW.CHL")
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        nursery.cancel_scope.cancel()
    auto = qm2.engine.lookup("CHANNEL", "NEW.CHL").attributes
    assert auto["CHLTYPE"] == "RCVR" and auto["SEQWRAP"] == 5000
    assert auto["DESCR"].startswith("Auto-defined by QM1") and len(auto["DESCR"]) == 64


async def test_arrivals_ignore_remote_queue_definitions(two_qmgrs):
    """Given QM2 has a QREMOTE named like the destination queue of an arriving message, when
    the message arrives for that queue at QM2, then the definition is not used: the message
    is dead-lettered with 2085.  spec: dqm-intercommunication §1 rule 6"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c2 = await listening(nursery, qm2)
        define_pair(qm1, qm2, c2.ports[0])
        qm2.define("QLOCAL", "ELSEWHERE", USAGE="XMITQ")
        qm2.define("QREMOTE", "REDIRECTED", RNAME="X", RQMNAME="QM9", XMITQ="ELSEWHERE")
        qm1.put("REDIRECTED", b"rule 6", qmgr="QM2")
        await started(nursery, qm1, "QM1.TO.QM2")
        await wait_until(lambda: qm2.committed("SYSTEM.DEAD.LETTER.QUEUE") == 1)
        assert qm2.depth("ELSEWHERE") == 0
        nursery.cancel_scope.cancel()


async def test_dlq_handler_retries_what_a_channel_dead_lettered(two_qmgrs):
    """Given a channel that dead-lettered messages for a queue QM2 did not have, when the queue
    is defined and runmqdlq runs with a RETRY rule (WAIT NO), then the messages reach the queue
    without their MQDLH and the DLQ is empty.  spec: operations-dlq-clusters 7.36; operations-dlq-clusters 7.39"""
    import io

    from mqpy.dlq import DeadLetterHandler, parse_rules

    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c2 = await listening(nursery, qm2)
        define_pair(qm1, qm2, c2.ports[0])
        for i in range(3):
            qm1.put("LATE.QUEUE", b"late %d" % i, qmgr="QM2")
        await started(nursery, qm1, "QM1.TO.QM2")
        await wait_until(lambda: qm2.committed("SYSTEM.DEAD.LETTER.QUEUE") == 3)
        nursery.cancel_scope.cancel()
    qm2.define("QLOCAL", "LATE.QUEUE")
    table = parse_rules("WAIT(NO) RETRYINT(1)\nREASON(MQRC_UNKNOWN_OBJECT_NAME) ACTION(RETRY)\n")
    qm = qm2.connect()
    summary = await trio.to_thread.run_sync(
        lambda: DeadLetterHandler(qm, table, out=io.StringIO()).run())
    qm.disconnect()
    assert qm2.depth("SYSTEM.DEAD.LETTER.QUEUE") == 0
    assert qm2.drain("LATE.QUEUE") == [b"late 0", b"late 1", b"late 2"]
    assert summary is not None


async def test_channel_statistics_messages(two_qmgrs):
    """Given STATCHL(HIGH) and STATINT(1) on QM1, when a channel moves 7 messages, then an
    MQCMD_STATISTICS_CHANNEL message on SYSTEM.ADMIN.STATISTICS.QUEUE counts them."""
    import mqpy
    from mqpy import CMQCFC, pcf

    qm1, qm2 = two_qmgrs
    qm1.engine.alter_qmgr({"STATCHL": "HIGH", "STATINT": 1})
    async with trio.open_nursery() as nursery:
        c2 = await listening(nursery, qm2)
        define_pair(qm1, qm2, c2.ports[0])
        for i in range(7):
            qm1.put("TARGET", b"s%d" % i, qmgr="QM2")
        await started(nursery, qm1, "QM1.TO.QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 7)
        await wait_until(lambda: qm1.depth("SYSTEM.ADMIN.STATISTICS.QUEUE") > 0, 10)
        nursery.cancel_scope.cancel()
    msgs = [pcf.parse(d) for d in qm1.drain("SYSTEM.ADMIN.STATISTICS.QUEUE")]
    chl = [m for m in msgs if m.header.Command == CMQCFC.MQCMD_STATISTICS_CHANNEL]
    assert chl, [m.header.Command for m in msgs]
    from mqpy.stats.records import to_records

    rows = [r for m in chl for r in to_records(m) if r["channel"] == "QM1.TO.QM2"]
    assert sum(r["msgs"] for r in rows) == 7
    assert mqpy  # imported for the structures pcf uses


async def test_kaint_auto_and_batch_heartbeat(two_qmgrs):
    """Given KAINT(AUTO) and HBINT(300), then CHSTATUS KAINT is 360 (aliases 4.14); given
    BATCHHB(1) and a partner silent for longer, then a batch heartbeat precedes the confirm
    request and the batch still commits (aliases 4.19).
    spec: aliases-channels-storage 4.14; aliases-channels-storage 4.19"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c2 = await listening(nursery, qm2)
        define_pair(qm1, qm2, c2.ports[0], BATCHHB=1, BATCHINT=50)
        c1 = await started(nursery, qm1, "QM1.TO.QM2")
        st = c1.status_of("QM1.TO.QM2")
        await wait_until(lambda: st.state.value == "RUNNING")
        assert st.kaint == 360
        await trio.sleep(0.1)  # longer than BATCHHB since the partner last spoke
        qm1.put("TARGET", b"hb", qmgr="QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert st.batch_heartbeats >= 1
        nursery.cancel_scope.cancel()
