"""A queue manager of this process, with the channel initiator a test gives it: what the
channel tests put, get and define through."""

from __future__ import annotations

import attrs

import mqpy
from mqpy import CMQC
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.engineadmin import EngineAdmin


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
