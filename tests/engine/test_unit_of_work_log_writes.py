"""A unit of work's log records stay in the log buffer until MQCMIT, which writes and forces
them once, as IBM MQ's log buffer does: a persistent MQPUT or MQGET in syncpoint makes no
system call on the log files, so it costs no more than a non-persistent one but for the
record's copy into the buffer. (That a crash before the commit's force loses only the
uncommitted work is tests/mqi/test_crash.py's.)"""

from __future__ import annotations

import os

import pytest

import mqpy
from mqpy import CMQC
from tests.support.embedded import EmbeddedQMgr, ended_at_teardown

PERSISTENT = CMQC.MQPER_PERSISTENT
SYNCPOINT_PUT = CMQC.MQPMO_SYNCPOINT
SYNCPOINT_GET = CMQC.MQGMO_SYNCPOINT


@pytest.fixture
def engine(tmp_path):
    for qmgr in ended_at_teardown(EmbeddedQMgr("UOWLOG", str(tmp_path))):
        qmgr.eng.define("QLOCAL", "Q", {})
        yield qmgr.eng


@pytest.fixture
def log_calls(monkeypatch):
    """The writes and syncs made on any file while the test runs, by name."""
    calls: list[str] = []
    for name in ("write", "pwrite", "pwritev", "writev", "fsync", "fdatasync"):
        real = getattr(os, name, None)
        if real is None:
            continue

        def counted(*args, _real=real, _name=name):
            calls.append(_name)
            return _real(*args)

        monkeypatch.setattr(os, name, counted)
    return calls


def _put(conn, hobj, n):
    for i in range(n):
        conn.put(hobj, mqpy.MD(Persistence=PERSISTENT), mqpy.PMO(Options=SYNCPOINT_PUT),
                 b"m%d" % i)


def test_persistent_puts_in_syncpoint_reach_the_log_file_only_at_commit(engine, log_calls):
    """Given a connection with a queue open for output, when it puts persistent messages in
    syncpoint, then nothing is written to the log until MQCMIT, and the commit writes and
    forces the unit of work's records once (one round of the group commit)."""
    conn = engine.connect("uow-log")
    hobj = conn.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_OUTPUT)
    log = engine.data.log
    forces, flushed = log.stats.forces, log.flushed_lsn
    del log_calls[:]
    _put(conn, hobj, 5)
    assert log_calls == []
    assert (log.stats.forces, log.flushed_lsn) == (forces, flushed)
    conn.commit()
    assert log.stats.forces == forces + 1
    assert log.flushed_lsn == log.end_lsn
    assert 1 <= len(log_calls) <= 2  # one write with RWF_DSYNC, or a write and an fdatasync


def test_persistent_gets_in_syncpoint_reach_the_log_file_only_at_commit(engine, log_calls):
    """Given committed persistent messages, when a connection gets them in syncpoint, then
    nothing is written to the log until MQCMIT, which forces the gets' records in one round."""
    conn = engine.connect("uow-log")
    hobj = conn.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    _put(conn, hobj, 3)
    conn.commit()
    log = engine.data.log
    forces = log.stats.forces
    del log_calls[:]
    for _ in range(3):
        conn.get(hobj, mqpy.MD(), mqpy.GMO(Options=SYNCPOINT_GET), 100)
    assert log_calls == []
    assert log.stats.forces == forces
    conn.commit()
    assert log.stats.forces == forces + 1
    assert 1 <= len(log_calls) <= 2
