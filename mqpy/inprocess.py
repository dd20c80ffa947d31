"""Queue managers run inside this process (embedded mode), one engine per queue manager:
create (crtmqm), start, stop (:mod:`mqpy.localqmgrs` finds the running one).

An engine owns its directory: a lock file (``qm.lock``, held with ``flock``) keeps a second
process, or a second engine in this one, from ever opening the same pagesets and log. Every
``mqpy.embedded(name)`` in the process shares the one engine; :func:`stop` ends it. This module
knows engines, not the MQI: :mod:`mqpy.mqi` connects applications to them, and
:func:`mqpy.mqi.attach` gives the queue manager's own code a pymqi-shaped connection.
"""

from __future__ import annotations

import atexit
import fcntl
import os

from mqpy import CMQC, amqmsgs, config, errorlog, extensions, filemodes
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.errors import MQMIError
from mqpy.localqmgrs import ENGINES as _engines
from mqpy.localqmgrs import LOCK as _lock
from mqpy.localqmgrs import is_locked as is_locked
from mqpy.localqmgrs import running as running
from mqpy.trace import TRACER


class QMgrLocked(Exception):
    """Another process runs this queue manager."""


def _take_lock(qmdir: str) -> int:
    filemodes.makedirs(qmdir)
    fd = os.open(os.path.join(qmdir, "qm.lock"), os.O_RDWR | os.O_CREAT, filemodes.FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise QMgrLocked(qmdir) from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def create(name: str, root: str | None = None, *, dead_letter_queue: str = "",
           cfg: config.QMgrConfig | None = None, make_default: bool = False) -> None:
    """crtmqm: directory, qm.ini, pagesets, log, system objects; registered in mqs.ini."""
    qmdir = config.qmgr_dir(name, root)
    if os.path.exists(os.path.join(qmdir, "pageset00")):
        raise FileExistsError(name)
    cfg = cfg or config.QMgrConfig(name, qmdir)
    cfg.directory = qmdir
    cfg.save()
    for sub in ("errors", "log"):
        filemodes.makedirs(os.path.join(qmdir, sub))
    fd = _take_lock(qmdir)
    try:
        eng = QueueManagerEngine.create(qmdir, name, dead_letter_queue=dead_letter_queue,
                                        log_config=cfg.log, tuning=cfg.tuning,
                                        log_dir=cfg.log_dir)
        eng.close()
    finally:
        os.close(fd)
    config.register_qmgr(name, root, make_default=make_default)


def start(name: str, root: str | None = None, *, create_if_missing: bool = False
          ) -> QueueManagerEngine:
    """Start (restart) a queue manager's engine in this process, or return the running one."""
    qmdir = config.qmgr_dir(name, root)
    with _lock:
        running = _engines.get(qmdir)
        if running is not None and not running[0].stopped:
            return running[0]
        if not os.path.exists(os.path.join(qmdir, "pageset00")):
            if not create_if_missing:
                raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR)
            create(name, root)
        try:
            cfg = config.QMgrConfig.load(name, root)
        except config.ConfigError as e:  # the queue manager cannot start: AMQ8940E, 2059
            errorlog.ErrorLog(os.path.join(qmdir, "errors"), qmgr=name).write(
                amqmsgs.AMQ8940, inserts=e.inserts)
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE) from None
        try:
            fd = _take_lock(qmdir)
        except QMgrLocked:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE) from None
        try:
            eng = QueueManagerEngine.open(qmdir, name, cfg.log, cfg.tuning, cfg.log_dir)
        except BaseException:
            os.close(fd)
            raise
        eng.cluster = _cluster_directory(qmdir)
        _engines[qmdir] = (eng, fd)
    TRACER.watch()  # strmqtrc reaches this process's embedded connections (mqpy.tracedconn)
    return eng


def _cluster_directory(qmdir: str):
    """The engine's cluster directory (mqpy.engine.cluster): the channel initiator's cache
    reader, found through an extension point when a channel initiator is installed."""
    directory = extensions.find(extensions.CLUSTER_DIRECTORY)
    return directory(qmdir) if directory is not None else None


def stop(name: str, root: str | None = None) -> None:
    """End an embedded queue manager: open units of work back out, then a checkpoint."""
    qmdir = config.qmgr_dir(name, root)
    with _lock:
        ent = _engines.pop(qmdir, None)
    if ent is not None:
        eng, fd = ent
        try:
            eng.close()
        finally:
            os.close(fd)


def stop_all() -> None:
    with _lock:
        items = list(_engines.items())
        _engines.clear()
    for _qmdir, (eng, fd) in items:
        try:
            eng.close()
        finally:
            os.close(fd)


atexit.register(stop_all)

