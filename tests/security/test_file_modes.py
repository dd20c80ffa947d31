"""A queue manager's files are its owner's and group's only (IBM MQ's "mqm group only" data:
files 0660, directories 0770): no message body, log record or error-log line is readable by
another local user, and strmqm refuses data that others may read or write."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import pytest

from mqpy import filemodes
from tests.support.installation import Installation

QM = "MODEQM"
_TRACE = ("import sys; from mqpy_cli import trace; "
          "getattr(trace, sys.argv[1]).main(args=sys.argv[2:], prog_name=sys.argv[1])")
_PUTS = ("import mqpy; from mqpy import CMQC\n"
         "qm = mqpy.QueueManager(None); qm.connect('{qm}')\n"
         "q = mqpy.Queue(qm, 'SYSTEM.DEFAULT.LOCAL.QUEUE', CMQC.MQOO_OUTPUT)\n"
         "for i in range(50):\n"
         "    q.put(b'secret %d' % i, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))\n"
         "qm.disconnect()\n")


@pytest.fixture
def install(tmp_path):
    inst = Installation(str(tmp_path / "data"))
    inst.env.pop("MQPY_NO_CHINIT")  # the channel initiator runs, and writes its files
    inst.env["MQPY_LOG_FILE_PAGES"] = "16"  # small segments: several, formatted ahead too
    try:
        yield inst
    finally:
        inst.kill_all()


def _others(root: str) -> list[str]:
    """Every path under ``root`` (itself included) with any bit for others."""
    out = []
    for directory, _dirs, files in os.walk(root):
        for path in [directory, *(os.path.join(directory, f) for f in files)]:
            mode = os.lstat(path).st_mode
            if not stat.S_ISLNK(mode) and mode & 0o007:
                out.append(f"{oct(stat.S_IMODE(mode))} {os.path.relpath(path, root)}")
    return out


def test_a_queue_managers_whole_tree_has_no_bit_for_others(install):
    """Given a process umask of 022 (files 0644 by default), when crtmqm, strmqm (with its
    channel initiator), 50 persistent puts over bindings traced by strmqtrc and endmqm -w
    have run, then no file or directory of the data path (qm.ini, mqs.ini, pagesets, log
    segments, errors/ with daemon.out and runmqchi.out, trace files, status and pid files)
    has a bit for other users, and the
    files holding messages are 0660 in 0770 directories."""
    old = os.umask(0o022)
    try:
        assert install.run("crtmqm", QM).returncode == 0
        install.start(QM)
        deadline = time.monotonic() + 30
        while install.chinit_pid(QM) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        for command in (["strmqtrc", "-m", QM], None, ["endmqtrc", "-a"]):
            args = ["-c", _PUTS.format(qm=QM)] if command is None else ["-c", _TRACE, *command]
            run = subprocess.run([sys.executable, *args], env=install.env,
                                 capture_output=True, text=True, timeout=60)
            assert run.returncode == 0, run.stderr
        assert install.run("endmqm", "-w", QM).returncode == 0
    finally:
        os.umask(old)
    qmdir = install.qmdir(QM)
    for name in ("daemon.out", "runmqchi.out", "AMQERR01.LOG"):
        assert os.path.exists(os.path.join(qmdir, "errors", name)), name
    traces = os.path.join(install.root, "trace")
    assert [n for n in os.listdir(traces) if n.endswith(".TRC")]  # (the daemon's, the app's)
    assert _others(install.root) == [], "\n".join(_others(install.root))
    for path in ("pageset01/data.mdb", "pageset01/index.mdb", "log/S0000000.LOG"):
        assert stat.S_IMODE(os.stat(os.path.join(qmdir, path)).st_mode) == filemodes.FILE_MODE
    for path in ("", "pageset01", "log", "errors"):
        assert stat.S_IMODE(os.stat(os.path.join(qmdir, path)).st_mode) == filemodes.DIR_MODE


def test_strmqm_refuses_a_pageset_file_others_can_read(install):
    """Given a created queue manager whose pageset00/data.mdb has been made 0644, when strmqm
    runs, then it exits 71 without starting, saying AMQ7001S and naming the file and its
    mode, and its error log says the same; made 0660 again, it starts."""
    assert install.run("crtmqm", QM).returncode == 0
    data = os.path.join(install.qmdir(QM), "pageset00", "data.mdb")
    os.chmod(data, 0o644)
    proc = install.run("strmqm", QM)
    assert proc.returncode == 71, proc.stdout + proc.stderr
    assert "AMQ7001S" in proc.stderr and data in proc.stderr and "0644" in proc.stderr
    assert install.pid(QM) is None or not os.path.exists(f"/proc/{install.pid(QM)}")
    with open(os.path.join(install.qmdir(QM), "errors", "AMQERR01.LOG")) as f:
        assert "AMQ7001S" in f.read()
    os.chmod(data, 0o660)
    install.start(QM)
