"""Messages up to 100 MB (MAXMSGL's maximum): put, restart, get."""

from __future__ import annotations

import os

import mqpy
from mqpy import CMQC, config, inprocess

HUNDRED_MB = 100 * 1024 * 1024


def test_a_100_mb_persistent_message_survives_a_restart(tmp_path):
    """Given MAXMSGL(104857600) on the queue manager and the queue, when a 100 MB persistent
    message is put and committed, the queue manager restarted and the message got, then it
    comes back byte for byte; one byte more is refused with 2031.  spec:
    aliases-channels-storage 4.48"""
    root = str(tmp_path)
    cfg = config.QMgrConfig("BIGQM", config.qmgr_dir("BIGQM", root))
    cfg.log.LogFilePages = 16384  # 64 MB segments: a 100 MB record needs a log that holds it
    inprocess.create("BIGQM", root, cfg=cfg)
    qm = mqpy.embedded("BIGQM", data_path=root, create=False)
    eng = inprocess.running("BIGQM", root)
    eng.alter_qmgr({"MAXMSGL": HUNDRED_MB})
    eng.define("QLOCAL", "BIG", {"MAXMSGL": HUNDRED_MB})
    data = os.urandom(1024) * (HUNDRED_MB // 1024)
    q = mqpy.Queue(qm, "BIG", CMQC.MQOO_OUTPUT)
    q.put(data, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    try:
        q.put(data + b"x")
        raise AssertionError("a message over MAXMSGL was accepted")
    except mqpy.MQMIError as e:
        assert e.reason == CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR
    mqpy.stop_embedded("BIGQM", data_path=root)
    qm = mqpy.embedded("BIGQM", data_path=root, create=False)
    got = mqpy.Queue(qm, "BIG", CMQC.MQOO_INPUT_AS_Q_DEF).get()
    assert len(got) == HUNDRED_MB and got == data
    inprocess.stop_all()
