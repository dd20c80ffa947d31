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
import importlib
import os
import re
import sys
from typing import Any

__all__ = ["CLIENT_HOST", "CLUSTER_DIRECTORY", "GROUP", "find"]

#: the entry-point group the queue manager's extensions are named in
GROUP = "mqpy.queue_manager"
#: the engine's cluster directory: called with the queue-manager directory
CLUSTER_DIRECTORY = "cluster_directory"
#: the FASTPATH client host module (its ``ClientHost`` and ``SOCKET_NAME``)
CLIENT_HOST = "client_host"


#: an entry point's value: ``module[:attribute.path] [extras]``
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?(\[.*\]\s*)?$")


@functools.cache
def find(name: str) -> Any:
    """The object named ``name`` in :data:`GROUP`, loaded; None when none is installed."""
    value = _declared().get(name)
    if value is None:
        return None
    match = _VALUE.match(value)
    if match is None:
        return None
    found = importlib.import_module(match["module"])
    for attr in (match["attr"] or "").split(".") if match["attr"] else ():
        found = getattr(found, attr)
    return found


# The entry points are read here, as importlib.metadata reads them (each distribution's
# entry_points.txt on sys.path, the first distribution of a name winning), rather than with
# it: importlib.metadata imports email, zipfile, csv and json, a twentieth of the daemon's
# start, for these few lines of text.
@functools.cache
def _declared() -> dict[str, str]:
    """name -> value of the entry points of :data:`GROUP` in the installed distributions."""
    declared: dict[str, str] = {}
    seen: set[str] = set()
    for base in sys.path:
        try:
            entries = os.listdir(base or ".")
        except OSError:
            continue
        for entry in entries:
            stem, _, kind = entry.rpartition(".")
            distribution = re.sub(r"[-_.]+", "_", stem.partition("-")[0]).lower()
            if kind not in ("dist-info", "egg-info") or distribution in seen:
                continue
            seen.add(distribution)
            for key, value in _section(os.path.join(base, entry, "entry_points.txt")):
                declared.setdefault(key, value)
    return declared


def _section(path: str) -> list[tuple[str, str]]:
    """The ``name = value`` lines of the :data:`GROUP` section of an entry_points.txt."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    pairs, section = [], None
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == GROUP and "=" in line:
            key, _, value = line.partition("=")
            pairs.append((key.strip(), value.strip()))
    return pairs
