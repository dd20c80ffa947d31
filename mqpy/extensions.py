"""Extension points: how the queue manager finds the pieces of a higher layer that run
inside its process, without importing that layer.

The channel initiator (``mqpy_chinit``) sits above the queue manager, yet two of its pieces
run in the queue manager's process: the reader of the cluster cache (the engine's
``ClusterDirectory``: ``mqpy.engine.cluster``) and the FASTPATH client host. The package that
provides them names them in its distribution's entry points, group :data:`GROUP`
(``pyproject.toml``); the queue manager asks for them by name here, and goes without them when
nothing is installed under that name (a queue manager with no channel initiator).
"""

from __future__ import annotations

import functools
from importlib.metadata import entry_points
from typing import Any

__all__ = ["CLIENT_HOST", "CLUSTER_DIRECTORY", "GROUP", "find"]

#: the entry-point group the queue manager's extensions are named in
GROUP = "mqpy.queue_manager"
#: the engine's cluster directory: called with the queue-manager directory
CLUSTER_DIRECTORY = "cluster_directory"
#: the FASTPATH client host module (its ``ClientHost`` and ``SOCKET_NAME``)
CLIENT_HOST = "client_host"


@functools.cache
def find(name: str) -> Any:
    """The object named ``name`` in :data:`GROUP`, loaded; None when none is installed."""
    for point in entry_points(group=GROUP, name=name):
        return point.load()
    return None
