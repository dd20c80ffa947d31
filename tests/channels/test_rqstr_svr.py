"""Requester-server pairs: the requester starts, the server sends (seed 000 9.26, 9.27)."""

from __future__ import annotations

import trio

from mqpy_chinit.states import ChannelState
from tests.channels.pairs import _svr_and_rqstr
from tests.support.waiting import wait_until


async def test_requester_starts_and_server_sends_on_the_same_connection(two_qmgrs):
    """Given QM1 with a SVR (no CONNAME) on xmitq QM2 and messages for QM2, and QM2 with a
    RQSTR whose CONNAME is QM1's listener, when the requester is started, then the server
    answers on that connection and the messages arrive on QM2.  spec:
    dqm-intercommunication 9.27"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1 = qm1.make_chinit()
        await nursery.start(c1.run, [("127.0.0.1", 0)])
        _svr_and_rqstr(qm1, qm2, c1.ports[0])
        for i in range(10):
            qm1.put("TARGET", b"r%d" % i, qmgr="QM2")
        assert c1.start_channel("QM1.SVR") is not None  # a SVR without CONNAME cannot call
        c2 = qm2.make_chinit()
        await nursery.start(c2.run)
        assert c2.start_channel("QM1.SVR") is None
        await wait_until(lambda: qm2.committed("TARGET") == 10)
        nursery.cancel_scope.cancel()
    assert qm2.drain("TARGET") == [b"r%d" % i for i in range(10)]


async def test_requester_calling_a_sender_is_called_back(two_qmgrs):
    """Given QM1 with an SDR whose CONNAME is QM2's listener and QM2 with a RQSTR calling
    QM1, when the requester starts, then the sender ends that call and calls back: the
    messages flow SDR -> RQSTR.  spec: dqm-intercommunication 9.26"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1 = qm1.make_chinit()
        await nursery.start(c1.run, [("127.0.0.1", 0)])
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
        qm1.define("CHANNEL", "CALLBACK", CHLTYPE="SDR", XMITQ="QM2",
                   CONNAME=f"127.0.0.1({c2.ports[0]})")
        qm2.define("CHANNEL", "CALLBACK", CHLTYPE="RQSTR",
                   CONNAME=f"127.0.0.1({c1.ports[0]})")
        qm2.define("QLOCAL", "TARGET")
        qm1.put("TARGET", b"called back", qmgr="QM2")
        assert c2.start_channel("CALLBACK") is None
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        nursery.cancel_scope.cancel()


async def test_a_requester_whose_channel_program_fails_unexpectedly_ends_alone(
        two_qmgrs, monkeypatch):
    """Given QM2 with a RQSTR calling QM1's SVR, when the requester's channel program fails
    with an unexpected error (not a channel error), then it is logged as AMQ9999E, the
    requester ends INACTIVE, and QM2's channel initiator goes on: the requester starts again
    and the messages arrive.  spec: dqm-intercommunication 8 (channel error)"""
    from mqpy_chinit import caller as chinit_module  # where channels run their MCAs

    qm1, qm2 = two_qmgrs
    real = chinit_module.ReceiverMCA.run
    failures = [RuntimeError("injected")]

    async def failing_once(self):
        if failures and self.call_out is not None:
            raise failures.pop()
        return await real(self)

    monkeypatch.setattr(chinit_module.ReceiverMCA, "run", failing_once)
    async with trio.open_nursery() as nursery:
        c1 = qm1.make_chinit()
        await nursery.start(c1.run, [("127.0.0.1", 0)])
        _svr_and_rqstr(qm1, qm2, c1.ports[0])
        qm1.put("TARGET", b"after the failure", qmgr="QM2")
        logged: list[tuple[str, str]] = []
        c2 = qm2.make_chinit()
        c2.log = lambda msgid, text: logged.append((msgid, text))
        await nursery.start(c2.run)
        assert c2.start_channel("QM1.SVR") is None
        await wait_until(lambda: any(m == "AMQ9999E" for m, _ in logged))
        assert "RuntimeError: injected" in next(t for m, t in logged if m == "AMQ9999E")
        await wait_until(lambda: "QM1.SVR" not in c2.running)
        assert c2.start_channel("QM1.SVR") is None
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        nursery.cancel_scope.cancel()


async def _first_delivered(nursery: trio.Nursery, qm1, qm2) -> tuple:
    """QM1's SVR and QM2's RQSTR running, one message delivered: (QM1's, QM2's) chinits."""
    c1 = qm1.make_chinit()
    await nursery.start(c1.run, [("127.0.0.1", 0)])
    _svr_and_rqstr(qm1, qm2, c1.ports[0])
    qm1.put("TARGET", b"first", qmgr="QM2")
    c2 = qm2.make_chinit()
    await nursery.start(c2.run)
    assert c2.start_channel("QM1.SVR") is None
    await wait_until(lambda: qm2.committed("TARGET") == 1)
    return c1, c2


async def _second_delivered(qm1, qm2, c2) -> None:
    """Once both ends have ended: the requester started again delivers a second message."""
    qm1.put("TARGET", b"second", qmgr="QM2")
    assert c2.start_channel("QM1.SVR") is None
    await wait_until(lambda: qm2.committed("TARGET") == 2)
    assert qm2.drain("TARGET") == [b"first", b"second"]


async def test_a_stopped_requester_is_stopped_and_starts_again(two_qmgrs):
    """Given QM2's RQSTR running with QM1's SVR, when STOP CHANNEL MODE(FORCE) stops the
    requester, then its status is STOPPED (not left RUNNING), and START CHANNEL starts it
    again: the next message arrives.  spec: dqm-intercommunication 9.39, 9.50, 9.26"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1, c2 = await _first_delivered(nursery, qm1, qm2)
        assert c2.stop_channel("QM1.SVR", "FORCE") is None
        await wait_until(lambda: "QM1.SVR" not in c2.running)
        assert c2.status_of("QM1.SVR").state is ChannelState.STOPPED
        # an idle server does not notice its requester went (9.50): ended here too
        assert c1.stop_channel("QM1.SVR", "FORCE", "INACTIVE") is None
        await wait_until(lambda: "QM1.SVR" not in c1.running)
        await _second_delivered(qm1, qm2, c2)
        nursery.cancel_scope.cancel()


async def test_a_server_stopped_with_status_inactive_is_inactive(two_qmgrs):
    """Given QM1's SVR serving QM2's requester, when STOP CHANNEL MODE(FORCE)
    STATUS(INACTIVE) ends the server, then it is INACTIVE, not STOPPED, and the requester's
    next start is served."""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1, c2 = await _first_delivered(nursery, qm1, qm2)
        assert c1.stop_channel("QM1.SVR", "FORCE", "INACTIVE") is None
        await wait_until(lambda: "QM1.SVR" not in c1.running)
        assert c1.status_of("QM1.SVR").state is ChannelState.INACTIVE
        await wait_until(lambda: "QM1.SVR" not in c2.running)
        await _second_delivered(qm1, qm2, c2)
        nursery.cancel_scope.cancel()
