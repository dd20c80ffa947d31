"""DISPLAY CHSTATUS's byte and buffer counters add up as IBM's do: BYTSSENT and BYTSRCVD are
every byte the channel sent and received, control flows and headers included, and BUFSSENT
and BUFSRCVD every transmission (TSH segment); so what one end sent, its partner received,
and both agree with the bytes and segments on the socket between them, and with what tshark
reads in a capture of them."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import trio

from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, define_pair, finish, start_chinit
from tests.support.pcap import CLIENT, SERVER, Capture
from tests.support.proxy import Segment, TapProxy
from tests.support.waiting import wait_until

SIZES = (10, 1000, 100_000, 3, 5000)  # one of them larger than a 32 KB transmission
TSHARK = shutil.which("tshark")


def _counters(status) -> tuple[int, int, int, int]:
    """(BYTSSENT, BUFSSENT, BYTSRCVD, BUFSRCVD) as DISPLAY CHSTATUS shows them."""
    shown = status.as_mqsc()
    return shown["BYTSSENT"], shown["BUFSSENT"], shown["BYTSRCVD"], shown["BUFSRCVD"]


async def _five_messages_through_a_tap(qm1, qm2):
    """The sender's and receiver's counters once five messages (one of 100 KB) have crossed
    through a recording proxy and their batch is confirmed, and the segments it recorded."""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        tap = TapProxy(r2.port)
        await nursery.start(tap.run)
        define_pair(qm1, qm2, tap.port, HBINT=0, MAXMSGL=1_000_000,
                    rcvr={"MAXMSGL": 1_000_000})
        for size in SIZES:
            qm1.put("TARGET", b"m" * size, qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm2.committed("TARGET") == len(SIZES)
                         and qm1.depth("QM2") == 0)
        st1, st2 = r1.chinit.status_of(CHANNEL), r2.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.last_seqno == len(SIZES))
        assert st1.state is ChannelState.RUNNING
        sender, receiver = _counters(st1), _counters(st2)
        finish(nursery)
    return sender, receiver, list(tap.segments)


def _wire(segments: list[Segment], direction: str) -> tuple[int, int]:
    """(bytes, segments) that crossed the socket ``direction``."""
    going = [s for s in segments if s.direction == direction]
    return sum(len(s.data) for s in going), len(going)


async def test_both_ends_count_what_crossed_the_socket(qm1, qm2):
    """Given a sender and receiver through a proxy that records the segments between them,
    when five messages (one of 100 KB) cross and the batch is confirmed, then the sender's
    BYTSSENT and BUFSSENT equal the receiver's BYTSRCVD and BUFSRCVD and the bytes and
    segments the proxy saw going that way, and the receiver's BYTSSENT and BUFSSENT equal the
    sender's BYTSRCVD and BUFSRCVD and what the proxy saw coming back (non-zero: the
    initial data and the batch's confirmation)."""
    sender, receiver, segments = await _five_messages_through_a_tap(qm1, qm2)
    sent, sbufs, srcvd, sbufsr = sender
    rsent, rbufs, rrcvd, rbufsr = receiver
    s2r, r2s = _wire(segments, "s2r"), _wire(segments, "r2s")
    assert (sent, sbufs) == (rrcvd, rbufsr) == s2r, (sender, receiver, s2r)
    assert (rsent, rbufs) == (srcvd, sbufsr) == r2s, (sender, receiver, r2s)
    assert sent > sum(SIZES) and srcvd > 0 and sbufs > len(SIZES)


@pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")
async def test_the_counters_match_what_tshark_reads_in_a_capture(qm1, qm2, tmp_path):
    """Given the same five messages, when what crossed is written as a capture and read by
    tshark's MQ dissector, then the TSH segments and their lengths it finds each way are the
    sender's BUFSSENT and BYTSSENT, and the receiver's."""
    sender, receiver, segments = await _five_messages_through_a_tap(qm1, qm2)
    capture = Capture()
    capture.handshake()
    for seg in segments:
        capture.send(CLIENT if seg.direction == "s2r" else SERVER, [seg.data])
    pcap = tmp_path / "channel.pcap"
    capture.write(pcap)
    out = subprocess.run([TSHARK, "-r", str(pcap), "-d", "tcp.port==1414,mq", "-T", "fields",
                          "-e", "tcp.srcport", "-e", "mq.tsh.seglength", "-E", "separator=|",
                          "-E", "occurrence=a", "-E", "aggregator=,"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    seen: dict[int, list[int]] = {}
    for line in out.splitlines():
        port, _, lengths = line.partition("|")
        if lengths:
            seen.setdefault(int(port), []).extend(int(n) for n in lengths.split(","))
    to_receiver, to_sender = seen[CLIENT[1]], seen[SERVER[1]]
    assert (sum(to_receiver), len(to_receiver)) == (sender[0], sender[1]) == \
        (receiver[2], receiver[3])
    assert (sum(to_sender), len(to_sender)) == (receiver[0], receiver[1]) == \
        (sender[2], sender[3])
