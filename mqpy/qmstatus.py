"""The queue manager's recorded state (``qm.status`` in its directory, written by the daemon,
read by dspmq), and a child process's exit status as an operator reads it (strmqm)."""

from __future__ import annotations

import os
import signal

from mqpy import filemodes

STATUS_FILE = "qm.status"


#: the state a controlled end (endmqm -c, -w) records as it begins, until the queue manager
#: has ended (dspmq's "Quiescing"); a bindings application's event handler is told of it
#: (``mqpy.asyncconsume``)
QUIESCING = "Quiescing"


def write_status(qmdir: str, status: str) -> None:
    """Record the queue manager's state for dspmq (atomic replace; not fsynced)."""
    tmp = os.path.join(qmdir, STATUS_FILE + ".tmp")
    try:
        with filemodes.open_file(tmp, "w", encoding="utf-8") as f:
            f.write(status + "\n")
        os.replace(tmp, os.path.join(qmdir, STATUS_FILE))
    except OSError:
        pass  # dspmq shows less; the queue manager itself is unaffected


def read_status(qmdir: str) -> str | None:
    try:
        with open(os.path.join(qmdir, STATUS_FILE), encoding="utf-8") as f:
            return f.read().strip() or None
    except OSError:
        return None


def quiescing(qmdir: str) -> bool:
    """Whether the queue manager whose directory is ``qmdir`` records a controlled end
    begun (False when its status cannot be read)."""
    return read_status(qmdir) == QUIESCING


def describe_status(returncode: int) -> str:
    """A child's ``returncode`` as an operator reads it: ``status 20``, or ``signal 9,
    SIGKILL`` for a process a signal ended (Popen's negative status; a shell shows 256
    minus it)."""
    if returncode >= 0:
        return f"status {returncode}"
    try:
        return f"signal {-returncode}, {signal.Signals(-returncode).name}"
    except ValueError:
        return f"signal {-returncode}"


#: ``endmqm -r`` writes it before it signals the queue manager (and a plain endmqm removes
#: it): the reconnectable clients are to reconnect. The daemon takes it when it ends.
END_RECONNECT_FILE = "qm.endreconnect"
#: the daemon's word to the client channel instances that run outside it (runmqchi's,
#: runmqlsr's: ``mqpy_chinit.svrconn.watch_qmgr_end``): "QUIESCING <how>" as a controlled
#: end begins, "ENDING <how>" as it ends, <how> QUIESCE (clients told the queue manager
#: ends) or RECONNECT (endmqm -r); removed as the daemon starts
CLIENTS_FILE = "qm.clients"
#: the daemon writes it before it ends its channel initiator: the queue manager ends, and
#: the channel initiator's clients are told so ("QUIESCE") or to reconnect ("RECONNECT")
CLIENTS_END_FILE = "chinit.clientsend"


def write_flag(qmdir: str, name: str, value: str | None) -> None:
    """A one-word file ``name`` in ``qmdir`` saying ``value``; None: removed."""
    path = os.path.join(qmdir, name)
    try:
        if value is None:
            os.unlink(path)
        else:  # whole or not at all, for a reader woken by its change
            with filemodes.open_file(path + ".tmp", "w", encoding="utf-8") as f:
                f.write(value + "\n")
            os.replace(path + ".tmp", path)
    except OSError:
        pass  # (none to remove; or the directory refuses: the default end is told)


def read_flag(qmdir: str, name: str) -> str | None:
    """What :func:`write_flag` wrote, the file left; None without one."""
    try:
        with open(os.path.join(qmdir, name), encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


def take_flag(qmdir: str, name: str) -> str | None:
    """What :func:`write_flag` wrote, the file removed; None without one."""
    path = os.path.join(qmdir, name)
    try:
        with open(path, encoding="utf-8") as f:
            value = f.read().strip()
        os.unlink(path)
    except OSError:
        return None
    return value
