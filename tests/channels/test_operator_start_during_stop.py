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
#: how long the channel may take to run again: the stopping instance's end, then a new
#: instance's connect and negotiation (past 15 s twice on a machine loaded 12-17)
RESTART_S = 60.0


@pytest.mark.parametrize("mode", ["FORCE", "QUIESCE"])
async def test_start_accepted_during_a_stop_is_obeyed_once_the_instance_has_ended(two_qmgrs,
                                                                                  mode):
    """Given sender QM1.TO.QM2 RUNNING, when the operator issues STOP CHANNEL MODE(mode) and
    at once START CHANNEL, then the START is accepted and obeyed: once the stopping instance
    has ended the channel runs again (it was left STOPPED for good)."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"one"]) as pair:
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert pair.c1.stop_channel(CHANNEL, mode=mode) is None
        assert pair.c1.start_channel(CHANNEL, operator=True) is None
        try:
            await wait_until(lambda: CHANNEL not in pair.c1.start_after_stop
                             and (pair.c1.status_of(CHANNEL) or _none).state
                             is ChannelState.RUNNING, timeout=RESTART_S)
        except trio.TooSlowError:
            pytest.fail(f"not running again: QM1's log {qm1.log}, QM2's {qm2.log}")


async def test_a_stop_after_the_start_is_the_last_word(two_qmgrs):
    """Given sender QM1.TO.QM2 RUNNING, when the operator issues STOP, START and STOP again
    before the instance has ended, then the channel ends STOPPED: the last command wins."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"one"]) as pair:
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert pair.c1.stop_channel(CHANNEL, mode="FORCE") is None
        assert pair.c1.start_channel(CHANNEL, operator=True) is None
        assert pair.c1.stop_channel(CHANNEL, mode="FORCE") is None
        await wait_until(lambda: CHANNEL not in pair.c1.running)
        await trio.sleep(1)
        assert pair.c1.status_of(CHANNEL).state is ChannelState.STOPPED


class _none:
    state = None
