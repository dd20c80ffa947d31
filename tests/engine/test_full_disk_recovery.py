"""A full disk that is left again: once space is freed, checkpoints, puts and commits resume
without a restart, the error log names the real cause (ENOSPC, not EIO), and a restart
recovers exactly the committed messages.

The disk is full through the os layer of the module that writes (``pageset.os``,
``log.os``): no root, no small file system. A real one (a loop mount, as root) is the soak
test at the end."""

from __future__ import annotations

import errno
import os
import threading

import pytest

import mqpy
from mqpy import CMQC, config, inprocess
from mqpy.engine import datamgr, groupcommit, logfiles
from mqpy.engine import pageset as pageset_module
from tests.support import small_log

QM = "SPACEQM"


class _Space:
    """An ``os`` whose disk is full while ``full`` is set: the calls ``taking`` space fail
    ENOSPC (``posix_fallocate`` for a pageset; ``pwrite`` and ``pwritev`` for the log, as on
    a file system that allocates even formatted blocks on write)."""

    def __init__(self, *taking: str) -> None:
        self.full = False
        self.taking = taking
        self.refused = 0

    def __getattr__(self, name: str):
        real = getattr(os, name)
        if name not in self.taking:
            return real

        def call(*args, **kwargs):
            if self.full:
                self.refused += 1
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real(*args, **kwargs)

        return call


@pytest.fixture
def root(tmp_path):
    small_log.start(QM, str(tmp_path))
    yield str(tmp_path)
    inprocess.stop_all()


def _errlog(root: str) -> str:
    path = os.path.join(config.qmgr_dir(QM, root), "errors", "AMQERR01.LOG")
    return open(path).read() if os.path.exists(path) else ""


def _put(q, data: bytes) -> None:
    q.put(data, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))


def test_a_pageset_the_full_disk_refuses_says_enospc_and_takes_checkpoints_once_freed(
        root, monkeypatch):
    """Given pagesets on a full disk, when persistent puts fill the log, then checkpoints
    fail with AMQ7002S naming "No space left on device" (not an I/O error), and the call
    that finds the log full gets 2102; once space is freed, puts and gets work again in the
    same process, and a restart finds exactly the messages acknowledged."""
    disk = _Space("posix_fallocate")
    monkeypatch.setattr(pageset_module, "os", disk)
    qm = mqpy.embedded(QM, data_path=root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    disk.full = True
    queued = []
    with pytest.raises(mqpy.MQMIError) as exc:
        for i in range(600):  # 2 KB each: more than the whole log (4 segments of 64 KB)
            data = b"%04d" % i + b"d" * 2000
            _put(q, data)
            queued.append(data)
    assert exc.value.reason == CMQC.MQRC_RESOURCE_PROBLEM
    assert disk.refused
    text = _errlog(root)
    assert "AMQ7002S" in text and os.strerror(errno.ENOSPC) in text
    assert os.strerror(errno.EIO) not in text
    disk.full = False  # space freed
    _put(q, b"after")
    queued.append(b"after")
    assert q.get() == queued.pop(0)
    qm.disconnect()
    inprocess.stop_all()
    inprocess.start(QM, root)
    assert small_log.contents(mqpy.embedded(QM, data_path=root)) == queued


@pytest.fixture
def log_disk(monkeypatch):
    disk = _Space("pwrite", "pwritev")
    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", disk)
    monkeypatch.setattr(datamgr, "SPACE_WAIT", 0.5)
    return disk


def test_a_commit_whose_log_write_finds_the_disk_full_completes_once_space_is_freed(
        root, log_disk):
    """Given a unit of work with persistent puts, when its commit's log write finds the disk
    full (ENOSPC) and space is freed 0.3 seconds later, then the commit completes (its write
    tried again, not the queue manager stopped: no AMQ6119S, AMQ6708E instead), later puts
    work, and a restart finds exactly the committed messages."""
    qm = mqpy.embedded(QM, data_path=root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT)
    pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    for data in (b"one", b"two"):
        q.put(data, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT), pmo)
    log_disk.full = True
    threading.Timer(0.3, lambda: setattr(log_disk, "full", False)).start()
    qm.commit()
    assert log_disk.refused
    _put(q, b"three")
    text = _errlog(root)
    assert "AMQ6708E" in text and "AMQ6119S" not in text
    qm.disconnect()
    inprocess.stop_all()
    inprocess.start(QM, root)
    assert small_log.contents(mqpy.embedded(QM, data_path=root)) == [b"one", b"two", b"three"]


def test_puts_get_2102_while_the_log_disk_stays_full_and_resume_once_it_is_freed(
        root, log_disk):
    """Given a full disk under the log, when a persistent put's write is refused for longer
    than the retry lasts, then that put gets MQRC_CONNECTION_BROKEN (its outcome unknown:
    the message is on the queue, its record kept), the next puts get MQRC_RESOURCE_PROBLEM
    (2102) at once with nothing appended; once space is freed, puts resume without a restart,
    the kept record is written first, and a restart finds what the queue held before it."""
    qm = mqpy.embedded(QM, data_path=root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    _put(q, b"before")
    log_disk.full = True
    with pytest.raises(mqpy.MQMIError) as exc:
        _put(q, b"unknown")
    assert exc.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    for _ in range(3):
        with pytest.raises(mqpy.MQMIError) as exc:
            _put(q, b"refused")
        assert exc.value.reason == CMQC.MQRC_RESOURCE_PROBLEM
    log_disk.full = False
    _put(q, b"after")
    held = small_log.contents(qm)
    assert held == [b"before", b"unknown", b"after"]
    assert inprocess.running(QM, root).failed is None
    qm.disconnect()
    inprocess.stop_all()
    inprocess.start(QM, root)
    assert small_log.contents(mqpy.embedded(QM, data_path=root)) == held
