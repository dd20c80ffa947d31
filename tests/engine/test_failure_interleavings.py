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
from mqpy import CMQC, config, inprocess
from mqpy.engine import groupcommit, logfiles, recoverylog
from mqpy.engine.log import LogDiskFull
from mqpy.engine.records import RecordType
from mqpy.engine.recoverylog import RecoveryLog
from tests.support import small_log


@pytest.fixture
def qm_root(tmp_path):
    root = str(tmp_path)
    small_log.start("FAILQM", root)
    yield root
    inprocess.stop_all()


_contents = small_log.contents


def _put(q, data: bytes) -> None:
    q.put(data, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))


def _restart(root: str):
    inprocess.stop_all()
    inprocess.start("FAILQM", root)
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
    eng = inprocess.running("FAILQM", qm_root)
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


def test_a_log_failure_under_a_checkpoint_while_a_call_waits_for_it_does_not_hang(
        qm_root, monkeypatch):
    """Given a checkpoint forcing the log (it holds the checkpoint mutex) and an MQPUT that
    found the log full and waits, engine lock held, to checkpoint in turn, when the log device
    fails under the checkpoint's force, then both end (the checkpoint and the put with
    MQRC_CONNECTION_BROKEN, 2009) instead of each waiting for the lock the other holds, and
    after a restart the acknowledged message is there."""
    from mqpy.engine.log import LogFull

    eng = inprocess.running("FAILQM", qm_root)
    monkeypatch.setattr(eng.data, "checkpoint_wanted", _NoCheckpointsWanted())
    qm = mqpy.embedded("FAILQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT)
    acknowledged = [b"%02d" % i + b"f" * 2000 for i in range(40)]
    for data in acknowledged:  # into the next segment: a checkpoint for space would free one
        _put(q, data)
    log = eng.data.log
    assert log.end_lsn // log.segment_size > log.release_lsn // log.segment_size
    qmdir = config.qmgr_dir("FAILQM", qm_root)

    entered, go = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}
    full = {"on": False}
    real_append = RecoveryLog.append

    def append(self, rtype, payload, **kwargs):
        if full["on"] and rtype == RecordType.PUT1:
            raise LogFull("active log full")
        return real_append(self, rtype, payload, **kwargs)

    class Disk:
        def __getattr__(self, name):
            return getattr(os, name)

        @staticmethod
        def fdatasync(fd):
            if threading.current_thread() is checkpointer:
                entered.set()
                go.wait(30)
                raise OSError(errno.EIO, os.strerror(errno.EIO))
            return os.fdatasync(fd)

        @staticmethod
        def pwritev(fd, buffers, off, flags=0):  # (a round's write and sync in one call)
            if flags & groupcommit._RWF_DSYNC and threading.current_thread() is checkpointer:
                entered.set()
                go.wait(30)
                raise OSError(errno.EIO, os.strerror(errno.EIO))
            return os.pwritev(fd, buffers, off, flags)

    def run(key, fn):
        try:
            fn()
            outcome[key] = "ok"
        except mqpy.MQMIError as e:
            outcome[key] = e.reason
        except Exception as e:  # noqa: BLE001 - recorded for the assertion
            outcome[key] = repr(e)

    monkeypatch.setattr(RecoveryLog, "append", append)
    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", Disk())
    checkpointer = threading.Thread(target=run, args=("checkpoint", eng.data.checkpoint),
                                    daemon=True)
    checkpointer.start()
    assert entered.wait(30)
    full["on"] = True
    putter = threading.Thread(target=run, args=("put", lambda: _put(q, b"unacknowledged")),
                              daemon=True)
    putter.start()
    for _ in range(300):  # until the put holds the engine lock (it then waits for the mutex)
        if not eng.lock.acquire(blocking=False):
            break
        eng.lock.release()
        threading.Event().wait(0.01)
    go.set()
    checkpointer.join(20)
    putter.join(20)
    if checkpointer.is_alive() or putter.is_alive():
        inprocess._engines.pop(qmdir, None)  # deadlocked: teardown must not wait for it too
        pytest.fail("the checkpoint and the put wait for each other's lock")
    assert outcome == {"checkpoint": CMQC.MQRC_CONNECTION_BROKEN,
                       "put": CMQC.MQRC_CONNECTION_BROKEN}
    assert eng.failed is not None
    monkeypatch.undo()
    assert _contents(_restart(qm_root)) == acknowledged


@pytest.mark.parametrize("one_call", [False, True], ids=["pwrite+fdatasync", "rwf_dsync"])
def test_a_forcer_waiting_when_a_buffer_write_fails_is_not_told_its_record_is_durable(
        tmp_path, monkeypatch, one_call):
    """Given a force in its sync and a second forcer queued behind it for a later record,
    when an append writes the buffer through (it grew past the write-through size) and that
    write fails, then the append and the queued forcer get LogWriteError: its record was in
    the buffer that never reached the file, so no later round may report it durable
    (fail-stop). With a round's write and sync in one call the write-through waits for that
    round; with fdatasync it runs during the sync."""
    from mqpy.engine.log import LogConfig, LogWriteError

    if one_call and not groupcommit._RWF_DSYNC:
        pytest.skip("no RWF_DSYNC on this platform")
    monkeypatch.setattr(groupcommit, "_DSYNC_WRITES", one_call)
    cfg = LogConfig(LogFilePages=256)
    log = RecoveryLog(str(tmp_path), cfg)
    list(log.scan(0))
    gate, entered = threading.Event(), threading.Event()
    failing = {"pwrite": False}
    real_fdatasync, real_pwrite = os.fdatasync, os.pwrite

    class Disk:
        def __getattr__(self, name):
            return getattr(os, name)

        @staticmethod
        def fdatasync(fd):
            if threading.current_thread() is leader:
                entered.set()
                gate.wait(30)
            return real_fdatasync(fd)

        @staticmethod
        def pwritev(fd, buffers, off, flags=0):  # (a round's write and sync in one call)
            if flags & groupcommit._RWF_DSYNC and threading.current_thread() is leader:
                entered.set()
                gate.wait(30)
            return os.pwritev(fd, buffers, off, flags)

        @staticmethod
        def pwrite(fd, data, off):
            if failing["pwrite"]:
                raise OSError(errno.EIO, os.strerror(errno.EIO))
            return real_pwrite(fd, data, off)

    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", Disk())
    results: dict[str, object] = {}

    def force(key, lsn):
        try:
            log.force(lsn)
            results[key] = "ok"
        except LogWriteError as e:
            results[key] = e

    first = log.append(1, b"first")
    leader = threading.Thread(target=force, args=("leader", first), daemon=True)
    leader.start()
    assert entered.wait(30)
    second = log.append(1, b"second")
    queued = threading.Thread(target=force, args=("queued", second), daemon=True)
    queued.start()
    while not log._queue and queued.is_alive():
        queued.join(0.01)
    failing["pwrite"] = True
    monkeypatch.setattr(recoverylog, "_WRITE_THROUGH", 1)
    appended: dict[str, object] = {}

    def third():
        try:
            log.append(1, b"third")  # writes "second" and "third" through: the write fails
            appended["third"] = "ok"
        except LogWriteError as e:
            appended["third"] = e

    appender = threading.Thread(target=third, daemon=True)
    appender.start()
    appender.join(0.5)  # (done by now with fdatasync; behind the round's call with RWF_DSYNC)
    gate.set()
    appender.join(30)
    failing["pwrite"] = False
    assert isinstance(appended["third"], LogWriteError)
    leader.join(30)
    queued.join(30)
    # the leader's own record was durable before the failure: either answer is true for it
    assert results["leader"] == "ok" or isinstance(results["leader"], LogWriteError)
    assert isinstance(results["queued"], LogWriteError)
    log.close()
    monkeypatch.undo()
    reread = RecoveryLog(str(tmp_path), cfg)
    assert [r.payload for r in reread.scan(0)] == [b"first"]  # "second" never reached the disk
    reread.close()


class _NoCheckpointsWanted:
    """checkpoint_wanted that never fires, so no checkpoint record moves the log's end."""

    def set(self) -> None: ...

    def clear(self) -> None: ...

    def is_set(self) -> bool:
        return False

    def wait(self, timeout: float | None = None) -> bool:
        threading.Event().wait(timeout)
        return False


@pytest.mark.parametrize("end", ["commit", "backout"])
def test_a_unit_of_work_ends_at_a_segment_boundary_on_a_full_disk(qm_root, monkeypatch, end):
    """Given a unit of work whose last put ends just short of a log segment's end, when the
    disk is full and MQCMIT or MQBACK logs its (reserved) record there, then it works: the
    records that end work find the next segment already formatted (an ordinary record
    formats the room they may need), and after a restart the outcome is there. Before, the
    commit record's LogDiskFull backed the unit of work out to free log, whose backout record
    failed the same way, recursively: MQCMIT and MQBACK raised RecursionError."""
    eng = inprocess.running("FAILQM", qm_root)
    monkeypatch.setattr(eng.data, "checkpoint_wanted", _NoCheckpointsWanted())
    log = eng.data.log
    seg = log.segment_size
    qm = mqpy.embedded("FAILQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT)
    pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    md = lambda: mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)  # noqa: E731

    def put(n: int) -> int:
        before = log.end_lsn
        q.put(b"x" * n, md(), pmo)
        return log.end_lsn - before

    size_100 = put(100)  # a put record's size, for a body of 100 bytes
    bodies = [100]
    while True:
        gap = -log.end_lsn % seg
        if gap >= size_100 + 10:
            break
        bodies.append(100 + gap)  # over the boundary, to start afresh in the next segment
        put(bodies[-1])
    bodies.append(100 + gap - 10 - size_100)
    assert put(bodies[-1]) == gap - 10  # 10 bytes left in the segment: no room for the end
    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", small_log.FullDisk())
    getattr(qm, end)()
    monkeypatch.undo()
    qm.disconnect()
    expected = [b"x" * n for n in bodies] if end == "commit" else []
    assert _contents(_restart(qm_root)) == expected


def test_a_shutdown_whose_checkpoint_the_pagesets_refuse_still_ends_the_queue_manager(
        qm_root, monkeypatch):
    """Given pagesets that cannot be written (a full disk), when the queue manager is stopped,
    then its final checkpoint fails (AMQ7002S) but the shutdown completes: no exception out of
    the stop, the housekeeping thread ends and the files are closed (before, the stop raised
    PagesetFull and left the engine half-closed, its housekeeping thread checkpointing on
    over pagesets a restarted engine would own); a restart finds every acknowledged message
    in the log."""
    from mqpy.engine import pageset

    qm = mqpy.embedded("FAILQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT)
    for data in (b"one", b"two"):
        _put(q, data)
    qm.disconnect()
    eng = inprocess.running("FAILQM", qm_root)
    real_apply = pageset.Pageset.apply

    def apply(self, *args, **kwargs):
        raise pageset.PagesetFull(self.path, "MDB_MAP_FULL: Environment mapsize limit reached")

    monkeypatch.setattr(pageset.Pageset, "apply", apply)
    inprocess.stop("FAILQM", qm_root)
    assert eng.stopped and not eng._checkpointer.is_alive()
    assert not eng.data.pagesets and not eng.data.log._fds
    errors = os.path.join(config.qmgr_dir("FAILQM", qm_root), "errors", "AMQERR01.LOG")
    assert "AMQ7002S" in open(errors).read()
    monkeypatch.setattr(pageset.Pageset, "apply", real_apply)
    inprocess.start("FAILQM", qm_root)
    assert _contents(mqpy.embedded("FAILQM", data_path=qm_root)) == [b"one", b"two"]


def test_a_housekeeping_checkpoint_the_full_log_disk_refuses_is_amq6708_not_an_fdc(
        qm_root, monkeypatch):
    """Given a full disk that cannot format the log segment a checkpoint record needs, when
    the housekeeping thread checkpoints, then the error log says AMQ6708E (disk full
    formatting a new log file, at most once a minute) and no FDC is cut: before, each retry
    (every 5 s while the disk stayed full) wrote an FFST, or AMQ6119S 'internal error' when
    even that failed."""
    eng = inprocess.running("FAILQM", qm_root)
    errors = os.path.join(config.qmgr_dir("FAILQM", qm_root), "errors")
    real_append = RecoveryLog.append
    refused = threading.Event()

    def append(self, rtype, payload, **kwargs):
        if rtype == RecordType.CHECKPOINT:
            refused.set()
            raise LogDiskFull(self.directory, "No space left on device")
        return real_append(self, rtype, payload, **kwargs)

    monkeypatch.setattr(RecoveryLog, "append", append)
    eng.data.checkpoint_wanted.set()
    assert refused.wait(30)
    log = os.path.join(errors, "AMQERR01.LOG")
    for _ in range(300):  # the thread reports after the refusal
        if os.path.exists(log) and "AMQ" in open(log).read():
            break
        threading.Event().wait(0.02)
    text = open(log).read()
    assert "AMQ6708E" in text and "AMQ6119S" not in text and "AMQ6184W" not in text
    assert not [n for n in os.listdir(errors) if n.endswith(".FDC")]


def test_a_message_a_failed_checkpoint_left_unwritten_is_not_evicted(qm_root, monkeypatch):
    """Given the housekeeping checkpoint between its pageset write and its eviction, when a
    checkpoint made meanwhile (for log space, engine lock held) fails to write a newer
    message to its pageset, then the eviction that follows keeps that message's body in
    memory: it is on no pageset (only in the log and the unwritten dirty set), so a get
    still returns it, and so does a restart. Before, it was evicted as if written: the get
    failed with a traceback (missing from pageset)."""
    from mqpy.engine import pageset

    eng = inprocess.running("FAILQM", qm_root)
    monkeypatch.setattr(eng.data, "checkpoint_wanted", _NoCheckpointsWanted())
    eng.data.tuning.BufferPoolBytes = 0  # evict every body that is on a pageset
    qm = mqpy.embedded("FAILQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    _put(q, b"written")
    real_apply = pageset.Pageset.apply
    in_apply, go = threading.Event(), threading.Event()
    housekeeping_result: list[object] = []

    def apply(self, *args, **kwargs):
        if threading.current_thread() is housekeeping:
            in_apply.set()
            go.wait(30)
            return real_apply(self, *args, **kwargs)
        raise pageset.PagesetFull(self.path, "MDB_MAP_FULL: Environment mapsize limit reached")

    def checkpoint():
        try:
            eng.data.checkpoint()
            housekeeping_result.append("ok")
        except Exception as e:  # noqa: BLE001 - recorded for the assertion
            housekeeping_result.append(e)

    monkeypatch.setattr(pageset.Pageset, "apply", apply)
    housekeeping = threading.Thread(target=checkpoint, daemon=True)
    housekeeping.start()
    assert in_apply.wait(30)
    with eng.lock:  # an MQI call: the housekeeping thread evicts only after it
        go.set()
        _put(q, b"unwritten")
        with pytest.raises(pageset.PagesetFull):
            eng.data.checkpoint()  # waits for the housekeeping write, then fails its own
    housekeeping.join(30)
    assert housekeeping_result == ["ok"]
    monkeypatch.setattr(pageset.Pageset, "apply", real_apply)
    assert q.get() == b"written"
    assert q.get() == b"unwritten"
    qm.disconnect()
    assert _contents(_restart(qm_root)) == []


def test_a_put_the_full_disk_refuses_does_not_back_out_units_of_work_that_free_nothing(
        qm_root, monkeypatch):
    """Given three units of work in flight that all began in the log segment being written,
    when a persistent put needs log segments that the full disk cannot format, then that put
    gets MQRC_RESOURCE_PROBLEM (2102) and the three commit: backing them out could not free a
    segment to reuse. Before, each was backed out in turn (three MQRC_BACKED_OUT)."""
    eng = inprocess.running("FAILQM", qm_root)
    monkeypatch.setattr(eng.data, "checkpoint_wanted", _NoCheckpointsWanted())
    eng.data.checkpoint()
    seg = eng.data.log.segment_size
    owners = []
    for i in range(3):
        qm = mqpy.embedded("FAILQM", data_path=qm_root)
        mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT).put(
            b"uow%d" % i, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
            mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        owners.append(qm)
    assert {u.first_lsn // seg for u in eng.data.active.values()} == \
        {eng.data.log.end_lsn // seg}
    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", small_log.FullDisk())
    qm = mqpy.embedded("FAILQM", data_path=qm_root)
    with pytest.raises(mqpy.MQMIError) as exc:
        _put(mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT), b"x" * (3 * seg))
    assert exc.value.reason == CMQC.MQRC_RESOURCE_PROBLEM
    for owner in owners:
        owner.commit()
    assert eng.log_full_backouts == 0
    monkeypatch.undo()
    qm.disconnect()
    for owner in owners:
        owner.disconnect()
    assert sorted(_contents(_restart(qm_root))) == [b"uow0", b"uow1", b"uow2"]



def test_gets_backouts_and_commits_between_a_failed_and_the_next_checkpoint_survive_restart(
        qm_root, monkeypatch):
    """Given puts that a failed checkpoint left unwritten (P), when before the next one a
    message is got and backed out (B after P), another got for good (D after P), and one
    already on the pageset is got and backed out (B), then the next checkpoint writes the
    union right: after a restart exactly the queued messages are there, each with its
    backout count."""
    from mqpy.engine import pageset

    eng = inprocess.running("FAILQM", qm_root)
    monkeypatch.setattr(eng.data, "checkpoint_wanted", _NoCheckpointsWanted())
    qm = mqpy.embedded("FAILQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    _put(q, b"old")
    eng.data.checkpoint()  # "old" is on the pageset
    msgids = {}
    for data in (b"a", b"b", b"c"):
        md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
        q.put(data, md)
        msgids[data] = md.MsgId
    real_apply = pageset.Pageset.apply

    def apply(self, *args, **kwargs):
        raise pageset.PagesetFull(self.path, "MDB_MAP_FULL: Environment mapsize limit reached")

    monkeypatch.setattr(pageset.Pageset, "apply", apply)
    with pytest.raises(pageset.PagesetFull):
        eng.data.checkpoint()
    monkeypatch.setattr(pageset.Pageset, "apply", real_apply)

    def get(data: bytes, opts: int) -> bytes:
        return q.get(None, mqpy.MD(MsgId=msgids[data]), mqpy.GMO(Options=opts))

    sync = CMQC.MQGMO_SYNCPOINT
    assert q.get(None, mqpy.MD(), mqpy.GMO(Options=sync)) == b"old"
    assert get(b"a", sync) == b"a"
    qm.backout()  # B on the pageset for "old", B after P for "a"
    assert get(b"b", sync) == b"b"
    qm.commit()  # D after P
    eng.data.checkpoint()
    qm.disconnect()
    qm = _restart(qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_INPUT_AS_Q_DEF)
    out = []
    while True:
        md = mqpy.MD()
        try:
            out.append((q.get(None, md), md.BackoutCount))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
    assert out == [(b"old", 1), (b"a", 1), (b"c", 0)]


def test_puts_retried_against_a_full_disk_do_not_fill_the_log_with_checkpoints(
        qm_root, monkeypatch):
    """Given a unit of work in flight and a full disk, when an application retries a put
    that needs new log segments a thousand times (2102 each time), then the log's end has
    not moved (a checkpoint that can free no segment is not taken), and the unit of work
    commits. Before, every retry appended a checkpoint record, the log's end crossed into
    later segments, and the unit of work was backed out as if it pinned the log (2003)."""
    eng = inprocess.running("FAILQM", qm_root)
    monkeypatch.setattr(eng.data, "checkpoint_wanted", _NoCheckpointsWanted())
    owner = mqpy.embedded("FAILQM", data_path=qm_root)
    mqpy.Queue(owner, "Q", CMQC.MQOO_OUTPUT).put(
        b"in flight", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
        mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    log = eng.data.log
    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", small_log.FullDisk())
    qm = mqpy.embedded("FAILQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT)
    ends = set()
    for _ in range(1000):
        with pytest.raises(mqpy.MQMIError) as exc:
            _put(q, b"x" * (3 * log.segment_size))
        assert exc.value.reason == CMQC.MQRC_RESOURCE_PROBLEM
        ends.add(log.end_lsn)
    assert len(ends) <= 2  # at most the one checkpoint that could free something
    owner.commit()
    assert eng.log_full_backouts == 0


def test_puts_retried_against_full_pagesets_leave_room_to_end_units_of_work(
        qm_root, monkeypatch):
    """Given pagesets that refuse writes and a unit of work that got two messages when the log
    was already in its last segment, when an application retries a put until the log is full
    and then two thousand times more, then MQBACK still ends the unit of work and the messages
    are back: the retried checkpoints append no record each, so the reserve that backout
    records need is still there. Before, each retry appended a checkpoint record until even
    the reserve was used up, and MQBACK raised LogFull (the unit of work stayed active,
    pinning the log)."""
    from mqpy.engine import pageset
    from mqpy.engine.log import LogFull

    eng = inprocess.running("FAILQM", qm_root)
    log = eng.data.log
    qm = mqpy.embedded("FAILQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    for data in (b"one", b"two"):
        _put(q, data)

    def apply(self, *args, **kwargs):
        raise pageset.PagesetFull(self.path, "MDB_MAP_FULL: Environment mapsize limit reached")

    monkeypatch.setattr(pageset.Pageset, "apply", apply)
    other = mqpy.embedded("FAILQM", data_path=qm_root)
    oq = mqpy.Queue(other, "Q", CMQC.MQOO_OUTPUT)
    last = eng.data.log.config.max_segments - 1
    while log.end_lsn // log.segment_size < last:
        _put(oq, b"f" * 2000)
    sync = mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    assert [q.get(None, mqpy.MD(), sync) for _ in range(2)] == [b"one", b"two"]
    refused = 0
    while refused < 2000:  # 2000 checkpoint records would be more than the reserve
        try:
            _put(oq, b"f" * 2000)
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_RESOURCE_PROBLEM
            refused += 1
    try:
        qm.backout()
    except LogFull as exc:
        pytest.fail(f"MQBACK raised {exc!r}")
    assert _contents(qm)[:2] == [b"one", b"two"]  # back on the queue (browsed: no log)


def test_shutdown_waits_for_a_checkpoint_still_writing_the_pagesets(qm_root, monkeypatch):
    """Given the housekeeping thread's checkpoint still writing the pagesets (held here in
    the middle of its write), when the queue manager closes its log and pagesets, then the
    close waits for that checkpoint to finish instead of closing LMDB under it; a checkpoint
    that comes after the close does nothing; after a restart every message is there."""
    from mqpy.engine.pageset import Pageset

    qm = mqpy.embedded("FAILQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT)
    for i in range(20):
        _put(q, b"m%02d" % i)
    qm.disconnect()
    eng = inprocess.running("FAILQM", qm_root)
    writing, release = threading.Event(), threading.Event()
    apply = Pageset.apply

    def slow_apply(self, *args, **kw):
        writing.set()
        release.wait(10)
        return apply(self, *args, **kw)

    monkeypatch.setattr(Pageset, "apply", slow_apply)
    checkpointer = threading.Thread(target=eng.data.checkpoint)
    checkpointer.start()
    assert writing.wait(10)
    def close_data() -> None:
        with eng.lock:  # as the engine's close() calls it
            eng.data.close()

    closer = threading.Thread(target=close_data)
    closer.start()
    closer.join(0.3)
    still_waiting = closer.is_alive()  # (without the wait, the close is done by now)
    release.set()
    checkpointer.join(10)
    closer.join(10)
    assert still_waiting and not closer.is_alive() and not checkpointer.is_alive()
    monkeypatch.setattr(Pageset, "apply", apply)
    eng.data.checkpoint()  # after the close: nothing to do, and no error
    assert eng.failed is None
    inprocess.stop_all()
    inprocess.start("FAILQM", qm_root)
    qm = mqpy.embedded("FAILQM", data_path=qm_root)
    assert _contents(qm) == [b"m%02d" % i for i in range(20)]
