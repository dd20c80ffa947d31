"""Fixtures for the outside-in message-channel behaviour suite.

Queue managers run embedded in this process, each with its own in-process channel initiator
(as in tests/channels); a :class:`TapProxy` between them records every segment and can go
silent or hang, which the FaultProxy of tests/channels cannot (it only cuts).
"""

from __future__ import annotations

import inspect
import re
import time

import attrs
import pytest
import trio

import mqpy
from mqpy import CMQC, config, inprocess
from mqpy.channelcommands import INITQ
from mqpy.fap.framing import SegmentReader
from mqpy.mqsc.processor import MQSCProcessor
from mqpy_chinit.chinit import ChannelInitiator, EngineAdmin
from mqpy_chinit.states import ChannelState
from tests.support.qmgr import QMgr
from tests.support.waiting import wait_until

__all__ = ["CHANNEL", "DLQ", "Running", "finish", "TapProxy", "browse", "chstatus", "define_pair", "mqsc",
           "start_chinit", "wait_until", "QMgr", "ChannelState"]

CHANNEL = "QM1.TO.QM2"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


@pytest.fixture
def make_qmgr(tmp_path):
    """make_qmgr(name, dlq=True, channels=None) -> QMgr: a fresh embedded queue manager
    (with SYSTEM.DEAD.LETTER.QUEUE as its DLQ unless dlq=False; ``channels`` is qm.ini's
    Channels stanza)."""
    def make(name: str, dlq: bool = True, channels: dict[str, str] | None = None) -> QMgr:
        root = str(tmp_path / name)
        cfg = None
        if channels is not None:
            cfg = config.QMgrConfig(name, "", channels=channels)
        inprocess.create(name, root, dead_letter_queue=DLQ if dlq else "", cfg=cfg)
        return QMgr(name, root, inprocess.start(name, root))
    yield make
    inprocess.stop_all()


@pytest.fixture
def qm1(make_qmgr) -> QMgr:
    return make_qmgr("QM1")


@pytest.fixture
def qm2(make_qmgr) -> QMgr:
    return make_qmgr("QM2")


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


@pytest.fixture(autouse=True)
def _forget_live():
    _live.clear()
    yield
    _live.clear()


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


# ---------------------------------------------------------------------------- the proxy


@attrs.define
class Segment:
    direction: str  # "s2r" caller to responder, "r2s" back
    seg_type: int
    data: bytes
    at: float
    forwarded: bool = True


class TapProxy:
    """A TCP proxy that records every segment (parsed by TSH length only) and can

    - ``silent = True``: swallow caller-to-responder traffic, sockets left open (a partner
      gone quiet, a hung network);
    - ``hang()``: close the caller's side of every current connection but keep the
      responder's side open and mute (the caller saw a failure, the responder never will);
    - ``policy(direction, seg_type, index) -> "pass" | "drop"``: drop single segments;
    - ``delays[(direction, seg_type)] = seconds``: hold such segments that long (a slow link).
    """

    def __init__(self, target_port: int, policy=None, local_address: str | None = None
                 ) -> None:
        self.target_port = target_port
        self.policy = policy or (lambda d, t, i: "pass")
        self.local_address = local_address
        self.port = 0
        self.segments: list[Segment] = []
        self.silent = False
        self.delays: dict[tuple[str, int], float] = {}  # (direction, type) -> seconds held
        self.connections = 0
        self.orphans_closed = 0  # hung connections whose responder closed its end
        self._hangs: list[trio.Event] = []

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self._handle, listeners)

    def hang(self) -> None:
        for ev in self._hangs:
            ev.set()
        self._hangs.clear()

    def of_type(self, seg_type: int, direction: str | None = None) -> list[Segment]:
        return [s for s in self.segments
                if s.seg_type == seg_type and direction in (None, s.direction)]

    def events(self, direction: str) -> list[object]:
        """The segments of one direction decoded into channel events."""
        reader = SegmentReader(1 << 20)
        out: list[object] = []
        for s in self.segments:
            if s.direction == direction:
                try:
                    out.extend(reader.feed(s.data))
                except Exception:  # a partial or exotic segment: not what we look for
                    reader = SegmentReader(1 << 20)
        return out

    async def _handle(self, client: trio.SocketStream) -> None:
        self.connections += 1
        try:
            server = await trio.open_tcp_stream("127.0.0.1", self.target_port,
                                                local_address=self.local_address)
        except OSError:
            await client.aclose()
            return
        hang = trio.Event()
        self._hangs.append(hang)
        ended = trio.Event()
        hung = [False]

        async def pump(src, dst, direction):
            buf, index = b"", 0
            try:
                while True:
                    data = await src.receive_some(65536)
                    if not data:
                        if direction == "r2s" and hung[0]:
                            self.orphans_closed += 1
                        break
                    buf += data
                    while len(buf) >= 8 and len(buf) >= int.from_bytes(buf[4:8], "big"):
                        length = int.from_bytes(buf[4:8], "big")
                        seg, buf = buf[:length], buf[length:]
                        action = self.policy(direction, seg[9], index)
                        index += 1
                        forward = not (hung[0] or action == "drop"
                                       or (self.silent and direction == "s2r"))
                        self.segments.append(Segment(direction, seg[9], seg, time.monotonic(),
                                                     forward))
                        if forward:
                            delay = self.delays.get((direction, seg[9]))
                            if delay:
                                await trio.sleep(delay)
                            await dst.send_all(seg)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                if direction == "r2s" and hung[0]:
                    self.orphans_closed += 1
            ended.set()

        s2r_scope = trio.CancelScope()

        async def s2r():
            with s2r_scope:
                await pump(client, server, "s2r")

        async def watch_hang():
            await hang.wait()
            # the caller's side goes; the responder's stays open and hears nothing more
            hung[0] = True
            s2r_scope.cancel()
            with trio.CancelScope(shield=True):
                await client.aclose()

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(s2r)
                nursery.start_soon(pump, server, client, "r2s")
                nursery.start_soon(watch_hang)
                await ended.wait()
                nursery.cancel_scope.cancel()
        finally:
            if hang in self._hangs:
                self._hangs.remove(hang)
            for s in (client, server):
                with trio.CancelScope(shield=True):
                    await s.aclose()
