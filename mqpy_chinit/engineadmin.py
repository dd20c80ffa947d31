"""The channel initiator's view of a queue manager running in its own process (embedded
mode, the daemon's client host, tests): the ``Admin`` of ``chinit.py`` answered by calling
the engine directly, where a separate channel-initiator process asks the command server
(``admin.MQSCAdmin``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mqpy
from mqpy import channelcommands
from mqpy.mqsc.display import parse_objects
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.security.policy import channel_decision

if TYPE_CHECKING:
    from mqpy.engine.qmgr import QueueManagerEngine


class EngineAdmin:
    """Admin for a queue manager running in this process (embedded mode, tests)."""

    def __init__(self, engine: QueueManagerEngine) -> None:
        self.engine = engine

    def command_key(self) -> bytes:
        """The queue manager's channel-command key (``mqpy.channelcommands``)."""
        return channelcommands.command_key(self.engine.qmdir)

    def channel(self, name: str) -> dict[str, object] | None:
        obj = self.engine.lookup("CHANNEL", name)
        return dict(obj.attributes) if obj is not None else None

    def channels(self) -> dict[str, dict[str, object]]:
        with self.engine.lock:
            return {o.name: dict(o.attributes) for o in self.engine.catalog.by_type("CHANNEL")}

    def alter_queue(self, name: str, attributes: dict[str, object]) -> None:
        self.engine.alter("QLOCAL", name, attributes)

    def queue_attribute(self, name: str, key: str) -> object:
        obj = self.engine.lookup("QLOCAL", name)
        return obj.attributes.get(key) if obj is not None else None

    def qmgr_attribute(self, key: str) -> object:
        return self.engine.catalog.qmgr.get(key)

    def channel_decision(self, query: dict[str, object]) -> dict[str, object]:
        return channel_decision(self.engine, query)

    def connect_for(self, security: Any, appl: str = "") -> mqpy.QueueManager:
        """MQCONN as ``security`` says (the engine's policy checks it), for a client."""
        qm = mqpy.QueueManager(None)
        qm._conn = self.engine.connect(appl or None, **security.connect_args(None))
        qm._name = self.engine.name
        return qm

    def connect_as(self, appl: str) -> mqpy.QueueManager:
        """MQCONN as this process, under application name ``appl`` (a receiving MCA's)."""
        qm = mqpy.QueueManager(None)
        qm._conn = self.engine.connect(appl)
        qm._name = self.engine.name
        return qm

    def define_channel(self, name: str, like: str, attributes: dict[str, object]) -> None:
        self.engine.define("CHANNEL", name, attributes, like=like)

    def display(self, text: str) -> list[dict[str, object]]:
        """An MQSC DISPLAY, parsed (as MQSCAdmin answers it through the command server)."""
        result = MQSCProcessor(self.engine).execute_text(text)
        return parse_objects(result.lines) if result.ok else []

