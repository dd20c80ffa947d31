"""The queue managers running inside this process: the registry an MQCONN looks in first.

:mod:`mqpy.inprocess` creates, starts and stops them (and loads the engine to do so); this
module only knows which are running, so that a bindings or client application finds none
here without loading the engine.
"""

from __future__ import annotations

import fcntl
import os
import threading
from typing import TYPE_CHECKING

from mqpy import config

if TYPE_CHECKING:
    from mqpy.engine.qmgr import QueueManagerEngine

#: queue-manager directory -> (its engine, the descriptor holding its qm.lock)
ENGINES: dict[str, tuple[QueueManagerEngine, int]] = {}
#: held while ENGINES changes
LOCK = threading.Lock()


def is_locked(qmdir: str) -> bool:
    """True while some process holds the queue manager (it is running)."""
    path = os.path.join(qmdir, "qm.lock")
    if not os.path.exists(path):
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def running(name: str, root: str | None = None) -> QueueManagerEngine | None:
    """The engine of queue manager ``name`` running in this process, if it is."""
    ent = ENGINES.get(config.qmgr_dir(name, root))
    if ent is None or ent[0].stopped:
        return None
    return ent[0]
