"""What the error log says of a channel's start and of its retries, in IBM's words: a channel
entering retry is logged as IBM logs an abnormal end (AMQ9999E), never with the id of a closed
connection (AMQ9209), and AMQ9002I always reads "Channel '<name>' is starting."."""

from __future__ import annotations

import re

import trio

from mqpy_chinit.states import ChannelState
from tests.channels.pairs import _run_with_proxy, listening, started
from tests.support.channel_pair import CHANNEL, define_pair, finish, start_chinit
from tests.support.ports import free_port
from tests.support.proxy import nth_message
from tests.support.waiting import wait_until

STARTING = re.compile(r"Channel '[A-Z0-9._/%]+' is starting\.")


async def test_a_sender_entering_retry_is_logged_with_ibms_abnormal_end(qm1, qm2):
    """Given a sender whose CONNAME nobody listens at (SHORTRTY 1, SHORTTMR 1, LONGRTY 0),
    when the operator starts it, then it goes RETRYING and the error log says AMQ9202E
    (remote host not available) then AMQ9999E "Channel '...' to host '...' ended abnormally."
    naming the retry wait; no AMQ9209 (a closed connection) is logged for it."""
    port = free_port()
    async with trio.open_nursery() as nursery:
        define_pair(qm1, qm2, port, SHORTRTY=1, SHORTTMR=1, LONGRTY=0)
        r1 = await start_chinit(nursery, qm1)
        assert r1.chinit.start_channel(CHANNEL) is None
        await wait_until(lambda: (s := r1.chinit.status_of(CHANNEL)) is not None
                         and s.state is ChannelState.RETRYING)
        await wait_until(lambda: any(m == "AMQ9999E" for m, _ in qm1.log))
        ids = [m for m, _ in qm1.log]
        assert not any(m.startswith("AMQ9209") for m in ids), qm1.log
        assert ids.index("AMQ9202E") < ids.index("AMQ9999E"), qm1.log
        text = next(t for m, t in qm1.log if m == "AMQ9999E")
        assert text.startswith(f"Channel '{CHANNEL}' to host '127.0.0.1({port})' ended "
                               f"abnormally."), text
        assert "retries in 1 s" in text, text
        finish(nursery)


async def test_every_amq9002i_reads_as_ibms_channel_is_starting(two_qmgrs):
    """Given QM2 with CHAD(ENABLED) and no receiver for the sender NEW.CHL, when QM1 starts
    NEW.CHL and its message arrives, then every AMQ9002I either log holds reads "Channel
    'NEW.CHL' is starting." (IBM's text), the auto-definition included."""
    qm1, qm2 = two_qmgrs
    qm2.engine.alter_qmgr({"CHAD": "ENABLED"})
    async with trio.open_nursery() as nursery:
        c2 = await listening(nursery, qm2)
        qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
        qm1.define("CHANNEL", "NEW.CHL", CHLTYPE="SDR", XMITQ="QM2",
                   CONNAME=f"127.0.0.1({c2.ports[0]})")
        qm2.define("QLOCAL", "TARGET")
        qm1.put("TARGET", b"hello", qmgr="QM2")
        await started(nursery, qm1, "NEW.CHL")
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        nursery.cancel_scope.cancel()
    starts = [t for m, t in qm1.log + qm2.log if m == "AMQ9002I"]
    assert len(starts) >= 2, (qm1.log, qm2.log)
    assert all(STARTING.fullmatch(t) for t in starts), starts



async def test_a_receiver_whose_partner_drops_the_link_logs_ibms_amq9209e(two_qmgrs):
    """Given a link cut in the middle of a batch (the partner gone without a closing flow),
    then the receiving end logs AMQ9209E in IBM's words, naming the partner's host and the
    channel: "Connection to host '<host>(<port>)' for channel '<name>' closed."."""
    qm1, qm2 = two_qmgrs
    proxy, _ = await _run_with_proxy(qm1, qm2, nth_message(5))
    assert proxy.cuts == 1
    closed = [t for m, t in qm2.log if m == "AMQ9209E"]
    assert closed, qm2.log
    for text in closed:
        assert re.fullmatch(r"Connection to host '127\.0\.0\.1\(\d+\)' for channel "
                            r"'QM1\.TO\.QM2' closed\.", text), text
