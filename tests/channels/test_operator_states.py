"""What STOP CHANNEL leaves for triggering and for the next start, as IBM MQ documents it: a
sender stopped with STATUS(INACTIVE) is triggered again by its next message; a definition
altered while the channel runs takes effect at its next start; STOP CHANNEL of a channel that
is already STOPPED, or STATUS(INACTIVE) of one that is not running, is refused with AMQ9533E
(MQRCCF_CHANNEL_NOT_ACTIVE: "an attempt was made to stop a channel, but the channel was
already stopped"), IBM's IGNSTATE(NO)."""

from __future__ import annotations

import functools

import trio

from mqpy import CMQCFC
from mqpy.channelcommands import INITQ
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, define_pair, finish, mqsc, start_chinit
from tests.support.ports import free_port
from tests.support.waiting import wait_until

NOT_ACTIVE = CMQCFC.MQRCCF_CHANNEL_NOT_ACTIVE


def _triggered(qm1) -> None:
    qm1.engine.alter("QLOCAL", "QM2", {"TRIGGER": "YES", "TRIGTYPE": "FIRST",
                                       "INITQ": INITQ, "TRIGDATA": CHANNEL})


async def test_a_sender_stopped_inactive_is_triggered_again_by_its_next_message(qm1, qm2):
    """Given a triggered sender (TRIGGER FIRST, TRIGDATA the channel) that moved a message,
    when the operator issues STOP CHANNEL STATUS(INACTIVE) and a new message arrives on its
    transmission queue, then the trigger starts it again and the message is delivered (an
    inactive channel is started when required; only a STOPPED one waits for START)."""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0, DISCINT=0)
        _triggered(qm1)
        r1 = await start_chinit(nursery, qm1)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"first", "QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert (await mqsc(qm1, f"STOP CHANNEL({CHANNEL}) STATUS(INACTIVE)")).ok
        await wait_until(lambda: CHANNEL not in r1.chinit.running)
        assert r1.chinit.status_of(CHANNEL).state is ChannelState.INACTIVE
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"second", "QM2")
        with trio.fail_after(10):
            await wait_until(lambda: qm2.committed("TARGET") == 2)
        finish(nursery)
    assert qm2.drain("TARGET") == [b"first", b"second"]


async def test_batchsz_altered_while_running_takes_effect_at_the_next_start(qm1, qm2):
    """Given sender QM1.TO.QM2 RUNNING with BATCHSZ(50) (the receiver's 50 too), when the
    operator alters it to BATCHSZ(2) while it runs, then DISPLAY CHSTATUS still shows the
    batch size agreed at its start (50); after STOP and START CHANNEL it shows 2."""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0, DISCINT=0, BATCHSZ=50)
        r1 = await start_chinit(nursery, qm1)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"a", "QM2")
        assert r1.chinit.start_channel(CHANNEL) is None
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        st = r1.chinit.status_of(CHANNEL)
        assert st.batchsz == 50
        assert (await mqsc(qm1, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SDR) BATCHSZ(2)")).ok
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"b", "QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 2)
        assert r1.chinit.status_of(CHANNEL).batchsz == 50
        assert (await mqsc(qm1, f"STOP CHANNEL({CHANNEL})")).ok
        await wait_until(lambda: CHANNEL not in r1.chinit.running)
        assert (await mqsc(qm1, f"START CHANNEL({CHANNEL})")).ok
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"c", "QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 3)
        assert r1.chinit.status_of(CHANNEL).batchsz == 2
        finish(nursery)


async def test_stop_channel_of_a_stopped_channel_is_refused_as_not_active(qm1, qm2):
    """Given sender QM1.TO.QM2 stopped by STOP CHANNEL (it was not running: accepted,
    AMQ8019I, STATUS(STOPPED)), when the operator issues STOP CHANNEL again, then runmqsc
    answers AMQ9533E (MQRCCF_CHANNEL_NOT_ACTIVE) and the channel stays STOPPED."""
    async with trio.open_nursery() as nursery:
        define_pair(qm1, qm2, free_port())
        r1 = await start_chinit(nursery, qm1)
        first = await mqsc(qm1, f"STOP CHANNEL({CHANNEL})")
        assert first.ok and any("AMQ8019I" in line for line in first.lines), first
        again = await mqsc(qm1, f"STOP CHANNEL({CHANNEL})")
        assert not again.ok and again.reason == NOT_ACTIVE, again
        assert any("AMQ9533E" in line for line in again.lines), again.lines
        assert r1.chinit.status_of(CHANNEL).state is ChannelState.STOPPED
        finish(nursery)


async def test_stop_channel_status_inactive_of_a_channel_not_running_is_refused(qm1, qm2):
    """Given sender QM1.TO.QM2 defined and never started, when the operator issues STOP
    CHANNEL STATUS(INACTIVE), then runmqsc answers AMQ9533E: the channel is not active, and
    it is not marked STOPPED (a trigger may still start it)."""
    async with trio.open_nursery() as nursery:
        define_pair(qm1, qm2, free_port())
        r1 = await start_chinit(nursery, qm1)
        result = await mqsc(qm1, f"STOP CHANNEL({CHANNEL}) STATUS(INACTIVE)")
        assert not result.ok and result.reason == NOT_ACTIVE, result
        status = r1.chinit.status_of(CHANNEL)
        assert status is None or status.state is not ChannelState.STOPPED
        finish(nursery)


async def test_a_sender_refused_by_a_stopped_receiver_logs_amq9558e(qm1, qm2):
    """Given RCVR QM1.TO.QM2 STOPPED at QM2, when QM1's sender starts, then QM2 refuses it
    (AMQ9534E there: the channel is not enabled) and QM1's error log says AMQ9558E (the
    remote channel is not currently available) as IBM's sender does, and it retries."""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0, SHORTRTY=10, SHORTTMR=1)
        assert (await mqsc(qm2, f"STOP CHANNEL({CHANNEL})")).ok
        r1 = await start_chinit(nursery, qm1)
        assert r1.chinit.start_channel(CHANNEL) is None
        with trio.fail_after(10):
            await wait_until(lambda: any(m == "AMQ9534E" for m, _ in qm2.log))
            await wait_until(lambda: r1.chinit.status_of(CHANNEL).state
                             is ChannelState.RETRYING)
        ended = [m for m, _ in qm1.log if m.startswith("AMQ9") and m.endswith("E")]
        finish(nursery)
    assert "AMQ9558E" in ended, ended


async def _silent_partner(nursery) -> int:
    """A port whose listener accepts a connection and never answers: a sender that calls it
    stays BINDING (its initial data unanswered)."""
    async def handler(stream):
        await trio.sleep_forever()
    listeners = await nursery.start(functools.partial(trio.serve_tcp, handler, 0,
                                                      host="127.0.0.1"))
    return listeners[0].socket.getsockname()[1]


async def test_stop_channel_of_a_binding_sender_stops_it_at_once(qm1, qm2):
    """Given sender QM1.TO.QM2 BINDING (its partner accepted the connection and never
    answers), when the operator issues STOP CHANNEL (MODE(QUIESCE), the default), then it
    is STOPPED at once, without waiting out the negotiation, and DISPLAY CHSTATUS shows
    STATUS(STOPPED)."""
    async with trio.open_nursery() as nursery:
        port = await _silent_partner(nursery)
        define_pair(qm1, qm2, port, HBINT=0)
        r1 = await start_chinit(nursery, qm1)
        assert r1.chinit.start_channel(CHANNEL) is None
        await wait_until(lambda: r1.chinit.status_of(CHANNEL).state is ChannelState.BINDING)
        assert (await mqsc(qm1, f"STOP CHANNEL({CHANNEL})")).ok
        with trio.fail_after(5):
            await wait_until(lambda: CHANNEL not in r1.chinit.running)
        assert r1.chinit.status_of(CHANNEL).state is ChannelState.STOPPED
        shown = " ".join((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL})")).lines)
        assert "STATUS(STOPPED)" in shown, shown
        finish(nursery)


async def test_discint_altered_while_running_takes_effect_at_the_next_start(qm1, qm2):
    """Given sender QM1.TO.QM2 RUNNING with DISCINT(0), when the operator alters it to
    DISCINT(1) while it runs, then it goes on running idle past a second; after STOP and
    START CHANNEL it ends INACTIVE after a second of idling."""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0, DISCINT=0)
        r1 = await start_chinit(nursery, qm1)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"a", "QM2")
        assert r1.chinit.start_channel(CHANNEL) is None
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert (await mqsc(qm1, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SDR) DISCINT(1)")).ok
        await trio.sleep(2.5)
        assert r1.chinit.status_of(CHANNEL).state is ChannelState.RUNNING
        assert (await mqsc(qm1, f"STOP CHANNEL({CHANNEL})")).ok
        await wait_until(lambda: CHANNEL not in r1.chinit.running)
        assert (await mqsc(qm1, f"START CHANNEL({CHANNEL})")).ok
        await wait_until(lambda: r1.chinit.status_of(CHANNEL).state is ChannelState.RUNNING)
        with trio.fail_after(6):
            await wait_until(lambda: CHANNEL not in r1.chinit.running)
        assert r1.chinit.status_of(CHANNEL).state is ChannelState.INACTIVE
        finish(nursery)


async def test_ping_channel_of_a_receiver_is_refused_as_the_wrong_type(qm1, qm2):
    """Given receiver QM1.TO.QM2 at QM2, when the operator issues PING CHANNEL there, then
    it is refused with AMQ9502E (MQRCCF_CHANNEL_TYPE_ERROR): PING is a sending channel's."""
    qm2.define("CHANNEL", CHANNEL, CHLTYPE="RCVR")
    result = await mqsc(qm2, f"PING CHANNEL({CHANNEL})")
    assert not result.ok and result.reason == CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR, result



async def test_stop_quiesce_leaves_an_idle_receiver_until_its_next_batch(qm1, qm2):
    """Given channel QM1.TO.QM2 RUNNING and idle (no heartbeats), when the operator issues
    STOP CHANNEL (MODE(QUIESCE)) at the receiver QM2, then the receiving instance is not
    ended at once (IBM: "If the channel is idle this command does not terminate a
    receiving channel"; it stops at the next batch or heartbeat)."""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0, DISCINT=0)
        r1 = await start_chinit(nursery, qm1)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"a", "QM2")
        assert r1.chinit.start_channel(CHANNEL) is None
        await wait_until(lambda: qm2.committed("TARGET") == 1 and r2.chinit.receivers)
        assert (await mqsc(qm2, f"STOP CHANNEL({CHANNEL})")).ok
        await trio.sleep(1.0)
        still = bool(r2.chinit.receivers)
        finish(nursery)
    assert still
