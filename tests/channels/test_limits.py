"""MaxChannels and MaxActiveChannels (qm.ini Channels: stanza)."""

from __future__ import annotations

import trio

from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.engineadmin import EngineAdmin
from mqpy_chinit.states import ChannelState
from tests.support.waiting import wait_until


def _senders(qm1, port, names):
    for n in names:
        qm1.define("QLOCAL", f"XQ.{n}", USAGE="XMITQ")
        qm1.define("CHANNEL", n, CHLTYPE="SDR", CONNAME=f"127.0.0.1({port})", XMITQ=f"XQ.{n}",
                   DISCINT=0)


async def test_max_active_channels_makes_a_start_wait_in_starting(two_qmgrs):
    """Given MaxActiveChannels=1 and channel A running, when channel B is started, then B
    waits in STARTING; when A stops, B gets the slot and runs.  spec:
    dqm-intercommunication 9.41"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        for n in ("A", "B"):
            qm2.define("CHANNEL", n, CHLTYPE="RCVR")
        _senders(qm1, c2.ports[0], ("A", "B"))
        c1 = ChannelInitiator("QM1", qm1.connect, EngineAdmin(qm1.engine),
                              log=lambda m, t: qm1.log.append((m, t)),
                              channels_stanza={"MaxActiveChannels": "1"})
        await nursery.start(c1.run)
        assert c1.start_channel("A") is None
        await wait_until(lambda: c1.status_of("A").state is ChannelState.RUNNING)
        assert c1.start_channel("B") is None
        await trio.sleep(0.5)
        assert c1.status_of("B").state is ChannelState.STARTING
        c1.stop_channel("A")
        await wait_until(lambda: c1.status_of("B").state is ChannelState.RUNNING)
        nursery.cancel_scope.cancel()


async def test_max_channels_refuses_a_start(two_qmgrs):
    """Given MaxChannels=1 and one channel running, when another is started, then the start
    fails with AMQ9513E.  spec: dqm-intercommunication 9.42"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        for n in ("A", "B"):
            qm2.define("CHANNEL", n, CHLTYPE="RCVR")
        _senders(qm1, c2.ports[0], ("A", "B"))
        c1 = ChannelInitiator("QM1", qm1.connect, EngineAdmin(qm1.engine),
                              channels_stanza={"MaxChannels": "1"})
        await nursery.start(c1.run)
        assert c1.start_channel("A") is None
        await wait_until(lambda: c1.status_of("A").state is ChannelState.RUNNING)
        err = c1.start_channel("B")
        assert err is not None and err.startswith("AMQ9513E")
        nursery.cancel_scope.cancel()
