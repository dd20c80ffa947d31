"""What IBM MQ answers the operator's channel commands, reason code for reason code: PING of a
channel at work is refused as in use (AMQ9514E, MQRCCF_CHANNEL_IN_USE), not as a failed ping;
a channel that is INACTIVE is not current and has no current status (DISPLAY CHSTATUS answers
AMQ8420I, Inquire Channel Status MQRCCF_CHL_STATUS_NOT_FOUND), while a STOPPED one has; RESET
CHANNEL of a sender in doubt is refused with MQRCCF_CHANNEL_INDOUBT until RESOLVE CHANNEL; and
START CHANNEL of a server its requester is running is refused as in use under IGNSTATE(NO)."""

from __future__ import annotations

import trio

from mqpy import CMQCFC, pcf
from mqpy.fap.tsh import SegmentType
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import (
    CHANNEL,
    chstatus,
    define_pair,
    finish,
    mqsc,
    pcf_command,
    start_chinit,
)
from tests.support.proxy import once
from tests.support.waiting import wait_until

from .pairs import hold_statuses, running_pair
from .test_indoubt_resolve import _left_in_doubt
from .test_rqstr_svr import _svr_and_rqstr

IN_USE = CMQCFC.MQRCCF_CHANNEL_IN_USE
NOT_FOUND = CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND


def _name(channel: str) -> pcf.CFST:
    return pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, channel.encode())


async def test_ping_of_a_running_sender_is_in_use_and_an_inactive_one_has_no_current_status(
        qm1, qm2):
    """Given sender QM1.TO.QM2 RUNNING (heartbeats every second), when the operator issues
    PING CHANNEL through runmqsc and through PCF, then both are refused as in use: AMQ9514E,
    MQRCCF_CHANNEL_IN_USE (IBM's reason for a channel at work, not MQRCCF_PING_ERROR). When
    it is stopped with STATUS(INACTIVE), then it is not current (spec: dqm-intercommunication
    §3, "current = any state other than INACTIVE"): DISPLAY CHSTATUS answers AMQ8420I and
    Inquire Channel Status MQRCCF_CHL_STATUS_NOT_FOUND at both ends, while DISPLAY CHSTATUS
    SAVED still shows its last sequence number; after START and STOP CHANNEL MODE(TERMINATE)
    it is STOPPED, which is current: shown STATUS(STOPPED)."""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, rcvr={"HBINT": 1}, HBINT=1, DISCINT=0)
        r1 = await start_chinit(nursery, qm1)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"a", "QM2")
        assert r1.chinit.start_channel(CHANNEL) is None
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: qm2.committed("TARGET") == 1 and st1.last_seqno == 1)

        pinged = await mqsc(qm1, f"PING CHANNEL({CHANNEL})")
        assert not pinged.ok and pinged.reason == IN_USE, pinged
        assert any("AMQ9514E" in line for line in pinged.lines), pinged.lines
        by_pcf = await trio.to_thread.run_sync(pcf_command, qm1, CMQCFC.MQCMD_PING_CHANNEL,
                                               [_name(CHANNEL)])
        assert by_pcf[0].reason == IN_USE, by_pcf
        assert st1.state is ChannelState.RUNNING

        assert (await mqsc(qm1, f"STOP CHANNEL({CHANNEL}) STATUS(INACTIVE)")).ok
        await wait_until(lambda: CHANNEL not in r1.chinit.running and not r2.chinit.receivers)
        assert r1.chinit.status_of(CHANNEL).state is ChannelState.INACTIVE
        for qm in (qm1, qm2):
            shown = await mqsc(qm, f"DISPLAY CHSTATUS({CHANNEL})")
            assert not shown.ok and shown.reason == NOT_FOUND, (qm.name, shown)
            assert shown.lines[0].startswith("AMQ8420I"), shown.lines
        inquired = await trio.to_thread.run_sync(
            pcf_command, qm1, CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS, [_name(CHANNEL)])
        assert inquired[0].reason == NOT_FOUND, inquired
        saved = chstatus((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL}) SAVED")).lines)
        assert saved["LSTSEQNO"] == "1", saved

        assert (await mqsc(qm1, f"START CHANNEL({CHANNEL})")).ok
        await wait_until(lambda: r1.chinit.status_of(CHANNEL).state is ChannelState.RUNNING)
        assert (await mqsc(qm1, f"STOP CHANNEL({CHANNEL}) MODE(TERMINATE)")).ok
        await wait_until(lambda: CHANNEL not in r1.chinit.running)
        shown = chstatus((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL})")).lines)
        assert shown["STATUS"] == "STOPPED", shown
        finish(nursery)


async def test_reset_of_a_sender_in_doubt_is_refused_as_in_doubt_until_resolved(qm1, qm2):
    """Given sender QM1.TO.QM2 in doubt (the receiver's confirmation of its batch lost, the
    channel not running), when the operator issues RESET CHANNEL SEQNUM(7), then it is
    refused with MQRCCF_CHANNEL_INDOUBT ("the requested operation cannot complete because
    the channel is in doubt"; runmqsc: AMQ8101S, error FB9) and the batch stays in doubt;
    after RESOLVE CHANNEL ACTION(BACKOUT) (AMQ8096I) the same RESET is accepted (AMQ8023I).
    spec: operations-dlq-clusters "RESET (channel) ... only after RESOLVE" """
    async with trio.open_nursery() as nursery:
        await _left_in_doubt(qm1, qm2, nursery,
                             once("r2s", SegmentType.STATUS_DATA, "drop-and-cut"))
        reset = await mqsc(qm1, f"RESET CHANNEL({CHANNEL}) SEQNUM(7)")
        assert not reset.ok and reset.reason == CMQCFC.MQRCCF_CHANNEL_INDOUBT, reset
        assert reset.lines == ["AMQ8101S: IBM MQ error (FB9) has occurred."], reset.lines
        saved = chstatus((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL}) SAVED")).lines)
        assert saved["INDOUBT"] == "YES", saved
        resolved = await mqsc(qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(BACKOUT)")
        assert resolved.ok and resolved.lines[0].startswith("AMQ8096I"), resolved
        reset = await mqsc(qm1, f"RESET CHANNEL({CHANNEL}) SEQNUM(7)")
        assert reset.ok and reset.lines == ["AMQ8023I: IBM MQ channel reset."], reset
        saved = chstatus((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL}) SAVED")).lines)
        assert (saved["INDOUBT"], saved["LSTSEQNO"]) == ("NO", "6"), saved
        finish(nursery)


async def test_start_of_a_server_its_requester_runs_is_in_use_under_ignstate_no(qm1, qm2):
    """Given server QM1.SVR (no CONNAME) RUNNING, started by QM2's requester, when QM1's
    operator issues START CHANNEL, then it is refused as in use (AMQ9514E,
    MQRCCF_CHANNEL_IN_USE: IGNSTATE(NO), the default, refuses a channel already running),
    and with IGNSTATE(YES) it is accepted (AMQ8018I) and changes nothing; START CHANNEL of
    the running requester at QM2 is refused the same way, and PING of the server as in use.
    When QM1 stops the server, then the requester ends too and has no current status."""
    async with trio.open_nursery() as nursery:
        r1 = await start_chinit(nursery, qm1, listen=True)
        _svr_and_rqstr(qm1, qm2, r1.port)
        r2 = await start_chinit(nursery, qm2)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"x", "QM2")
        assert r2.chinit.start_channel("QM1.SVR") is None
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        server = r1.chinit.status_of("QM1.SVR")
        assert server.state is ChannelState.RUNNING

        started = await mqsc(qm1, "START CHANNEL(QM1.SVR)")
        assert not started.ok and started.reason == IN_USE, started
        assert started.lines == ["AMQ9514E: Channel 'QM1.SVR' is in use."], started.lines
        by_pcf = await trio.to_thread.run_sync(pcf_command, qm1, CMQCFC.MQCMD_START_CHANNEL,
                                               [_name("QM1.SVR")])
        assert by_pcf[0].reason == IN_USE, by_pcf
        again = await mqsc(qm1, "START CHANNEL(QM1.SVR) IGNSTATE(YES)")
        assert again.ok and again.lines == ["AMQ8018I: Start IBM MQ channel accepted."], again
        assert r1.chinit.status_of("QM1.SVR") is server and server.state is ChannelState.RUNNING
        requested = await mqsc(qm2, "START CHANNEL(QM1.SVR)")
        assert not requested.ok and requested.reason == IN_USE, requested
        pinged = await mqsc(qm1, "PING CHANNEL(QM1.SVR)")
        assert not pinged.ok and pinged.reason == IN_USE, pinged

        assert (await mqsc(qm1, "STOP CHANNEL(QM1.SVR)")).ok
        await wait_until(lambda: server.state is ChannelState.STOPPED
                         and "QM1.SVR" not in r2.chinit.running)
        shown = await mqsc(qm2, "DISPLAY CHSTATUS(QM1.SVR)")
        assert not shown.ok and shown.reason == NOT_FOUND, shown
        assert qm1.depth("QM2") == 0
        finish(nursery)


async def test_a_quiesced_sender_shows_stopreq_while_its_batch_awaits_confirmation(two_qmgrs):
    """Given sender QM1.TO.QM2 whose batch of three awaits the receiver's confirmation, when
    the operator issues STOP CHANNEL (MODE(QUIESCE), the default), then the batch is let
    finish: DISPLAY CHSTATUS shows it RUNNING with STOPREQ(YES), SUBSTATE(RECEIVE),
    INDOUBT(YES) and CURMSGS(3), and RESET and RESOLVE CHANNEL are refused as in use
    (AMQ9514E); once the confirmation comes the batch is committed (each message delivered
    once, none left on the transmission queue) and the channel is STOPPED.
    spec: dqm-intercommunication 9.39"""
    qm1, qm2 = two_qmgrs
    confirm = trio.Event()
    async with running_pair(qm1, qm2, [b"a", b"b", b"c"], policy=hold_statuses(1),
                            release=lambda proxy: confirm.is_set(), HBINT=0, DISCINT=0,
                            BATCHSZ=3) as pair:
        await wait_until(lambda: pair.proxy.holding >= 1)
        assert (await mqsc(qm1, f"STOP CHANNEL({CHANNEL})")).ok
        shown = chstatus((await mqsc(
            qm1, f"DISPLAY CHSTATUS({CHANNEL}) STOPREQ INDOUBT CURMSGS")).lines)
        assert (shown["STATUS"], shown["STOPREQ"], shown["SUBSTATE"], shown["INDOUBT"],
                shown["CURMSGS"]) == ("RUNNING", "YES", "RECEIVE", "YES", "3"), shown
        for command in (f"RESET CHANNEL({CHANNEL})",
                        f"RESOLVE CHANNEL({CHANNEL}) ACTION(BACKOUT)"):
            refused = await mqsc(qm1, command)
            assert not refused.ok and refused.reason == IN_USE, (command, refused)
        confirm.set()
        await wait_until(lambda: CHANNEL not in pair.c1.running)
        assert pair.c1.status_of(CHANNEL).state is ChannelState.STOPPED
    assert qm1.depth("QM2") == 0
    assert qm2.drain("TARGET") == [b"a", b"b", b"c"]


async def test_start_and_stop_of_a_client_connection_channel_are_refused_as_the_wrong_type(
        qm1):
    """Given client-connection channel CC and a sender SD with no CONNAME at QM1 (its channel
    initiator running), when the operator issues START CHANNEL or STOP CHANNEL for CC, then
    each is refused as IBM refuses any channel command on a CLNTCONN: AMQ9502E,
    MQRCCF_CHANNEL_TYPE_ERROR (runmqsc and PCF alike), and CC is given no status; START
    CHANNEL(SD) is refused with the configuration error PING reports for it (AMQ9203E), not
    with AMQ9526E, IBM's message-sequence error."""
    async with trio.open_nursery() as nursery:
        r1 = await start_chinit(nursery, qm1)
        qm1.define("CHANNEL", "CC", CHLTYPE="CLNTCONN", CONNAME="127.0.0.1(1414)",
                   QMNAME="QM1")
        qm1.define("CHANNEL", "SD", CHLTYPE="SDR", XMITQ="QM2")
        for verb in ("START", "STOP"):
            refused = await mqsc(qm1, f"{verb} CHANNEL(CC)")
            assert not refused.ok and refused.reason == CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR, \
                (verb, refused)
            assert refused.lines[0].startswith("AMQ9502E"), refused.lines
        by_pcf = await trio.to_thread.run_sync(pcf_command, qm1, CMQCFC.MQCMD_START_CHANNEL,
                                               [_name("CC")])
        assert by_pcf[0].reason == CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR, by_pcf
        assert r1.chinit.status_of("CC") is None
        started = await mqsc(qm1, "START CHANNEL(SD)")
        assert not started.ok and started.lines[0].startswith("AMQ9203E"), started.lines
        finish(nursery)
