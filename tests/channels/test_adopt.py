"""Adopt MCA: a receiver stuck with a dead partner is replaced when the partner reconnects."""

from __future__ import annotations

import trio

from mqpy.fap.controlflows import Resync
from mqpy.fap.initialdata import InitialData
from mqpy_chinit.conversation import Conversation
from mqpy_chinit.mca import CONFIRM_TIMEOUT, call_id, status_error
from mqpy_chinit.receiver_batch import NO_LUWID
from mqpy_chinit.states import ChannelStatus


async def _start_instance(port: int, qmgr: str = "QM1", heartbeat_interval: int = 300
                          ) -> Conversation:
    """A sender-like start of channel C: negotiate, then the start's resynchronisation (a
    sending MCA's first flow: what tells the receiver that this is a channel start, not a
    PING CHANNEL), and leave the receiver waiting. Raises if the start is refused."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conv = Conversation(stream, ChannelStatus("C", "SDR"))
    await call_id(conv, InitialData(fap_level=10, channel_name="C", qmgr_name=qmgr,
                                    heartbeat_interval=heartbeat_interval))
    await conv.send(Resync(seqnum=0, luwid=NO_LUWID))
    answer = await conv.recv(CONFIRM_TIMEOUT)
    if not isinstance(answer, Resync):
        raise status_error(answer)
    return conv


async def test_second_start_is_refused_without_adopt(two_qmgrs):
    """Given ADOPTMCA not enabled and receiver C running, when the same partner starts C again,
    then the new start is refused (AMQ9514E).  spec: aliases-channels-storage 4.21"""
    _qm1, qm2 = two_qmgrs
    qm2.define("CHANNEL", "C", CHLTYPE="RCVR")
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        first = await _start_instance(c2.ports[0])
        with trio.fail_after(5):
            while ("C", "QM1") not in c2.receivers:
                await trio.sleep(0.02)
        try:
            await _start_instance(c2.ports[0], heartbeat_interval=0)
            refused = False
        except Exception:  # noqa: BLE001 - any refusal will do; the log says which
            refused = True
        assert refused
        with trio.fail_after(5):
            while not any(m == "AMQ9514E" for m, _ in qm2.log):
                await trio.sleep(0.02)
        await first.stream.aclose()
        nursery.cancel_scope.cancel()


async def test_same_partner_adopts_the_orphaned_receiver(two_qmgrs):
    """Given ADOPTMCA(ALL) ADOPTCHK(ALL) and receiver C stuck with its first connection, when
    the same queue manager starts C again from the same address, then the old instance is
    ended and the new one runs.  spec: aliases-channels-storage 4.20"""
    _qm1, qm2 = two_qmgrs
    qm2.engine.alter_qmgr({"ADOPTMCA": "ALL", "ADOPTCHK": "ALL"})
    qm2.define("CHANNEL", "C", CHLTYPE="RCVR")
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        first = await _start_instance(c2.ports[0])
        with trio.fail_after(5):
            while ("C", "QM1") not in c2.receivers:
                await trio.sleep(0.02)
        old_scope = c2.receivers[("C", "QM1")][0]
        second = await _start_instance(c2.ports[0])
        assert old_scope.cancel_called
        assert c2.receivers[("C", "QM1")][0] is not old_scope
        assert any(m == "AMQ9532I" for m, _ in qm2.log)
        # another queue manager never adopts it: its start is an instance of its own
        current = c2.receivers[("C", "QM1")][0]
        rogue = await _start_instance(c2.ports[0], qmgr="ROGUE")
        with trio.fail_after(5):
            while ("C", "ROGUE") not in c2.receivers:
                await trio.sleep(0.02)
        assert not current.cancel_called and c2.receivers[("C", "QM1")][0] is current
        for conv in (first, second, rogue):
            await conv.stream.aclose()
        nursery.cancel_scope.cancel()
    assert CONFIRM_TIMEOUT > 0
