"""What DISPLAY CHSTATUS and the error log say of a channel's state: a channel that is not
active shows no substate, and a stop is logged with IBM's message for it."""

from __future__ import annotations

import trio

from mqpy_chinit.states import ChannelEvent, ChannelState, ChannelStatus
from tests.support.waiting import wait_until

from .pairs import CHANNEL, running_pair
from .test_sdr_rcvr import define_pair


def _running() -> ChannelStatus:
    status = ChannelStatus("QM1.TO.QM2", "SDR")
    for event in (ChannelEvent.START, ChannelEvent.BIND, ChannelEvent.NEGOTIATED):
        status.move(event)
    return status


def test_a_stopped_channel_shows_no_substate():
    """Given a RUNNING sender sending a heartbeat (SUBSTATE(HEARTBEAT)), when it is stopped,
    then DISPLAY CHSTATUS shows STATUS(STOPPED) and an empty SUBSTATE, even if its MCA sets a
    substate afterwards."""
    status = _running()
    status.substate = "HEARTBEAT"
    status.move(ChannelEvent.STOP)
    shown = status.as_mqsc()
    assert (shown["STATUS"], shown["SUBSTATE"]) == ("STOPPED", "")
    status.substate = "HEARTBEAT"  # a late write by an ending MCA
    assert status.as_mqsc()["SUBSTATE"] == ""


def test_a_retrying_or_inactive_channel_shows_no_substate():
    """Given a RUNNING sender in SUBSTATE(RECEIVE), when it fails and retries, or ends, then
    DISPLAY CHSTATUS shows no substate."""
    status = _running()
    status.substate = "RECEIVE"
    status.move(ChannelEvent.RETRY)
    assert status.as_mqsc()["SUBSTATE"] == ""
    status = _running()
    status.substate = "RECEIVE"
    status.move(ChannelEvent.ENDED)
    assert status.as_mqsc()["SUBSTATE"] == ""


async def test_each_stop_of_a_channel_is_logged_with_its_reason(two_qmgrs):
    """Given channel QM1.TO.QM2 running, when the operator stops it (MODE(QUIESCE)), then
    QM1's log says AMQ9528I (user requested closure) for it and QM2's says AMQ9001I (ended
    normally) for its receiving end, never AMQ9002I (which is "starting")."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"one"]) as pair:
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert pair.c1.stop_channel(CHANNEL) is None
        await wait_until(lambda: CHANNEL not in pair.c1.running)
        assert pair.c1.status_of(CHANNEL).state is ChannelState.STOPPED
        await wait_until(lambda: any(m == "AMQ9001I" and CHANNEL in t for m, t in qm2.log))
        assert any(m == "AMQ9528I" and CHANNEL in t for m, t in qm1.log), qm1.log
        assert not any(m == "AMQ9002I" and "ended" in t for m, t in qm2.log), qm2.log


async def test_a_stop_of_an_inactive_channel_is_logged(two_qmgrs):
    """Given channel QM1.TO.QM2 defined and never started, when the operator issues STOP
    CHANNEL, then it is STOPPED and QM1's log says so (AMQ9528I)."""
    qm1, qm2 = two_qmgrs
    define_pair(qm1, qm2, 1)
    async with trio.open_nursery() as nursery:
        c1 = qm1.make_chinit()
        await nursery.start(c1.run)
        assert c1.stop_channel("QM1.TO.QM2") is None
        assert c1.status_of("QM1.TO.QM2").state is ChannelState.STOPPED
        assert any(m == "AMQ9528I" and "QM1.TO.QM2" in t for m, t in qm1.log), qm1.log
        nursery.cancel_scope.cancel()
