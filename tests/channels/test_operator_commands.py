"""RESET CHANNEL, RESOLVE CHANNEL and STOP CHANNEL's QMNAME and CONNAME as IBM MQ obeys them
while the channel runs: RESET and RESOLVE are for a channel that is not running (IBM answers
AMQ9514E, MQRCCF_CHANNEL_IN_USE, and changes nothing), RESOLVE is for a sending channel only,
and QMNAME or CONNAME pick the instances of any channel type whose partner or address they
name (the instance ends INACTIVE)."""

from __future__ import annotations

import trio

from mqpy import CMQC, CMQCFC, pcf, syncrecord
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import chstatus, mqsc, pcf_command
from tests.support.waiting import wait_until

from .pairs import CHANNEL, hold_statuses, running_pair

IN_USE = CMQCFC.MQRCCF_CHANNEL_IN_USE


def _sequence(qm, role: str) -> int | None:
    """The sequence number of ``qm``'s sync record for the channel's end ``role``."""
    conn = qm.connect()
    try:
        records = [r for r in syncrecord.read_all(conn) if r.channel == CHANNEL
                   and r.role == role]
        return records[0].seq if records else None
    finally:
        conn.disconnect()


async def _running(pair, qm2, count: int) -> None:
    st = pair.c1.status_of(CHANNEL)
    await wait_until(lambda: qm2.committed("TARGET") == count and st.last_seqno == count
                     and st.state is ChannelState.RUNNING and not st.indoubt, 20)


async def test_reset_channel_of_a_running_sender_is_refused_as_in_use(two_qmgrs):
    """Given sender QM1.TO.QM2 RUNNING after 3 messages, when the operator issues RESET
    CHANNEL SEQNUM(50) at QM1, then it is refused with AMQ9514E (MQRCCF_CHANNEL_IN_USE) and
    the sequence number is unchanged; once the channel is stopped the same RESET is
    accepted (AMQ8023I)."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"a", b"b", b"c"], HBINT=0, DISCINT=0) as pair:
        await _running(pair, qm2, 3)
        result = await mqsc(qm1, f"RESET CHANNEL({CHANNEL}) SEQNUM(50)")
        assert not result.ok and result.reason == IN_USE, result
        assert any("AMQ9514E" in line for line in result.lines), result.lines
        assert _sequence(qm1, "S") == 3
        assert pair.c1.status_of(CHANNEL).state is ChannelState.RUNNING
        assert (await mqsc(qm1, f"STOP CHANNEL({CHANNEL})")).ok
        await wait_until(lambda: CHANNEL not in pair.c1.running)
        result = await mqsc(qm1, f"RESET CHANNEL({CHANNEL}) SEQNUM(50)")
        assert result.ok and any("AMQ8023I" in line for line in result.lines), result
        assert _sequence(qm1, "S") == 49


async def test_reset_channel_of_a_running_receiver_is_refused_as_in_use(two_qmgrs):
    """Given receiver QM1.TO.QM2 RUNNING at QM2 after 2 messages, when the operator issues
    RESET CHANNEL at QM2, then it is refused with AMQ9514E and the receiver's sequence
    number is unchanged (the running channel goes on: a third message arrives)."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"a", b"b"], HBINT=0, DISCINT=0) as pair:
        await _running(pair, qm2, 2)
        result = await mqsc(qm2, f"RESET CHANNEL({CHANNEL})")
        assert not result.ok and result.reason == IN_USE, result
        assert _sequence(qm2, "R") == 2
        qm1.put("TARGET", b"c", qmgr="QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 3, 20)
        assert pair.c1.status_of(CHANNEL).state is ChannelState.RUNNING


async def test_resolve_channel_of_a_running_sender_in_doubt_is_refused(two_qmgrs):
    """Given sender QM1.TO.QM2 RUNNING and in doubt (the receiver's confirmation of its
    batch held on the way back), when the operator issues RESOLVE CHANNEL ACTION(BACKOUT),
    then it is refused with AMQ9514E (IBM: "the channel must be inactive"): the batch is
    left to the running channel, whose confirmation then commits it, and the message
    arrives once with nothing left on the transmission queue or in doubt."""
    qm1, qm2 = two_qmgrs
    held = trio.Event()
    async with running_pair(qm1, qm2, [b"doubted"], policy=hold_statuses(1),
                            release=lambda proxy: held.is_set(), HBINT=0,
                            DISCINT=0) as pair:
        st = pair.c1.status_of(CHANNEL)
        await wait_until(lambda: pair.proxy.holding >= 1 and st.indoubt, 20)
        result = await mqsc(qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(BACKOUT)")
        assert not result.ok and result.reason == IN_USE, result
        assert any("AMQ9514E" in line for line in result.lines), result.lines
        held.set()
        await wait_until(lambda: not st.indoubt and qm1.depth("QM2") == 0
                         and not qm1.engine.indoubt(), 20)
        assert st.state is ChannelState.RUNNING
    assert qm2.drain("TARGET") == [b"doubted"]


async def test_resolve_channel_of_a_receiver_is_refused_as_the_wrong_type(two_qmgrs):
    """Given receiver QM1.TO.QM2 at QM2, when the operator issues RESOLVE CHANNEL there,
    then it is refused as IBM refuses a channel type RESOLVE is not for (sender, server
    and cluster-sender only): AMQ9502E, MQRCCF_CHANNEL_TYPE_ERROR."""
    qm1, qm2 = two_qmgrs
    qm2.define("CHANNEL", CHANNEL, CHLTYPE="RCVR")
    result = await mqsc(qm2, f"RESOLVE CHANNEL({CHANNEL}) ACTION(COMMIT)")
    assert not result.ok and result.reason == CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR, result
    assert any("AMQ9502E" in line for line in result.lines), result.lines


async def test_stop_channel_qmname_of_a_running_sender_ends_it_inactive(two_qmgrs):
    """Given sender QM1.TO.QM2 RUNNING to QM2, when the operator issues STOP CHANNEL
    QMNAME(QM2) at QM1, then the instance whose partner is QM2 ends and the channel is
    INACTIVE, not STOPPED (STATUS defaults to INACTIVE with QMNAME); QMNAME(QMX) names no
    instance and is refused (AMQ9533E) with the channel left running."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"a"], HBINT=0, DISCINT=0) as pair:
        await _running(pair, qm2, 1)
        result = await mqsc(qm1, f"STOP CHANNEL({CHANNEL}) QMNAME(QMX)")
        assert not result.ok and result.reason == CMQCFC.MQRCCF_CHANNEL_NOT_ACTIVE, result
        assert pair.c1.status_of(CHANNEL).state is ChannelState.RUNNING
        result = await mqsc(qm1, f"STOP CHANNEL({CHANNEL}) QMNAME(QM2)")
        assert result.ok, result
        await wait_until(lambda: CHANNEL not in pair.c1.running, 10)
        assert pair.c1.status_of(CHANNEL).state is ChannelState.INACTIVE
        shown = await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL})")
        assert not shown.ok or chstatus(shown.lines).get("STATUS") != "STOPPED", shown


async def test_stop_channel_conname_of_a_running_sender_ends_it_inactive(two_qmgrs):
    """Given sender QM1.TO.QM2 RUNNING, when the operator issues STOP CHANNEL with the
    CONNAME that DISPLAY CHSTATUS shows for it, then the instance ends INACTIVE."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"a"], HBINT=0, DISCINT=0) as pair:
        await _running(pair, qm2, 1)
        conname = pair.c1.status_of(CHANNEL).conname  # e.g. 127.0.0.1(45749)
        shown = " ".join((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL})")).lines)
        assert f"CONNAME({conname})" in shown, shown
        result = await mqsc(qm1, f"STOP CHANNEL({CHANNEL}) CONNAME('{conname}')")
        assert result.ok, result
        await wait_until(lambda: CHANNEL not in pair.c1.running, 10)
        assert pair.c1.status_of(CHANNEL).state is ChannelState.INACTIVE


async def test_start_channel_of_a_running_sender_is_refused_as_in_use(two_qmgrs):
    """Given sender QM1.TO.QM2 RUNNING, when the operator issues START CHANNEL through
    MQSC, then it fails with AMQ9514E (MQRCCF_CHANNEL_IN_USE: IBM's IGNSTATE(NO), the
    default) and the same instance goes on running: no second start reaches QM2."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"a"], HBINT=0, DISCINT=0) as pair:
        await _running(pair, qm2, 1)
        starts = [m for m, _ in qm2.log if m == "AMQ9002I"]
        result = await mqsc(qm1, f"START CHANNEL({CHANNEL})")
        assert not result.ok and result.reason == IN_USE, result
        assert any("AMQ9514E" in line for line in result.lines), result.lines
        await trio.sleep(0.3)
        assert pair.c1.status_of(CHANNEL).state is ChannelState.RUNNING
        assert [m for m, _ in qm2.log if m == "AMQ9002I"] == starts
        # and with IGNSTATE(YES), MQSC's or PCF's IgnoreState, it succeeds doing nothing
        result = await mqsc(qm1, f"START CHANNEL({CHANNEL}) IGNSTATE(YES)")
        assert result.ok and any("AMQ8018I" in line for line in result.lines), result
        reply = await trio.to_thread.run_sync(pcf_command, qm1, CMQCFC.MQCMD_START_CHANNEL, [
            pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, CHANNEL.encode()),
            pcf.CFIN(CMQCFC.MQIACF_IGNORE_STATE, CMQCFC.MQIS_YES)])
        assert reply[0].comp == CMQC.MQCC_OK, reply
        reply = await trio.to_thread.run_sync(pcf_command, qm1, CMQCFC.MQCMD_START_CHANNEL, [
            pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, CHANNEL.encode())])
        assert reply[0].reason == IN_USE, reply
        await trio.sleep(0.3)
        assert [m for m, _ in qm2.log if m == "AMQ9002I"] == starts


async def test_stop_channel_of_a_stopped_sender_succeeds_with_ignstate_yes(two_qmgrs):
    """Given sender QM1.TO.QM2 STOPPED, when the operator stops it again, then IGNSTATE(NO)
    (the default) answers AMQ9533E and IGNSTATE(YES) succeeds, the channel still STOPPED."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"a"], HBINT=0, DISCINT=0) as pair:
        await _running(pair, qm2, 1)
        assert (await mqsc(qm1, f"STOP CHANNEL({CHANNEL})")).ok
        await wait_until(lambda: pair.c1.status_of(CHANNEL).state is ChannelState.STOPPED)
        result = await mqsc(qm1, f"STOP CHANNEL({CHANNEL})")
        assert not result.ok and any("AMQ9533E" in line for line in result.lines), result
        result = await mqsc(qm1, f"STOP CHANNEL({CHANNEL}) IGNSTATE(YES)")
        assert result.ok, result
        assert pair.c1.status_of(CHANNEL).state is ChannelState.STOPPED


async def test_reset_channel_of_an_mqi_channel_is_refused_as_the_wrong_type(two_qmgrs):
    """Given a SVRCONN and a CLNTCONN channel at QM1, when the operator issues RESET CHANNEL
    for either, then it is refused as IBM refuses it (any type but SVRCONN and CLNTCONN):
    AMQ9502E, MQRCCF_CHANNEL_TYPE_ERROR, and no sync record is written."""
    qm1, _ = two_qmgrs
    qm1.define("CHANNEL", "APP.SVRCONN", CHLTYPE="SVRCONN")
    qm1.define("CHANNEL", "APP.CLNTCONN", CHLTYPE="CLNTCONN", CONNAME="127.0.0.1(1414)",
               QMNAME="QM1")
    for name in ("APP.SVRCONN", "APP.CLNTCONN"):
        result = await mqsc(qm1, f"RESET CHANNEL({name})")
        assert not result.ok and result.reason == CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR, result
        assert any("AMQ9502E" in line for line in result.lines), result.lines
    conn = qm1.connect()
    try:
        assert [r for r in syncrecord.read_all(conn) if r.channel.startswith("APP.")] == []
    finally:
        conn.disconnect()
