"""Embedded mode's entry points: a queue manager run inside the calling process.

``mqpy.embedded(name)`` and ``mqpy.stop_embedded(name)`` (loaded on first use by
:mod:`mqpy`, so that a bindings or client application never loads the engine) start or join
the process's engine (:mod:`mqpy.inprocess`) and connect to it through :mod:`mqpy.mqi`.
"""

from __future__ import annotations

from mqpy import inprocess
from mqpy.mqi import QueueManager, _connect_engine


def embedded(name: str, *, data_path: str | None = None, create: bool = True) -> QueueManager:
    """Start (or join) queue manager ``name`` inside this process and connect to it."""
    eng = inprocess.start(name, data_path, create_if_missing=create)
    qm = QueueManager(None)
    qm._conn = _connect_engine(eng)
    qm._name = eng.name
    qm._embedded = True
    return qm


def stop_embedded(name: str, *, data_path: str | None = None) -> None:
    """End an embedded queue manager: open units of work back out, a checkpoint is taken."""
    inprocess.stop(name, data_path)
