"""What DISPLAY CHSTATUS and the error log say of a channel's state: a channel that is not
active shows no substate, and a stop is logged with IBM's message for it."""

from __future__ import annotations

from mqpy_chinit.states import ChannelEvent, ChannelStatus


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
