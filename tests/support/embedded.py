"""A queue manager of this process under test, seen from outside: its engine, more
connections, MQSC, a clean stop, a start and a restart; and the fixture body that ends it at
teardown whatever the test did to it (restarts included); and the same for one whose command
server a test may start (``administered``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Protocol, TypeVar

import mqpy
from mqpy import inprocess
from mqpy.cmdserver import stop_command_server
from mqpy.mqsc.processor import MQSCProcessor


def mqsc_lines(processor: MQSCProcessor, text: str) -> list[str]:
    """The response lines of an MQSC script (no heading, echo or summary)."""
    lines, _ = processor.run_script(text, echo=False)
    return lines[4:-3]


class EmbeddedQMgr:
    """Queue manager ``name`` in data path ``root``, started (created unless ``create`` is
    false) and connected (``qm``) by the constructor."""

    def __init__(self, name: str, root: str, *, create: bool = True) -> None:
        self.name = name
        self.root = root
        self.qm = mqpy.embedded(name, data_path=root, create=create)

    @property
    def eng(self):
        eng = inprocess.running(self.name, self.root)
        assert eng is not None, f"queue manager {self.name} is not running"
        return eng

    def connect(self) -> mqpy.QueueManager:
        """Another MQCONN to the same running queue manager."""
        return mqpy.embedded(self.name, data_path=self.root)

    def mqsc(self, text: str) -> list[str]:
        """The response lines of an MQSC script run against the engine."""
        return mqsc_lines(MQSCProcessor(self.eng), text)

    def stop(self) -> None:
        """A clean stop (endmqm): units of work back out, a checkpoint is taken."""
        mqpy.stop_embedded(self.name, data_path=self.root)

    def start(self) -> mqpy.QueueManager:
        """A start (strmqm) of the existing queue manager; returns a fresh connection."""
        self.qm = mqpy.embedded(self.name, data_path=self.root, create=False)
        return self.qm

    def restart(self) -> mqpy.QueueManager:
        """A clean stop then a start; returns a fresh connection."""
        self.stop()
        return self.start()


class Named(Protocol):
    """What ends a queue manager of this process: its name and data path."""

    name: str
    root: str


Q = TypeVar("Q", bound=Named)


def ended_at_teardown(qmgr: Q) -> Iterator[Q]:
    """A fixture's body: ``qmgr``, its queue manager ended when the test is done (a no-op
    when the test left it stopped)."""
    try:
        yield qmgr
    finally:
        inprocess.stop(qmgr.name, qmgr.root)


@contextlib.contextmanager
def administered(name: str, root: str) -> Iterator[tuple[mqpy.QueueManager, object, str]]:
    """(connection, engine, data path) of embedded queue manager ``name``, whose command
    server a test may start; at the end the command server is stopped, the connection is
    dropped (unless the test did) and the queue manager is ended."""
    qm = mqpy.embedded(name, data_path=root)
    try:
        yield qm, inprocess.running(name, root), root
    finally:
        stop_command_server(name, root)
        try:
            qm.disconnect()
        except Exception:  # noqa: BLE001 - the test may have disconnected already
            pass
        mqpy.stop_embedded(name, data_path=root)
