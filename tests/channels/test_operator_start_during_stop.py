"""START CHANNEL issued while a STOP CHANNEL MODE(FORCE) of the same running sender is still
ending it: found by the chaos run (docs/chaos.md; seed 1, 100 faults: a resolve_channel
fault's STOP MODE(FORCE) then START left cluster sender TO.QMB STOPPED for good)."""

from __future__ import annotations

import pytest
import trio

from mqpy_chinit.states import ChannelState
from tests.support.waiting import wait_until

from .pairs import running_pair

CHANNEL = "QM1.TO.QM2"


@pytest.mark.xfail(strict=True, reason="an accepted START during a forced stop is lost: "
                   "start_channel sees the ending instance in `running` and does nothing")
async def test_start_accepted_during_a_forced_stop_leaves_the_channel_not_stopped(two_qmgrs):
    """Given sender QM1.TO.QM2 RUNNING, when the operator issues STOP CHANNEL MODE(FORCE)
    and at once START CHANNEL, then either the START is refused with a message, or, accepted,
    it is obeyed: once the stopped instance has ended the channel is not STOPPED."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"one"]) as pair:
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert pair.c1.stop_channel(CHANNEL, mode="FORCE") is None
        answer = pair.c1.start_channel(CHANNEL, operator=True)
        if answer is None:
            await trio.sleep(2)
            status = pair.c1.status_of(CHANNEL)
            assert status is not None and status.state is not ChannelState.STOPPED
