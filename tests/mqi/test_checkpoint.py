"""The no-force buffer pool and checkpoints, observed through log statistics and LMDB itself."""

from __future__ import annotations

import time

from ._support import drain, get, put


def _txnid(eng, psid: int = 1) -> int:
    """LMDB's last committed write transaction on a pageset: moves on every pageset write."""
    return eng.data.pageset(psid).env.info()["last_txnid"]


def _record_pageset_puts(eng, psid: int = 1) -> list[bytes]:
    """Spy on the pageset's writes and collect every message key it is asked to store."""
    ps = eng.data.pageset(psid)
    keys: list[bytes] = []
    original = ps.apply

    def apply(puts, deletes, updates, meta):
        puts = list(puts)
        keys.extend(k for k, _rec, _idx in puts)
        return original(puts, deletes, updates, meta)

    ps.apply = apply
    return keys


def test_commit_of_n_persistent_puts_forces_the_log_once_and_writes_no_page(qmgr):
    """Given a unit of work with 25 persistent puts, when MQCMIT, then the log was forced
    exactly once for the whole unit of work and no pageset was written.
    spec: aliases-channels-storage 4.40"""
    qmgr.define("Q1")
    eng = qmgr.eng
    eng.data.checkpoint()
    forces, txn = eng.data.log.stats.forces, _txnid(eng)
    for n in range(25):
        put(qmgr.qm, "Q1", b"m%d" % n, persistent=True, syncpoint=True)
    assert eng.data.log.stats.forces == forces
    qmgr.qm.commit()
    assert eng.data.log.stats.forces == forces + 1
    assert _txnid(eng) == txn
    assert list(eng.data.pageset(1).iter_index()) == []


def test_a_persistent_put_outside_syncpoint_forces_the_log_before_returning(qmgr):
    """Given a persistent put outside syncpoint, when it returns, then the log has been forced
    (it is its own unit of work) and no pageset was written."""
    qmgr.define("Q1")
    eng = qmgr.eng
    eng.data.checkpoint()
    forces, txn = eng.data.log.stats.forces, _txnid(eng)
    put(qmgr.qm, "Q1", b"durable", persistent=True)
    assert eng.data.log.stats.forces == forces + 1
    assert eng.data.log.flushed_lsn == eng.data.log.end_lsn
    assert _txnid(eng) == txn


def test_nonpersistent_traffic_never_reaches_the_log(qmgr):
    """Given non-persistent puts and gets, in and out of syncpoint, then no log record is
    written and the log is never forced."""
    qmgr.define("Q1")
    log = qmgr.eng.data.log
    records, forces = log.stats.records, log.stats.forces
    for n in range(10):
        put(qmgr.qm, "Q1", b"np%d" % n, persistent=False, syncpoint=bool(n % 2))
    qmgr.qm.commit()
    assert len(drain(qmgr.qm, "Q1")) == 10
    assert (log.stats.records, log.stats.forces) == (records, forces)


def test_message_put_and_got_between_checkpoints_never_reaches_lmdb(qmgr):
    """Given a checkpoint, when persistent messages are put and got (outside and inside units of
    work) and another checkpoint is taken, then the pageset was never asked to store them and
    holds no message. spec: aliases-channels-storage 4.39"""
    qmgr.define("Q1")
    eng = qmgr.eng
    eng.data.checkpoint()
    stored = _record_pageset_puts(eng)
    put(qmgr.qm, "Q1", b"single", persistent=True)
    put(qmgr.qm, "Q1", b"in uow", persistent=True, syncpoint=True)
    qmgr.qm.commit()
    assert drain(qmgr.qm, "Q1") == [b"single", b"in uow"]
    eng.data.checkpoint()
    assert stored == []
    assert list(eng.data.pageset(1).iter_index()) == []


def test_checkpoint_writes_committed_persistent_messages_to_the_pageset_index(qmgr):
    """Given 5 committed persistent messages, an uncommitted persistent put and a
    non-persistent message, when a checkpoint is taken, then the pageset index holds exactly
    the 5 committed persistent messages and their stored records carry their data."""
    qmgr.define("Q1")
    eng = qmgr.eng
    bodies = [b"body-%d" % n for n in range(5)]
    for b in bodies:
        put(qmgr.qm, "Q1", b, persistent=True)
    put(qmgr.qm, "Q1", b"non-persistent", persistent=False)
    put(qmgr.connect(), "Q1", b"uncommitted", persistent=True, syncpoint=True)
    eng.data.checkpoint()
    ps = eng.data.pageset(1)
    keys = [k for k, _idx in ps.iter_index()]
    assert len(keys) == 5
    records = [ps.read_message(k) for k in keys]
    assert all(r is not None and r.endswith(b) for r, b in zip(records, bodies, strict=True))


def test_a_checkpoint_removes_messages_got_since_the_previous_one(qmgr):
    """Given 3 persistent messages on the pageset, when 2 are got and a checkpoint is taken,
    then the pageset index holds 1 message."""
    qmgr.define("Q1")
    for n in range(3):
        put(qmgr.qm, "Q1", b"%d" % n, persistent=True)
    qmgr.eng.data.checkpoint()
    get(qmgr.qm, "Q1")
    get(qmgr.qm, "Q1")
    qmgr.eng.data.checkpoint()
    assert len(list(qmgr.eng.data.pageset(1).iter_index())) == 1


def test_logload_triggers_a_checkpoint_after_that_many_log_records(qmgr):
    """Given LOGLOAD of 40 log records, when 100 persistent messages are put, then the queue
    manager takes checkpoints on its own and committed messages reach the pageset without an
    explicit checkpoint. spec: aliases-channels-storage 4.39"""
    qmgr.define("Q1")
    eng = qmgr.eng
    eng.data.tuning.LogLoad = 40
    before = eng.data.stats.checkpoints
    for n in range(100):
        put(qmgr.qm, "Q1", b"%d" % n, persistent=True)
    def on_pageset() -> int:
        return len(list(eng.data.pageset(1).iter_index()))

    # (the checkpoints run on a thread of their own: the one asked for by the last 40
    # records may not have run yet when the puts return)
    deadline = time.monotonic() + 10
    while on_pageset() < 40 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert eng.data.stats.checkpoints >= before + 1
    assert on_pageset() >= 40


def test_a_log_segment_switch_asks_for_a_checkpoint(qmgr):
    """Given a queue manager far below LOGLOAD, when its log moves into a new segment, then a
    checkpoint is asked for (so the segments behind it can be reused), and not before:
    checkpoints come every LOGLOAD records *or* at a log switch."""
    qmgr.define("Q1")
    data, log = qmgr.eng.data, qmgr.eng.data.log
    data.tuning.LogLoad = 10**9
    data.checkpoint()
    before = data.stats.checkpoints
    segment = log.end_lsn // log.segment_size
    body = b"s" * 64 * 1024
    while (log.end_lsn + len(body) + 1024) // log.segment_size == segment:
        put(qmgr.qm, "Q1", body, persistent=True)
    assert data.stats.checkpoints == before and not data.checkpoint_wanted.is_set()
    put(qmgr.qm, "Q1", body, persistent=True)
    assert log.end_lsn // log.segment_size == segment + 1
    deadline = time.monotonic() + 5
    while data.stats.checkpoints == before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert data.stats.checkpoints == before + 1


def test_get_logs_no_message_data_and_put_logs_all_of_it(qmgr):
    """Given persistent messages of 100 bytes and 1 MB, when each is put and got, then the put
    adds at least the message size to the log and the get adds the same few bytes for both.
    spec: aliases-channels-storage 4.41"""
    qmgr.define("Q1")
    log = qmgr.eng.data.log
    get_bytes = []
    for size in (100, 1024 * 1024):
        start = log.stats.bytes
        put(qmgr.qm, "Q1", b"x" * size, persistent=True)
        assert log.stats.bytes - start >= size
        start = log.stats.bytes
        get(qmgr.qm, "Q1")
        get_bytes.append(log.stats.bytes - start)
    assert get_bytes[0] == get_bytes[1] < 100
