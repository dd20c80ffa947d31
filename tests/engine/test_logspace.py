"""Log space: long units of work cannot fill the log and stop the queue manager."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, config, inprocess


@pytest.fixture
def small_log_qm(tmp_path):
    root = str(tmp_path)
    cfg = config.QMgrConfig("LOGQM", config.qmgr_dir("LOGQM", root))
    cfg.log.LogFilePages = 16  # 64 KB segments, 2 of them
    cfg.log.LogPrimaryFiles = 2
    cfg.log.LogSecondaryFiles = 0
    inprocess.create("LOGQM", root, cfg=cfg)
    eng = inprocess.start("LOGQM", root)
    eng.define("QLOCAL", "Q", {"MAXDEPTH": 100000, "DEFPSIST": "YES"})
    yield root, eng
    inprocess.stop_all()


def _put(qm, n, pmo_opts, data=b"y" * 2000):
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT)
    for _ in range(n):
        q.put(data, mqpy.MD(), mqpy.PMO(Options=pmo_opts))


def _drain(qm, out=None):
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_INPUT_AS_Q_DEF)
    n = 0
    while True:
        try:
            data = q.get()
            if out is not None:
                out.append(data)
            n += 1
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return n


def test_an_old_unit_of_work_pinning_the_log_is_backed_out(small_log_qm):
    """Given connection A with an uncommitted persistent put, when connection B's committed
    work needs more log than A leaves free, then the queue manager backs A out, B goes on,
    and A's MQCMIT returns MQRC_BACKED_OUT (2003), as IBM MQ does with circular logging."""
    root, eng = small_log_qm
    a = mqpy.embedded("LOGQM", data_path=root)
    b = mqpy.embedded("LOGQM", data_path=root)
    _put(a, 1, CMQC.MQPMO_SYNCPOINT)
    for _ in range(40):
        _put(b, 5, CMQC.MQPMO_SYNCPOINT)
        b.commit()
        _drain(b)
    with pytest.raises(mqpy.MQMIError) as exc:
        a.commit()
    assert exc.value.reason == CMQC.MQRC_BACKED_OUT
    assert eng.log_full_backouts == 1
    assert eng.queue_status("Q")["CURDEPTH"] == 0


def test_a_unit_of_work_larger_than_the_log_is_backed_out_not_the_queue_manager(small_log_qm):
    """Given one unit of work that alone needs more than the whole log, then the put that
    overflows fails with MQRC_BACKED_OUT, the work is undone, and the queue manager goes on."""
    root, eng = small_log_qm
    qm = mqpy.embedded("LOGQM", data_path=root)
    with pytest.raises(mqpy.MQMIError) as exc:
        _put(qm, 200, CMQC.MQPMO_SYNCPOINT)
    assert exc.value.reason == CMQC.MQRC_BACKED_OUT
    qm.backout()
    assert eng.queue_status("Q")["CURDEPTH"] == 0
    _put(qm, 3, CMQC.MQPMO_SYNCPOINT)
    qm.commit()
    assert _drain(qm) == 3


def test_units_of_work_in_doubt_are_never_backed_out_the_caller_gets_2102(small_log_qm):
    """Given a prepared (in-doubt) unit of work pinning the log, when others fill it, then
    they get MQRC_RESOURCE_PROBLEM (2102) and the in-doubt work is kept for resolution."""
    root, eng = small_log_qm
    a = mqpy.embedded("LOGQM", data_path=root)
    _put(a, 1, CMQC.MQPMO_SYNCPOINT, data=b"in doubt")
    a.connection().prepare(b"LUW-IN-DOUBT-001")
    b = mqpy.embedded("LOGQM", data_path=root)
    with pytest.raises(mqpy.MQMIError) as exc:
        for _ in range(100):
            _put(b, 5, CMQC.MQPMO_NO_SYNCPOINT)
            _drain(b)
    assert exc.value.reason == CMQC.MQRC_RESOURCE_PROBLEM
    assert eng.indoubt() == [b"LUW-IN-DOUBT-001"]
    eng.resolve(b"LUW-IN-DOUBT-001", commit=True)
    got: list[bytes] = []
    _drain(b, got)  # what b's failed loop left, and the resolved message
    assert got.count(b"in doubt") == 1


def test_a_unit_of_work_backed_out_by_its_own_get_leaves_the_others_backout_reserve(
        small_log_qm):
    """Given connection B holding one get under syncpoint (16 bytes of log reserved for its
    backout record) and connection A, older, getting under syncpoint until the log is full,
    when A's get that finds the log full backs A out (2003), then the log still reserves
    B's 16 bytes: A's failed get gave back only what it had taken, not B's too."""
    root, eng = small_log_qm
    a = mqpy.embedded("LOGQM", data_path=root)
    b = mqpy.embedded("LOGQM", data_path=root)
    for _ in range(60):  # more messages than A's gets can take before the log is full
        _put(a, 50, CMQC.MQPMO_NO_SYNCPOINT, data=b"m")
    log = eng.data.log
    qa = mqpy.Queue(a, "Q", CMQC.MQOO_INPUT_SHARED)
    qb = mqpy.Queue(b, "Q", CMQC.MQOO_INPUT_SHARED)
    gmo = mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    qa.get(None, mqpy.MD(), gmo)  # A began first: the oldest unit of work in flight
    qb.get(None, mqpy.MD(), gmo)
    with pytest.raises(mqpy.MQMIError) as exc:
        for _ in range(2999):
            qa.get(None, mqpy.MD(), gmo)
    assert exc.value.reason == CMQC.MQRC_BACKED_OUT
    assert eng.log_full_backouts == 1
    assert log._reserved_for_backout == 16
    b.commit()
    assert log._reserved_for_backout == 0
