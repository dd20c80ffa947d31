"""Channel events on SYSTEM.ADMIN.CHANNEL.EVENT: the event a channel state change is, which
of them the queue manager's CHLEV wants (ENABLED, EXCEPTION, DISABLED), and the channel
initiator's observer of its channels' states putting them (``mqpy.events.ChannelEvents``)."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, events, pcf
from mqpy_chinit import states
from mqpy_chinit.states import ChannelEvent, ChannelStatus, add_state_observer

from ._support import params, read_events

CHANNEL_EVENTS = "SYSTEM.ADMIN.CHANNEL.EVENT"


def _reason_and_qualifier(msg: pcf.PCFMessage | None) -> tuple[int, int | None] | None:
    if msg is None:
        return None
    p = dict(params(msg))
    return msg.header.Reason, p.get(CMQCFC.MQIACF_REASON_QUALIFIER)


@pytest.mark.parametrize(("chltype", "previous", "new", "stop", "error", "expected"), [
    ("SDR", "BINDING", "RUNNING", "", 0, (CMQC.MQRC_CHANNEL_STARTED, None)),
    ("RQSTR", "REQUESTING", "RUNNING", "", 0, (CMQC.MQRC_CHANNEL_STARTED, None)),
    ("RCVR", "RUNNING", "INACTIVE", "", 0,
     (CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_OK)),
    ("RCVR", "RUNNING", "INACTIVE", "", 9208,
     (CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_ERROR)),
    ("SDR", "RUNNING", "RETRYING", "", 0,
     (CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_RETRY)),
    ("SDR", "PAUSED", "STOPPED", "", 0,
     (CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED)),
    ("SDR", "STOPPING", "STOPPED", "QUIESCE", 0,
     (CMQC.MQRC_CHANNEL_STOPPED_BY_USER, CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED)),
    ("SDR", "BINDING", "RETRYING", "", 0, None),  # never started: no Stopped event
    ("SDR", "INACTIVE", "STARTING", "", 0, None),
    ("SVRCONN", "BINDING", "RUNNING", "", 0, None),  # client connections have none
])
def test_the_event_a_channel_state_change_is(chltype, previous, new, stop, error, expected):
    """Given a channel of ``chltype``, when it moves from ``previous`` to ``new`` (an operator's
    STOP CHANNEL pending: ``stop``), then the event is IBM's for that change, or none."""
    msg = events.channel_state_event("QM1", "TO.QMB", chltype, previous, new, xmitq="QMB",
                                     conname="host(1414)", stop_requested=stop, error_id=error)
    assert _reason_and_qualifier(msg) == expected


def test_channel_stopped_has_ibms_parameters_in_order():
    """Given a sender that ended in retry, when its Channel Stopped event is built, then its
    parameters are QMgrName, ReasonQualifier, ChannelName, ErrorIdentifier, AuxErrorDataInt1
    and 2, AuxErrorDataStr1 to 3, XmitQName, ConnectionName."""
    msg = events.channel_stopped("QM1", "TO.QMB", "SDR", CMQCFC.MQRQ_CHANNEL_STOPPED_RETRY,
                                 "QMB", "host(1414)")
    assert [p.Parameter for p in pcf.parse(pcf.build(msg)).params] == [
        CMQC.MQCA_Q_MGR_NAME, CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQCACH_CHANNEL_NAME,
        CMQCFC.MQIACF_ERROR_IDENTIFIER, CMQCFC.MQIACF_AUX_ERROR_DATA_INT_1,
        CMQCFC.MQIACF_AUX_ERROR_DATA_INT_2, CMQCFC.MQCACF_AUX_ERROR_DATA_STR_1,
        CMQCFC.MQCACF_AUX_ERROR_DATA_STR_2, CMQCFC.MQCACF_AUX_ERROR_DATA_STR_3,
        CMQCFC.MQCACH_XMIT_Q_NAME, CMQCFC.MQCACH_CONNECTION_NAME]
    assert msg.header.Command == CMQCFC.MQCMD_CHANNEL_EVENT


@pytest.mark.parametrize(("build", "receiver_has_xmitq"), [
    (lambda t: events.channel_started("QM1", "C", t, "XQ", "h(1)"), False),
    (lambda t: events.channel_activated("QM1", "C", t, "XQ", "h(1)"), False),
    (lambda t: events.channel_activated("QM1", "C", t, "XQ", "h(1)", activated=False), False),
])
def test_started_and_activated_carry_xmitq_for_sending_channels_only(build,
                                                                     receiver_has_xmitq):
    """Given Channel Started, Activated and Not Activated, when built for a sender and for a
    receiver, then QMgrName, ChannelName, XmitQName (the sender's only), ConnectionName."""
    ids = [CMQC.MQCA_Q_MGR_NAME, CMQCFC.MQCACH_CHANNEL_NAME]
    assert [p.Parameter for p in build("SDR").params] == \
        [*ids, CMQCFC.MQCACH_XMIT_Q_NAME, CMQCFC.MQCACH_CONNECTION_NAME]
    assert [p.Parameter for p in build("RCVR").params] == [*ids, CMQCFC.MQCACH_CONNECTION_NAME]


def test_chlev_exception_wants_only_the_exceptions():
    """Given CHLEV EXCEPTION, then Started and Stopped OK are not wanted, Stopped in retry,
    Stopped By User and Not Activated are; ENABLED wants all, DISABLED none."""
    started = events.channel_started("QM1", "C", "SDR")
    ok = events.channel_stopped("QM1", "C", "SDR", CMQCFC.MQRQ_CHANNEL_STOPPED_OK)
    retry = events.channel_stopped("QM1", "C", "SDR", CMQCFC.MQRQ_CHANNEL_STOPPED_RETRY)
    by_user = events.channel_stopped_by_user("QM1", "C")
    waiting = events.channel_activated("QM1", "C", "SDR", activated=False)
    every = [started, ok, retry, by_user, waiting]
    assert [events.channel_event_wanted("EXCEPTION", m) for m in every] == \
        [False, False, True, True, True]
    assert all(events.channel_event_wanted("ENABLED", m) for m in every)
    assert not any(events.channel_event_wanted("DISABLED", m) for m in every)


def _sender_runs_then_retries(kept: events.ChannelEvents) -> None:
    """A sender through the channel initiator's real state table, its observer registered."""
    stop = add_state_observer(kept.observe)
    try:
        status = ChannelStatus("EV.TO.QMB", "SDR", xmitq="QMB", conname="192.0.2.7(1414)")
        for event in (ChannelEvent.START, ChannelEvent.BIND, ChannelEvent.NEGOTIATED,
                      ChannelEvent.RETRY):
            status.move(event)
    finally:
        stop()


def test_chinit_state_changes_become_channel_events_as_chlev_wants(qmev):
    """Given CHLEV(ENABLED), when a sender starts then loses its partner (START, BIND,
    NEGOTIATED, RETRY in the channel initiator's state table) and the kept events are put,
    then Channel Started and Channel Stopped (retry) are on SYSTEM.ADMIN.CHANNEL.EVENT with the
    channel, its transmission queue and connection name; with CHLEV(EXCEPTION) only the
    Stopped one; with CHLEV(DISABLED), IBM's default, none."""
    woken = []
    kept = events.ChannelEvents("QMEV", on_pending=lambda: woken.append(1))
    read_events(qmev.qm, CHANNEL_EVENTS)
    got = {}
    for chlev in ("ENABLED", "EXCEPTION", "DISABLED"):
        qmev.eng.alter_qmgr({"CHLEV": chlev})
        _sender_runs_then_retries(kept)
        kept.put_pending(qmev.qm)
        got[chlev] = [(m.header.Reason, dict(params(m)))
                      for _, m in read_events(qmev.qm, CHANNEL_EVENTS)]
    qmev.eng.alter_qmgr({"CHLEV": "DISABLED"})
    assert [r for r, _ in got["ENABLED"]] == [CMQC.MQRC_CHANNEL_STARTED, CMQC.MQRC_CHANNEL_STOPPED]
    stopped = got["ENABLED"][1][1]
    assert (stopped[CMQCFC.MQCACH_CHANNEL_NAME], stopped[CMQCFC.MQCACH_XMIT_Q_NAME],
            stopped[CMQCFC.MQCACH_CONNECTION_NAME],
            stopped[CMQCFC.MQIACF_REASON_QUALIFIER]) == \
        ("EV.TO.QMB", "QMB", "192.0.2.7(1414)", CMQCFC.MQRQ_CHANNEL_STOPPED_RETRY)
    assert [r for r, _ in got["EXCEPTION"]] == [CMQC.MQRC_CHANNEL_STOPPED]
    assert got["DISABLED"] == []
    assert len(woken) == 6 and kept.pending == []


async def _chinit_sees_a_sender_run_and_retry(qmgr) -> list[int]:
    """A channel initiator of ``qmgr`` running (no listeners), then a sender's state changes
    in its process; the channel event reasons on SYSTEM.ADMIN.CHANNEL.EVENT within 10 s."""
    import trio

    from mqpy_chinit.chinit import ChannelInitiator
    from mqpy_chinit.engineadmin import EngineAdmin

    chinit = ChannelInitiator(qmgr.name, qmgr.connect, EngineAdmin(qmgr.eng),
                              log=lambda msgid, text: None)
    got: list[int] = []
    observers = len(states._STATE_OBSERVERS)
    async with trio.open_nursery() as nursery:
        await nursery.start(chinit.run, [])
        with trio.move_on_after(2):  # its tasks have begun: a new observer, if it has one
            while len(states._STATE_OBSERVERS) == observers:
                await trio.sleep(0.01)
        status = ChannelStatus("EV.CHINIT.SDR", "SDR", xmitq="QMB", conname="h(1)")
        chinit.statuses[status.channel] = status  # (its own: another's in-process is not)
        for event in (ChannelEvent.START, ChannelEvent.BIND, ChannelEvent.NEGOTIATED,
                      ChannelEvent.RETRY):
            status.move(event)
        with trio.move_on_after(10 if len(states._STATE_OBSERVERS) > observers else 0):
            while len(got) < 2:
                got += [m.header.Reason for _, m in
                        await trio.to_thread.run_sync(read_events, qmgr.qm, CHANNEL_EVENTS)]
                await trio.sleep(0.05)
        nursery.cancel_scope.cancel()
    return got


async def test_a_running_channel_initiator_puts_its_channels_events(qmev):
    """Given CHLEV(ENABLED) and a channel initiator running, when one of its senders starts
    and then loses its partner, then Channel Started and Channel Stopped are put on
    SYSTEM.ADMIN.CHANNEL.EVENT."""
    qmev.eng.alter_qmgr({"CHLEV": "ENABLED"})
    read_events(qmev.qm, CHANNEL_EVENTS)
    try:
        got = await _chinit_sees_a_sender_run_and_retry(qmev)
    finally:
        qmev.eng.alter_qmgr({"CHLEV": "DISABLED"})
    assert got == [CMQC.MQRC_CHANNEL_STARTED, CMQC.MQRC_CHANNEL_STOPPED]
