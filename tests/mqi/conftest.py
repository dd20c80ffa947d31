"""Fixtures for the queue-manager engine behaviour suite: one queue manager per test.

Each test gets its own data path (``tmp_path``), so queue managers never share files, and the
engine is stopped at teardown whatever the test did to it (restarts included).
"""

from __future__ import annotations

import pytest

import mqpy
from mqpy import inprocess

# the three ways to connect (embedded, bindings of a daemon, client of its channel initiator)
from ._modes import connect, embedded, site  # noqa: F401

QM = "QM1"


class QMgrHarness:
    """The queue manager under test, seen from outside: connections, admin, restarts."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.qm = mqpy.embedded(QM, data_path=root)

    @property
    def eng(self):
        eng = inprocess.running(QM, self.root)
        assert eng is not None, "the queue manager is not running"
        return eng

    def connect(self) -> mqpy.QueueManager:
        """Another MQCONN to the same running queue manager."""
        return mqpy.embedded(QM, data_path=self.root)

    def define(self, name: str, attributes: dict | None = None, objtype: str = "QLOCAL"):
        return self.eng.define(objtype, name, attributes or {})

    def stop(self) -> None:
        mqpy.stop_embedded(QM, data_path=self.root)

    def start(self) -> mqpy.QueueManager:
        self.qm = mqpy.embedded(QM, data_path=self.root, create=False)
        return self.qm

    def restart(self) -> mqpy.QueueManager:
        """A clean stop (endmqm) then a start (strmqm); returns a fresh connection."""
        self.stop()
        return self.start()


@pytest.fixture
def qmgr(tmp_path):
    h = QMgrHarness(str(tmp_path))
    try:
        yield h
    finally:
        inprocess.stop(QM, h.root)


@pytest.fixture
def qm(qmgr):
    """A connection to a fresh queue manager that has local queue Q1."""
    qmgr.define("Q1")
    return qmgr.qm
