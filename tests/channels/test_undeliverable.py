"""Messages a channel cannot deliver: message retry, return to sender, the dead-letter queue,
and what happens when there is none."""

from __future__ import annotations

import time

import trio

import mqpy
from mqpy import CMQC
from mqpy.channelcommands import INITQ
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, DLQ, browse, define_pair, finish, start_chinit
from tests.support.waiting import wait_until

RETURN = "QM2.TO.QM1"
REPORT_FULL_DISCARD = CMQC.MQRO_EXCEPTION_WITH_FULL_DATA | CMQC.MQRO_DISCARD_MSG


def get_with_md(qm, q: str) -> list[tuple[mqpy.MD, bytes]]:
    conn = qm.connect()
    out = []
    try:
        queue = mqpy.Queue(conn, q, CMQC.MQOO_INPUT_AS_Q_DEF)
        while True:
            md = mqpy.MD()
            try:
                out.append((md, queue.get(None, md)))
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
    finally:
        conn.disconnect()


def dead_letters(qm) -> list[tuple[mqpy.DLH, bytes]]:
    out = []
    for _, data in get_with_md(qm, DLQ):
        out.append((mqpy.DLH().unpack(data), data[172:]))
    return out


async def _full_target(qm1, qm2, nursery, mrrty: int, mrtmr: int):
    """TARGET on QM2 holds one message and MAXDEPTH(1); the RCVR retries puts MRRTY times
    every MRTMR ms. A message for TARGET is on its way."""
    r2 = await start_chinit(nursery, qm2, listen=True)
    define_pair(qm1, qm2, r2.port, HBINT=0, rcvr={"MRRTY": mrrty, "MRTMR": mrtmr})
    qm2.engine.alter("QLOCAL", "TARGET", {"MAXDEPTH": 1})
    qm2.put("TARGET", b"blocker")
    qm1.put("TARGET", b"waiting for room", qmgr="QM2")
    r1 = await start_chinit(nursery, qm1)
    r1.chinit.start_channel(CHANNEL)
    await wait_until(lambda: (s := r2.chinit.status_of(CHANNEL)) is not None
                     and s.state is ChannelState.PAUSED)
    return r1, r2


async def test_full_target_pauses_the_channel_then_dead_letters_after_the_retries(qm1, qm2):
    """Given a full target queue and RCVR MRRTY(3) MRTMR(200), when a message for it arrives,
    then the receiving channel is PAUSED while it retries the put, and after the three
    retries (at least 0.6 s) the message is on QM2's DLQ with reason 2053 (MQRC_Q_FULL); the
    channel is RUNNING again and the xmitq is empty.
    spec: dqm-intercommunication 9.43; aliases-channels-storage 4.25;
    operations-dlq-clusters 7.12"""
    async with trio.open_nursery() as nursery:
        t0 = time.monotonic()
        r1, r2 = await _full_target(qm1, qm2, nursery, 3, 200)
        await wait_until(lambda: qm2.committed(DLQ) == 1)
        elapsed = time.monotonic() - t0
        assert elapsed >= 0.6, elapsed
        await wait_until(lambda: qm1.depth("QM2") == 0)
        st2 = r2.chinit.status_of(CHANNEL)
        assert st2.state is ChannelState.RUNNING
        assert ChannelState.PAUSED in st2.history
        finish(nursery)
    ((dlh, body),) = dead_letters(qm2)
    assert dlh.Reason == CMQC.MQRC_Q_FULL and body == b"waiting for room"
    assert dlh.DestQName.rstrip(b" \x00") == b"TARGET"
    assert qm2.drain("TARGET") == [b"blocker"]


async def test_full_target_that_frees_space_during_the_retries_gets_the_message(qm1, qm2):
    """Given a full target queue and RCVR MRRTY(50) MRTMR(100), when the channel is PAUSED and
    an application takes a message off the target, then the retried put succeeds: the message
    is on the target, not the DLQ, and the channel is RUNNING again.
    spec: aliases-channels-storage 4.25; dqm-intercommunication 9.43"""
    async with trio.open_nursery() as nursery:
        r1, r2 = await _full_target(qm1, qm2, nursery, 50, 100)
        # one get (a drain could also take the retried message as soon as there is room)
        assert await trio.to_thread.run_sync(_get_one, qm2, "TARGET") == b"blocker"
        await wait_until(lambda: qm2.committed("TARGET") == 1 and qm1.depth("QM2") == 0)
        st2 = r2.chinit.status_of(CHANNEL)
        await wait_until(lambda: st2.state is ChannelState.RUNNING)
        assert qm2.committed(DLQ) == 0
        finish(nursery)
    assert qm2.drain("TARGET") == [b"waiting for room"]


def _get_one(qm, q: str) -> bytes:
    conn = qm.connect()
    try:
        return mqpy.Queue(conn, q, CMQC.MQOO_INPUT_AS_Q_DEF).get()
    finally:
        conn.disconnect()


async def _with_return_route(qm1, qm2, nursery):
    """QM1 -> QM2 channel, plus a triggered return channel QM2.TO.QM1 and a REPLY queue on
    QM1, so that QM2 can send reports back."""
    r2 = await start_chinit(nursery, qm2, listen=True)
    r1 = await start_chinit(nursery, qm1, listen=True)
    define_pair(qm1, qm2, r2.port, HBINT=0)
    qm2.define("QLOCAL", "QM1", USAGE="XMITQ", TRIGGER="YES", TRIGTYPE="FIRST", INITQ=INITQ,
               TRIGDATA=RETURN)
    qm2.define("CHANNEL", RETURN, CHLTYPE="SDR", CONNAME=f"127.0.0.1({r1.port})", XMITQ="QM1",
               SHORTTMR=1, HBINT=0)
    qm1.define("CHANNEL", RETURN, CHLTYPE="RCVR")
    qm1.define("QLOCAL", "REPLY")
    return r1, r2


async def test_exception_with_full_data_and_discard_returns_the_message_to_its_sender(
        qm1, qm2):
    """Given a message for a queue QM2 does not have, with MQRO_EXCEPTION_WITH_FULL_DATA +
    MQRO_DISCARD_MSG and ReplyToQ REPLY at QM1, when the channel delivers it, then an
    exception report (MsgType REPORT, Feedback 2085) carrying the whole original message
    travels back to REPLY on QM1, and nothing goes to QM2's DLQ.
    spec: dqm-intercommunication 9.44, §8 (return to sender); operations-dlq-clusters 7.13"""
    async with trio.open_nursery() as nursery:
        r1, _ = await _with_return_route(qm1, qm2, nursery)
        qm1.put("NO.SUCH.Q", b"please return me", qmgr="QM2", Report=REPORT_FULL_DISCARD,
                ReplyToQ=b"REPLY", ReplyToQMgr=b"QM1")
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm1.committed("REPLY") == 1)
        assert qm2.committed(DLQ) == 0 and qm1.committed(DLQ) == 0
        finish(nursery)
    ((md, body),) = get_with_md(qm1, "REPLY")
    assert md.MsgType == CMQC.MQMT_REPORT
    assert md.Feedback == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert body == b"please return me"


async def test_exception_report_without_discard_dead_letters_and_still_reports(qm1, qm2):
    """Given a message for a queue QM2 does not have, with MQRO_EXCEPTION (no DISCARD_MSG) and
    ReplyToQ REPLY at QM1, when the channel delivers it, then the message goes to QM2's DLQ
    and an exception report (Feedback 2085) still goes back to REPLY at QM1, as IBM's MCA
    generates any report the message asks for.  spec: dqm-intercommunication §8 (return to
    sender, then DLQ), 9.16"""
    async with trio.open_nursery() as nursery:
        r1, _ = await _with_return_route(qm1, qm2, nursery)
        qm1.put("NO.SUCH.Q", b"report me", qmgr="QM2", Report=CMQC.MQRO_EXCEPTION,
                ReplyToQ=b"REPLY", ReplyToQMgr=b"QM1")
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm2.committed(DLQ) == 1)
        await trio.sleep(1.0)
        replies = qm1.committed("REPLY")
        finish(nursery)
    assert replies == 1


async def _bad_target_ends_the_channel(qm1, qm2, **rcvr) -> None:
    """A batch of two persistent messages, the second for a queue QM2 does not have, over a
    channel without retries (the RCVR defined with ``rcvr``): once the channel is STOPPED,
    both messages are on QM1's xmitq and none reached TARGET."""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, SHORTRTY=0, LONGRTY=0, HBINT=0, rcvr=rcvr)
        qm1.put("TARGET", b"good", qmgr="QM2")
        qm1.put("NO.SUCH.Q", b"bad", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.STOPPED)
        await wait_until(lambda: qm1.depth("QM2") == 2)
        assert browse(qm2, "TARGET") == [] and not qm1.engine.indoubt()
        finish(nursery)


async def test_no_dlq_and_a_bad_target_ends_the_channel_and_keeps_the_batch(make_qmgr):
    """Given QM2 without a dead-letter queue and a batch of two persistent messages, the second
    for a queue QM2 does not have, when the channel delivers them, then the receiver backs the
    batch out, the channel ends (STOPPED here: no retries defined) and both messages are
    still on QM1's xmitq; nothing reached the target.
    spec: dqm-intercommunication 9.45, §8 item 4; aliases-channels-storage 4.27;
    operations-dlq-clusters 7.14"""
    await _bad_target_ends_the_channel(make_qmgr("QM1"), make_qmgr("QM2", dlq=False))


async def test_usedlq_no_and_a_bad_target_ends_the_channel_though_there_is_a_dlq(qm1, qm2):
    """Given a RCVR with USEDLQ(NO), QM2 with a dead-letter queue, and a batch of two
    persistent messages, the second for a queue QM2 does not have, when the channel delivers
    them, then nothing goes to the dead-letter queue: the receiver backs the batch out, the
    channel ends and both messages are still on QM1's xmitq (IBM, USEDLQ(NO): "messages
    that cannot be delivered by a channel are treated as a failure")."""
    await _bad_target_ends_the_channel(qm1, qm2, USEDLQ="NO")
    assert qm2.depth(DLQ) == 0


async def test_fast_nonpersistent_message_for_a_bad_target_is_discarded_without_a_dlq(
        make_qmgr):
    """Given NPMSPEED(FAST), QM2 without a DLQ and a non-persistent message for a queue QM2
    does not have, followed by a persistent one for TARGET, when the channel delivers them,
    then the non-persistent message is discarded, the channel keeps RUNNING and the
    persistent one arrives.  spec: dqm-intercommunication 9.46, §3 (fast NP);
    operations-dlq-clusters 7.14"""
    qm1, qm2 = make_qmgr("QM1"), make_qmgr("QM2", dlq=False)
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, NPMSPEED="FAST", HBINT=0,
                    rcvr={"NPMSPEED": "FAST"})
        qm1.put("NO.SUCH.Q", b"lost", qmgr="QM2", persistent=False)
        qm1.put("TARGET", b"kept", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm2.committed("TARGET") == 1 and qm1.depth("QM2") == 0)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.last_seqno == 2)
        assert st1.state is ChannelState.RUNNING
        assert r2.chinit.status_of(CHANNEL).state is ChannelState.RUNNING
        finish(nursery)
    assert qm2.drain("TARGET") == [b"kept"]


async def test_message_too_big_for_the_channel_goes_to_the_senders_dlq(qm1, qm2):
    """Given a channel with MAXMSGL(1000) at both ends and xmitq / queue manager limits far
    above it, when a 2000-byte message and then a small one are sent, then the big one is on
    QM1's (the sender's) DLQ with reason 2218 (MQRC_MSG_TOO_BIG_FOR_CHANNEL) naming TARGET at
    QM2, the small one is delivered and the channel keeps RUNNING.
    spec: aliases-channels-storage 4.28; aliases-channels-storage 2.2 (sender side DLQ)"""
    big = bytes(range(256)) * 7 + b"x" * 208
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, MAXMSGL=1000, HBINT=0, rcvr={"MAXMSGL": 1000})
        qm1.put("TARGET", big, qmgr="QM2")
        qm1.put("TARGET", b"small", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        # the dead letter is in the sender's batch: committed once the receiver confirmed
        await wait_until(lambda: qm2.committed("TARGET") == 1 and st1.last_seqno == 1
                         and not st1.indoubt)
        assert st1.state is ChannelState.RUNNING
        finish(nursery)
    ((dlh, body),) = dead_letters(qm1)
    assert dlh.Reason == CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL and body == big
    assert dlh.DestQName.rstrip(b" \x00") == b"TARGET"
    assert dlh.DestQMgrName.rstrip(b" \x00") == b"QM2"
    assert qm2.drain("TARGET") == [b"small"]
    assert qm2.committed(DLQ) == 0


async def _too_big_with_sender_dlq(make_qmgr, dlq: bool, inhibit_dlq: bool = False):
    """A 2000-byte message for TARGET at QM2 on a channel with MAXMSGL(1000), sent by QM1
    with (``dlq``) or without a dead-letter queue (put-inhibited if ``inhibit_dlq``): the
    sender's status once the channel has ended, QM1's error log, QM1's xmitq depth."""
    qm1, qm2 = make_qmgr("QM1", dlq=dlq), make_qmgr("QM2")
    if inhibit_dlq:
        qm1.engine.alter("QLOCAL", DLQ, {"PUT": "DISABLED"})
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, MAXMSGL=1000, HBINT=0, rcvr={"MAXMSGL": 1000})
        qm1.put("TARGET", b"x" * 2000, qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.STOPPED)
        finish(nursery)
    return st1, qm1.log, qm1.depth("QM2")


async def test_message_too_big_for_the_channel_without_a_dlq_logs_amq9565(make_qmgr):
    """Given QM1 without a dead-letter queue and a channel with MAXMSGL(1000), when a
    2000-byte message is to be sent, then QM1 logs IBM's AMQ9565E (No dead-letter queue
    defined) naming QM1, the channel, the message's destination and reason 2218
    (MQRC_MSG_TOO_BIG_FOR_CHANNEL), never AMQ9544 (IBM's message for a message the DLQ
    took); the channel stops and the message stays on the transmission queue.
    spec: operations-dlq-clusters 7.27; aliases-channels-storage 4.28"""
    st1, log, depth = await _too_big_with_sender_dlq(make_qmgr, dlq=False)
    assert not [m for m, _ in log if m.startswith("AMQ9544")], log
    [text] = [t for m, t in log if m == "AMQ9565E"]
    assert "No dead-letter queue defined" in text and "'QM1'" in text, text
    assert CHANNEL in text and "TARGET" in text and "2218" in text, text
    assert depth == 1


async def test_message_too_big_for_the_channel_refused_by_the_dlq_logs_amq9511(make_qmgr):
    """Given QM1 whose dead-letter queue is put-inhibited and a channel with MAXMSGL(1000),
    when a 2000-byte message is to be sent, then QM1 logs IBM's AMQ9511E (Messages cannot be
    put to a queue) naming the dead-letter queue and reason 2051 (MQRC_PUT_INHIBITED), with
    no traceback; the channel stops and the message stays on the transmission queue."""
    st1, log, depth = await _too_big_with_sender_dlq(make_qmgr, dlq=True, inhibit_dlq=True)
    [text] = [t for m, t in log if m == "AMQ9511E"]
    assert DLQ in text and "2051" in text and CHANNEL in text, text
    assert depth == 1
