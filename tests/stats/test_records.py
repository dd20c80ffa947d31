"""Statistics and accounting messages: built from a real workload, read back by PCF parsers."""

from __future__ import annotations

import os
import time

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, pcf
from mqpy.engine.stats import QueueCounters
from mqpy.stats import records as R
from mqpy.stats.collector import ACCOUNTING_QUEUE, STATISTICS_QUEUE, emit_now, start_statistics
from mqpy_chinit.states import ChannelStatus
from tests.stats._support import FIXTURE

from ._support import drain, get, put


def _by_command(msgs):
    out = {}
    for _, m in msgs:
        out.setdefault(m.header.Command, []).append(m)
    return out


def test_queue_and_mqi_statistics_count_the_workload(qmgr):
    """Given 10 persistent and 3 non-persistent puts and 4 gets on Q1, when the interval
    ends, then MQCMD_STATISTICS_Q and _MQI carry those counts split [np, p], and parse back."""
    name, _, qm, eng = qmgr
    eng.define("QLOCAL", "Q1", {})
    put(qm, "Q1", 10, 100, True)
    put(qm, "Q1", 3, 10, False)
    get(qm, "Q1", 4)
    assert emit_now(eng, qm) == 2
    msgs = _by_command(drain(qm, STATISTICS_QUEUE))
    (qstat,) = msgs[CMQCFC.MQCMD_STATISTICS_Q]
    assert qstat.header.Type == CMQCFC.MQCFT_STATISTICS
    assert qstat.get(CMQCFC.MQIAMO_OBJECT_COUNT) == 1
    (grp,) = list(qstat.groups(CMQCFC.MQGACF_Q_STATISTICS_DATA))
    assert grp.get(CMQC.MQCA_Q_NAME).strip() == b"Q1"
    assert grp.get(CMQCFC.MQIAMO_PUTS) == [3, 10]
    assert grp.get(CMQCFC.MQIAMO64_PUT_BYTES) == [30, 1000]
    assert grp.get(CMQCFC.MQIAMO_GETS) == [0, 4]  # FIFO: the persistent ones came first
    assert grp.get(CMQCFC.MQIAMO64_GET_BYTES) == [0, 400]
    assert grp.get(CMQCFC.MQIAMO_Q_MAX_DEPTH) == 13
    assert grp.get(CMQCFC.MQIAMO_Q_MIN_DEPTH) >= 1
    (mqi,) = msgs[CMQCFC.MQCMD_STATISTICS_MQI]
    assert mqi.get(CMQCFC.MQIAMO_PUTS) == [3, 10]
    assert mqi.get(CMQCFC.MQIAMO_GETS) == [0, 4]
    assert mqi.get(CMQCFC.MQIAMO_CONNS) >= 1
    assert mqi.get(CMQCFC.MQIAMO_COMMITS) >= 1
    assert mqi.get(CMQCFC.MQIAMO_OPENS) == [3]
    assert pcf.parse(pcf.build(mqi)).to_dict() == mqi.to_dict()


def test_failed_puts_are_counted_on_their_queue(qmgr):
    """Given Q2 with MAXDEPTH(2), when three MQPUTs and one MQPUT1 are tried after it is full
    (MQRC_Q_FULL, 2053) and the interval ends, then Q2's statistics say PutsFailed 3 and
    Put1sFailed 1 beside its 2 puts, and the MQI statistics count the four failures."""
    name, _, qm, eng = qmgr
    eng.define("QLOCAL", "Q2", {"MAXDEPTH": 2})
    put(qm, "Q2", 2, 10, False)
    q = mqpy.Queue(qm, "Q2")
    for _ in range(3):
        with pytest.raises(mqpy.MQMIError) as full:
            q.put(b"x")
        assert full.value.reason == CMQC.MQRC_Q_FULL
    q.close()
    with pytest.raises(mqpy.MQMIError):
        qm.put1("Q2", b"x")
    assert emit_now(eng, qm) == 2
    msgs = _by_command(drain(qm, STATISTICS_QUEUE))
    (grp,) = [g for m in msgs[CMQCFC.MQCMD_STATISTICS_Q]
              for g in m.groups(CMQCFC.MQGACF_Q_STATISTICS_DATA)
              if g.get(CMQC.MQCA_Q_NAME).strip() == b"Q2"]
    assert grp.get(CMQCFC.MQIAMO_PUTS) == [2, 0]
    assert (grp.get(CMQCFC.MQIAMO_PUTS_FAILED), grp.get(CMQCFC.MQIAMO_PUT1S_FAILED)) == (3, 1)
    (mqi,) = msgs[CMQCFC.MQCMD_STATISTICS_MQI]
    assert mqi.get(CMQCFC.MQIAMO_PUTS_FAILED) == 4


def test_storage_group_reports_log_and_pagesets(qmgr):
    """Given persistent puts (logged and forced), then mqpy's storage group in the MQI message
    shows log bytes, records, forces and the pagesets' pages."""
    _, _, qm, eng = qmgr
    eng.define("QLOCAL", "Q1", {})
    put(qm, "Q1", 5, 1000, True)
    emit_now(eng, qm)
    (mqi,) = _by_command(drain(qm, STATISTICS_QUEUE))[CMQCFC.MQCMD_STATISTICS_MQI]
    (storage,) = list(mqi.groups(R.MQPY_GACF_STORAGE_STATISTICS_DATA))
    assert storage.get(R.MQPY_IAMO64_LOG_BYTES) > 5000
    assert storage.get(R.MQPY_IAMO_LOG_FORCES) >= 1
    assert storage.get(R.MQPY_IAMO_LOG_RECORDS) >= 5
    assert 0 in storage.get(R.MQPY_IAMO_PAGESET_IDS)
    assert all(n > 0 for n in storage.get(R.MQPY_IAMO_PAGES_USED))
    recs = R.to_records(mqi, b"\x01" * 24)
    assert [r["record_type"] for r in recs] == ["MQIStatistics", "StorageStatistics"]
    assert recs[1]["log_bytes"] == storage.get(R.MQPY_IAMO64_LOG_BYTES)


def test_intervals_reset_the_counters(qmgr):
    """Given one interval emitted, when nothing happens on Q1, then the next interval has no
    queue group for Q1 and the MQI puts are only the statistics messages' own."""
    _, _, qm, eng = qmgr
    eng.define("QLOCAL", "Q1", {})
    put(qm, "Q1", 2, 10, False)
    emit_now(eng, qm)
    drain(qm, STATISTICS_QUEUE)
    emit_now(eng, qm)
    msgs = _by_command(drain(qm, STATISTICS_QUEUE))
    queues = [g.get(CMQC.MQCA_Q_NAME).strip() for m in msgs.get(CMQCFC.MQCMD_STATISTICS_Q, [])
              for g in m.groups(CMQCFC.MQGACF_Q_STATISTICS_DATA)]
    assert b"Q1" not in queues


def test_statq_and_statmqi_switches(qmgr):
    """Given queue STATQ(OFF) on Q1, STATQ(ON) on Q2 and QMGR STATQ(OFF) STATMQI(OFF), then only
    Q2 has a queue group and no MQI message is written."""
    _, _, qm, eng = qmgr
    eng.alter_qmgr({"STATQ": "OFF", "STATMQI": "OFF"})
    eng.define("QLOCAL", "Q1", {"STATQ": "OFF"})
    eng.define("QLOCAL", "Q2", {"STATQ": "ON"})
    eng.define("QLOCAL", "Q3", {})
    for q in ("Q1", "Q2", "Q3"):
        put(qm, q, 1, 5, False)
    emit_now(eng, qm)
    msgs = _by_command(drain(qm, STATISTICS_QUEUE))
    assert CMQCFC.MQCMD_STATISTICS_MQI not in msgs
    names = [g.get(CMQC.MQCA_Q_NAME).strip() for m in msgs[CMQCFC.MQCMD_STATISTICS_Q]
             for g in m.groups(CMQCFC.MQGACF_Q_STATISTICS_DATA)]
    assert names == [b"Q2"]


def test_more_than_100_queues_split_across_messages():
    """Given 150 queue groups, then two messages of 100 and 50, the first not the last."""
    q = [(R.QueueInfo(f"Q{i}"), QueueCounters(), 0) for i in range(150)]
    msgs = R.queue_statistics("QM1", q, time.time() - 60, time.time())
    assert [m.get(CMQCFC.MQIAMO_OBJECT_COUNT) for m in msgs] == [100, 50]
    assert [m.header.Control for m in msgs] == [CMQCFC.MQCFC_NOT_LAST, CMQCFC.MQCFC_LAST]


def test_ibm_fixture_reads_with_the_same_flattening():
    """Given IBM's queue statistics message, then to_records gives 16 queue records, the first
    SYSTEM.ADMIN.COMMAND.QUEUE with 14 non-persistent puts, from mq_mgr1 on 2020-06-15."""
    if not os.path.exists(FIXTURE):
        pytest.skip("shared fixtures absent")
    with open(FIXTURE, "rb") as f:
        msg = pcf.parse(f.read())
    recs = R.to_records(msg, b"")
    assert len(recs) == 16
    assert recs[0]["queue"] == "SYSTEM.ADMIN.COMMAND.QUEUE"
    assert (recs[0]["puts_np"], recs[0]["puts_p"]) == (14, 0)
    assert recs[0]["queue_manager"] == "mq_mgr1"
    assert time.strftime("%Y-%m-%d", time.localtime(recs[0]["start_ts"])) == "2020-06-15"


def test_our_messages_have_ibm_layout_of_the_fixture():
    """Given IBM's message and ours for the same queue, then the header fields and the group's
    parameter ids, types and order are the same."""
    if not os.path.exists(FIXTURE):
        pytest.skip("shared fixtures absent")
    with open(FIXTURE, "rb") as f:
        ibm = pcf.parse(f.read())
    (ours,) = R.queue_statistics("QM1", [(R.QueueInfo("Q1"), QueueCounters(), 0)], 0, 60)
    ours = pcf.parse(pcf.build(ours))
    assert (ours.header.Type, ours.header.Command, ours.header.Version) == (
        ibm.header.Type, ibm.header.Command, ibm.header.Version)
    shape = [(type(p).__name__, p.Parameter) for p in ibm.params[:7]]
    assert [(type(p).__name__, p.Parameter) for p in ours.params[:7]] == shape
    ig = next(ibm.groups(CMQCFC.MQGACF_Q_STATISTICS_DATA))
    og = next(ours.groups(CMQCFC.MQGACF_Q_STATISTICS_DATA))
    assert [(type(p).__name__, p.Parameter) for p in og.Parameters] == \
        [(type(p).__name__, p.Parameter) for p in ig.Parameters]


def _status(name, msgs, batches, full, nbytes, net, batchsz=50):
    s = ChannelStatus(channel=name, chltype="SDR", conname="127.0.0.1(1414)", rqmname="QM2")
    s.msgs, s.batches, s.full_batches, s.bytes_sent, s.net_time_us = msgs, batches, full, \
        nbytes, net
    s.batchsz = batchsz
    return s


def test_channel_statistics_from_channel_status_deltas():
    """Given a sender's cumulative counters read at two interval ends, then each channel
    statistics message carries that interval's messages, batches and average batch size."""
    tracker = R.ChannelStatsTracker()
    s = _status("TO.QM2", 100, 4, 1, 10_000, 4000)
    (m1,) = tracker.messages("QM1", [s], now=tracker.interval_start + 60)
    s.msgs, s.batches, s.full_batches, s.bytes_sent, s.net_time_us = 400, 8, 3, 40_000, 6000
    (m2,) = tracker.messages("QM1", [s], now=tracker.interval_start + 60)
    g1 = next(pcf.parse(pcf.build(m1)).groups(CMQCFC.MQGACF_CHL_STATISTICS_DATA))
    g2 = next(pcf.parse(pcf.build(m2)).groups(CMQCFC.MQGACF_CHL_STATISTICS_DATA))
    assert m1.header.Command == CMQCFC.MQCMD_STATISTICS_CHANNEL
    assert (g1.get(CMQCFC.MQIAMO_MSGS), g1.get(CMQCFC.MQIAMO_FULL_BATCHES),
            g1.get(CMQCFC.MQIAMO_INCOMPLETE_BATCHES), g1.get(CMQCFC.MQIAMO_AVG_BATCH_SIZE),
            g1.get(CMQCFC.MQIAMO_NET_TIME_AVG)) == (100, 1, 3, 25, 1000)
    assert (g2.get(CMQCFC.MQIAMO_MSGS), g2.get(CMQCFC.MQIAMO_FULL_BATCHES),
            g2.get(CMQCFC.MQIAMO_INCOMPLETE_BATCHES), g2.get(CMQCFC.MQIAMO64_BYTES),
            g2.get(CMQCFC.MQIAMO_AVG_BATCH_SIZE)) == (300, 2, 2, 30_000, 75)
    assert tracker.messages("QM1", [s]) == []  # an idle channel reports nothing
    rec = R.to_records(m2)[0]
    assert (rec["channel"], rec["batchsz"], rec["remote_qmgr"]) == ("TO.QM2", 50, "QM2")


def test_accounting_messages_from_connection_counters(qmgr):
    """Given ACCTMQI(ON) ACCTQ(ON) and a connection carrying accounting counters, when it
    disconnects, then an MQCMD_ACCOUNTING_MQI and an MQCMD_ACCOUNTING_Q message for it reach
    the accounting queue."""
    _, _, qm, eng = qmgr
    eng.alter_qmgr({"ACCTMQI": "ON", "ACCTQ": "ON"})
    eng.define("QLOCAL", "Q1", {})
    conn = eng.connect("acct-records")
    conn.accounting.mqi.puts = [1, 2]
    conn.accounting.mqi.opens = 3
    conn.accounting.queue("Q1").puts = [1, 2]
    conn.disconnect()
    msgs = _by_command(drain(qm, ACCOUNTING_QUEUE))
    (mqi,) = msgs[CMQCFC.MQCMD_ACCOUNTING_MQI]
    assert mqi.header.Type == CMQCFC.MQCFT_ACCOUNTING
    assert mqi.get(CMQCFC.MQIAMO_PUTS) == [1, 2]
    assert len(mqi.get(CMQCFC.MQBACF_CONNECTION_ID)) == 24
    (q,) = msgs[CMQCFC.MQCMD_ACCOUNTING_Q]
    recs = R.to_records(q, b"")
    assert (recs[0]["queue"], recs[0]["puts_p"], recs[0]["record_type"]) == (
        "Q1", 2, "QueueAccounting")


def test_start_statistics_writes_every_statint(qmgr):
    """Given STATINT(1), when the task runs about 2.5 s and is stopped, then at least two MQI
    statistics messages were written (the last one at stop)."""
    _, _, qm, eng = qmgr
    eng.alter_qmgr({"STATINT": 1, "STATQ": "OFF"})
    stop = start_statistics(eng, qm)
    time.sleep(2.5)
    stop()
    msgs = _by_command(drain(qm, STATISTICS_QUEUE))
    assert len(msgs[CMQCFC.MQCMD_STATISTICS_MQI]) >= 3


def test_an_interval_that_cannot_be_put_is_reported_at_the_next(qmgr):
    """Given SYSTEM.ADMIN.STATISTICS.QUEUE full (MAXDEPTH 1, one message on it), when an
    interval with 2 puts on Q1 ends, then the put fails with 2053 and, once the queue has
    room, the next interval's emit puts that interval's messages first, with its counts,
    then its own: late, not lost."""
    _, _, qm, eng = qmgr
    eng.define("QLOCAL", "Q1", {})
    eng.alter_qmgr({"STATMQI": "OFF"})
    eng.alter("QLOCAL", STATISTICS_QUEUE, {"MAXDEPTH": 1})
    put(qm, STATISTICS_QUEUE, 1, 10, False)
    put(qm, "Q1", 2, 100, True)
    with pytest.raises(mqpy.MQMIError) as failed:
        emit_now(eng, qm)
    assert failed.value.reason == CMQC.MQRC_Q_FULL
    get(qm, STATISTICS_QUEUE, 1)
    eng.alter("QLOCAL", STATISTICS_QUEUE, {"MAXDEPTH": 100})
    put(qm, "Q1", 5, 100, True)

    assert emit_now(eng, qm) == 2
    late, now = [m for _, m in drain(qm, STATISTICS_QUEUE)]

    def q1_puts(msg):
        (grp,) = [g for g in msg.groups(CMQCFC.MQGACF_Q_STATISTICS_DATA)
                  if g.get(CMQC.MQCA_Q_NAME).strip() == b"Q1"]
        return grp.get(CMQCFC.MQIAMO_PUTS)

    assert (q1_puts(late), q1_puts(now)) == ([0, 2], [0, 5])


def test_pending_intervals_are_bounded(qmgr, monkeypatch):
    """Given the statistics queue put-inhibited, when more intervals end than PENDING_LIMIT
    can hold, then the oldest are dropped and counted, and the newest are put once it is
    enabled again."""
    from mqpy.stats import collector as C

    _, _, qm, eng = qmgr
    monkeypatch.setattr(C, "PENDING_LIMIT", 2)
    eng.alter_qmgr({"STATMQI": "ON", "STATQ": "OFF"})
    eng.alter("QLOCAL", STATISTICS_QUEUE, {"PUT": "DISABLED"})
    for _ in range(3):
        with pytest.raises(mqpy.MQMIError) as failed:
            emit_now(eng, qm)
        assert failed.value.reason == CMQC.MQRC_PUT_INHIBITED
    eng.alter("QLOCAL", STATISTICS_QUEUE, {"PUT": "ENABLED"})
    assert emit_now(eng, qm) == 2
    assert C._collectors[id(eng)].dropped == 2
    assert len(drain(qm, STATISTICS_QUEUE)) == 2
