"""The other channel pairs (SVR, RQSTR), auto-defined and generic receivers."""

from __future__ import annotations

import trio

from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import chstatus, finish, mqsc, start_chinit
from tests.support.proxy import TapProxy
from tests.support.waiting import wait_until


def _xmitq_and_target(sender_qm, receiver_qm):
    sender_qm.define("QLOCAL", "QM2", USAGE="XMITQ")
    receiver_qm.define("QLOCAL", "TARGET")


async def test_fully_qualified_server_starts_and_sends_to_a_receiver(qm1, qm2):
    """Given a SVR with a CONNAME (fully qualified) on QM1 and a RCVR of that name on QM2,
    when START CHANNEL is issued for the server, then it calls the receiver like a sender and
    the queued messages arrive.  spec: dqm-intercommunication §2 (SVR-RCVR pair), 9.27"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        _xmitq_and_target(qm1, qm2)
        qm1.define("CHANNEL", "SVR.A", CHLTYPE="SVR", XMITQ="QM2",
                   CONNAME=f"127.0.0.1({r2.port})")
        qm2.define("CHANNEL", "SVR.A", CHLTYPE="RCVR")
        for i in range(3):
            qm1.put("TARGET", b"v%d" % i, qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        assert r1.chinit.start_channel("SVR.A") is None
        await wait_until(lambda: qm2.committed("TARGET") == 3 and qm1.depth("QM2") == 0)
        finish(nursery)
    assert qm2.drain("TARGET") == [b"v0", b"v1", b"v2"]


async def test_server_without_a_conname_cannot_be_started_by_the_operator(qm1):
    """Given a SVR with a blank CONNAME, when START CHANNEL is issued for it, then the start
    fails: only its requester can start it.  spec: dqm-intercommunication 9.27"""
    async with trio.open_nursery() as nursery:
        qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
        qm1.define("CHANNEL", "SVR.B", CHLTYPE="SVR", XMITQ="QM2")
        await start_chinit(nursery, qm1)
        result = await mqsc(qm1, "START CHANNEL(SVR.B)")
        assert not result.ok, result.lines
        finish(nursery)


async def test_requester_starts_and_the_server_sends_to_it(qm1, qm2):
    """Given a SVR without CONNAME on QM1 (xmitq QM2, messages waiting) and a RQSTR on QM2
    whose CONNAME is QM1's listener, when START CHANNEL is issued for the requester, then the
    server answers on that connection and the messages flow SVR -> RQSTR.
    spec: dqm-intercommunication §2 (RQSTR-SVR pair), 9.27"""
    async with trio.open_nursery() as nursery:
        r1 = await start_chinit(nursery, qm1, listen=True)
        _xmitq_and_target(qm1, qm2)
        qm1.define("CHANNEL", "PAIR.RS", CHLTYPE="SVR", XMITQ="QM2")
        qm2.define("CHANNEL", "PAIR.RS", CHLTYPE="RQSTR", CONNAME=f"127.0.0.1({r1.port})")
        for i in range(4):
            qm1.put("TARGET", b"q%d" % i, qmgr="QM2")
        r2 = await start_chinit(nursery, qm2)
        result = await mqsc(qm2, "START CHANNEL(PAIR.RS)")
        assert result.ok, result.lines
        await wait_until(lambda: qm2.committed("TARGET") == 4 and qm1.depth("QM2") == 0, 5)
        assert r2.chinit.status_of("PAIR.RS").state is ChannelState.RUNNING
        finish(nursery)
    assert qm2.drain("TARGET") == [b"q%d" % i for i in range(4)]


async def test_requester_calling_a_sender_is_called_back(qm1, qm2):
    """Given an SDR on QM1 whose CONNAME is QM2's listener and a RQSTR of the same name on QM2
    whose CONNAME is QM1's listener, when the requester starts, then the sender ends that call
    and calls back on its own CONNAME, and the messages flow SDR -> RQSTR.
    spec: dqm-intercommunication 9.26"""
    async with trio.open_nursery() as nursery:
        r1 = await start_chinit(nursery, qm1, listen=True)
        r2 = await start_chinit(nursery, qm2, listen=True)
        _xmitq_and_target(qm1, qm2)
        qm1.define("CHANNEL", "CALL.BACK", CHLTYPE="SDR", XMITQ="QM2", SHORTTMR=1,
                   CONNAME=f"127.0.0.1({r2.port})")
        qm2.define("CHANNEL", "CALL.BACK", CHLTYPE="RQSTR", CONNAME=f"127.0.0.1({r1.port})")
        qm1.put("TARGET", b"called back", qmgr="QM2")
        result = await mqsc(qm2, "START CHANNEL(CALL.BACK)")
        assert result.ok, result.lines
        await wait_until(lambda: qm2.committed("TARGET") == 1, 5)
        assert r1.chinit.status_of("CALL.BACK").chltype == "SDR"
        finish(nursery)


async def test_auto_definition_creates_the_receiver_from_system_auto_receiver(qm1, qm2):
    """Given CHAD(ENABLED) on QM2 and no channel CHX there, when SDR CHX with SEQWRAP(5000)
    starts from QM1, then RCVR CHX is defined on QM2 from SYSTEM.AUTO.RECEIVER with the
    partner's SEQWRAP(5000) and DESCR 'Auto-defined by QM1' (first 44 characters) plus the
    date and time in the last 20, and the messages arrive.
    spec: dqm-intercommunication 9.25, §4 (auto-definition)"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        qm2.engine.alter_qmgr({"CHAD": "ENABLED"})
        _xmitq_and_target(qm1, qm2)
        qm1.define("CHANNEL", "CHX", CHLTYPE="SDR", XMITQ="QM2", SEQWRAP=5000,
                   CONNAME=f"127.0.0.1({r2.port})")
        qm1.put("TARGET", b"auto", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel("CHX")
        await wait_until(lambda: qm2.committed("TARGET") == 1, 5)
        finish(nursery)
    made = qm2.engine.lookup("CHANNEL", "CHX").attributes
    assert made["CHLTYPE"] == "RCVR" and int(made["SEQWRAP"]) == 5000
    descr = made["DESCR"]
    assert descr.startswith("Auto-defined by") and "QM1" in descr[:44]
    assert descr[44:].strip() != ""


async def test_without_auto_definition_an_unknown_channel_is_refused(qm1, qm2):
    """Given CHAD(DISABLED) (the default) on QM2 and no channel CHX there, when SDR CHX starts,
    then no channel is defined and nothing arrives.  spec: dqm-intercommunication 9.24; dqm-intercommunication 9.25"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        _xmitq_and_target(qm1, qm2)
        qm1.define("CHANNEL", "CHX", CHLTYPE="SDR", XMITQ="QM2", SHORTRTY=0, LONGRTY=0,
                   CONNAME=f"127.0.0.1({r2.port})")
        qm1.put("TARGET", b"refused", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel("CHX")
        await wait_until(lambda: r1.chinit.status_of("CHX").state is ChannelState.STOPPED)
        finish(nursery)
    assert qm2.engine.lookup("CHANNEL", "CHX") is None
    assert qm2.committed("TARGET") == 0 and qm1.depth("QM2") == 1


async def _generic(make_qmgr, nursery):
    """QM1 and QM3 each with an SDR CH.GEN to the one generic RCVR CH.GEN on QM2."""
    qm1, qm2, qm3 = make_qmgr("QM1"), make_qmgr("QM2"), make_qmgr("QM3")
    r2 = await start_chinit(nursery, qm2, listen=True)
    qm2.define("CHANNEL", "CH.GEN", CHLTYPE="RCVR")
    qm2.define("QLOCAL", "TARGET")
    chinits = []
    for qm in (qm1, qm3):
        qm.define("QLOCAL", "QM2", USAGE="XMITQ")
        qm.define("CHANNEL", "CH.GEN", CHLTYPE="SDR", XMITQ="QM2", DISCINT=0, HBINT=0,
                  SHORTRTY=0, LONGRTY=0, CONNAME=f"127.0.0.1({r2.port})")
        chinits.append((await start_chinit(nursery, qm)).chinit)
    return qm1, qm2, qm3, r2, chinits


async def test_two_senders_share_one_generic_receiver(make_qmgr):
    """Given SDR CH.GEN on QM1 and on QM3 and one RCVR CH.GEN on QM2, when both channels
    start and send, then both connect through the one definition and every message arrives,
    each channel keeping its own sequence numbers.  spec: dqm-intercommunication 9.53, §2
    (RCVR definitions may be generic)"""
    async with trio.open_nursery() as nursery:
        qm1, qm2, qm3, _, (c1, c3) = await _generic(make_qmgr, nursery)
        for i in range(3):
            qm1.put("TARGET", b"from QM1 %d" % i, qmgr="QM2")
        c1.start_channel("CH.GEN")
        await wait_until(lambda: qm2.committed("TARGET") == 3)
        qm3.put("TARGET", b"from QM3", qmgr="QM2")
        c3.start_channel("CH.GEN")
        st3 = c3.status_of("CH.GEN")
        await wait_until(lambda: qm2.committed("TARGET") == 4
                         or st3.state is ChannelState.STOPPED)
        finish(nursery)
    assert qm2.committed("TARGET") == 4 and qm3.depth("QM2") == 0, qm3.log


async def test_chstatus_shows_one_instance_per_partner_of_a_generic_receiver(make_qmgr):
    """Given two senders named CH.GEN (on QM1 and QM3) both running into one RCVR CH.GEN on
    QM2, when DISPLAY CHSTATUS(CH.GEN) is issued at QM2, then it shows two channel instances,
    one with RQMNAME(QM1) and one with RQMNAME(QM3).  spec: dqm-intercommunication 9.53"""
    async with trio.open_nursery() as nursery:
        qm1, qm2, qm3, r2, (c1, c3) = await _generic(make_qmgr, nursery)
        c1.start_channel("CH.GEN")
        c3.start_channel("CH.GEN")
        await wait_until(lambda: all((s := c.status_of("CH.GEN")) is not None
                                     and s.state in (ChannelState.RUNNING,
                                                     ChannelState.STOPPED)
                                     for c in (c1, c3)))
        await trio.sleep(0.3)
        lines = (await mqsc(qm2, "DISPLAY CHSTATUS(CH.GEN)")).lines
        finish(nursery)
    assert sum(1 for line in lines if line.startswith("AMQ8417I")) == 2, lines
    assert {"QM1", "QM3"} <= set(" ".join(lines).replace("RQMNAME(", " ").replace(")", " ")
                                 .split())
    assert chstatus(lines)["CHANNEL"] == "CH.GEN"


async def test_stop_channel_qmname_ends_one_instance_of_a_generic_receiver(make_qmgr):
    """Given two senders running into one generic RCVR CH.GEN on QM2, when STOP CHANNEL(CH.GEN)
    QMNAME(QM1) is issued at QM2, then only the instance from QM1 ends; the one from QM3 keeps
    delivering, and the channel itself is not marked STOPPED.  spec:
    dqm-intercommunication 9.53; §2 (RCVR definitions may be generic)"""
    async with trio.open_nursery() as nursery:
        qm1, qm2, qm3, r2, (c1, c3) = await _generic(make_qmgr, nursery)
        c1.start_channel("CH.GEN")
        c3.start_channel("CH.GEN")
        await wait_until(lambda: {("CH.GEN", "QM1"), ("CH.GEN", "QM3")}
                         <= set(r2.chinit.receivers))
        # FORCE: an idle receiving instance waits for its next batch under QUIESCE (IBM)
        result = await mqsc(qm2, "STOP CHANNEL(CH.GEN) QMNAME(QM1) MODE(FORCE)")
        assert result.ok, result.lines
        await wait_until(lambda: ("CH.GEN", "QM1") not in r2.chinit.receivers)
        qm3.put("TARGET", b"still flowing", qmgr="QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert ("CH.GEN", "QM3") in r2.chinit.receivers
        assert r2.chinit.status_of("CH.GEN", "QM1").state is ChannelState.INACTIVE
        assert "CH.GEN" not in r2.chinit.statuses  # no STOPPED mark for the whole channel
        finish(nursery)


async def test_generic_receiver_keeps_saved_status_per_partner_and_reset_resets_each(
        make_qmgr):
    """Given QM1 (two messages) and QM3 (one) delivered through the one generic RCVR CH.GEN
    at QM2, when DISPLAY CHSTATUS SAVED is issued at QM2, then it shows one instance per
    partner, LSTSEQNO(2) for QM1 and LSTSEQNO(1) for QM3, each with the partner's address;
    RESET CHANNEL SEQNUM(1) at QM2, once both instances have ended (IBM refuses it while
    one runs, AMQ9514E), resets both records.  spec: dqm-intercommunication 9.53, §3
    (DISPLAY CHSTATUS SAVED, RESET CHANNEL)"""
    async with trio.open_nursery() as nursery:
        qm1, qm2, qm3, r2, (c1, c3) = await _generic(make_qmgr, nursery)
        qm1.put("TARGET", b"1a", qmgr="QM2")
        qm1.put("TARGET", b"1b", qmgr="QM2")
        qm3.put("TARGET", b"3a", qmgr="QM2")
        c1.start_channel("CH.GEN")
        c3.start_channel("CH.GEN")
        await wait_until(lambda: qm2.committed("TARGET") == 3)
        await wait_until(lambda: all(c.status_of("CH.GEN").indoubt is False
                                     and c.status_of("CH.GEN").last_seqno > 0
                                     for c in (c1, c3)))
        saved = (await mqsc(qm2, "DISPLAY CHSTATUS(CH.GEN) SAVED")).lines
        blocks = " ".join(saved).split("AMQ8417I")[1:]
        rows = {chstatus([b])["RQMNAME"]: chstatus([b]) for b in blocks}
        for c in (c1, c3):
            assert c.stop_channel("CH.GEN", status="INACTIVE") is None
        await wait_until(lambda: not r2.chinit.receivers)
        reset = await mqsc(qm2, "RESET CHANNEL(CH.GEN) SEQNUM(1)")
        after = (await mqsc(qm2, "DISPLAY CHSTATUS(CH.GEN) SAVED")).lines
        finish(nursery)
    assert set(rows) == {"QM1", "QM3"}
    assert (rows["QM1"]["LSTSEQNO"], rows["QM3"]["LSTSEQNO"]) == ("2", "1")
    assert rows["QM1"]["CONNAME"] == rows["QM3"]["CONNAME"] == "127.0.0.1"
    assert reset.ok, reset.lines
    assert [chstatus([b])["LSTSEQNO"] for b in " ".join(after).split("AMQ8417I")[1:]] \
        == ["0", "0"]


async def test_a_stopped_generic_receiver_is_started_again_by_start_channel(make_qmgr):
    """Given RCVR CH.GEN at QM2 stopped with STOP CHANNEL (STATUS(STOPPED)), when a sender
    starts, then it is refused; after START CHANNEL(CH.GEN) at QM2 it is accepted and the
    message is delivered. STOP CHANNEL QMNAME() STATUS(STOPPED) is refused: a channel cannot be
    stopped for one partner only.  spec: dqm-intercommunication 9.38; dqm-intercommunication 9.53"""
    async with trio.open_nursery() as nursery:
        qm1, qm2, _, r2, (c1, _c3) = await _generic(make_qmgr, nursery)
        conflict = await mqsc(qm2, "STOP CHANNEL(CH.GEN) QMNAME(QM1) STATUS(STOPPED)")
        stopped = await mqsc(qm2, "STOP CHANNEL(CH.GEN)")
        assert stopped.ok, stopped.lines
        qm1.put("TARGET", b"after restart", qmgr="QM2")
        c1.start_channel("CH.GEN")
        st1 = c1.status_of("CH.GEN")
        await wait_until(lambda: st1.state is ChannelState.STOPPED)
        assert qm2.committed("TARGET") == 0
        assert r2.chinit.status_of("CH.GEN").chltype == "RCVR"
        started = await mqsc(qm2, "START CHANNEL(CH.GEN)")
        assert started.ok, started.lines
        await trio.sleep(0.2)  # the mark is forgotten
        c1.start_channel("CH.GEN")
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        finish(nursery)
    assert not conflict.ok


async def test_idle_server_holding_its_xmitq_blocks_its_requesters_restart(qm1, qm2):
    """Given a requester-server channel whose link died so that only the requester noticed
    (the idle SVR, no heartbeats, still holds its xmitq open), when the requester is started
    again, then that start fails; once the SVR is ended (STOP CHANNEL STATUS(INACTIVE): a
    STOPPED server would refuse its requester until START CHANNEL), the requester's next start
    works and the waiting message is delivered.  spec: dqm-intercommunication 9.50, §3 (server
    caveat)"""
    async with trio.open_nursery() as nursery:
        r1 = await start_chinit(nursery, qm1, listen=True)
        proxy = TapProxy(r1.port)
        await nursery.start(proxy.run)
        _xmitq_and_target(qm1, qm2)
        qm1.define("CHANNEL", "PAIR.RS", CHLTYPE="SVR", XMITQ="QM2", DISCINT=0, HBINT=0)
        qm2.define("CHANNEL", "PAIR.RS", CHLTYPE="RQSTR", HBINT=0,
                   CONNAME=f"127.0.0.1({proxy.port})")
        r2 = await start_chinit(nursery, qm2)
        assert (await mqsc(qm2, "START CHANNEL(PAIR.RS)")).ok
        await wait_until(lambda: (s := r1.chinit.status_of("PAIR.RS")) is not None
                         and s.state is ChannelState.RUNNING)
        proxy.hang()
        rq = r2.chinit.status_of("PAIR.RS")
        await wait_until(lambda: rq.state in (ChannelState.INACTIVE, ChannelState.STOPPED))
        qm1.put("TARGET", b"after the break", qmgr="QM2")
        connections = proxy.connections
        await mqsc(qm2, "START CHANNEL(PAIR.RS)")
        await wait_until(lambda: proxy.connections > connections)
        await trio.sleep(0.5)
        assert qm2.committed("TARGET") == 0
        assert (await mqsc(qm1, "STOP CHANNEL(PAIR.RS) MODE(FORCE) STATUS(INACTIVE)")).ok
        with trio.fail_after(6):
            while qm2.committed("TARGET") == 0:  # start the requester until the server answers
                await mqsc(qm2, "START CHANNEL(PAIR.RS)")
                with trio.move_on_after(1):
                    await wait_until(lambda: qm2.committed("TARGET") == 1)
        finish(nursery)


async def test_stopping_a_server_that_serves_its_requester_leaves_it_stopped(qm1, qm2):
    """Given a SVR running because its requester called it, when STOP CHANNEL MODE(FORCE) is
    issued for the server, then DISPLAY CHSTATUS shows it STOPPED.
    spec: dqm-intercommunication 9.39, §3 (STOP CHANNEL leaves the channel STOPPED)"""
    async with trio.open_nursery() as nursery:
        r1 = await start_chinit(nursery, qm1, listen=True)
        _xmitq_and_target(qm1, qm2)
        qm1.define("CHANNEL", "PAIR.RS", CHLTYPE="SVR", XMITQ="QM2", DISCINT=0, HBINT=0)
        qm2.define("CHANNEL", "PAIR.RS", CHLTYPE="RQSTR", HBINT=0,
                   CONNAME=f"127.0.0.1({r1.port})")
        await start_chinit(nursery, qm2)
        assert (await mqsc(qm2, "START CHANNEL(PAIR.RS)")).ok
        await wait_until(lambda: (s := r1.chinit.status_of("PAIR.RS")) is not None
                         and s.state is ChannelState.RUNNING)
        assert (await mqsc(qm1, "STOP CHANNEL(PAIR.RS) MODE(FORCE)")).ok
        await trio.sleep(1.0)
        shown = chstatus((await mqsc(qm1, "DISPLAY CHSTATUS(PAIR.RS)")).lines)
        finish(nursery)
    assert shown.get("STATUS") == "STOPPED", shown
