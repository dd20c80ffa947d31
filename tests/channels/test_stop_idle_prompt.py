"""STOP CHANNEL of an idle sending channel stops it at once, as IBM's does: the MCA's MQGET of
its transmission queue, waiting for a message in a worker thread, is woken by the stop (every
mode) rather than left to the end of its wait, and nothing is put on the transmission queue to
wake it. The gets here wait far longer than any test (POLL_MS patched): a channel that waited
for its get to end would not stop within WITHIN."""

from __future__ import annotations

import pytest
import trio

from mqpy_chinit import sender_mca
from mqpy_chinit.states import ChannelState
from tests.channels.pairs import _svr_and_rqstr
from tests.support.channel_pair import CHANNEL, define_pair, finish, mqsc, start_chinit
from tests.support.waiting import wait_until

#: the idle channel's get made to wait ten minutes
LONG_POLL_MS = 600_000
#: far less than LONG_POLL_MS: a stop that waited for the get would never be seen within it
WITHIN = 10.0


def _enqueued(qm, queue: str) -> int:
    """Messages ever put on ``queue`` (its MsgEnqCount)."""
    return qm.engine.stats.queue_performance(queue).enqueued


async def _idle(st, qm1, qm2, delivered: int) -> None:
    """The channel RUNNING, its messages delivered, its MCA waiting in its get again."""
    await wait_until(lambda: st.state is ChannelState.RUNNING
                     and qm2.committed("TARGET") == delivered and qm1.depth("QM2") == 0, 10)
    await trio.sleep(0.3)  # the batch ended: the MCA is back in its idle get


@pytest.mark.parametrize("mode", ["QUIESCE", "FORCE", "TERMINATE"])
async def test_stop_channel_of_an_idle_sender_is_prompt(qm1, qm2, monkeypatch, mode):
    """Given an SDR-RCVR channel that has delivered a message and is idle, its MCA waiting in
    an MQGET of the transmission queue that lasts ten minutes, when STOP CHANNEL
    MODE(QUIESCE|FORCE|TERMINATE) is issued, then the channel is STOPPED within seconds, its
    transmission queue is no longer open and nothing was put on it, and START CHANNEL then
    delivers the next message.  spec: dqm-intercommunication 9.39"""
    monkeypatch.setattr(sender_mca, "POLL_MS", LONG_POLL_MS)
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0)
        r1 = await start_chinit(nursery, qm1)
        qm1.put("TARGET", b"first", qmgr="QM2")
        assert r1.chinit.start_channel(CHANNEL) is None
        st = r1.chinit.status_of(CHANNEL)
        await _idle(st, qm1, qm2, 1)
        put_before = _enqueued(qm1, "QM2")
        result = await mqsc(qm1, f"STOP CHANNEL({CHANNEL}) MODE({mode})")
        assert result.ok, result.lines
        with trio.fail_after(WITHIN):
            await wait_until(lambda: st.state is ChannelState.STOPPED
                             and qm1.engine.queue_status("QM2")["IPPROCS"] == 0, WITHIN)
        assert _enqueued(qm1, "QM2") == put_before and not qm1.engine.indoubt()
        qm1.put("TARGET", b"second", qmgr="QM2")
        result = await mqsc(qm1, f"START CHANNEL({CHANNEL})")
        assert result.ok, result.lines
        await wait_until(lambda: qm2.committed("TARGET") == 2, 10)
        finish(nursery)
    assert qm2.drain("TARGET") == [b"first", b"second"]


async def test_stop_channel_of_an_idle_server_is_prompt(two_qmgrs, monkeypatch):
    """Given a SVR (no CONNAME) that its requester started and that has sent its message and
    is idle, its get of the transmission queue lasting ten minutes, when STOP CHANNEL is
    issued for it, then it is STOPPED within seconds and its transmission queue is no longer
    open.  spec: dqm-intercommunication 9.27; dqm-intercommunication 9.39"""
    monkeypatch.setattr(sender_mca, "POLL_MS", LONG_POLL_MS)
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1 = qm1.make_chinit()
        await nursery.start(c1.run, [("127.0.0.1", 0)])
        _svr_and_rqstr(qm1, qm2, c1.ports[0])
        qm1.put("TARGET", b"served", qmgr="QM2")
        c2 = qm2.make_chinit()
        await nursery.start(c2.run)
        assert c2.start_channel("QM1.SVR") is None
        await wait_until(lambda: (s := c1.status_of("QM1.SVR")) is not None
                         and s.state is ChannelState.RUNNING, 10)
        st = c1.status_of("QM1.SVR")
        await wait_until(lambda: qm2.committed("TARGET") == 1 and qm1.depth("QM2") == 0, 10)
        await trio.sleep(0.3)  # the server is back in its idle get
        assert c1.stop_channel("QM1.SVR") is None
        with trio.fail_after(WITHIN):
            await wait_until(lambda: st.state is ChannelState.STOPPED
                             and qm1.engine.queue_status("QM2")["IPPROCS"] == 0, WITHIN)
        nursery.cancel_scope.cancel()
