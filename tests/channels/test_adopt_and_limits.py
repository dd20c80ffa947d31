"""Adopting an orphaned receiver (adopt MCA), and the channel limits of qm.ini."""

from __future__ import annotations

import trio

from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, define_pair, finish, mqsc, start_chinit
from tests.support.proxy import TapProxy
from tests.support.waiting import wait_until

ADOPT_ON = {"MaxChannels": "100", "MaxActiveChannels": "100", "AdoptNewMCA": "ALL",
            "AdoptNewMCATimeout": "1", "AdoptNewMCACheck": "ALL"}
ADOPT_OFF = {"MaxChannels": "100", "MaxActiveChannels": "100", "AdoptNewMCA": "NO"}


async def _orphaned_receiver(qm1, qm2, nursery, *, adoptchk: str = "ALL",
                             reconnect_from: str | None = None, shorttmr: int = 1):
    """A running channel whose link dies so that only the sender notices: the receiver (no
    heartbeats, no receive timeout) is left in RECEIVE on a socket that never speaks again.
    A message then makes the sender fail and retry after a second, from ``reconnect_from``
    (another local address) if given (``shorttmr``: its retry interval). Returns (sender
    status, proxy, orphan status)."""
    r2 = await start_chinit(nursery, qm2, listen=True)
    proxy = TapProxy(r2.port)
    await nursery.start(proxy.run)
    define_pair(qm1, qm2, proxy.port, HBINT=0, DISCINT=0, SHORTTMR=shorttmr, SHORTRTY=5,
                rcvr={"HBINT": 0})
    r1 = await start_chinit(nursery, qm1)
    r1.chinit.start_channel(CHANNEL)
    await wait_until(lambda: all((s := r.chinit.status_of(CHANNEL)) is not None
                                 and s.state is ChannelState.RUNNING for r in (r1, r2)))
    orphan = r2.chinit.status_of(CHANNEL)
    proxy.hang()
    if reconnect_from:
        proxy.local_address = reconnect_from
    await trio.to_thread.run_sync(qm1.put, "TARGET", b"after the break", "QM2")
    st1 = r1.chinit.status_of(CHANNEL)
    await wait_until(lambda: ChannelState.RETRYING in st1.history)
    return st1, proxy, orphan


async def test_adopt_ends_the_orphaned_receiver_and_the_new_instance_runs(make_qmgr):
    """Given a receiver orphaned in RECEIVE and adopt on (AdoptNewMCA=ALL, ADOPTMCA(ALL)
    ADOPTCHK(ALL)), when the same sender reconnects from the same address, then the orphaned
    instance is ended (its socket closed by QM2) and the new one runs and delivers.
    spec: aliases-channels-storage 4.20; aliases-channels-storage 2.11; dqm-intercommunication 9.51"""
    qm1, qm2 = make_qmgr("QM1"), make_qmgr("QM2", channels=ADOPT_ON)
    qm2.engine.alter_qmgr({"ADOPTMCA": "ALL", "ADOPTCHK": "ALL"})
    async with trio.open_nursery() as nursery:
        st1, proxy, orphan = await _orphaned_receiver(qm1, qm2, nursery)
        await wait_until(lambda: qm2.committed("TARGET") == 1, 5)
        await wait_until(lambda: proxy.orphans_closed >= 1, 1.5)  # the orphan's socket
        assert st1.state is ChannelState.RUNNING
        finish(nursery)


async def test_without_adopt_the_reconnecting_sender_is_refused(make_qmgr):
    """Given a receiver orphaned in RECEIVE and adopt off (AdoptNewMCA=NO, ADOPTMCA(NO)), when
    the same sender reconnects, then the new start is refused while the orphan lives: the
    sender does not reach RUNNING again and the message stays on the xmitq.
    spec: aliases-channels-storage 4.21; dqm-intercommunication 9.51"""
    qm1, qm2 = make_qmgr("QM1"), make_qmgr("QM2", channels=ADOPT_OFF)
    qm2.engine.alter_qmgr({"ADOPTMCA": "NO"})
    async with trio.open_nursery() as nursery:
        st1, proxy, orphan = await _orphaned_receiver(qm1, qm2, nursery)
        await trio.sleep(1.6)
        runs = st1.history.count(ChannelState.RUNNING)
        delivered = qm2.committed("TARGET")
        finish(nursery)
    assert runs == 1 and delivered == 0


async def test_adopt_with_netaddr_check_does_not_adopt_from_another_address(make_qmgr):
    """Given a receiver orphaned in RECEIVE and adopt on with ADOPTCHK(NETADDR), when the
    sender reconnects from a different IP address (127.0.0.2), then the orphan is not
    adopted: it stays, and the new instance is refused, so nothing is delivered.
    spec: aliases-channels-storage 4.22"""
    qm1 = make_qmgr("QM1")
    qm2 = make_qmgr("QM2", channels={**ADOPT_ON, "AdoptNewMCACheck": "ADDRESS"})
    qm2.engine.alter_qmgr({"ADOPTMCA": "ALL", "ADOPTCHK": "NETADDR"})
    async with trio.open_nursery() as nursery:
        st1, proxy, orphan = await _orphaned_receiver(qm1, qm2, nursery,
                                                      reconnect_from="127.0.0.2")
        await trio.sleep(1.6)
        orphan_closed = proxy.orphans_closed
        delivered = qm2.committed("TARGET")
        finish(nursery)
    assert orphan_closed == 0 and delivered == 0, (orphan_closed, delivered)


def _two_channels(qm1, qm2, port):
    for n in ("ONE", "TWO"):
        qm1.define("QLOCAL", f"XQ.{n}", USAGE="XMITQ")
        qm1.define("CHANNEL", f"CH.{n}", CHLTYPE="SDR", XMITQ=f"XQ.{n}", HBINT=0,
                   CONNAME=f"127.0.0.1({port})", SHORTTMR=1)
        qm2.define("CHANNEL", f"CH.{n}", CHLTYPE="RCVR")


async def _ch_one_running(nursery, qm1, qm2):
    """Both channels defined, QM2 listening, CH.ONE started and RUNNING: QM1's runner."""
    r2 = await start_chinit(nursery, qm2, listen=True)
    _two_channels(qm1, qm2, r2.port)
    r1 = await start_chinit(nursery, qm1)
    r1.chinit.start_channel("CH.ONE")
    await wait_until(lambda: r1.chinit.status_of("CH.ONE").state is ChannelState.RUNNING)
    return r1


async def test_max_active_channels_makes_a_start_wait_in_starting(make_qmgr):
    """Given MaxActiveChannels=1 on QM1 and CH.ONE running, when CH.TWO is started, then it
    waits in STARTING (no connection made); when CH.ONE is stopped, CH.TWO takes the slot and
    reaches RUNNING.  spec: dqm-intercommunication 9.41, §4 (limits)"""
    qm1 = make_qmgr("QM1", channels={"MaxChannels": "100", "MaxActiveChannels": "1"})
    qm2 = make_qmgr("QM2")
    async with trio.open_nursery() as nursery:
        r1 = await _ch_one_running(nursery, qm1, qm2)
        r1.chinit.start_channel("CH.TWO")
        await trio.sleep(1.0)
        waiting = r1.chinit.status_of("CH.TWO").state
        r1.chinit.stop_channel("CH.ONE")
        await wait_until(lambda: r1.chinit.status_of("CH.TWO").state is ChannelState.RUNNING,
                         5)
        finish(nursery)
    assert waiting is ChannelState.STARTING


async def test_max_active_channels_rejects_a_remote_start_without_a_slot(make_qmgr):
    """Given MaxActiveChannels=1 on QM2 with receiver CH.ONE running, when CH.TWO calls QM2,
    then the inbound start is rejected: CH.TWO never reaches RUNNING.
    spec: dqm-intercommunication 9.41, §4 (a remote initiation with no free slot is
    rejected)"""
    qm1 = make_qmgr("QM1")
    qm2 = make_qmgr("QM2", channels={"MaxChannels": "100", "MaxActiveChannels": "1"})
    async with trio.open_nursery() as nursery:
        r1 = await _ch_one_running(nursery, qm1, qm2)
        r1.chinit.start_channel("CH.TWO")
        await trio.sleep(1.0)
        history = list(r1.chinit.status_of("CH.TWO").history)
        finish(nursery)
    assert ChannelState.RUNNING not in history


async def test_max_channels_reached_fails_the_start(make_qmgr):
    """Given MaxChannels=1 on QM1 and CH.ONE current (running), when START CHANNEL(CH.TWO) is
    issued, then the start fails.  spec: dqm-intercommunication 9.42, §4 (limits)"""
    qm1 = make_qmgr("QM1", channels={"MaxChannels": "1", "MaxActiveChannels": "1"})
    qm2 = make_qmgr("QM2")
    async with trio.open_nursery() as nursery:
        await _ch_one_running(nursery, qm1, qm2)
        result = await mqsc(qm1, "START CHANNEL(CH.TWO)")
        finish(nursery)
    assert not result.ok, result.lines
