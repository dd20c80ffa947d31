"""A channel initiator that ends while its get of SYSTEM.CHANNEL.INITQ waits (in a worker
thread, which a cancel cannot interrupt) wakes that get with a message of its own, rather
than waiting for the get's interval to pass; that message, if one is left on the queue, is
nothing to the next channel initiator, and expires."""

from __future__ import annotations

import pytest
import trio

import mqpy
from mqpy import CMQC, wake
from mqpy.channelcommands import INITQ
from mqpy_chinit import initq
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.engineadmin import EngineAdmin
from tests.support.waiting import wait_until

#: the initiation queue's get made to wait far longer than any test: a channel initiator
#: that waited for it would never end within WITHIN
LONG_WAIT_MS = 600_000
WITHIN = 30.0


async def _serving(nursery: trio.Nursery, qm) -> tuple[ChannelInitiator, trio.CancelScope,
                                                        trio.Event]:
    """A channel initiator of ``qm`` serving its initiation queue, in a cancel scope of its
    own; the event is set once it has ended."""
    chinit = ChannelInitiator(qm.name, qm.connect, EngineAdmin(qm.engine),
                              log=lambda msgid, text: qm.log.append((msgid, text)))
    scope, ended = trio.CancelScope(), trio.Event()

    async def run(task_status=trio.TASK_STATUS_IGNORED) -> None:
        try:
            with scope:
                await chinit.run([], task_status=task_status)
        finally:
            ended.set()

    await nursery.start(run)
    await wait_until(lambda: qm.engine.queue_status(INITQ)["IPPROCS"] >= 1, 10)
    return chinit, scope, ended


async def test_an_ending_channel_initiator_wakes_its_waiting_get(qm1, monkeypatch):
    """Given a channel initiator whose initiation-queue get waits ten minutes, when it is
    cancelled while the get waits, then it ends at once (within 30 s, not ten minutes) and
    its handle on the initiation queue is closed."""
    monkeypatch.setattr(initq, "INITQ_WAIT_MS", LONG_WAIT_MS)
    async with trio.open_nursery() as nursery:
        _, scope, ended = await _serving(nursery, qm1)
        await trio.sleep(0.2)  # the get is waiting by now (or soon: either way it is woken)
        scope.cancel()
        with trio.fail_after(WITHIN):
            await ended.wait()
    assert qm1.engine.queue_status(INITQ)["IPPROCS"] == 0


async def test_a_wake_message_left_on_the_queue_is_nothing_to_the_next(qm1):
    """Given a wake message left on the initiation queue (its channel initiator's get had
    just taken another message), when the next channel initiator gets it, then it takes it
    off the queue, logs nothing about it and goes on serving: a trigger message after it
    is acted on."""
    qm1.put(INITQ, b"", persistent=False, Format=initq.WAKE_FORMAT)
    qm1.define("QLOCAL", "XQ", USAGE="XMITQ")
    qm1.define("CHANNEL", "TO.NOWHERE", CHLTYPE="SDR", CONNAME="127.0.0.1(1)", XMITQ="XQ",
               SHORTRTY=0, LONGRTY=0)
    async with trio.open_nursery() as nursery:
        chinit, scope, _ = await _serving(nursery, qm1)
        await wait_until(lambda: qm1.engine.queue_status(INITQ)["CURDEPTH"] == 0, 10)
        qm1.put(INITQ, mqpy.TM(QName=b"XQ", TriggerData=b"TO.NOWHERE").pack(),
                persistent=False, Format=CMQC.MQFMT_TRIGGER)
        await wait_until(lambda: chinit.status_of("TO.NOWHERE") is not None, 10)
        scope.cancel()
    assert not [m for m, text in qm1.log if "MQPYWAKE" in text]


async def test_a_wake_message_no_get_takes_expires(qm1, monkeypatch):
    """Given no get waiting on the initiation queue, when a channel initiator puts its wake
    message there, then the message is not persistent and has an Expiry; once that has
    passed a get finds nothing, and the queue manager's expiry scan removes one no get met:
    CURDEPTH 0, as IBM removes an expired message."""
    monkeypatch.setattr(wake, "WAKE_EXPIRY", 2)  # two tenths of a second
    chinit = ChannelInitiator(qm1.name, qm1.connect, EngineAdmin(qm1.engine))
    chinit._put_wake()
    chinit._put_wake()
    assert qm1.engine.queue_status(INITQ)["CURDEPTH"] == 2
    qm = qm1.connect()
    try:
        q = mqpy.Queue(qm, INITQ, CMQC.MQOO_BROWSE | CMQC.MQOO_INPUT_SHARED)
        md = mqpy.MD()
        q.get(None, md, mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
        assert md.Format == initq.WAKE_FORMAT
        assert md.Persistence == CMQC.MQPER_NOT_PERSISTENT and 0 < md.Expiry <= 2
        await trio.sleep(0.3)
        qm1.engine.expire_scan()
        assert qm1.engine.queue_status(INITQ)["CURDEPTH"] == 0
        chinit._put_wake()
        await trio.sleep(0.3)
        with pytest.raises(mqpy.MQMIError) as got:
            q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
        assert got.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        assert qm1.engine.queue_status(INITQ)["CURDEPTH"] == 0
    finally:
        qm.disconnect()
