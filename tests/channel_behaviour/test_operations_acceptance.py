"""Acceptance behaviours of the operations document (spec operations-dlq-clusters §7) that the
other channel tests do not check: MAXMSGL's default and limit, remembered states across a
queue-manager restart, message retry, an unusable dead-letter queue, HBINT(0), channel names
that differ only in case, PING without a transmission queue, and a full cluster command
queue."""

from __future__ import annotations

import socket

import pytest
import trio

import mqpy
from mqpy import CMQC
from mqpy import local
from mqpy_chinit.chinit import INITQ
from mqpy_chinit.mca import ReceiverMCA
from mqpy_chinit.wire import SegmentType

from .conftest import (
    CHANNEL,
    DLQ,
    ChannelState,
    TapProxy,
    browse,
    chstatus,
    define_pair,
    finish,
    mqsc,
    start_chinit,
    wait_until,
)

COMMAND_QUEUE = "SYSTEM.CLUSTER.COMMAND.QUEUE"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def trigger_on(qm, xmitq: str, channel: str) -> None:
    qm.engine.alter("QLOCAL", xmitq, {"TRIGGER": "YES", "TRIGTYPE": "FIRST", "INITQ": INITQ,
                                      "TRIGDATA": channel})


def xmitq_attrs(qm, xmitq: str = "QM2") -> tuple[str, str]:
    attrs = qm.engine.lookup("QLOCAL", xmitq).attributes
    return attrs["GET"], attrs["TRIGGER"]


def dead_letters(qm) -> list[tuple[mqpy.DLH, bytes]]:
    conn = qm.connect()
    out = []
    try:
        queue = mqpy.Queue(conn, DLQ, CMQC.MQOO_INPUT_AS_Q_DEF)
        while True:
            try:
                data = queue.get()
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
            out.append((mqpy.DLH().unpack(data), data[172:]))
    finally:
        conn.disconnect()


# ---------------------------------------------------------------------------- MAXMSGL


async def test_maxmsgl_defaults_to_4_mb_and_above_100_mb_is_refused(qm1):
    """Given a queue, the queue manager and a channel defined without MAXMSGL, then each shows
    MAXMSGL(4194304); when MAXMSGL(104857601) is asked of a queue, the queue manager or a
    channel, then the command fails with AMQ8425E and nothing changes, while 104857600
    (100 MB) is accepted.  spec: operations-dlq-clusters 7.8"""
    assert (await mqsc(qm1, "DEFINE QLOCAL(Q8)")).ok
    assert (await mqsc(qm1, "DEFINE CHANNEL(C8) CHLTYPE(RCVR)")).ok
    for command in ("DISPLAY QLOCAL(Q8) MAXMSGL", "DISPLAY QMGR MAXMSGL",
                    "DISPLAY CHANNEL(C8) MAXMSGL"):
        result = await mqsc(qm1, command)
        assert result.ok and "MAXMSGL(4194304)" in " ".join(result.lines), result.lines
    for command in ("DEFINE QLOCAL(BIG) MAXMSGL(104857601)", "ALTER QMGR MAXMSGL(104857601)",
                    "ALTER QLOCAL(Q8) MAXMSGL(104857601)",
                    "DEFINE CHANNEL(C9) CHLTYPE(RCVR) MAXMSGL(104857601)"):
        result = await mqsc(qm1, command)
        assert not result.ok and result.lines[0].startswith("AMQ8425E"), (command, result.lines)
    assert qm1.engine.lookup("QLOCAL", "BIG") is None
    assert qm1.engine.lookup("QLOCAL", "Q8").attributes["MAXMSGL"] == 4194304
    for command in ("DEFINE QLOCAL(BIG) MAXMSGL(104857600)", "ALTER QMGR MAXMSGL(104857600)"):
        assert (await mqsc(qm1, command)).ok, command
    result = await mqsc(qm1, "DISPLAY QMGR MAXMSGL")
    assert "MAXMSGL(104857600)" in " ".join(result.lines), result.lines


# ---------------------------------------------------------------------------- restarts


def _restart_qmgr(qm) -> None:
    """endmqm + strmqm of an embedded queue manager (its channel initiator already ended)."""
    local.stop(qm.name, qm.root)
    qm.engine = local.start(qm.name, qm.root)


async def _retrying_and_stopped(qm1, qm2, nursery):
    """On QM1, with no partner listening: CH.RETRY RETRYING (many retries left) and CH.STOP
    STOPPED by an error once its retries ran out, its triggered xmitq XQ.STOP then
    GET(DISABLED) NOTRIGGER. Returns QM1's channel initiator and the port nobody listens on."""
    port = free_port()
    for name, retries in (("CH.RETRY", 100), ("CH.STOP", 0)):
        xmitq, remote = "XQ." + name[3:], "R." + name[3:]
        qm1.define("QLOCAL", xmitq, USAGE="XMITQ")
        qm1.define("QREMOTE", remote, RNAME="TARGET", RQMNAME="QM2", XMITQ=xmitq)
        qm1.define("CHANNEL", name, CHLTYPE="SDR", CONNAME=f"127.0.0.1({port})", XMITQ=xmitq,
                   SHORTRTY=retries, SHORTTMR=1, LONGRTY=0, HBINT=0)
        qm2.define("CHANNEL", name, CHLTYPE="RCVR")
    trigger_on(qm1, "XQ.STOP", "CH.STOP")
    qm2.define("QLOCAL", "TARGET")
    r1 = await start_chinit(nursery, qm1)
    await trio.to_thread.run_sync(qm1.put, "R.STOP", b"stopped")
    await trio.to_thread.run_sync(qm1.put, "R.RETRY", b"retried")
    r1.chinit.start_channel("CH.RETRY")
    await wait_until(lambda: (s := r1.chinit.status_of("CH.STOP")) is not None
                     and s.state is ChannelState.STOPPED)
    await wait_until(lambda: r1.chinit.status_of("CH.RETRY").state is ChannelState.RETRYING)
    assert xmitq_attrs(qm1, "XQ.STOP") == ("DISABLED", "NO")
    return r1, port


async def test_retrying_and_stopped_states_survive_a_queue_manager_restart(qm1, qm2):
    """Given CH.RETRY RETRYING and CH.STOP STOPPED after an error on its triggered xmitq, when
    the channel initiator and the queue manager are ended and started again, then DISPLAY
    CHSTATUS shows CH.RETRY RETRYING and CH.STOP STOPPED; CH.STOP's xmitq is still
    NOTRIGGER (the restart does not turn triggering back on) and a trigger does not start
    it; once the partner listens, CH.RETRY delivers its message at its next retry.
    spec: operations-dlq-clusters 7.11; operations-dlq-clusters 7.20"""
    async with trio.open_nursery() as nursery:
        r1, port = await _retrying_and_stopped(qm1, qm2, nursery)
        await r1.stop()
        _restart_qmgr(qm1)
        r1 = await start_chinit(nursery, qm1)
        for name, state in (("CH.RETRY", "RETRYING"), ("CH.STOP", "STOPPED")):
            shown = await mqsc(qm1, f"DISPLAY CHSTATUS({name})")
            assert chstatus(shown.lines).get("STATUS") == state, (name, shown.lines)
        assert xmitq_attrs(qm1, "XQ.STOP") == ("DISABLED", "NO")
        await start_chinit(nursery, qm2, listen=True, port=port)
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        await trio.to_thread.run_sync(qm1.put, "R.STOP", b"also waits")
        await trio.sleep(0.5)
        assert r1.chinit.status_of("CH.STOP").state is ChannelState.STOPPED
        assert qm1.depth("XQ.STOP") == 2 and qm2.drain("TARGET") == [b"retried"]
        finish(nursery)


@pytest.mark.xfail(strict=True, reason="START CHANNEL re-enables the xmitq only if this "
                   "channel initiator disabled it (ChannelInitiator._disabled is in memory)")
async def test_start_channel_after_a_restart_reenables_the_xmitq(qm1, qm2):
    """Given CH.STOP STOPPED after an error (its triggered xmitq GET(DISABLED) NOTRIGGER) and
    the queue manager restarted since, when the partner is back and START CHANNEL is issued,
    then the xmitq is GET(ENABLED) with TRIGGER again and the waiting message is delivered.
    spec: operations-dlq-clusters 7.10; operations-dlq-clusters 7.11"""
    async with trio.open_nursery() as nursery:
        r1, port = await _retrying_and_stopped(qm1, qm2, nursery)
        await r1.stop()
        _restart_qmgr(qm1)
        r1 = await start_chinit(nursery, qm1)
        await start_chinit(nursery, qm2, listen=True, port=port)
        result = await mqsc(qm1, "START CHANNEL(CH.STOP)")
        assert result.ok, result.lines
        await wait_until(lambda: r1.chinit.status_of("CH.STOP").state is ChannelState.RUNNING)
        attrs = xmitq_attrs(qm1, "XQ.STOP")
        if attrs != ("ENABLED", "YES"):
            finish(nursery)
        assert attrs == ("ENABLED", "YES")
        await wait_until(lambda: b"stopped" in browse(qm2, "TARGET"))
        finish(nursery)
