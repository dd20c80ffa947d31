"""DISPLAY CHSTATUS's byte and buffer counters add up as IBM's do: BYTSSENT and BYTSRCVD are
every byte the channel sent and received, control flows and headers included, and BUFSSENT
and BUFSRCVD every transmission (TSH segment); so what one end sent, its partner received,
and both agree with the bytes and segments on the socket between them."""

from __future__ import annotations

import trio

from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, define_pair, finish, start_chinit
from tests.support.proxy import TapProxy
from tests.support.waiting import wait_until

SIZES = (10, 1000, 100_000, 3, 5000)  # one of them larger than a 32 KB transmission


def _wire(tap: TapProxy, direction: str) -> tuple[int, int]:
    """(bytes, segments) that crossed the socket ``direction``."""
    segments = [s for s in tap.segments if s.direction == direction]
    return sum(len(s.data) for s in segments), len(segments)


def _counters(status) -> tuple[int, int, int, int]:
    shown = status.as_mqsc()
    return shown["BYTSSENT"], shown["BUFSSENT"], shown["BYTSRCVD"], shown["BUFSRCVD"]


async def test_both_ends_count_what_crossed_the_socket(qm1, qm2):
    """Given a sender and receiver through a proxy that records the segments between them,
    when five messages (one of 100 KB) cross and the batch is confirmed, then the sender's
    BYTSSENT and BUFSSENT equal the receiver's BYTSRCVD and BUFSRCVD and the bytes and
    segments the proxy saw going that way, and the receiver's BYTSSENT and BUFSSENT equal the
    sender's BYTSRCVD and BUFSRCVD and what the proxy saw coming back (non-zero: the
    initial data and the batch's confirmation)."""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        tap = TapProxy(r2.port)
        await nursery.start(tap.run)
        define_pair(qm1, qm2, tap.port, HBINT=0, MAXMSGL=1_000_000, rcvr={"MAXMSGL": 1_000_000})
        for size in SIZES:
            qm1.put("TARGET", b"m" * size, qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm2.committed("TARGET") == len(SIZES)
                         and qm1.depth("QM2") == 0)
        st1, st2 = r1.chinit.status_of(CHANNEL), r2.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.last_seqno == len(SIZES))
        assert st1.state is ChannelState.RUNNING
        s2r, r2s = _wire(tap, "s2r"), _wire(tap, "r2s")
        sent, sbufs, srcvd, sbufsr = _counters(st1)
        rsent, rbufs, rrcvd, rbufsr = _counters(st2)
        assert (sent, sbufs) == (rrcvd, rbufsr) == s2r, (_counters(st1), _counters(st2), s2r)
        assert (rsent, rbufs) == (srcvd, sbufsr) == r2s, (_counters(st1), _counters(st2), r2s)
        assert sent > sum(SIZES) and srcvd > 0 and sbufs > len(SIZES)
        finish(nursery)
