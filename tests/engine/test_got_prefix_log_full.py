"""The got-messages hint (MessageQueue.got_prefix) against a unit of work the log backs out.

A get under syncpoint logs its GET; when that record finds the log full, the queue manager
backs out the oldest unit of work pinning it, in the middle of the get (circular logging, as
IBM does). The messages that unit of work had got are available again: no later get may walk
past them.
"""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, config, inprocess


@pytest.fixture
def small_log_qm(tmp_path):
    root = str(tmp_path)
    cfg = config.QMgrConfig("PFXLOG", config.qmgr_dir("PFXLOG", root))
    cfg.log.LogFilePages = 16  # 64 KB segments, 2 of them
    cfg.log.LogPrimaryFiles = 2
    cfg.log.LogSecondaryFiles = 0
    inprocess.create("PFXLOG", root, cfg=cfg)
    eng = inprocess.start("PFXLOG", root)
    eng.define("QLOCAL", "GQ", {"MAXDEPTH": 100000, "MSGDLVSQ": "FIFO"})
    eng.define("QLOCAL", "FILL", {"MAXDEPTH": 100000})
    yield root, eng
    inprocess.stop_all()


def test_messages_of_a_unit_of_work_backed_out_for_log_space_are_got_again(small_log_qm):
    """Given E holding the head of a FIFO queue got under syncpoint (not persistent), A the
    next two (persistent: A pins the log), B's committed work filling the log nearly to the
    full, and C getting the following persistent messages under syncpoint one by one until
    one of its GET records finds the log full and A is backed out, when D then gets a
    message, then it is A's first message again (E still holds the head), not the one
    after C's."""
    root, eng = small_log_qm
    setup = mqpy.embedded("PFXLOG", data_path=root)
    q = mqpy.Queue(setup, "GQ", CMQC.MQOO_OUTPUT)
    total = 600
    for i in range(total):
        persistence = CMQC.MQPER_NOT_PERSISTENT if i == 0 else CMQC.MQPER_PERSISTENT
        q.put(b"m%05d" % i, mqpy.MD(Persistence=persistence),
              mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        if i % 20 == 19:
            setup.commit()
    setup.commit()
    sync = mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)

    # E holds the head (not persistent: E writes no log, so E is never backed out for it)
    e = mqpy.embedded("PFXLOG", data_path=root)
    assert mqpy.Queue(e, "GQ", CMQC.MQOO_INPUT_SHARED).get(None, mqpy.MD(), sync) == b"m00000"
    a = mqpy.embedded("PFXLOG", data_path=root)
    qa = mqpy.Queue(a, "GQ", CMQC.MQOO_INPUT_SHARED)
    assert (qa.get(None, mqpy.MD(), sync), qa.get(None, mqpy.MD(), sync)) == \
        (b"m00001", b"m00002")

    # B's committed work fills the log up to a few KB short of full (A pins it): from then
    # on only C writes, a GET record at a time
    b = mqpy.embedded("PFXLOG", data_path=root)
    qb = mqpy.Queue(b, "FILL", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    log = eng.data.log

    def room() -> int:
        return (log.release_lsn // log.segment_size + log.config.max_segments) \
            * log.segment_size - log.end_lsn

    while True:
        # the background checkpoint may lag behind B (a loaded machine): checkpoint here, so
        # the release point is as far as A lets it go before the room left is judged
        eng.checkpoint()
        if room() <= 6000:
            break
        while room() > 6000:
            qb.put(b"f" * 1500, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
                   mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
            qb.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    assert eng.log_full_backouts == 0

    c = mqpy.embedded("PFXLOG", data_path=root)
    qc = mqpy.Queue(c, "GQ", CMQC.MQOO_INPUT_SHARED)
    before = eng.log_full_backouts
    got = []
    while eng.log_full_backouts == before and len(got) < total - 3:
        got.append(qc.get(None, mqpy.MD(), sync))  # only C writes the log meanwhile
    assert eng.log_full_backouts == before + 1  # A, the oldest, in one of C's gets
    assert got[0] == b"m00003"

    d = mqpy.embedded("PFXLOG", data_path=root)
    qd = mqpy.Queue(d, "GQ", CMQC.MQOO_INPUT_SHARED)
    assert qd.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)) == b"m00001"
