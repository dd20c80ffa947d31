"""A queue manager with a small log (64 KB segments, 4 of them) and queue Q, for the tests of
full logs and failing disks; and what Q holds, in order."""

from __future__ import annotations

import errno
import os

import mqpy
from mqpy import CMQC, config, inprocess


def start(name: str, root: str) -> None:
    cfg = config.QMgrConfig(name, config.qmgr_dir(name, root))
    cfg.log.LogFilePages = 16  # 64 KB segments
    cfg.log.LogPrimaryFiles = 3
    cfg.log.LogSecondaryFiles = 1
    inprocess.create(name, root, cfg=cfg)
    inprocess.start(name, root).define("QLOCAL", "Q", {"MAXDEPTH": 100000})


def contents(qm: mqpy.QueueManager) -> list[bytes]:
    """Every message on Q, browsed in order."""
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_BROWSE)
    out = []
    gmo = mqpy.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)
    while True:
        try:
            out.append(q.get(None, mqpy.MD(), gmo))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out


class FullDisk:
    """The log module's ``os`` on a full disk: no new segment file's contents can be
    written (monkeypatch the ``os`` of mqpy.engine.logfiles and groupcommit with one)."""

    def __getattr__(self, name):
        return getattr(os, name)

    @staticmethod
    def write(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
