"""PING CHANNEL and what DISPLAY CHSTATUS shows of a channel's batches and sync state."""

from __future__ import annotations

import trio

from mqpy import CMQC, CMQCFC, CMQXC, pcf
from mqpy.fap.controlflows import Ping
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
from tests.support.ports import free_port
from tests.support.proxy import TapProxy
from tests.support.waiting import wait_until


async def test_ping_channel_gets_its_data_back_from_the_receiver(qm1, qm2):
    """Given SDR QM1.TO.QM2 (not running) with a message on its xmitq and RCVR QM1.TO.QM2 at a
    listening QM2, when PING CHANNEL is issued at QM1, then it answers AMQ8020I, the PING data
    went to the receiver and came back unchanged, and the xmitq was not touched.
    spec: dqm-intercommunication 9.52;
    operations-dlq-clusters 7.19; operations-dlq-clusters 5 (PING: no xmitq)"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        proxy = TapProxy(r2.port)
        await nursery.start(proxy.run)
        define_pair(qm1, qm2, proxy.port)
        qm1.put("TARGET", b"not moved by a ping", qmgr="QM2")
        await start_chinit(nursery, qm1)
        result = await mqsc(qm1, f"PING CHANNEL({CHANNEL})")
        assert result.ok and result.lines[0].startswith("AMQ8020I"), result.lines
        sent = [e for e in proxy.events("s2r") if isinstance(e, Ping)]
        back = [e for e in proxy.events("r2s") if isinstance(e, Ping)]
        assert len(sent) == 1 and len(back) == 1 and sent[0].data == back[0].data != b""
        assert not proxy.of_type(SegmentType.MESSAGE_DATA)
        assert qm1.depth("QM2") == 1 and qm2.committed("TARGET") == 0
        finish(nursery)


async def test_ping_channel_to_an_unreachable_partner_fails(qm1, qm2):
    """Given an SDR whose CONNAME nobody listens on, when PING CHANNEL is issued, then the
    command fails with MQRCCF_PING_ERROR.  spec: dqm-intercommunication 9.52;
    operations-dlq-clusters 7.19"""
    async with trio.open_nursery() as nursery:
        define_pair(qm1, qm2, free_port())
        await start_chinit(nursery, qm1)
        result = await mqsc(qm1, f"PING CHANNEL({CHANNEL})")
        assert not result.ok and result.reason == CMQCFC.MQRCCF_PING_ERROR, result
        finish(nursery)


async def test_chstatus_shows_sequence_numbers_batches_and_sync_state(qm1, qm2):
    """Given 10 messages moved with BATCHSZ(5) and MONCHL(HIGH) on the sender, when DISPLAY
    CHSTATUS ALL is issued at both
    ends, then the sender shows STATUS(RUNNING) LSTSEQNO(10) CURSEQNO(10) INDOUBT(NO)
    MSGS(10) BATCHES(2) XBATCHSZ 5, a NETTIME above 0 and BATCHSZ(5); the receiver shows
    LSTSEQNO(10) MSGS(10) BATCHES(2) INDOUBT(NO); and LSTLUWID is the same at both ends.
    spec: dqm-intercommunication 9.28; aliases-channels-storage 2.13; aliases-channels-storage 4.15; aliases-channels-storage 4.34"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, BATCHSZ=5, HBINT=0, MONCHL="HIGH")
        for i in range(10):
            qm1.put("TARGET", b"s%d" % i, qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: r1.chinit.status_of(CHANNEL).last_seqno == 10)
        sdr = chstatus((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL}) ALL")).lines)
        rcv = chstatus((await mqsc(qm2, f"DISPLAY CHSTATUS({CHANNEL}) ALL")).lines)
        finish(nursery)
    assert sdr["STATUS"] == "RUNNING" and sdr["CHLTYPE"] == "SDR"
    assert (sdr["LSTSEQNO"], sdr["CURSEQNO"], sdr["INDOUBT"]) == ("10", "10", "NO")
    assert (sdr["MSGS"], sdr["BATCHES"], sdr["BATCHSZ"]) == ("10", "2", "5")
    assert float(sdr["XBATCHSZ"].split(",")[0]) == 5.0
    assert int(sdr["NETTIME"].split(",")[0]) > 0
    assert sdr["RQMNAME"] == "QM2"
    assert rcv["CHLTYPE"] == "RCVR" and rcv["RQMNAME"] == "QM1"
    assert (rcv["LSTSEQNO"], rcv["MSGS"], rcv["BATCHES"], rcv["INDOUBT"]) == \
        ("10", "10", "2", "NO")
    assert sdr["LSTLUWID"] == rcv["LSTLUWID"] != "0" * 16


async def test_chstatus_of_a_retrying_channel_shows_the_retries_left(qm1, qm2):
    """Given SDR SHORTRTY(5) SHORTTMR(1) LONGRTY(7) and an unreachable partner, when the first
    attempt fails, then DISPLAY CHSTATUS shows STATUS(RETRYING) SHORTRTS(4) LONGRTS(7).
    spec: aliases-channels-storage 2.1; aliases-channels-storage 2.13; aliases-channels-storage 4.23"""
    async with trio.open_nursery() as nursery:
        define_pair(qm1, qm2, free_port(), SHORTRTY=5, SHORTTMR=1, LONGRTY=7)
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.RETRYING)
        shown = chstatus((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL}) ALL")).lines)
        finish(nursery)
    assert (shown["STATUS"], shown["SHORTRTS"], shown["LONGRTS"]) == ("RETRYING", "4", "7")


async def test_saved_status_shows_the_in_doubt_batch_that_resolve_settles(qm1, qm2):
    """Given a first batch of 3 confirmed, and a second batch of 3 that the receiver committed
    but whose confirmation never reached the sender, which then stopped (no retries), when
    DISPLAY CHSTATUS SAVED is issued at both ends, then the sender shows INDOUBT(YES) with
    CURLUWID and CURSEQNO(6) equal to the receiver's LSTLUWID and LSTSEQNO, and its own
    LSTLUWID/LSTSEQNO(3) those of the first batch; RESOLVE CHANNEL ACTION(COMMIT), chosen from
    those figures, removes the batch from the xmitq and the sender's SAVED status shows
    INDOUBT(NO) LSTSEQNO(6).  spec: dqm-intercommunication 9.32, §3 (DISPLAY CHSTATUS SAVED
    CURLUWID|LSTLUWID); aliases-channels-storage 4.15"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        confirms = []

        def drop_the_second_confirmation(direction, seg_type, index):
            if direction == "r2s" and seg_type == SegmentType.STATUS_DATA:
                confirms.append(index)
                if len(confirms) == 2:
                    return "drop"
            return "pass"

        proxy = TapProxy(r2.port, policy=drop_the_second_confirmation)
        await nursery.start(proxy.run)
        # BATCHINT holds a batch open until its three messages are there: two batches of 3
        define_pair(qm1, qm2, proxy.port, BATCHSZ=3, BATCHINT=5000, HBINT=0, SHORTRTY=0,
                    LONGRTY=0)
        for i in range(3):
            qm1.put("TARGET", b"c%d" % i, qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.last_seqno == 3)
        first_luwid = st1.last_luwid.hex().upper()
        await trio.to_thread.run_sync(lambda: [qm1.put("TARGET", b"d%d" % i, qmgr="QM2")
                                               for i in range(3)])
        await wait_until(lambda: len(confirms) == 2 and qm2.committed("TARGET") == 6)
        proxy.hang()  # the sender sees the link fail while it waits for the confirmation
        await wait_until(lambda: st1.state is ChannelState.STOPPED)
        sdr = chstatus((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL}) SAVED")).lines)
        rcv = chstatus((await mqsc(qm2, f"DISPLAY CHSTATUS({CHANNEL}) SAVED")).lines)
        assert sdr["INDOUBT"] == "YES" and rcv["INDOUBT"] == "NO"
        assert sdr["CURLUWID"] == rcv["LSTLUWID"] != first_luwid
        assert sdr["LSTLUWID"] == first_luwid != "0" * 16
        assert (sdr["CURSEQNO"], rcv["LSTSEQNO"], sdr["LSTSEQNO"]) == ("6", "6", "3")
        assert sdr["CURMSGS"] == "3" and sdr["RQMNAME"] == "QM2" and rcv["RQMNAME"] == "QM1"
        assert rcv["CONNAME"] == "127.0.0.1"  # the partner's address, kept in its record
        assert qm1.engine.indoubt()  # the batch is held in doubt, neither gone nor back
        result = await mqsc(qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(COMMIT)")
        assert result.ok, result.lines
        after = chstatus((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL}) SAVED")).lines)
        finish(nursery)
    assert qm1.depth("QM2") == 0 and qm2.committed("TARGET") == 6
    assert after["INDOUBT"] == "NO" and after["LSTSEQNO"] == "6"
    assert after["LSTLUWID"] == rcv["LSTLUWID"]


async def test_saved_status_of_a_channel_that_never_ran_is_not_found(qm1):
    """Given a channel defined but never run, when DISPLAY CHSTATUS SAVED is issued, then the
    answer is AMQ8420I (channel status not found).  spec: dqm-intercommunication §3"""
    qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
    qm1.define("CHANNEL", "NEVER.RAN", CHLTYPE="SDR", XMITQ="QM2", CONNAME="127.0.0.1(1)")
    result = await mqsc(qm1, "DISPLAY CHSTATUS(NEVER.RAN) SAVED")
    assert not result.ok and result.lines[0].startswith("AMQ8420I"), result.lines


async def test_monitor_fields_follow_monchl_of_the_channel_and_the_queue_manager(qm1, qm2):
    """Given ALTER QMGR MONCHL(MEDIUM) at QM1, its SDR at MONCHL(QMGR) and the RCVR at QM2 with
    the queue manager's default MONCHL(OFF), when four messages that waited 0.3 s on the xmitq
    cross in batches of 2, then DISPLAY CHSTATUS MONITOR at QM1 shows MONCHL(MEDIUM), XQTIME
    pairs of at least 300000 microseconds, XBATCHSZ(2,2) and NETTIME above 0; at QM2 it shows
    MONCHL(OFF) with the fields blank.  spec: aliases-channels-storage 2.13; aliases-channels-storage 4.34"""
    qm1.engine.alter_qmgr({"MONCHL": "MEDIUM"})
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, BATCHSZ=2, HBINT=0)
        for i in range(4):
            qm1.put("TARGET", b"w%d" % i, qmgr="QM2")
        await trio.sleep(0.3)
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: r1.chinit.status_of(CHANNEL).last_seqno == 4)
        sdr = chstatus((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL}) MONITOR")).lines)
        rcv_lines = (await mqsc(qm2, f"DISPLAY CHSTATUS({CHANNEL}) MONITOR")).lines
        finish(nursery)
    assert sdr["MONCHL"] == "MEDIUM"
    assert all(int(v) >= 300000 for v in sdr["XQTIME"].split(",")), sdr["XQTIME"]
    assert sdr["XBATCHSZ"] == "2,2" and int(sdr["NETTIME"].split(",")[0]) > 0
    assert sdr["EXITTIME"] == "0,0" and sdr["COMPRATE"] == "0,0"
    assert "MSGS" not in sdr  # MONITOR asks for the monitoring fields only
    rcv = chstatus(rcv_lines)
    assert rcv["MONCHL"] == "OFF" and rcv["XQTIME"] == "" and rcv["NETTIME"] == ""


async def test_channel_monchl_off_overrides_the_queue_managers_setting(qm1, qm2):
    """Given ALTER QMGR MONCHL(HIGH) at QM1 and its SDR at MONCHL(OFF), when messages cross,
    then DISPLAY CHSTATUS MONITOR shows MONCHL(OFF) and no figures.
    spec: aliases-channels-storage 2.13 (channel-level MONCHL overrides either way)"""
    qm1.engine.alter_qmgr({"MONCHL": "HIGH"})
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0, MONCHL="OFF")
        qm1.put("TARGET", b"x", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: r1.chinit.status_of(CHANNEL).last_seqno == 1)
        sdr = chstatus((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL}) MONITOR")).lines)
        finish(nursery)
    assert sdr["MONCHL"] == "OFF" and sdr["XBATCHSZ"] == "" and sdr["XQTIME"] == ""


async def test_pcf_channel_commands_start_inquire_status_and_stop_a_channel(qm1, qm2):
    """Given SDR and RCVR QM1.TO.QM2, when PCF Start Channel, Inquire Channel Status (current,
    then saved) and Stop Channel arrive at QM1's command server, then the channel runs and
    moves the message, its status comes back as MQCHS_RUNNING with the sequence number and
    the monitoring indicators as integer lists, the saved status carries the last LUWID, and
    Stop Channel leaves it MQCHS_STOPPED.  spec: dqm-intercommunication §4 (commands, PCF);
    operations-dlq-clusters 7.7"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0, MONCHL="HIGH")
        qm1.put("TARGET", b"by pcf", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        name = pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, CHANNEL.encode())
        started = await trio.to_thread.run_sync(pcf_command, qm1,
                                                CMQCFC.MQCMD_START_CHANNEL, [name])
        assert started[0].comp == 0, started
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        # the receiver commits before its confirmation reaches the sender: wait for that too
        await wait_until(lambda: r1.chinit.status_of(CHANNEL).last_seqno == 1)
        current = await trio.to_thread.run_sync(
            pcf_command, qm1, CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS, [name])
        saved = await trio.to_thread.run_sync(
            pcf_command, qm1, CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS,
            [name, pcf.CFIN(CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE, CMQC.MQOT_SAVED_CHANNEL)])
        stopped = await trio.to_thread.run_sync(
            pcf_command, qm1, CMQCFC.MQCMD_STOP_CHANNEL,
            [name, pcf.CFIN(CMQCFC.MQIACF_MODE, CMQCFC.MQMODE_FORCE)])
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.STOPPED)
        finish(nursery)
    cur = {p.Parameter: p for p in current[0].params}
    assert cur[CMQCFC.MQIACH_CHANNEL_STATUS].Value == CMQCFC.MQCHS_RUNNING
    assert cur[CMQCFC.MQIACH_CHANNEL_TYPE].Value == CMQC.MQCHT_SENDER
    assert cur[CMQCFC.MQIACH_LAST_SEQ_NUMBER].Value == 1
    assert cur[CMQCFC.MQIACH_INDOUBT_STATUS].Value == CMQCFC.MQCHIDS_NOT_INDOUBT
    assert cur[CMQCFC.MQIACH_NPM_SPEED].Value == CMQXC.MQNPMS_FAST
    assert CMQCFC.MQIACH_NPM_SPEED not in {p.Parameter for p in saved[0].params}
    assert cur[CMQC.MQCA_REMOTE_Q_MGR_NAME].String.rstrip() == b"QM2"
    assert len(cur[CMQCFC.MQIACH_NETWORK_TIME_INDICATOR].Values) == 2
    sav = {p.Parameter: p for p in saved[0].params}
    assert sav[CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE].Value == CMQC.MQOT_SAVED_CHANNEL
    assert sav[CMQCFC.MQCACH_LAST_LUWID].String == \
        cur[CMQCFC.MQCACH_LAST_LUWID].String != b"0" * 16
    assert stopped[0].comp == 0, stopped


async def test_pcf_resolve_channel_without_an_action_is_refused(qm1):
    """Given PCF Resolve Channel with no MQIACH_IN_DOUBT, then the reply is
    MQRCCF_PARM_COUNT_TOO_SMALL, and nothing is resolved."""
    from mqpy.command.requests import Refused

    try:
        pcf_command(qm1, CMQCFC.MQCMD_RESOLVE_CHANNEL,
             [pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, CHANNEL.encode())])
        reason = 0
    except Refused as refused:
        reason = refused.reason
    assert reason == CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL


async def test_a_receivers_chstatus_shows_its_partners_address(qm1, qm2):
    """Given a sender from 127.0.0.1 running to a receiver, when DISPLAY CHSTATUS of the
    receiver is issued, then its CONNAME is the partner's address (IBM: a receiving channel's
    CONNAME is the remote address), not blank."""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0)
        qm1.put("TARGET", b"one", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: r1.chinit.status_of(CHANNEL).last_seqno == 1)
        rcv = chstatus((await mqsc(qm2, f"DISPLAY CHSTATUS({CHANNEL}) CONNAME")).lines)
        finish(nursery)
    assert rcv["CHLTYPE"] == "RCVR" and rcv["CONNAME"] == "127.0.0.1", rcv
