"""What a separate channel-initiator process reads and changes in its queue manager, as an
ordinary MQI application: MQSC commands through the command server (SYSTEM.ADMIN.COMMAND.QUEUE),
every value in them quoted (``mqpy.mqsc.writer``), and their DISPLAY replies read back into
attribute dictionaries (``mqpy.mqsc.display.parse_objects``, here ``parse_display``).
"""

from __future__ import annotations

import threading

import mqpy
from mqpy import CMQC
from mqpy.mqsc.client import MQSCClient
from mqpy.mqsc.display import parse_objects as parse_display
from mqpy.mqsc.parser import MQSCCommand, parse_command
from mqpy.mqsc.writer import command_text


class MQSCAdmin:
    """The channel initiator's view of its queue manager, through the command server."""

    def __init__(self, qm: mqpy.QueueManager, wait: float = 30.0) -> None:
        self._lock = threading.Lock()
        self._client = MQSCClient(qm, wait=wait)
        self._qm = qm

    def channel_decision(self, query: dict[str, object]) -> dict[str, object]:
        """The CHLAUTH decision, straight from the queue manager (SPI over bindings)."""
        return self._qm.connection().channel_decision(query)

    def run(self, text: str) -> tuple[bool, list[str]]:
        cmd = parse_command(text)
        if not isinstance(cmd, MQSCCommand):
            return False, cmd.lines()
        with self._lock:
            result = self._client.execute(cmd)
        return result.ok, result.lines

    def _display(self, text: str) -> list[dict[str, object]]:
        ok, lines = self.run(text)
        return parse_display(lines) if ok else []

    def display(self, text: str) -> list[dict[str, object]]:
        return self._display(text)

    def channel(self, name: str) -> dict[str, object] | None:
        """The definition of channel ``name`` exactly: a name that is a pattern (a partner
        may send ``SYSTEM.*``) names no channel, as the queue manager's own lookup says."""
        found = self._display(command_text("DISPLAY", "CHANNEL", name, flags=["ALL"]))
        return next((d for d in found if str(d.get("CHANNEL")) == name), None)

    def channels(self) -> dict[str, dict[str, object]]:
        return {str(d.get("CHANNEL")): d for d in self._display("DISPLAY CHANNEL(*) ALL")}

    def listeners(self) -> list[dict[str, object]]:
        return self._display("DISPLAY LISTENER(*) ALL")

    def alter_queue(self, name: str, attributes: dict[str, object]) -> None:
        params = {k: v for k, v in attributes.items() if k != "TRIGGER"}
        flags = [("TRIGGER" if v == "YES" else "NOTRIGGER")
                 for k, v in attributes.items() if k == "TRIGGER"]
        ok, lines = self.run(command_text("ALTER", "QLOCAL", name, params, flags))
        if not ok:
            raise mqpy.MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_UNEXPECTED_ERROR)

    def queue_attribute(self, name: str, key: str) -> object:
        found = self._display(command_text("DISPLAY", "QLOCAL", name, flags=[key]))
        if not found:
            return None
        value = found[0].get(key)
        if key == "TRIGGER":
            return "YES" if value is True else "NO" if found[0].get("NOTRIGGER") else value
        return value

    def qmgr_attribute(self, key: str) -> object:
        found = self._display(command_text("DISPLAY", "QMGR", flags=[key]))
        return found[0].get(key) if found else None

    def define_channel(self, name: str, like: str, attributes: dict[str, object]) -> None:
        """DEFINE CHANNEL(name) LIKE(like) with ``attributes``, every value quoted (a
        description may hold what a partner sent)."""
        ok, lines = self.run(command_text("DEFINE", "CHANNEL", name,
                                          {"LIKE": like, **attributes}))
        if not ok:
            raise mqpy.MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_UNEXPECTED_ERROR)

    def close(self) -> None:
        self._client.close()
