"""Two queue managers of this process joined by a message channel, each with its channel
initiator running in the test's nursery (as runmqchi builds it): define the pair, start and
stop channel initiators, run MQSC, read DISPLAY CHSTATUS and what a queue holds. The
:class:`~tests.support.proxy.TapProxy` between them records every segment."""

from __future__ import annotations

import inspect
import re

import attrs
import trio

import mqpy
from mqpy import CMQC, config, pcf
from mqpy.channelcommands import INITQ
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.structs.tables import CFH
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.engineadmin import EngineAdmin
from tests.support.qmgr import QMgr
from tests.support.waiting import wait_until

CHANNEL = "QM1.TO.QM2"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def define_pair(qm1: QMgr, qm2: QMgr, port: int, channel: str = CHANNEL,
                rcvr: dict | None = None, **sdr: object) -> None:
    """xmitq QM2 and SDR ``channel`` on QM1 (CONNAME 127.0.0.1(port)), RCVR ``channel`` and
    TARGET on QM2. Short retry timers unless the test says otherwise."""
    qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
    sdr.setdefault("SHORTTMR", 1)
    qm1.define("CHANNEL", channel, CHLTYPE="SDR", CONNAME=f"127.0.0.1({port})", XMITQ="QM2",
               **sdr)
    qm2.define("CHANNEL", channel, CHLTYPE="RCVR", **(rcvr or {}))
    qm2.define("QLOCAL", "TARGET", MAXDEPTH=100000)


@attrs.define
class Running:
    """A channel initiator running in the test's nursery, in its own cancel scope so that a
    test can stop just this one (as endmqm would stop runmqchi)."""

    chinit: object
    scope: trio.CancelScope
    qm: QMgr
    finished: trio.Event = attrs.Factory(trio.Event)

    @property
    def port(self) -> int:
        return self.chinit.ports[0]

    async def stop(self) -> None:
        """End this channel initiator (its channels die with it) and wait until it has."""
        self.scope.cancel()
        _wake(self.qm)
        await self.finished.wait()


_live: list[QMgr] = []  # queue managers whose channel initiator this test started


def _wake(qm: QMgr) -> None:
    """Put a no-op message on SYSTEM.CHANNEL.INITQ: the channel initiator's MQGET wait (in a
    worker thread, which a cancel cannot interrupt) returns at once instead of after 0.5 s."""
    try:
        qm.put(INITQ, b"", persistent=False, Format=b"MQPYWAKE")
    except mqpy.MQMIError:
        pass


def finish(nursery: trio.Nursery) -> None:
    """End the test's nursery (channel initiators, proxies) without waiting out MQGET waits."""
    nursery.cancel_scope.cancel()
    for qm in _live:
        _wake(qm)


def make_chinit(qm: QMgr) -> ChannelInitiator:
    """A channel initiator built as runmqchi builds it: with qm.ini's Channels stanza."""
    kwargs = {}
    if "channels_stanza" in inspect.signature(ChannelInitiator).parameters:
        kwargs["channels_stanza"] = config.QMgrConfig.load(qm.name, qm.root).channels
    qm.chinit = ChannelInitiator(qm.name, qm.connect, EngineAdmin(qm.engine),
                                 log=lambda msgid, text: qm.log.append((msgid, text)), **kwargs)
    return qm.chinit


async def start_chinit(nursery: trio.Nursery, qm: QMgr, listen: bool = False,
                       port: int = 0) -> Running:
    running = Running(make_chinit(qm), trio.CancelScope(), qm)
    _live.append(qm)

    async def wrapped(task_status=trio.TASK_STATUS_IGNORED):
        try:
            with running.scope:
                await running.chinit.run([("127.0.0.1", port)] if listen else [],
                                         task_status=task_status)
        finally:
            running.finished.set()

    await nursery.start(wrapped)
    # run() reports started before its task has opened SYSTEM.CHANNEL.INITQ; channel
    # commands (which look for an input handle there) need it open
    await wait_until(lambda: qm.engine.queue_status(INITQ)["IPPROCS"] >= 1, 5)
    return running


async def mqsc(qm: QMgr, text: str):
    """One MQSC command on ``qm`` as runmqsc would run it (in a worker thread: channel
    commands wait for the channel initiator's reply)."""
    proc = MQSCProcessor(qm.engine)
    return await trio.to_thread.run_sync(proc.execute_text, text)


def pcf_command(qm: QMgr, command: int, params: list) -> list:
    """One PCF request through ``qm``'s command server's dispatcher (as its MQI loop runs
    it); a blocking call (channel commands wait for the channel initiator's reply)."""
    from mqpy.cmdserver import CommandServer

    server = CommandServer(None, lambda: MQSCProcessor(qm.engine))
    return server.dispatch(pcf.PCFMessage(CFH(Command=command), params))


def chstatus(lines: list[str]) -> dict[str, str]:
    """The KEY(value) pairs of a DISPLAY CHSTATUS answer about one channel instance."""
    text = " ".join(lines)
    return {k: v.strip("' ") for k, v in re.findall(r"([A-Z]+)\(([^)]*)\)", text)}


def browse(qm: QMgr, q: str) -> list[bytes]:
    """What another application can see on ``q`` now (committed messages), without taking
    anything."""
    conn = qm.connect()
    out = []
    try:
        queue = mqpy.Queue(conn, q, CMQC.MQOO_BROWSE)
        opt = CMQC.MQGMO_BROWSE_FIRST
        while True:
            try:
                out.append(queue.get(None, mqpy.MD(), mqpy.GMO(Options=opt)))
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
            opt = CMQC.MQGMO_BROWSE_NEXT
    finally:
        conn.disconnect()
