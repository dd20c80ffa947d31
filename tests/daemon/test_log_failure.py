"""A queue manager whose log cannot be written ends itself: "Ended unexpectedly", AMQ6119S.

The daemon runs in this process here (its event loop in the main thread, where signals can
reach it), so the log's view of ``os`` can be made to fail as a broken disk would.
"""

from __future__ import annotations

import errno
import os
import signal
import threading
import time

import pytest

import mqpy
from mqpy import CMQC, cmdserver, config, daemon, errorlog, inprocess, qmstatus
from mqpy.engine import groupcommit, logfiles


class _FailingDisk:
    def __init__(self) -> None:
        self.broken = False

    def __getattr__(self, name: str):
        real = getattr(os, name)
        # (pwritev: a round of the log writes and syncs in one call where it can)
        if name in ("pwrite", "pwritev") and self.broken:
            def fail(*_args):
                raise OSError(errno.EIO, os.strerror(errno.EIO))
            return fail
        return real


def test_a_log_write_failure_ends_the_queue_manager_unexpectedly(tmp_path, monkeypatch):
    """Given a running queue manager, when its log device fails under a persistent put, then
    the put gets MQRC_CONNECTION_BROKEN (2009), the queue manager ends by itself with
    AMQ6119S then AMQ8004I in its error log, dspmq's status is "Ended unexpectedly" and the
    daemon's exit status is 71; a restart finds the messages acknowledged before."""
    root = str(tmp_path)
    monkeypatch.setenv("MQPY_NO_CHINIT", "1")
    inprocess.create("FAILQM", root)
    eng = inprocess.start("FAILQM", root)
    eng.define("QLOCAL", "Q", {})
    inprocess.stop("FAILQM", root)
    disk = _FailingDisk()
    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", disk)
    qmdir = config.qmgr_dir("FAILQM", root)
    seen: dict[str, object] = {}

    def application() -> None:
        try:
            deadline = time.monotonic() + 30  # until the daemon serves, command server included
            key = cmdserver._key("FAILQM", root)
            while key not in cmdserver._servers and time.monotonic() < deadline:
                time.sleep(0.05)
            qm = mqpy.QueueManager(None)
            qm.connect("FAILQM", data_path=root)
            q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT)
            q.put(b"kept", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
            disk.broken = True
            try:
                q.put(b"not acknowledged", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
            except mqpy.MQMIError as e:
                seen["reason"] = e.reason
        finally:
            time.sleep(10)  # the queue manager should have ended by now; if not, end it
            if "status" not in seen:
                os.kill(os.getpid(), signal.SIGTERM)

    app = threading.Thread(target=application, daemon=True)
    app.start()
    log = errorlog.ErrorLog(os.path.join(qmdir, "errors"), qmgr="FAILQM")
    status = daemon._run("FAILQM", root, qmdir, log, daemon._Console(None))
    seen["status"] = status
    assert seen.get("reason") == CMQC.MQRC_CONNECTION_BROKEN
    assert status == daemon.EXIT_UNEXPECTED
    assert qmstatus.read_status(qmdir) == "Ended unexpectedly"
    ids = [e.msgid for e in errorlog.read_entries(os.path.join(qmdir, "errors"))]
    assert "AMQ6119S" in ids and ids.index("AMQ6119S") < ids.index("AMQ8004I")
    disk.broken = False
    inprocess.start("FAILQM", root)
    qm = mqpy.embedded("FAILQM", data_path=root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_INPUT_AS_Q_DEF)
    assert q.get() == b"kept"
    with pytest.raises(mqpy.MQMIError):
        q.get()
    inprocess.stop_all()
