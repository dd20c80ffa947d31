"""PING CHANNEL and what DISPLAY CHSTATUS shows of a channel's batches and sync state."""

from __future__ import annotations

import socket

import trio

from mqpy import CMQCFC
from mqpy_chinit.wire import Ping, SegmentType

from .conftest import (
    CHANNEL,
    ChannelState,
    TapProxy,
    chstatus,
    define_pair,
    finish,
    mqsc,
    start_chinit,
    wait_until,
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_ping_channel_gets_its_data_back_from_the_receiver(qm1, qm2):
    """Given SDR QM1.TO.QM2 (not running) with a message on its xmitq and RCVR QM1.TO.QM2 at a
    listening QM2, when PING CHANNEL is issued at QM1, then it answers AMQ8020I, the PING data
    went to the receiver and came back unchanged, and the xmitq was not touched.
    spec: dqm-intercommunication 9.52; operations-dlq-clusters 5 (PING: no xmitq)"""
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
    command fails with MQRCCF_PING_ERROR.  spec: dqm-intercommunication 9.52"""
    async with trio.open_nursery() as nursery:
        define_pair(qm1, qm2, free_port())
        await start_chinit(nursery, qm1)
        result = await mqsc(qm1, f"PING CHANNEL({CHANNEL})")
        assert not result.ok and result.reason == CMQCFC.MQRCCF_PING_ERROR, result
        finish(nursery)


async def test_chstatus_shows_sequence_numbers_batches_and_sync_state(qm1, qm2):
    """Given 10 messages moved with BATCHSZ(5), when DISPLAY CHSTATUS ALL is issued at both
    ends, then the sender shows STATUS(RUNNING) LSTSEQNO(10) CURSEQNO(10) INDOUBT(NO)
    MSGS(10) BATCHES(2) XBATCHSZ 5, a NETTIME above 0 and BATCHSZ(5); the receiver shows
    LSTSEQNO(10) MSGS(10) BATCHES(2) INDOUBT(NO); and LSTLUWID is the same at both ends.
    spec: dqm-intercommunication 9.28; aliases-channels-storage 2.13, 4.15, 4.34"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, BATCHSZ=5, HBINT=0)
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
    spec: aliases-channels-storage 2.1, 2.13, 4.23"""
    async with trio.open_nursery() as nursery:
        define_pair(qm1, qm2, free_port(), SHORTRTY=5, SHORTTMR=1, LONGRTY=7)
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.RETRYING)
        shown = chstatus((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL}) ALL")).lines)
        finish(nursery)
    assert (shown["STATUS"], shown["SHORTRTS"], shown["LONGRTS"]) == ("RETRYING", "4", "7")
