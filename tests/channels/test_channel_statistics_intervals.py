"""Channel statistics intervals as the administrator changes them: ALTER QMGR STATINT applies
to the interval in progress, and RESET QMGR TYPE(STATISTICS) writes the channels' records of
the interval in progress too and starts a new interval."""

from __future__ import annotations

import trio

from mqpy import CMQCFC, pcf
from tests.channels.pairs import listening, started
from tests.support.channel_pair import CHANNEL, define_pair, mqsc
from tests.support.waiting import wait_until

STATQ = "SYSTEM.ADMIN.STATISTICS.QUEUE"


def _channel_records(qm) -> int:
    """How many channel statistics messages are on QM's statistics queue (taken off it)."""
    return sum(pcf.parse(d).header.Command == CMQCFC.MQCMD_STATISTICS_CHANNEL
               for d in qm.drain(STATQ))


async def test_channel_statistics_follow_an_altered_statint_and_a_reset(two_qmgrs):
    """Given STATCHL(HIGH), STATINT(1800) and a running channel, when the administrator
    issues ALTER QMGR STATINT(2), then a channel statistics record comes within about 2 s;
    when, with STATINT back at 1800 and one more message moved, RESET QMGR TYPE(STATISTICS) is
    issued, then a channel statistics record comes at once."""
    qm1, qm2 = two_qmgrs
    qm1.engine.alter_qmgr({"STATCHL": "HIGH", "STATINT": 1800})
    async with trio.open_nursery() as nursery:
        c2 = await listening(nursery, qm2)
        define_pair(qm1, qm2, c2.ports[0])
        qm1.put("TARGET", b"counted", qmgr="QM2")
        await started(nursery, qm1, CHANNEL)
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        await trio.sleep(0.5)
        assert (await mqsc(qm1, "ALTER QMGR STATINT(2)")).ok
        with trio.fail_after(3.2):
            while not _channel_records(qm1):
                await trio.sleep(0.1)
        assert (await mqsc(qm1, "ALTER QMGR STATINT(1800)")).ok
        await trio.sleep(2.5)  # the task has seen STATINT(1800)
        _channel_records(qm1)
        qm1.put("TARGET", b"counted too", qmgr="QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 2)
        result = await mqsc(qm1, "RESET QMGR TYPE(STATISTICS)")
        assert result.ok, result.lines
        with trio.fail_after(1.5):
            while not _channel_records(qm1):
                await trio.sleep(0.1)
        nursery.cancel_scope.cancel()
