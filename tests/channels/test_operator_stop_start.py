"""The operator's STOP CHANNEL and START CHANNEL of a sending channel that is RETRYING, as
IBM MQ obeys them: a stop ends the retrying at once (STOPPED, no further attempt), a start
makes the next attempt now with the channel's current definition."""

from __future__ import annotations

import trio

from mqpy_chinit.states import ChannelState
from tests.support.ports import free_port
from tests.support.waiting import wait_until

from .pairs import remembered, running_pair
from .test_sdr_rcvr import define_pair

CHANNEL = "QM1.TO.QM2"
#: a retry timer far longer than any test: what happens "at once" cannot be the timer
SLOW_RETRIES = {"SHORTRTY": 10, "SHORTTMR": 600, "LONGRTY": 10, "LONGTMR": 1200}


def _state(chinit) -> ChannelState | None:
    status = chinit.status_of(CHANNEL)
    return status.state if status is not None else None


async def _retrying(nursery, qm1, qm2):
    """QM1's sender defined towards a closed port, started, and RETRYING: its chinit."""
    define_pair(qm1, qm2, free_port(), **SLOW_RETRIES)
    c1 = qm1.make_chinit()
    await nursery.start(c1.run)
    assert c1.start_channel(CHANNEL) is None
    await wait_until(lambda: _state(c1) is ChannelState.RETRYING)
    return c1


async def test_stop_channel_of_a_retrying_sender_stops_it_at_once(two_qmgrs):
    """Given sender QM1.TO.QM2 RETRYING towards a port nobody listens on (retry timer 600 s),
    when the operator issues STOP CHANNEL (MODE(QUIESCE), the default), then the channel is
    STOPPED at once, makes no further attempt, and the error log says why."""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1 = await _retrying(nursery, qm1, qm2)
        attempts = c1.status_of(CHANNEL).history.count(ChannelState.BINDING)
        assert c1.stop_channel(CHANNEL) is None
        with trio.fail_after(5):
            await wait_until(lambda: _state(c1) is ChannelState.STOPPED)
        await wait_until(lambda: CHANNEL not in c1.running)
        await trio.sleep(0.3)
        status = c1.status_of(CHANNEL)
        assert status.state is ChannelState.STOPPED
        assert status.history.count(ChannelState.BINDING) == attempts
        assert any(m == "AMQ9528I" and CHANNEL in t for m, t in qm1.log), qm1.log
        nursery.cancel_scope.cancel()


async def test_start_channel_of_a_retrying_sender_starts_it_now_with_its_new_conname(
        two_qmgrs):
    """Given sender QM1.TO.QM2 RETRYING towards a port nobody listens on (retry timer 600 s)
    with a message waiting for QM2, when the operator alters its CONNAME to QM2's listener
    and issues START CHANNEL, then the channel starts now with the new CONNAME: RUNNING, and
    the message arrives."""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        c1 = await _retrying(nursery, qm1, qm2)
        qm1.put("TARGET", b"waited", qmgr="QM2")
        qm1.engine.alter("CHANNEL", CHANNEL, {"CONNAME": f"127.0.0.1({c2.ports[0]})"})
        assert (await c1._start({}, CHANNEL))["ok"]  # the operator's START CHANNEL
        with trio.fail_after(10):
            await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert _state(c1) is ChannelState.RUNNING
        assert c1.status_of(CHANNEL).short_retries_left == SLOW_RETRIES["SHORTRTY"]
        nursery.cancel_scope.cancel()
    assert qm2.drain("TARGET") == [b"waited"]


async def test_a_trigger_message_leaves_a_retrying_sender_to_its_retry_timer(two_qmgrs):
    """Given sender QM1.TO.QM2 RETRYING (retry timer 600 s) on a transmission queue that
    triggers it for every message, when messages arrive on that queue, then no attempt is
    made before the timer: only the operator's START CHANNEL hurries a retrying channel."""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1 = await _retrying(nursery, qm1, qm2)
        attempts = c1.status_of(CHANNEL).history.count(ChannelState.BINDING)
        qm1.engine.alter("QLOCAL", "QM2", {"TRIGGER": "YES", "TRIGTYPE": "EVERY",
                                           "INITQ": "SYSTEM.CHANNEL.INITQ",
                                           "TRIGDATA": CHANNEL})
        for i in range(3):
            qm1.put("TARGET", b"m%d" % i, qmgr="QM2")
        await trio.sleep(1.0)
        assert c1.status_of(CHANNEL).history.count(ChannelState.BINDING) == attempts
        assert _state(c1) is ChannelState.RETRYING
        nursery.cancel_scope.cancel()


async def test_stop_then_start_of_a_retrying_sender_starts_it_again(two_qmgrs):
    """Given sender QM1.TO.QM2 stopped while RETRYING, when QM2 listens on the channel's
    CONNAME and the operator issues START CHANNEL, then the channel runs and a waiting message
    arrives (the stop left nothing behind that blocks a start)."""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1 = await _retrying(nursery, qm1, qm2)
        assert c1.stop_channel(CHANNEL) is None
        with trio.fail_after(5):
            await wait_until(lambda: CHANNEL not in c1.running)
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        qm1.engine.alter("CHANNEL", CHANNEL, {"CONNAME": f"127.0.0.1({c2.ports[0]})"})
        qm1.put("TARGET", b"after", qmgr="QM2")
        assert c1.start_channel(CHANNEL) is None
        with trio.fail_after(10):
            await wait_until(lambda: qm2.committed("TARGET") == 1)
        nursery.cancel_scope.cancel()


async def test_stop_channel_of_a_stopped_channel_leaves_it_stopped(two_qmgrs):
    """Given sender QM1.TO.QM2 STOPPED, when the operator issues STOP CHANNEL again, then the
    command is accepted and the channel stays STOPPED (IBM answers AMQ9533E unless
    IGNSTATE(YES); mqpy accepts it, as IGNSTATE(YES) would)."""
    qm1, qm2 = two_qmgrs
    define_pair(qm1, qm2, free_port())
    async with trio.open_nursery() as nursery:
        c1 = qm1.make_chinit()
        await nursery.start(c1.run)
        assert c1.stop_channel(CHANNEL) is None
        reply = await c1._stop({}, CHANNEL)
        assert reply["ok"] is True, reply
        assert _state(c1) is ChannelState.STOPPED
        nursery.cancel_scope.cancel()


async def test_ping_of_a_retrying_sender_is_tried_and_leaves_it_retrying(two_qmgrs):
    """Given sender QM1.TO.QM2 RETRYING towards a port nobody listens on, when the operator
    issues PING CHANNEL, then the ping is tried (IBM allows it in retry): it fails because the
    partner is not there (AMQ9202E), not because the channel is in use, and the channel is
    still RETRYING."""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1 = await _retrying(nursery, qm1, qm2)
        reply = await c1._ping({}, CHANNEL)
        assert reply["ok"] is False and "AMQ9202E" in reply["message"], reply
        assert _state(c1) is ChannelState.RETRYING
        nursery.cancel_scope.cancel()


async def test_start_channel_of_a_running_channel_changes_nothing(two_qmgrs):
    """Given channel QM1.TO.QM2 RUNNING, when the operator issues START CHANNEL, then it is
    accepted and the same instance goes on running: no second start reaches QM2."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"one"]) as pair:
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        starts = [m for m, t in qm2.log if m == "AMQ9002I"]
        assert pair.c1.start_channel(CHANNEL) is None
        await trio.sleep(0.3)
        assert _state(pair.c1) is ChannelState.RUNNING
        assert [m for m, t in qm2.log if m == "AMQ9002I"] == starts


async def test_stop_then_start_at_once_is_remembered_as_started(two_qmgrs):
    """Given sender QM1.TO.QM2 defined, when the operator stops it and at once starts it
    again, many times over, and the channel initiator is then restarted, then the channel is
    not STOPPED: the state remembered is the last one asked for, whatever order the writes
    ran in."""
    qm1, qm2 = two_qmgrs
    define_pair(qm1, qm2, free_port(), **SLOW_RETRIES)
    async with trio.open_nursery() as nursery:
        async with trio.open_nursery() as first_life:
            c1 = qm1.make_chinit()
            await first_life.start(c1.run)
            for _ in range(5):
                assert c1.stop_channel(CHANNEL) is None
                await wait_until(lambda: CHANNEL not in c1.running)
                assert (await c1._start({}, CHANNEL))["ok"]
            # the states are written: the last one asked for (RETRYING, once the last start
            # found nobody listening) is remembered
            await wait_until(lambda: _state(c1) is ChannelState.RETRYING
                             and remembered(qm1)[0] == {CHANNEL: "RETRYING"})
            first_life.cancel_scope.cancel()
        c1 = qm1.make_chinit()
        await nursery.start(c1.run)
        assert _state(c1) is not ChannelState.STOPPED
        nursery.cancel_scope.cancel()
