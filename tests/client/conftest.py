"""One queue manager with its channel initiator listening on 127.0.0.1 (port 0), serving
SVRCONN channels, in a trio loop on a background thread; the tests are ordinary (blocking)
pymqi-style programs, as client applications are."""

from __future__ import annotations

import functools
import pathlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import trio

import mqpy
from mqpy import CMQC, inprocess
from mqpy_chinit import svrconn
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.engineadmin import EngineAdmin
from tests.support.waiting import came_true as wait_for  # noqa: F401 - the client tests import it from here

QMGR = "QM1"
CHANNEL = "APP.SVRCONN"
QUEUE = "APP.Q"



class ChinitThread:
    """A ChannelInitiator with ``svrconn.serve_client`` as its SVRCONN handler."""

    def __init__(self, name: str, root: str, engine: Any) -> None:
        self.name, self.root, self.engine = name, root, engine
        self.log: list[tuple[str, str]] = []
        self.port = 0
        self.chinit: ChannelInitiator | None = None
        self._token: Any = None
        self._scope: trio.CancelScope | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)

    def connect_qm(self) -> mqpy.QueueManager:
        return mqpy.embedded(self.name, data_path=self.root, create=False)

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        chinit = ChannelInitiator(self.name, self.connect_qm, EngineAdmin(self.engine),
                                  log=lambda msgid, text: self.log.append((msgid, text)))
        chinit.svrconn_handler = svrconn.serve_client
        self.chinit = chinit
        with trio.CancelScope() as scope:
            self._scope = scope
            async with trio.open_nursery() as nursery:
                await nursery.start(functools.partial(chinit.run, [("127.0.0.1", 0)]))
                self.port = chinit.ports[0]
                self._started.set()
        self._started.set()

    def start(self) -> ChinitThread:
        self._thread.start()
        assert self._started.wait(10), "channel initiator did not start"
        return self

    def stop(self) -> None:
        if self._thread.is_alive() and self._scope is not None:
            try:
                trio.from_thread.run_sync(self._scope.cancel, trio_token=self._token)
            except trio.RunFinishedError:  # it ended since is_alive (another stop's doing)
                pass
            self._thread.join(10)

    def run_sync(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` in the channel initiator's trio thread (to read its state safely)."""
        return trio.from_thread.run_sync(fn, trio_token=self._token)

    def messages(self, msgid: str) -> list[str]:
        return [text for mid, text in list(self.log) if mid == msgid]

    def svrconn_statuses(self, channel: str = CHANNEL) -> list[dict[str, object]]:
        assert self.chinit is not None
        return self.run_sync(lambda: [
            s.as_mqsc() for s in self.chinit.statuses.values()
            if s.channel == channel and s.chltype == "SVRCONN"])


class Env:
    """The queue manager, its channel initiator and ways to connect to it."""

    def __init__(self, name: str, root: str, engine: Any, chinit: ChinitThread) -> None:
        self.name, self.root, self.engine, self.chinit = name, root, engine, chinit

    @property
    def conn_info(self) -> str:
        return f"127.0.0.1({self.chinit.port})"

    def define(self, objtype: str, name: str, **attributes: object) -> None:
        self.engine.define(objtype, name, attributes, replace=True)

    def client(self, channel: str = CHANNEL, qmgr: str = QMGR, **cd_fields: Any
               ) -> mqpy.QueueManager:
        """A pymqi client connection (``connect_tcp_client``) with the given MQCD fields."""
        qm = mqpy.QueueManager(None)
        cd = mqpy.CD(**cd_fields)
        qm.connect_tcp_client(qmgr, cd, channel, self.conn_info)
        return qm

    def bindings(self) -> mqpy.QueueManager:
        qm = mqpy.QueueManager(None)
        qm.connect(self.name, data_path=self.root)
        return qm

    def depth(self, q: str = QUEUE) -> int:
        return self.engine.queue_status(q)["CURDEPTH"]

    def uncommitted(self, q: str = QUEUE) -> object:
        return self.engine.queue_status(q)["UNCOM"]


@pytest.fixture
def env(tmp_path, monkeypatch) -> Iterator[Env]:
    yield from env_in(tmp_path, monkeypatch)


def env_in(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    """``env``'s body, for a fixture of another scope: QM1 made in ``tmp_path``."""
    for var in ("MQSERVER", "MQCCDTURL", "MQ_CONNECT_TYPE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MQPY_DATA_PATH", str(tmp_path / "elsewhere"))
    root = str(tmp_path / QMGR)
    inprocess.create(QMGR, root, dead_letter_queue="SYSTEM.DEAD.LETTER.QUEUE")
    engine = inprocess.start(QMGR, root)
    engine.define("CHANNEL", CHANNEL, {"CHLTYPE": "SVRCONN"})
    engine.define("QLOCAL", QUEUE, {"MAXDEPTH": 100000})
    engine.define("QLOCAL", "APP.REPLY", {})
    chinit = ChinitThread(QMGR, root, engine).start()
    try:
        yield Env(QMGR, root, engine, chinit)
    finally:
        chinit.stop()
        inprocess.stop_all()


def drain_site(site, q: str = QUEUE) -> list[bytes]:
    """``q``'s messages on ``site``'s queue manager, got (and so removed) through bindings."""
    qm = site.bindings()
    try:
        return drain(qm, q)
    finally:
        qm.disconnect()


def drain(qm: mqpy.QueueManager, q: str = QUEUE) -> list[bytes]:
    queue = mqpy.Queue(qm, q, CMQC.MQOO_INPUT_AS_Q_DEF)
    out = []
    try:
        while True:
            out.append(queue.get())
    except mqpy.MQMIError as e:
        assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    queue.close()
    return out
