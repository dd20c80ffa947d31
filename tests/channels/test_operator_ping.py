"""PING CHANNEL as the operator uses it: refused while the channel is running (IBM's
AMQ9514E, channel in use), and never a second start that would replace the running
instance at the receiver."""

from __future__ import annotations

import trio

from mqpy_chinit.states import ChannelState
from tests.support.waiting import wait_until

from .pairs import CHANNEL, running_pair
from .test_sdr_rcvr import define_pair


async def test_ping_of_a_running_channel_is_refused_and_leaves_it_running(two_qmgrs):
    """Given channel QM1.TO.QM2 RUNNING between QM1 and QM2, when the operator issues PING
    CHANNEL(QM1.TO.QM2) on QM1, then the ping is refused with AMQ9514E (channel in use), the
    receiving instance at QM2 is not replaced (no AMQ9532I), and the channel still carries
    the next message."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"first"]) as pair:
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        reply = await pair.c1._ping({}, CHANNEL)
        assert reply["ok"] is False
        assert reply["message"].startswith("AMQ9514E"), reply
        await trio.sleep(0.3)
        assert not any(m == "AMQ9532I" for m, _ in qm2.log), qm2.log
        assert pair.c1.status_of(CHANNEL).state is ChannelState.RUNNING
        qm1.put("TARGET", b"second", qmgr="QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 2)


async def test_ping_of_a_stopped_channel_is_answered(two_qmgrs):
    """Given channel QM1.TO.QM2 STOPPED on QM1 with QM2 listening, when the operator issues
    PING CHANNEL, then the ping is answered (IBM allows it for a stopped or retrying channel)
    and the channel stays STOPPED."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"first"]) as pair:
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert pair.c1.stop_channel(CHANNEL) is None
        await wait_until(lambda: pair.c1.status_of(CHANNEL).state is ChannelState.STOPPED)
        await wait_until(lambda: CHANNEL not in pair.c1.running)
        reply = await pair.c1._ping({}, CHANNEL)
        assert reply["ok"] is True, reply
        assert pair.c1.status_of(CHANNEL).state is ChannelState.STOPPED


async def test_ping_right_after_start_channel_is_refused(two_qmgrs):
    """Given channel QM1.TO.QM2 defined with QM2 listening, when the operator issues START
    CHANNEL and at once PING CHANNEL, then the ping is refused with AMQ9514E (the start is
    under way), and the channel runs and delivers: the ping never replaced it."""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        define_pair(qm1, qm2, c2.ports[0])
        c1 = qm1.make_chinit()
        await nursery.start(c1.run)
        qm1.put("TARGET", b"one", qmgr="QM2")
        assert (await c1._start({}, CHANNEL))["ok"]
        reply = await c1._ping({}, CHANNEL)
        assert reply["ok"] is False and reply["message"].startswith("AMQ9514E"), reply
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert not any(m == "AMQ9532I" for m, _ in qm2.log), qm2.log
        nursery.cancel_scope.cancel()
