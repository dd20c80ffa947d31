"""Channel states that survive a restart of the channel initiator (seed 000 9.40)."""

from __future__ import annotations

import trio

from mqpy_chinit.states import ChannelState
from tests.channels.pairs import define_pair, remembered
from tests.support.waiting import wait_until


async def test_a_stopped_channel_stays_stopped_across_a_restart(two_qmgrs):
    """Given channel QM1.TO.QM2 stopped with STOP CHANNEL, when the channel initiator is
    restarted, then the channel is still STOPPED and a trigger message does not start it;
    START CHANNEL does, and the waiting message is delivered."""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        define_pair(qm1, qm2, c2.ports[0])
        qm1.engine.alter("QLOCAL", "QM2", {"TRIGGER": "YES", "TRIGTYPE": "FIRST",
                                           "INITQ": "SYSTEM.CHANNEL.INITQ",
                                           "TRIGDATA": "QM1.TO.QM2"})
        async with trio.open_nursery() as first_life:
            c1 = qm1.make_chinit()
            await first_life.start(c1.run)
            assert c1.stop_channel("QM1.TO.QM2") is None
            await wait_until(lambda: remembered(qm1)[0] == {"QM1.TO.QM2": "STOPPED"})
            first_life.cancel_scope.cancel()
        c1 = qm1.make_chinit()
        await nursery.start(c1.run)
        assert c1.status_of("QM1.TO.QM2").state is ChannelState.STOPPED
        qm1.put("TARGET", b"waits", qmgr="QM2")
        await trio.sleep(0.5)
        assert c1.status_of("QM1.TO.QM2").state is ChannelState.STOPPED
        assert qm2.depth("TARGET") == 0
        assert c1.start_channel("QM1.TO.QM2") is None
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        nursery.cancel_scope.cancel()


def test_a_message_that_is_not_a_sync_record_is_ignored():
    """Given something that is not a sync record put on SYSTEM.CHANNEL.SYNCQ under a channel's
    CorrelId, then reading the channel's records ignores it instead of failing the channel."""
    from mqpy import syncrecord

    assert syncrecord._decoded(b"not json") is None
    assert syncrecord._decoded(b'{"channel": "C"}') is None
    record = syncrecord.SyncRecord("C", "R", 7, bytes(8), "QM1")
    assert syncrecord._decoded(record.to_bytes()) == record
