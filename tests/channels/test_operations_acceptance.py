"""Acceptance behaviours of the operations document (spec operations-dlq-clusters §7) that the
other channel tests do not check: MAXMSGL's default and limit, remembered states across a
queue-manager restart, message retry, an unusable dead-letter queue, HBINT(0), channel names
that differ only in case, PING without a transmission queue, a full cluster command queue,
and RESOLVE of a sender an error stopped."""

from __future__ import annotations

import trio

import mqpy
from mqpy import CMQC, CMQCFC, inprocess
from mqpy.channelcommands import INITQ
from mqpy.fap.tsh import SegmentType
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.cluster.directory import cache_path
from mqpy_chinit.cluster.records import decode as decode_record
from mqpy_chinit.engineadmin import EngineAdmin
from mqpy_chinit.receiver_mca import ReceiverMCA
from mqpy_chinit.states import ChannelState
from tests.channels.pairs import remembered
from tests.support.channel_pair import (
    CHANNEL,
    DLQ,
    browse,
    chstatus,
    define_pair,
    finish,
    mqsc,
    start_chinit,
)
from tests.support.ports import free_port
from tests.support.proxy import FaultProxy, TapProxy, once
from tests.support.waiting import wait_until

COMMAND_QUEUE = "SYSTEM.CLUSTER.COMMAND.QUEUE"



def trigger_on(qm, xmitq: str, channel: str) -> None:
    qm.engine.alter("QLOCAL", xmitq, {"TRIGGER": "YES", "TRIGTYPE": "FIRST", "INITQ": INITQ,
                                      "TRIGDATA": channel})


def xmitq_attrs(qm, xmitq: str = "QM2") -> tuple[str, str]:
    attrs = qm.engine.lookup("QLOCAL", xmitq).attributes
    return attrs["GET"], attrs["TRIGGER"]


def dead_letters(qm) -> list[tuple[mqpy.DLH, bytes]]:
    conn = qm.connect()
    out = []
    try:
        queue = mqpy.Queue(conn, DLQ, CMQC.MQOO_INPUT_AS_Q_DEF)
        while True:
            try:
                data = queue.get()
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
            out.append((mqpy.DLH().unpack(data), data[172:]))
    finally:
        conn.disconnect()


# ---------------------------------------------------------------------------- MAXMSGL


async def test_maxmsgl_defaults_to_4_mb_and_above_100_mb_is_refused(qm1):
    """Given a queue, the queue manager and a channel defined without MAXMSGL, then each shows
    MAXMSGL(4194304); when MAXMSGL(104857601) is asked of a queue, the queue manager or a
    channel, then the command fails with AMQ8425E and nothing changes, while 104857600
    (100 MB) is accepted.  spec: operations-dlq-clusters 7.8"""
    assert (await mqsc(qm1, "DEFINE QLOCAL(Q8)")).ok
    assert (await mqsc(qm1, "DEFINE CHANNEL(C8) CHLTYPE(RCVR)")).ok
    for command in ("DISPLAY QLOCAL(Q8) MAXMSGL", "DISPLAY QMGR MAXMSGL",
                    "DISPLAY CHANNEL(C8) MAXMSGL"):
        result = await mqsc(qm1, command)
        assert result.ok and "MAXMSGL(4194304)" in " ".join(result.lines), result.lines
    for command in ("DEFINE QLOCAL(BIG) MAXMSGL(104857601)", "ALTER QMGR MAXMSGL(104857601)",
                    "ALTER QLOCAL(Q8) MAXMSGL(104857601)",
                    "DEFINE CHANNEL(C9) CHLTYPE(RCVR) MAXMSGL(104857601)"):
        result = await mqsc(qm1, command)
        assert not result.ok and result.lines[0].startswith("AMQ8425E"), (command, result.lines)
    assert qm1.engine.lookup("QLOCAL", "BIG") is None
    assert qm1.engine.lookup("QLOCAL", "Q8").attributes["MAXMSGL"] == 4194304
    for command in ("DEFINE QLOCAL(BIG) MAXMSGL(104857600)", "ALTER QMGR MAXMSGL(104857600)"):
        assert (await mqsc(qm1, command)).ok, command
    result = await mqsc(qm1, "DISPLAY QMGR MAXMSGL")
    assert "MAXMSGL(104857600)" in " ".join(result.lines), result.lines


# ---------------------------------------------------------------------------- restarts


def _restart_qmgr(qm) -> None:
    """endmqm + strmqm of an embedded queue manager (its channel initiator already ended)."""
    inprocess.stop(qm.name, qm.root)
    qm.engine = inprocess.start(qm.name, qm.root)


async def _retrying_and_stopped(qm1, qm2, nursery):
    """On QM1, with no partner listening: CH.RETRY RETRYING (many retries left) and CH.STOP
    STOPPED by an error once its retries ran out, its triggered xmitq XQ.STOP then
    GET(DISABLED) NOTRIGGER; both states remembered. Returns QM1's channel initiator and the
    port nobody listens on."""
    port = free_port()
    for name, retries in (("CH.RETRY", 100), ("CH.STOP", 0)):
        xmitq, remote = "XQ." + name[3:], "R." + name[3:]
        qm1.define("QLOCAL", xmitq, USAGE="XMITQ")
        qm1.define("QREMOTE", remote, RNAME="TARGET", RQMNAME="QM2", XMITQ=xmitq)
        qm1.define("CHANNEL", name, CHLTYPE="SDR", CONNAME=f"127.0.0.1({port})", XMITQ=xmitq,
                   SHORTRTY=retries, SHORTTMR=1, LONGRTY=0, HBINT=0)
        qm2.define("CHANNEL", name, CHLTYPE="RCVR")
    trigger_on(qm1, "XQ.STOP", "CH.STOP")
    qm2.define("QLOCAL", "TARGET")
    r1 = await start_chinit(nursery, qm1)
    await trio.to_thread.run_sync(qm1.put, "R.STOP", b"stopped")
    await trio.to_thread.run_sync(qm1.put, "R.RETRY", b"retried")
    r1.chinit.start_channel("CH.RETRY")
    await wait_until(lambda: (s := r1.chinit.status_of("CH.STOP")) is not None
                     and s.state is ChannelState.STOPPED)
    await wait_until(lambda: r1.chinit.status_of("CH.RETRY").state is ChannelState.RETRYING)
    assert xmitq_attrs(qm1, "XQ.STOP") == ("DISABLED", "NO")
    # shown is not yet remembered (a loaded machine writes the records later)
    await wait_until(lambda: remembered(qm1) == ({"CH.RETRY": "RETRYING", "CH.STOP": "STOPPED"},
                                                 {"CH.STOP": ("XQ.STOP", "YES")}))
    return r1, port



async def test_retrying_and_stopped_states_survive_a_queue_manager_restart(qm1, qm2):
    """Given CH.RETRY RETRYING and CH.STOP STOPPED after an error on its triggered xmitq, when
    the channel initiator and the queue manager are ended and started again, then DISPLAY
    CHSTATUS shows CH.RETRY RETRYING and CH.STOP STOPPED; CH.STOP's xmitq is still
    NOTRIGGER (the restart does not turn triggering back on) and a trigger does not start
    it; once the partner listens, CH.RETRY delivers its message at its next retry.
    spec: operations-dlq-clusters 7.11; operations-dlq-clusters 7.20"""
    async with trio.open_nursery() as nursery:
        r1, port = await _retrying_and_stopped(qm1, qm2, nursery)
        await r1.stop()
        _restart_qmgr(qm1)
        r1 = await start_chinit(nursery, qm1)
        # the remembered states are read as the channel initiator starts; CH.RETRY is started
        # again and shows RETRYING once its first new attempt has failed
        await wait_until(lambda: all((s := r1.chinit.status_of(name)) is not None
                                     and s.state is state
                                     for name, state in (("CH.RETRY", ChannelState.RETRYING),
                                                         ("CH.STOP", ChannelState.STOPPED))))
        for name, state in (("CH.RETRY", "RETRYING"), ("CH.STOP", "STOPPED")):
            shown = await mqsc(qm1, f"DISPLAY CHSTATUS({name})")
            assert chstatus(shown.lines).get("STATUS") == state, (name, shown.lines)
        assert xmitq_attrs(qm1, "XQ.STOP") == ("DISABLED", "NO")
        await start_chinit(nursery, qm2, listen=True, port=port)
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        await trio.to_thread.run_sync(qm1.put, "R.STOP", b"also waits")
        await trio.sleep(0.5)
        assert r1.chinit.status_of("CH.STOP").state is ChannelState.STOPPED
        assert qm1.depth("XQ.STOP") == 2 and qm2.drain("TARGET") == [b"retried"]
        finish(nursery)


async def test_start_channel_after_a_restart_reenables_the_xmitq(qm1, qm2):
    """Given CH.STOP STOPPED after an error (its triggered xmitq GET(DISABLED) NOTRIGGER) and
    the queue manager restarted since, when the partner is back and START CHANNEL is issued,
    then the xmitq is GET(ENABLED) with TRIGGER again and the waiting message is delivered.
    spec: operations-dlq-clusters 7.10; operations-dlq-clusters 7.11"""
    async with trio.open_nursery() as nursery:
        r1, port = await _retrying_and_stopped(qm1, qm2, nursery)
        # an operator's STOP CHANNEL of the stopped channel is refused (AMQ9533E, IBM's
        # IGNSTATE(NO)) and keeps what is to be re-enabled
        result = await mqsc(qm1, "STOP CHANNEL(CH.STOP)")
        assert not result.ok and any("AMQ9533E" in line for line in result.lines), \
            result.lines
        await r1.stop()
        _restart_qmgr(qm1)
        r1 = await start_chinit(nursery, qm1)
        await start_chinit(nursery, qm2, listen=True, port=port)
        result = await mqsc(qm1, "START CHANNEL(CH.STOP)")
        assert result.ok, result.lines
        await wait_until(lambda: r1.chinit.status_of("CH.STOP").state is ChannelState.RUNNING)
        attrs = xmitq_attrs(qm1, "XQ.STOP")
        if attrs != ("ENABLED", "YES"):
            finish(nursery)
        assert attrs == ("ENABLED", "YES")
        await wait_until(lambda: b"stopped" in browse(qm2, "TARGET"))
        finish(nursery)


# ---------------------------------------------------------------------------- undeliverable


async def test_message_retry_makes_mrrty_further_attempts_then_dead_letters(
        qm1, qm2, monkeypatch):
    """Given TARGET on QM2 full (MAXDEPTH(1), one message on it) and RCVR MRRTY(3)
    MRTMR(100), when a message for TARGET arrives, then the receiving channel is PAUSED, the
    put is tried once and retried exactly 3 times, and then the message is on QM2's DLQ with
    reason 2053 (MQRC_Q_FULL); the channel is RUNNING again.
    spec: operations-dlq-clusters 7.12"""
    attempts: list[bytes] = []
    put_arrival = ReceiverMCA._put_arrival

    def counted(self, qm, dest_q, dest_qm, *args, **kwargs):
        if dest_q.rstrip(b" \x00") == b"TARGET":
            attempts.append(dest_q)
        return put_arrival(self, qm, dest_q, dest_qm, *args, **kwargs)

    monkeypatch.setattr(ReceiverMCA, "_put_arrival", counted)
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0, rcvr={"MRRTY": 3, "MRTMR": 100})
        qm2.engine.alter("QLOCAL", "TARGET", {"MAXDEPTH": 1})
        qm2.put("TARGET", b"blocker")
        qm1.put("TARGET", b"no room", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm2.committed(DLQ) == 1 and qm1.depth("QM2") == 0)
        st2 = r2.chinit.status_of(CHANNEL)
        assert ChannelState.PAUSED in st2.history
        await wait_until(lambda: st2.state is ChannelState.RUNNING)
        finish(nursery)
    assert len(attempts) == 1 + 3
    ((dlh, body),) = dead_letters(qm2)
    assert dlh.Reason == CMQC.MQRC_Q_FULL and body == b"no room"
    assert qm2.drain("TARGET") == [b"blocker"]


async def test_an_unusable_dlq_stops_the_channel_and_disables_triggering(qm1, qm2):
    """Given QM2's dead-letter queue put-inhibited, a triggered xmitq on QM1 and a batch of two
    persistent messages, the second for a queue QM2 does not have, when the trigger starts
    the channel, then the receiver backs the batch out, the channel stops (STOPPED: no
    retries defined), both messages are back on QM1's xmitq, which is GET(DISABLED) and
    NOTRIGGER; errors are logged at both ends (the receiver's naming the DLQ's refusal,
    2051) and nothing reached TARGET or the DLQ.  spec: operations-dlq-clusters 7.14"""
    async with trio.open_nursery() as nursery:
        qm2.engine.alter("QLOCAL", DLQ, {"PUT": "DISABLED"})
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, SHORTRTY=0, LONGRTY=0, HBINT=0)
        trigger_on(qm1, "QM2", CHANNEL)
        qm1.put("TARGET", b"good", qmgr="QM2")
        qm1.put("NO.SUCH.Q", b"bad", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        await wait_until(lambda: (s := r1.chinit.status_of(CHANNEL)) is not None
                         and s.state is ChannelState.STOPPED)
        await wait_until(lambda: qm1.depth("QM2") == 2)
        assert ChannelState.RUNNING in r1.chinit.status_of(CHANNEL).history
        assert xmitq_attrs(qm1) == ("DISABLED", "NO")
        assert browse(qm2, "TARGET") == [] and qm2.depth(DLQ) == 0
        assert not qm1.engine.indoubt()
        await wait_until(lambda: any(m == "AMQ9511E" for m, _ in qm2.log))
        assert any(m.startswith("AMQ9") and m[-1] == "E" for m, _ in qm1.log), qm1.log
        finish(nursery)
    # the receiver's log says why the DLQ did not take it (put inhibited), not "no DLQ", with
    # IBM's AMQ9511E (never AMQ9544, IBM's message for a message the DLQ took)
    assert not [m for m, _ in qm2.log if m.startswith("AMQ9544")]
    said = " ".join(text for m, text in qm2.log if m == "AMQ9511E")
    assert f"the dead-letter queue {DLQ} refused it (reason 2051)" in said, said
    waiting = browse(qm1, "QM2")
    assert [m.endswith(b"good") for m in waiting] == [True, False], waiting
    assert waiting[1].endswith(b"bad")


async def test_fast_nonpersistent_message_is_lost_when_the_dlq_is_unusable(qm1, qm2):
    """Given NPMSPEED(FAST), QM2's dead-letter queue put-inhibited and a non-persistent message
    for a queue QM2 does not have, followed by a persistent one for TARGET, when the channel
    delivers them, then the non-persistent message is dropped (on neither queue manager),
    the channel keeps RUNNING and the persistent one arrives.
    spec: operations-dlq-clusters 7.14"""
    async with trio.open_nursery() as nursery:
        qm2.engine.alter("QLOCAL", DLQ, {"PUT": "DISABLED"})
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, NPMSPEED="FAST", HBINT=0, rcvr={"NPMSPEED": "FAST"})
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
    assert qm2.depth(DLQ) == 0 and qm1.depth(DLQ) == 0


# ---------------------------------------------------------------------------- heartbeats


async def test_hbint_zero_never_ends_a_silent_channel(qm1, qm2):
    """Given a running channel with HBINT(0) at both ends (negotiated 0) and DISCINT(0), when
    the sender's traffic stops reaching the receiver (the socket stays open) for longer than
    the receive timeout of HBINT(1) would be, then neither end ends the channel: both stay
    RUNNING and no heartbeat flowed.  spec: operations-dlq-clusters 7.15"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        proxy = TapProxy(r2.port)
        await nursery.start(proxy.run)
        define_pair(qm1, qm2, proxy.port, HBINT=0, DISCINT=0, rcvr={"HBINT": 0})
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: (s := r2.chinit.status_of(CHANNEL)) is not None
                         and s.state is ChannelState.RUNNING
                         and st1.state is ChannelState.RUNNING)
        st2 = r2.chinit.status_of(CHANNEL)
        assert st1.hbint == 0 and st2.hbint == 0
        proxy.silent = True
        await trio.sleep(2.5)
        assert st1.state is ChannelState.RUNNING and st2.state is ChannelState.RUNNING
        assert not proxy.of_type(SegmentType.HEARTBEAT)
        assert not any(m.startswith("AMQ9259") for m, _ in qm1.log + qm2.log)
        finish(nursery)


# ---------------------------------------------------------------------------- start-up


async def test_channel_names_that_differ_only_in_case_do_not_start(qm1, qm2):
    """Given SDR QM1.TO.QM2 on QM1 and, on QM2, only RCVR 'qm1.to.qm2' (the same name in
    lower case), when the sender starts, then QM2 refuses it (AMQ9519, channel not found, in
    its log), the sender logs the failure (AMQ9520, not defined remotely), never reaches
    RUNNING, and the message stays on the xmitq.  spec: operations-dlq-clusters 7.18"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, SHORTRTY=0, LONGRTY=0, HBINT=0)
        qm2.engine.delete("CHANNEL", CHANNEL)
        assert (await mqsc(qm2, "DEFINE CHANNEL('qm1.to.qm2') CHLTYPE(RCVR)")).ok
        qm1.put("TARGET", b"stays", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st.state is ChannelState.STOPPED)
        await wait_until(lambda: any(m.startswith("AMQ9519") for m, _ in qm2.log))
        assert any(m.startswith("AMQ9520") for m, _ in qm1.log), qm1.log
        assert ChannelState.RUNNING not in st.history
        assert r2.chinit.status_of("qm1.to.qm2") is None
        assert qm1.depth("QM2") == 1 and qm2.committed("TARGET") == 0
        finish(nursery)


# ---------------------------------------------------------------------------- PING


async def test_ping_channel_works_without_a_transmission_queue(qm1, qm2):
    """Given SDR QM1.TO.QM2 whose XMITQ names a queue that does not exist, and its receiver at
    a listening QM2, when PING CHANNEL is issued at QM1, then it answers AMQ8020I: a ping
    makes no use of the transmission queue.  spec: operations-dlq-clusters 7.19"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port)
        qm1.engine.delete("QLOCAL", "QM2")
        await start_chinit(nursery, qm1)
        result = await mqsc(qm1, f"PING CHANNEL({CHANNEL})")
        assert result.ok and result.lines[0].startswith("AMQ8020I"), result.lines
        assert qm1.engine.lookup("QLOCAL", "QM2") is None
        finish(nursery)


async def test_ping_channel_with_no_listener_fails_and_logs(qm1, qm2):
    """Given an SDR whose CONNAME nobody listens on, when PING CHANNEL is issued, then the
    command fails with MQRCCF_PING_ERROR naming the unreachable host (AMQ9202E), and the
    error is logged by the channel initiator.  spec: operations-dlq-clusters 7.19"""
    async with trio.open_nursery() as nursery:
        define_pair(qm1, qm2, free_port())
        await start_chinit(nursery, qm1)
        result = await mqsc(qm1, f"PING CHANNEL({CHANNEL})")
        finish(nursery)
    assert not result.ok and result.reason == CMQCFC.MQRCCF_PING_ERROR, result
    assert "AMQ9202E" in " ".join(result.lines), result.lines
    assert any(m.startswith("AMQ9202") for m, _ in qm1.log), qm1.log


# ---------------------------------------------------------------------------- clusters


async def _with_repository_manager(nursery, qm) -> ChannelInitiator:
    """``qm``'s channel initiator with its repository manager, as strmqm starts it."""
    ci = ChannelInitiator(qm.name, qm.connect, EngineAdmin(qm.engine),
                          log=lambda msgid, text: qm.log.append((msgid, text)),
                          cluster_cache=cache_path(qm.engine.qmdir))
    qm.chinit = ci
    await nursery.start(ci.run, [("127.0.0.1", 0)])
    await wait_until(lambda: ci.cluster is not None and ci.cluster.repo is not None)
    return ci


async def test_an_update_for_a_full_cluster_command_queue_is_dead_lettered(qm1, qm2):
    """Given QM2's SYSTEM.CLUSTER.COMMAND.QUEUE full (MAXDEPTH(1) and one message its
    repository manager has not taken) behind CLUSRCVR TO.QM2 MRRTY(1), when QM1 joins cluster
    INV with a CLUSSDR to QM2 and its repository manager sends QM2 its record, then the
    update goes to QM2's dead-letter queue behind an MQDLH (reason 2053 MQRC_Q_FULL, DestQName
    SYSTEM.CLUSTER.COMMAND.QUEUE, the record's format) with the record
    unchanged after it; the command queue still holds its one message.
    spec: operations-dlq-clusters 7.27"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)  # no repository manager runs
        qm2.engine.alter("QLOCAL", COMMAND_QUEUE, {"MAXDEPTH": 1})
        qm2.put(COMMAND_QUEUE, b"not yet taken")
        qm2.define("CHANNEL", "TO.QM2", CHLTYPE="CLUSRCVR", CLUSTER="INV",
                   CONNAME=f"127.0.0.1({r2.port})", MRRTY=1, MRTMR=100)
        c1 = await _with_repository_manager(nursery, qm1)
        for command in (f"DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CLUSTER(INV) "
                        f"CONNAME('127.0.0.1({c1.ports[0]})')",
                        f"DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSSDR) CLUSTER(INV) HBINT(0) "
                        f"CONNAME('127.0.0.1({r2.port})')"):
            result = await mqsc(qm1, command)
            assert result.ok, result.lines
        await wait_until(lambda: qm2.committed(DLQ) >= 1, 30)
        finish(nursery)
    ((dlh, body), *_) = dead_letters(qm2)
    assert dlh.Reason == CMQC.MQRC_Q_FULL
    assert dlh.DestQName.rstrip(b" \x00").decode() == COMMAND_QUEUE
    assert dlh.Format == b"MQPYCLUS"
    assert decode_record(body).sender == "QM1"
    assert qm2.drain(COMMAND_QUEUE) == [b"not yet taken"]


# ---------------------------------------------------------------------------- in doubt


async def test_resolve_commit_reenables_the_xmitq_of_a_stopped_in_doubt_sender(qm1, qm2):
    """Given a sender left in doubt when its link was cut after the receiver committed the
    batch (the confirmation lost) and, with no retries defined, STOPPED by that error (xmitq
    GET(DISABLED)), when DISPLAY CHSTATUS SAVED shows CURLUWID at the sender equal to LSTLUWID
    at the receiver and RESOLVE CHANNEL ACTION(COMMIT) is issued, then the in-doubt
    messages leave the xmitq and the xmitq is GET(ENABLED) again, so another channel could
    use it.  spec: operations-dlq-clusters 7.16"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        proxy = FaultProxy(r2.port, once("r2s", SegmentType.STATUS_DATA, "drop-and-cut"))
        await nursery.start(proxy.run)
        define_pair(qm1, qm2, proxy.port, BATCHSZ=3, SHORTRTY=0, LONGRTY=0, HBINT=0)
        for i in range(3):
            qm1.put("TARGET", b"m%d" % i, qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.STOPPED)
        await wait_until(lambda: qm2.committed("TARGET") == 3)
        assert xmitq_attrs(qm1)[0] == "DISABLED"
        sender = chstatus((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL}) SAVED ALL")).lines)
        receiver = chstatus((await mqsc(qm2, f"DISPLAY CHSTATUS({CHANNEL}) SAVED ALL")).lines)
        assert sender["INDOUBT"] == "YES"
        assert sender["CURLUWID"] == receiver["LSTLUWID"]
        result = await mqsc(qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(COMMIT)")
        assert result.ok, result.lines
        depth, attrs = qm1.depth("QM2"), xmitq_attrs(qm1)
        finish(nursery)
    assert depth == 0 and not qm1.engine.indoubt()
    assert attrs[0] == "ENABLED"
