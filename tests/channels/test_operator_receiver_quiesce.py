"""STOP CHANNEL MODE(QUIESCE) of a receiving channel, as IBM MQ obeys it (STOP CHANNEL, MODE
QUIESCE: "For a receiving channel, if there is no batch in progress, the channel waits for
either the next batch to start or the next heartbeat (if heartbeats are being used) before
it stops"; "If the channel is idle this command does not terminate a receiving channel"):
the instance goes on RUNNING with STOPREQ(YES), ends after the batch in progress or the next
one, or at the next heartbeat, tells its sender USER_CLOSED (AMQ9528I there), and no batch
is lost or duplicated; MODE(FORCE) still ends it at once."""

from __future__ import annotations

import trio

from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import (
    CHANNEL,
    chstatus,
    define_pair,
    finish,
    mqsc,
    start_chinit,
)
from tests.support.waiting import wait_until


def _instance_rows(lines: list[str]) -> list[dict[str, str]]:
    """DISPLAY CHSTATUS's rows of running receiving instances (those with an RQMNAME)."""
    rows = [chstatus([part]) for part in " ".join(lines).split("AMQ8417I")[1:]]
    return [r for r in rows if r.get("RQMNAME")]


async def _running_idle(nursery, qm1, qm2, hbint: int = 0):
    """QM1.TO.QM2 RUNNING after one message, then idle (``hbint``: both ends' HBINT)."""
    r2 = await start_chinit(nursery, qm2, listen=True)
    define_pair(qm1, qm2, r2.port, rcvr={"HBINT": hbint}, HBINT=hbint, DISCINT=0)
    r1 = await start_chinit(nursery, qm1)
    await trio.to_thread.run_sync(qm1.put, "TARGET", b"m0", "QM2")
    assert r1.chinit.start_channel(CHANNEL) is None
    await wait_until(lambda: qm2.committed("TARGET") == 1 and r2.chinit.receivers)
    return r1, r2


async def test_an_idle_receiver_quiesced_shows_stopreq_and_stops_after_the_next_batch(
        qm1, qm2):
    """Given QM1.TO.QM2 RUNNING and idle with HBINT(0), when QM2's operator issues STOP
    CHANNEL (MODE(QUIESCE)), then QM2's instance goes on RUNNING with STOPREQ(YES); when
    the next message comes it is delivered (once), and then the instance ends: QM2 logs
    AMQ9528I and the channel is STOPPED there. QM1's sender learns of it at its next batch
    (USER_CLOSED: AMQ9528I), whose message stays on its transmission queue while the
    STOPPED receiver refuses its retries (AMQ9558E), until START CHANNEL at QM2."""
    async with trio.open_nursery() as nursery:
        r1, r2 = await _running_idle(nursery, qm1, qm2)
        assert (await mqsc(qm2, f"STOP CHANNEL({CHANNEL})")).ok
        await trio.sleep(0.5)
        rows = _instance_rows((await mqsc(qm2, f"DISPLAY CHSTATUS({CHANNEL}) ALL")).lines)
        assert [(r["STATUS"], r["STOPREQ"]) for r in rows] == [("RUNNING", "YES")], rows
        assert r2.chinit.receivers
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"m1", "QM2")
        with trio.fail_after(10):
            await wait_until(lambda: not r2.chinit.receivers)
        assert qm2.committed("TARGET") == 2
        assert r2.chinit.status_of(CHANNEL).state is ChannelState.STOPPED
        assert any(m == "AMQ9528I" and "QUIESCE" in t for m, t in qm2.log), qm2.log
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"m2", "QM2")
        with trio.fail_after(10):
            await wait_until(lambda: any(m == "AMQ9558E" for m, _ in qm1.log))
        assert any(m == "AMQ9528I" for m, _ in qm1.log), qm1.log
        assert qm2.committed("TARGET") == 2 and qm1.depth("QM2") == 1
        assert (await mqsc(qm2, f"START CHANNEL({CHANNEL})")).ok
        with trio.fail_after(15):
            await wait_until(lambda: qm2.committed("TARGET") == 3)
        finish(nursery)
    assert qm2.drain("TARGET") == [b"m0", b"m1", b"m2"]
    assert qm1.depth("QM2") == 0


async def test_an_idle_receiver_quiesced_stops_at_the_next_heartbeat(qm1, qm2):
    """Given QM1.TO.QM2 RUNNING and idle with HBINT(1), when QM2's operator issues STOP
    CHANNEL MODE(QUIESCE) STATUS(INACTIVE), then the instance ends at the next heartbeat
    with no message moved, INACTIVE (not STOPPED); the sender, told USER_CLOSED (AMQ9528I),
    retries and a message put afterwards is delivered."""
    async with trio.open_nursery() as nursery:
        r1, r2 = await _running_idle(nursery, qm1, qm2, hbint=1)
        assert (await mqsc(qm2, f"STOP CHANNEL({CHANNEL}) MODE(QUIESCE) "
                                f"STATUS(INACTIVE)")).ok
        with trio.fail_after(8):
            await wait_until(lambda: any(m == "AMQ9528I" for m, _ in qm1.log))
        st = r2.chinit.status_of(CHANNEL, "QM1")
        assert st.state is ChannelState.INACTIVE
        assert r2.chinit.status_of(CHANNEL).state is not ChannelState.STOPPED
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"m1", "QM2")
        with trio.fail_after(15):
            await wait_until(lambda: qm2.committed("TARGET") == 2)
        finish(nursery)
    assert qm2.drain("TARGET") == [b"m0", b"m1"]


async def test_a_quiesced_receiver_picked_by_qmname_waits_for_its_heartbeat(qm1, qm2):
    """Given QM1.TO.QM2 RUNNING and idle with HBINT(2), when QM2's operator issues STOP
    CHANNEL QMNAME(QM1) (MODE(QUIESCE)), then the instance from QM1 is still running half a
    second later (STOPREQ(YES)), and ends at its next heartbeat, INACTIVE, with no STOPPED
    mark for the channel."""
    async with trio.open_nursery() as nursery:
        r1, r2 = await _running_idle(nursery, qm1, qm2, hbint=2)
        assert (await mqsc(qm2, f"STOP CHANNEL({CHANNEL}) QMNAME(QM1)")).ok
        await trio.sleep(0.5)
        still = bool(r2.chinit.receivers)
        st = r2.chinit.status_of(CHANNEL, "QM1")
        shown = (st.state, st.as_mqsc()["STOPREQ"])
        with trio.fail_after(10):
            await wait_until(lambda: not r2.chinit.receivers)
        assert st.state is ChannelState.INACTIVE
        assert CHANNEL not in r2.chinit.statuses
        finish(nursery)
    assert still and shown == (ChannelState.RUNNING, "YES")


async def test_stop_force_after_quiesce_ends_the_receiver_at_once(qm1, qm2):
    """Given QM1.TO.QM2 RUNNING and idle with HBINT(0), stopped at QM2 with MODE(QUIESCE)
    (still running, waiting for a batch), when the operator then issues STOP CHANNEL
    MODE(FORCE), then the instance ends at once and the channel is STOPPED."""
    async with trio.open_nursery() as nursery:
        r1, r2 = await _running_idle(nursery, qm1, qm2)
        assert (await mqsc(qm2, f"STOP CHANNEL({CHANNEL}) MODE(QUIESCE)")).ok
        await trio.sleep(0.3)
        assert r2.chinit.receivers
        # (IGNSTATE(YES): the channel carries its STOPPED mark already)
        assert (await mqsc(qm2, f"STOP CHANNEL({CHANNEL}) MODE(FORCE) IGNSTATE(YES)")).ok
        with trio.fail_after(3):
            await wait_until(lambda: not r2.chinit.receivers)
        assert r2.chinit.status_of(CHANNEL).state is ChannelState.STOPPED
        finish(nursery)
    assert qm2.drain("TARGET") == [b"m0"]


async def test_a_receiver_quiesced_during_batches_loses_and_duplicates_nothing(qm1, qm2):
    """Given 300 messages flowing QM1 -> QM2 in batches of 10, when QM2's operator issues
    STOP CHANNEL (MODE(QUIESCE)) while they flow, then the instance ends at a batch's end
    with the rest still at QM1, its sender told so (USER_CLOSED: AMQ9528I, not a broken
    connection); after START CHANNEL at QM2 the sender's retry delivers the rest: every
    message arrives exactly once, in order."""
    bodies = [b"m%03d" % i for i in range(300)]
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0, DISCINT=0, BATCHSZ=10)
        for body in bodies:
            qm1.put("TARGET", body, qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        assert r1.chinit.start_channel(CHANNEL) is None
        await wait_until(lambda: qm2.committed("TARGET") >= 10)
        assert (await mqsc(qm2, f"STOP CHANNEL({CHANNEL})")).ok
        with trio.fail_after(10):
            await wait_until(lambda: not r2.chinit.receivers)
        stopped_at = qm2.committed("TARGET")
        assert stopped_at % 10 == 0 and stopped_at < 300, stopped_at
        with trio.fail_after(10):
            await wait_until(lambda: any(m.startswith("AMQ9") and m != "AMQ9002I"
                                         for m, _ in qm1.log))
        told = [m for m, _ in qm1.log if m.startswith("AMQ9") and m != "AMQ9002I"][0]
        assert told == "AMQ9528I", qm1.log
        assert (await mqsc(qm2, f"START CHANNEL({CHANNEL})")).ok
        with trio.fail_after(30):
            await wait_until(lambda: qm2.committed("TARGET") == 300, 30)
            await wait_until(lambda: qm1.depth("QM2") == 0)
        finish(nursery)
    assert qm2.drain("TARGET") == bodies


async def test_a_requester_quiesced_while_idle_stops_after_its_next_batch(qm1, qm2):
    """Given QM2's RQSTR QM1.SVR receiving from QM1's SVR, idle with HBINT(0), when QM2's
    operator issues STOP CHANNEL (MODE(QUIESCE)), then the requester goes on RUNNING with
    STOPREQ(YES); the next message is delivered, and then it ends STOPPED."""
    async with trio.open_nursery() as nursery:
        r1 = await start_chinit(nursery, qm1, listen=True)
        qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
        qm1.define("CHANNEL", "QM1.SVR", CHLTYPE="SVR", XMITQ="QM2", HBINT=0, DISCINT=0)
        qm2.define("CHANNEL", "QM1.SVR", CHLTYPE="RQSTR", CONNAME=f"127.0.0.1({r1.port})",
                   HBINT=0)
        qm2.define("QLOCAL", "TARGET")
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"r0", "QM2")
        r2 = await start_chinit(nursery, qm2)
        assert r2.chinit.start_channel("QM1.SVR") is None
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert (await mqsc(qm2, "STOP CHANNEL(QM1.SVR)")).ok
        await trio.sleep(0.5)
        st = r2.chinit.status_of("QM1.SVR")
        shown = (st.state, st.as_mqsc()["STOPREQ"])
        assert "QM1.SVR" in r2.chinit.running
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"r1", "QM2")
        with trio.fail_after(10):
            await wait_until(lambda: "QM1.SVR" not in r2.chinit.running)
        assert r2.chinit.status_of("QM1.SVR").state is ChannelState.STOPPED
        # remembered, as a sender's STOPPED is: a restart of the channel initiator keeps it
        await wait_until(lambda: r2.chinit._wanted_states.get("QM1.SVR") == "STOPPED")
        finish(nursery)
    assert shown == (ChannelState.RUNNING, "YES")
    assert qm2.drain("TARGET") == [b"r0", b"r1"]
