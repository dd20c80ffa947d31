"""Failures that meet other work: a checkpoint whose own record the log refuses, a log
device that fails while a checkpoint holds its mutex, a log write that fails while forcers
wait. Each must keep every acknowledged message, answer with an MQ reason and never hang.
"""

from __future__ import annotations

import errno
import os
import threading

import pytest

import mqpy
from mqpy import CMQC, config, local
from mqpy.engine import log as log_module
from mqpy.engine.log import LogDiskFull, RecoveryLog
from mqpy.engine.records import RecordType


@pytest.fixture
def qm_root(tmp_path):
    root = str(tmp_path)
    cfg = config.QMgrConfig("FAILQM", config.qmgr_dir("FAILQM", root))
    cfg.log.LogFilePages = 16  # 64 KB segments
    cfg.log.LogPrimaryFiles = 3
    cfg.log.LogSecondaryFiles = 1
    local.create("FAILQM", root, cfg=cfg)
    eng = local.start("FAILQM", root)
    eng.define("QLOCAL", "Q", {"MAXDEPTH": 100000})
    yield root
    local.stop_all()


def _contents(qm) -> list[bytes]:
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_BROWSE)
    out = []
    gmo = mqpy.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)
    while True:
        try:
            out.append(q.get(None, mqpy.MD(), gmo))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out


def _put(q, data: bytes) -> None:
    q.put(data, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))


def _restart(root: str):
    local.stop_all()
    local.start("FAILQM", root)
    return mqpy.embedded("FAILQM", data_path=root)


def test_a_checkpoint_whose_record_the_full_disk_refuses_keeps_its_dirty_set(
        qm_root, monkeypatch):
    """Given committed persistent messages not yet on a pageset, when a checkpoint cannot
    append its own record (the record needs a new log segment and the disk is full:
    LogDiskFull), then that checkpoint fails without taking the dirty set, so the next
    checkpoint still writes the messages before it moves the redo point past their log
    records, and after a restart every acknowledged message is there."""
    qm = mqpy.embedded("FAILQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT)
    for data in (b"one", b"two"):
        _put(q, data)
    eng = local.running("FAILQM", qm_root)
    real_append = RecoveryLog.append
    full = {"on": True}

    def append(self, rtype, payload, **kwargs):
        if full["on"] and rtype == RecordType.CHECKPOINT:
            raise LogDiskFull(self.directory, "No space left on device")
        return real_append(self, rtype, payload, **kwargs)

    monkeypatch.setattr(RecoveryLog, "append", append)
    with pytest.raises(LogDiskFull):
        eng.data.checkpoint()
    full["on"] = False
    eng.data.checkpoint()  # the redo point moves past the puts' records
    qm.disconnect()
    assert _contents(_restart(qm_root)) == [b"one", b"two"]
