"""The queue managers of this process as the queue manager's own code reaches them: the engines
of :mod:`mqpy.inprocess` (create, start, running, stop), and :func:`attach`, a pymqi-shaped
connection to one of them. It sits above the MQI (:mod:`mqpy.mqi`), which finds the running
engines in :mod:`mqpy.inprocess` itself.
"""

from __future__ import annotations

from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.inprocess import (
    QMgrLocked,
    create,
    is_locked,
    running,
    start,
    stop,
    stop_all,
)
from mqpy.inprocess import _engines as _engines  # the registry itself, for tests that reach it
from mqpy.mqi import QueueManager

__all__ = ["QMgrLocked", "attach", "create", "is_locked", "running", "start", "stop",
           "stop_all"]


def attach(engine: QueueManagerEngine) -> QueueManager:
    """A pymqi-shaped QueueManager connected to an engine of this process (the queue
    manager's own connection: not in an application's trace)."""
    qm = QueueManager(None)
    qm._conn = engine.connect()
    qm._name = engine.name
    return qm
