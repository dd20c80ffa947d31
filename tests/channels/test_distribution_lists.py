"""Distribution lists across a channel: one MQDH message for a partner that takes them, a
copy per destination for one that does not (seed 000, "Sending messages to a distribution
list"; the capability travels in the ID flow's CapFlags2)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import trio

import mqpy
from mqpy import CMQC
from mqpy.fap.initialdata import CapFlags2
from mqpy.fap.tsh import SegmentType
from mqpy.structs.tables import DLH
from mqpy_chinit.states import ChannelState
from tests.support.daemon_pair import killed_at_end
from tests.support.proxy import FaultProxy
from tests.support.waiting import wait_until

CHANNEL = "QM1.TO.QM2"
TARGETS = ("T1", "T2", "T3")
site = pytest.fixture(killed_at_end, name="site")


def without_dist_lists(direction: str, seg: bytes) -> bytes:
    """The responder's ID as a queue manager without distribution lists sends it."""
    mpf = 8 if seg[:4] == b"TSHM" else 0
    if direction != "r2s" or seg[9 + mpf] != SegmentType.INITIAL_DATA:
        return seg
    at = 28 + mpf + 44  # CapFlags2 of the ID
    if len(seg) <= at:
        return seg
    return seg[:at] + bytes([seg[at] & ~CapFlags2.DIST_LIST_CAPABLE & 0xFF]) + seg[at + 1:]


def define(qm1, qm2, port: int) -> None:
    qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
    qm1.define("CHANNEL", CHANNEL, CHLTYPE="SDR", CONNAME=f"127.0.0.1({port})", XMITQ="QM2",
               SHORTTMR=0)
    qm2.define("CHANNEL", CHANNEL, CHLTYPE="RCVR")
    for t in TARGETS:
        qm2.define("QLOCAL", t)


def distl(qm, q: str) -> str:
    return qm.engine.lookup("QLOCAL", q).attributes["DISTL"]


def put_list(qm, destinations, data: bytes) -> list[mqpy.PMR]:
    """One MQPUT1 to a distribution list with a CorrelId per destination; its MQPMRs."""
    conn = qm.connect()
    try:
        records = [mqpy.PMR(CorrelId=b"corr-%d" % i) for i in range(len(destinations))]
        pmo = mqpy.PMO(RecsPresent=len(destinations), PutMsgRecPtr=records,
                       PutMsgRecFields=CMQC.MQPMRF_MSG_ID | CMQC.MQPMRF_CORREL_ID)
        conn.put1(list(destinations), data,
                  mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING), pmo)
        return records
    finally:
        conn.disconnect()


def got(qm, q: str) -> list[tuple[bytes, bytes, bytes, bytes]]:
    """(data, MsgId, CorrelId, Format) of every message on ``q``, got."""
    conn = qm.connect()
    out = []
    try:
        queue = mqpy.Queue(conn, q, CMQC.MQOO_INPUT_AS_Q_DEF)
        while True:
            md = mqpy.MD()
            try:
                data = queue.get(None, md)
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
            out.append((data, md.MsgId, md.CorrelId.rstrip(b"\0"), md.Format))
    finally:
        conn.disconnect()


async def run_channel(nursery, qm1, c1) -> None:
    assert c1.start_channel(CHANNEL) is None
    st = c1.status_of(CHANNEL)
    await wait_until(lambda: st.state is ChannelState.RUNNING)


async def stop_channel(c1) -> None:
    c1.stop_channel(CHANNEL)
    st = c1.status_of(CHANNEL)
    await wait_until(lambda: st.state is ChannelState.STOPPED and CHANNEL not in c1.running)


async def _setup(nursery, qm1, qm2, rewrite=None):
    c2 = qm2.make_chinit()
    await nursery.start(c2.run, [("127.0.0.1", 0)])
    proxy = FaultProxy(c2.ports[0], rewrite=rewrite)
    await nursery.start(proxy.run)
    define(qm1, qm2, proxy.port)
    c1 = qm1.make_chinit()
    await nursery.start(c1.run)
    return c1, proxy


def message_segments(proxy) -> int:
    return sum(1 for d, seg in proxy.recorded
               if d == "s2r" and seg[9 + (8 if seg[:4] == b"TSHM" else 0)]
               == SegmentType.MESSAGE_DATA)


async def test_a_capable_partner_gets_one_message_for_the_whole_list(two_qmgrs):
    """Given QM2 takes distribution lists, when the channel starts, then QM1's xmitq is
    DISTL(YES); when a message goes to a 3-entry list at QM2, then the xmitq holds ONE
    message (an MQDH naming the three), and each of T1, T2, T3 at QM2 gets the data with its
    own MsgId and the CorrelId of its MQPMR.  spec: dqm-intercommunication 9.48"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1, proxy = await _setup(nursery, qm1, qm2)
        assert distl(qm1, "QM2") == "NO"
        await run_channel(nursery, qm1, c1)
        assert distl(qm1, "QM2") == "YES"
        await stop_channel(c1)
        records = put_list(qm1, [(t, "QM2") for t in TARGETS], b"to all three")
        assert qm1.depth("QM2") == 1
        await run_channel(nursery, qm1, c1)
        await wait_until(lambda: all(qm2.committed(t) == 1 for t in TARGETS))
        await wait_until(lambda: qm1.depth("QM2") == 0)
        nursery.cancel_scope.cancel()
    assert message_segments(proxy) == 1
    arrived = [got(qm2, t) for t in TARGETS]
    assert [[(d, c, f) for d, _, c, f in a] for a in arrived] == [
        [(b"to all three", b"corr-%d" % i, CMQC.MQFMT_STRING)] for i in range(3)]
    assert [a[0][1] for a in arrived] == [r.MsgId for r in records]
    assert len({r.MsgId for r in records}) == 3


async def test_a_partner_without_distribution_lists_gets_a_copy_per_destination(two_qmgrs):
    """Given a partner whose ID does not offer distribution lists, when the channel starts,
    then the xmitq is DISTL(NO); when a message goes to a 3-entry list, then 3 copies are put
    on the xmitq, and each destination gets its own.  spec: dqm-intercommunication 9.48"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1, proxy = await _setup(nursery, qm1, qm2, rewrite=without_dist_lists)
        qm1.engine.alter("QLOCAL", "QM2", {"DISTL": "YES"})  # from an earlier partner
        await run_channel(nursery, qm1, c1)
        assert distl(qm1, "QM2") == "NO"
        await stop_channel(c1)
        put_list(qm1, [(t, "QM2") for t in TARGETS], b"one each")
        assert qm1.depth("QM2") == 3
        await run_channel(nursery, qm1, c1)
        await wait_until(lambda: all(qm2.committed(t) == 1 for t in TARGETS))
        nursery.cancel_scope.cancel()
    assert message_segments(proxy) == 3
    for i, t in enumerate(TARGETS):
        assert [(d, c) for d, _, c, _ in got(qm2, t)] == [(b"one each", b"corr-%d" % i)]


async def test_the_sender_splits_a_list_message_for_a_partner_without_lists(two_qmgrs):
    """Given an MQDH message already on the xmitq (it was DISTL(YES)), when the channel starts
    with a partner without distribution lists, then the sending MCA sends one message per
    destination, and every destination gets the data once.  spec: dqm-intercommunication 9.48
    (seed 000: "the sending MCA intercepts the message ... once for each destination")"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1, proxy = await _setup(nursery, qm1, qm2, rewrite=without_dist_lists)
        qm1.engine.alter("QLOCAL", "QM2", {"DISTL": "YES"})
        put_list(qm1, [(t, "QM2") for t in TARGETS], b"split me")
        assert qm1.depth("QM2") == 1
        await run_channel(nursery, qm1, c1)
        await wait_until(lambda: all(qm2.committed(t) == 1 for t in TARGETS))
        await wait_until(lambda: qm1.depth("QM2") == 0)
        nursery.cancel_scope.cancel()
    assert message_segments(proxy) == 3
    for i, t in enumerate(TARGETS):
        assert [(d, c) for d, _, c, _ in got(qm2, t)] == [(b"split me", b"corr-%d" % i)]


async def test_a_destination_the_receiver_cannot_reach_goes_to_its_dead_letter_queue(two_qmgrs):
    """Given a list message for T1, NO.SUCH.Q and T3 at QM2 travelling as one MQDH message,
    when the receiving MCA puts it, then T1 and T3 get it and the missing destination alone
    goes to QM2's DLQ behind an MQDLH with reason 2085 naming it; the channel keeps RUNNING.
    spec: dqm-intercommunication 9.48; dqm-intercommunication 9.27 (seed 000: failed destinations are established
    and handled on their own)"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1, proxy = await _setup(nursery, qm1, qm2)
        await run_channel(nursery, qm1, c1)
        await stop_channel(c1)
        records = put_list(qm1, [("T1", "QM2"), ("NO.SUCH.Q", "QM2"), ("T3", "QM2")],
                           b"partly")
        assert qm1.depth("QM2") == 1
        await run_channel(nursery, qm1, c1)
        await wait_until(lambda: qm2.committed("SYSTEM.DEAD.LETTER.QUEUE") == 1)
        await wait_until(lambda: qm2.committed("T1") == 1 and qm2.committed("T3") == 1)
        assert c1.status_of(CHANNEL).state is ChannelState.RUNNING
        nursery.cancel_scope.cancel()
    assert [d for d, *_ in got(qm2, "T1")] == [b"partly"]
    assert [d for d, *_ in got(qm2, "T3")] == [b"partly"]
    [(body, msgid, correl, fmt)] = got(qm2, "SYSTEM.DEAD.LETTER.QUEUE")
    dlh = DLH.from_bytes(body)
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert dlh.DestQName.rstrip() == b"NO.SUCH.Q"
    assert body[DLH.length():] == b"partly"
    assert (msgid, correl) == (records[1].MsgId, b"corr-1")


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
async def test_a_list_message_on_the_wire_decodes_in_wireshark(two_qmgrs, tmp_path):
    """Given a list message crossing a channel to a capable partner, when the traffic is
    decoded by tshark as MQ, then the message is MQXQH + MQMD with Format MQHDIST and
    nothing is malformed (this tshark shows the MQDH and its records as the data)."""
    from tests.support.pcap import CLIENT, SERVER, Capture

    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1, proxy = await _setup(nursery, qm1, qm2)
        await run_channel(nursery, qm1, c1)
        await stop_channel(c1)
        put_list(qm1, [(t, "QM2") for t in TARGETS], b"seen by wireshark")
        await run_channel(nursery, qm1, c1)
        await wait_until(lambda: all(qm2.committed(t) == 1 for t in TARGETS))
        nursery.cancel_scope.cancel()
    capture = Capture()
    capture.handshake()
    for direction, segment in proxy.recorded:
        capture.send(CLIENT if direction == "s2r" else SERVER, [segment])
    pcap = tmp_path / "list.pcap"
    capture.write(pcap)
    verbose = subprocess.run(["tshark", "-r", str(pcap), "-d", "tcp.port==1414,mq", "-V"],
                             capture_output=True, text=True, timeout=120, check=True).stdout
    assert "Malformed" not in verbose
    assert "Format...: MQHDIST" in verbose and "Remote Q: T1" in verbose


def test_a_list_put_between_two_daemons_travels_once(site):
    """Given two queue managers started with strmqm and a running SDR-RCVR channel (QM1's
    xmitq then DISTL(YES)), when an application bound to QM1 puts one message to a list of
    a remote-queue definition and two queues named at QM2, then each of the three queues at
    QM2 gets it and DISPLAY CHSTATUS counts ONE message moved.
    spec: dqm-intercommunication 9.48"""
    import time

    from tests.support.daemon_pair import bind, command_server, depth, two_daemons
    from tests.support.ports import free_port

    port = free_port()
    two_daemons(site)
    command_server(site, "QM2", f"""
        DEFINE LISTENER(TCP.LSTR) TRPTYPE(TCP) PORT({port}) CONTROL(QMGR)
        START LISTENER(TCP.LSTR)
        DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR) TRPTYPE(TCP)
        SET CHLAUTH('QM1.TO.QM2') TYPE(BLOCKUSER) USERLIST('nobody')
        DEFINE QLOCAL(T1)
        DEFINE QLOCAL(T2)
        DEFINE QLOCAL(T3)
    """)
    command_server(site, "QM1", f"""
        DEFINE QLOCAL(QM2) USAGE(XMITQ)
        DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(QM2)
        DEFINE QREMOTE(T1.REMOTE) RNAME(T1) RQMNAME(QM2) XMITQ(QM2)
        START CHANNEL(QM1.TO.QM2)
    """)
    deadline = time.monotonic() + 30
    while "DISTL(YES)" not in " ".join(command_server(site, "QM1",
                                                     "DISPLAY QLOCAL(QM2) DISTL")):
        assert time.monotonic() < deadline, "the channel did not set DISTL"
        time.sleep(0.2)
    qm = bind(site, "QM1")
    pmo = mqpy.PMO()
    qm.put1([("T1.REMOTE", ""), ("T2", "QM2"), ("T3", "QM2")], b"from a daemon",
            mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT), pmo)
    assert (pmo.UnknownDestCount, pmo.InvalidDestCount) == (3, 0)
    qm.disconnect()
    while any(depth(site, "QM2", t) < 1 for t in TARGETS):
        assert time.monotonic() < deadline + 30, "the message did not arrive everywhere"
        time.sleep(0.2)
    out = " ".join(command_server(site, "QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) ALL"))
    assert "MSGS(1)" in out, out
    qm = bind(site, "QM2")
    for t in TARGETS:
        assert mqpy.Queue(qm, t, CMQC.MQOO_INPUT_AS_Q_DEF).get() == b"from a daemon"
    qm.disconnect()


async def test_plain_messages_around_a_list_message_in_one_batch_are_put_too(two_qmgrs):
    """Given a plain message for T1, a list message for T1..T3 and a plain message for T2 on
    the xmitq of a capable partner, when the channel moves them in one batch, then every
    message arrives: the receiver's put run stops at the MQDH message after putting the
    arrivals it had lined up ahead of it, it does not skip them.
    spec: dqm-intercommunication 9.48"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1, _proxy = await _setup(nursery, qm1, qm2)
        await run_channel(nursery, qm1, c1)
        await stop_channel(c1)
        conn = qm1.connect()
        try:
            conn.put1(mqpy.OD(ObjectName=b"T1", ObjectQMgrName=b"QM2"), b"plain first",
                      mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT), mqpy.PMO())
            put_list(qm1, [(t, "QM2") for t in TARGETS], b"list second")
            conn.put1(mqpy.OD(ObjectName=b"T2", ObjectQMgrName=b"QM2"), b"plain third",
                      mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT), mqpy.PMO())
        finally:
            conn.disconnect()
        assert qm1.depth("QM2") == 3
        await run_channel(nursery, qm1, c1)
        await wait_until(lambda: qm1.depth("QM2") == 0)
        await wait_until(lambda: qm2.committed("T3") == 1)
        nursery.cancel_scope.cancel()
    assert [d for d, *_ in got(qm2, "T1")] == [b"plain first", b"list second"]
    assert [d for d, *_ in got(qm2, "T2")] == [b"list second", b"plain third"]
    assert [d for d, *_ in got(qm2, "T3")] == [b"list second"]
