"""Two queue managers in one process, each with its channel initiator, for channel tests."""

from __future__ import annotations

import os

import attrs
import pytest

import mqpy
from mqpy import CMQC, local
from mqpy_chinit.chinit import ChannelInitiator, EngineAdmin


@attrs.define
class QMgr:
    name: str
    root: str
    engine: object
    chinit: ChannelInitiator | None = None
    log: list = attrs.Factory(list)

    def connect(self) -> mqpy.QueueManager:
        return mqpy.embedded(self.name, data_path=self.root, create=False)

    def define(self, objtype: str, name: str, **attributes: object) -> None:
        self.engine.define(objtype, name, attributes)

    def depth(self, q: str) -> int:
        return self.engine.queue_status(q)["CURDEPTH"]

    def committed(self, q: str) -> int:
        """Messages on ``q`` whose put is committed (CURDEPTH counts uncommitted puts too)."""
        st = self.engine.queue_status(q)
        return st["CURDEPTH"] - st["UNCOM"]

    def put(self, q: str, data: bytes, qmgr: str = "", persistent: bool = True,
            **md_fields: object) -> mqpy.MD:
        qm = self.connect()
        try:
            md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT if persistent
                         else CMQC.MQPER_NOT_PERSISTENT, **md_fields)
            qm.put1(mqpy.OD(ObjectName=q.encode(), ObjectQMgrName=qmgr.encode()), data, md)
            return md
        finally:
            qm.disconnect()

    def drain(self, q: str) -> list[bytes]:
        qm = self.connect()
        out = []
        try:
            queue = mqpy.Queue(qm, q, CMQC.MQOO_INPUT_AS_Q_DEF)
            while True:
                try:
                    out.append(queue.get())
                except mqpy.MQMIError as e:
                    assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                    return out
        finally:
            qm.disconnect()

    def make_chinit(self, channels_stanza: dict[str, str] | None = None) -> ChannelInitiator:
        """``channels_stanza``: qm.ini's Channels: as runmqchi would pass it."""
        self.chinit = ChannelInitiator(self.name, self.connect, EngineAdmin(self.engine),
                                       log=lambda msgid, text: self.log.append((msgid, text)),
                                       channels_stanza=channels_stanza)
        return self.chinit


@pytest.fixture
def two_qmgrs(tmp_path):
    made = []
    for name in ("QM1", "QM2"):
        root = str(tmp_path / name)
        local.create(name, root, dead_letter_queue="SYSTEM.DEAD.LETTER.QUEUE")
        made.append(QMgr(name, root, local.start(name, root)))
    yield made
    local.stop_all()


@pytest.fixture
def site(tmp_path):
    from tests.support.installation import Installation

    inst = Installation(str(tmp_path))
    inst.env.pop("MQPY_NO_CHINIT", None)
    yield inst
    for name in ("QM1", "QM2"):
        inst.run("endmqm", "-i", name)
    for pid in inst.pids:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
