"""How the queue manager creates files: for its owner and group only, nothing for others.

IBM MQ keeps a queue manager's data "mqm group only" (files 0660, directories 0770, owner and
group mqm): message bodies, the log and the error logs are never readable by other local users.
mqpy does the same:

- every file and directory of a queue manager (crtmqm's tree, pagesets, log segments, errors/
  and its FDC files, trace files, statistics written under the data path, qm.ini, mqs.ini,
  qm.status, the channel initiator's files) is created with an explicit mode, :data:`FILE_MODE`
  or :data:`DIR_MODE`, through :func:`makedirs` and :func:`open_file` or by passing the mode
  where a library takes one (LMDB's ``mode=``). Explicit, not left to the umask, because the
  engine also runs embedded in applications whose umask is theirs;
- the daemon, the channel initiator and the control commands set the umask :data:`UMASK` at
  start (:func:`restrict_umask`), so that what is created without a mode (a unix socket bound
  by trio, a file written by code that does not come through here) gets no bit for others
  either; their children (runmqchi, services) inherit it;
- a stricter mode chosen on purpose stays (the FASTPATH socket's 0600, the user store's 0600);
- ``strmqm`` refuses a queue manager whose data (directory, pagesets, log, errors) a user
  outside the group can read or write
  (:func:`exposed`, AMQ7001S in the daemon).
"""

from __future__ import annotations

import os
import stat
from typing import IO, Any

#: files: read and write for the owner and the group (IBM's mqm group), nothing for others
FILE_MODE = 0o660
#: directories: the same, with search
DIR_MODE = 0o770
#: the bits a process creating queue-manager files never gives: all of the others'
UMASK = 0o007
#: what strmqm refuses: data that others may read or write
_EXPOSED = stat.S_IROTH | stat.S_IWOTH

_FLAGS = {"w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC, "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
          "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL}


def restrict_umask() -> None:
    """Set this process's umask to :data:`UMASK`: the queue manager's modes are its own (as
    IBM MQ's are), not those of the shell that started it."""
    os.umask(UMASK)


def makedirs(path: str) -> None:
    """``os.makedirs(path, exist_ok=True)``, each directory it makes :data:`DIR_MODE` (the
    parents too: ``os.makedirs`` gives them the umask's mode)."""
    missing = []
    while path and not os.path.isdir(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, DIR_MODE)
        except FileExistsError:
            if not os.path.isdir(directory):
                raise


def open_file(path: str, mode: str = "w", **kwargs: Any) -> IO[Any]:
    """``open(path, mode)`` for writing ("w", "a", "x", with "b" for bytes), creating the file
    :data:`FILE_MODE`."""
    fd = os.open(path, _FLAGS[mode[0]], FILE_MODE)
    try:
        return os.fdopen(fd, mode, **kwargs)
    except BaseException:
        os.close(fd)
        raise


def exposed(qmdir: str, log_dir: str) -> list[tuple[str, int]]:
    """(path, permission bits) of the queue manager's data that users outside the owner and
    group may read or write: its directory, and every file and directory (links not
    followed) of its pagesets, its log and its errors directory. (Files an operator puts
    there, such as service.env, are the operator's.)"""
    roots = [os.path.join(qmdir, name) for name in sorted(os.listdir(qmdir))
             if name.startswith("pageset") or name == "errors"] if os.path.isdir(qmdir) else []
    found = _loose([qmdir])
    for root in [*roots, log_dir]:
        if os.path.isdir(root):
            for directory, _dirs, files in os.walk(root):  # (each directory once, no link)
                found += _loose([directory, *(os.path.join(directory, f) for f in files)])
    return list(dict.fromkeys(found))  # (a log directory inside the queue manager's: once)


def _loose(paths: list[str]) -> list[tuple[str, int]]:
    found = []
    for path in paths:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:  # (gone meanwhile: a temporary file)
            continue
        if not stat.S_ISLNK(mode) and mode & _EXPOSED:
            found.append((path, stat.S_IMODE(mode)))
    return found
