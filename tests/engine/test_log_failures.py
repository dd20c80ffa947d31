"""A full disk or a failing log device: a clear MQ answer, an AMQ message, no lost message.

A new log segment that cannot be formatted is a full log for the call that needed it (2102,
AMQ6708E) and the queue manager goes on. A log write or sync that fails stops the queue
manager at once (AMQ6119S, 2009 to everybody): nothing more is written, so a restart recovers
exactly what the disk holds and every acknowledged message is still there.
"""

from __future__ import annotations

import errno
import os

import pytest

import mqpy
from mqpy import CMQC, config, inprocess
from mqpy.engine import groupcommit, logfiles
from tests.support import small_log


class _Disk:
    """The log module's view of ``os``, with chosen calls failing. A round of the log that
    writes and syncs in one call (``pwritev`` with RWF_DSYNC) fails with ``pwrite`` (before
    writing) and with ``fdatasync`` (having written: the sync failed)."""

    def __init__(self) -> None:
        self.failing: dict[str, int] = {}

    def __getattr__(self, name: str):
        real = getattr(os, name)
        if name == "pwritev" and ("pwrite" in self.failing or "fdatasync" in self.failing):
            def pwritev(fd, buffers, offset, flags=0):
                code = self.failing.get("pwrite")
                if code is None:
                    done = real(fd, buffers, offset, flags)
                    code = self.failing.get("fdatasync")
                    if code is None or not flags & groupcommit._RWF_DSYNC:
                        return done
                raise OSError(code, os.strerror(code))

            return pwritev
        if name not in self.failing:
            return real

        def fail(*_args, **_kwargs):
            code = self.failing[name]
            raise OSError(code, os.strerror(code))

        return fail


@pytest.fixture
def disk(monkeypatch):
    fake = _Disk()
    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", fake)
    return fake


@pytest.fixture
def qm_root(tmp_path):
    root = str(tmp_path)
    small_log.start("DISKQM", root)
    yield root
    inprocess.stop_all()


def _errlog(root: str) -> str:
    path = os.path.join(config.qmgr_dir("DISKQM", root), "errors", "AMQERR01.LOG")
    return open(path).read() if os.path.exists(path) else ""


_contents = small_log.contents


def _put(q, data: bytes, persistence: int = CMQC.MQPER_PERSISTENT) -> None:
    q.put(data, mqpy.MD(Persistence=persistence))


def test_a_log_segment_that_cannot_be_formatted_fails_the_call_with_2102_and_amq6708(
        qm_root, disk, monkeypatch):
    """Given a disk that fills up, when persistent puts need a new log segment, then the put
    that needs it gets MQRC_RESOURCE_PROBLEM (2102), AMQ6708E is logged, no half-formatted
    file is left, non-persistent work goes on; once there is space again persistent puts work,
    and after a restart every acknowledged message is there.
    spec: the engine issue's 'log space exhausted ... 2102 to the caller and nothing else breaks'"""
    qm = mqpy.embedded("DISKQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT)
    # no segment a checkpoint released is reused (else a new segment is a rename, no
    # formatting, once the first checkpoint is past): every new one is formatted
    monkeypatch.setattr(logfiles.LogFiles, "_released_segment", lambda self, segno: None)
    disk.failing["write"] = errno.ENOSPC
    acknowledged = []
    with pytest.raises(mqpy.MQMIError) as exc:
        for i in range(200):  # 200 x 2 KB: more than the segments the log has formatted
            data = b"%04d" % i + b"p" * 2000
            _put(q, data)
            acknowledged.append(data)
    assert exc.value.reason == CMQC.MQRC_RESOURCE_PROBLEM
    assert "AMQ6708E" in _errlog(qm_root)
    logdir = os.path.join(config.qmgr_dir("DISKQM", qm_root), "log")
    assert not [n for n in os.listdir(logdir) if n.endswith(".new")]
    _put(q, b"fast", CMQC.MQPER_NOT_PERSISTENT)  # the queue manager goes on
    del disk.failing["write"]
    _put(q, b"after")
    acknowledged.append(b"after")
    qm.disconnect()
    inprocess.stop_all()
    inprocess.start("DISKQM", qm_root)
    qm = mqpy.embedded("DISKQM", data_path=qm_root)
    assert _contents(qm) == acknowledged  # the non-persistent one is gone with the restart


@pytest.mark.parametrize("call", ["pwrite", "fdatasync"])
def test_a_failing_log_write_stops_the_queue_manager_and_restart_loses_nothing(
        qm_root, disk, call):
    """Given acknowledged persistent messages, when the log device fails under a get outside
    syncpoint, then that get and every later call get MQRC_CONNECTION_BROKEN (2009), waiting
    getters are woken with it, AMQ6119S is logged, nothing is checkpointed at shutdown; after
    a restart the acknowledged messages are all there (a failed write) or the got one is gone
    and only it (a failed sync: the outcome 2009 leaves open)."""
    qm = mqpy.embedded("DISKQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    for data in (b"first", b"second"):
        _put(q, data)
    disk.failing[call] = errno.EIO
    with pytest.raises(mqpy.MQMIError) as exc:
        q.get()
    assert exc.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    for attempt in (lambda: _put(q, b"third"), lambda: _put(q, b"np", CMQC.MQPER_NOT_PERSISTENT),
                    lambda: mqpy.embedded("DISKQM", data_path=qm_root)):
        with pytest.raises(mqpy.MQMIError) as exc:
            attempt()
        assert exc.value.reason in (CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_NOT_AVAILABLE)
    text = _errlog(qm_root)
    assert "AMQ6119S" in text and os.strerror(errno.EIO) in text
    inprocess.stop_all()
    disk.failing.clear()
    inprocess.start("DISKQM", qm_root)
    left = _contents(mqpy.embedded("DISKQM", data_path=qm_root))
    assert left == [b"first", b"second"] or (call == "fdatasync" and left == [b"second"])


def test_a_getter_waiting_when_the_log_fails_is_woken_with_2009(qm_root, disk):
    """Given an application waiting in MQGET, when another connection's persistent put hits a
    failing log, then the waiter returns MQRC_CONNECTION_BROKEN at once instead of waiting out
    its interval."""
    import threading
    import time

    waiter = mqpy.embedded("DISKQM", data_path=qm_root)
    wq = mqpy.Queue(waiter, "Q", CMQC.MQOO_INPUT_AS_Q_DEF)
    outcome: list[object] = []

    def wait() -> None:
        gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=30_000)
        try:
            outcome.append(wq.get(None, mqpy.MD(), gmo))
        except mqpy.MQMIError as e:
            outcome.append(e.reason)

    t = threading.Thread(target=wait)
    t.start()
    time.sleep(0.2)  # the waiter is registered (a late one fails the same way)
    putter = mqpy.embedded("DISKQM", data_path=qm_root)
    disk.failing["pwrite"] = errno.EIO
    with pytest.raises(mqpy.MQMIError):
        _put(mqpy.Queue(putter, "Q", CMQC.MQOO_OUTPUT), b"lost?")
    t.join(10)
    assert not t.is_alive()
    assert outcome == [CMQC.MQRC_CONNECTION_BROKEN]


def test_pagesets_that_cannot_take_a_checkpoint_fill_the_log_then_2102_and_nothing_is_lost(
        qm_root, monkeypatch):
    """Given pagesets that cannot be written (a full disk), when persistent work goes on, then
    checkpoints fail without stopping anything (AMQ7002S in the error log), the log fills,
    and the call that finds it full gets MQRC_RESOURCE_PROBLEM (2102), never a traceback; once
    the disk has space the next checkpoint frees the log, work goes on, and after a restart
    every acknowledged message is there."""
    from mqpy.engine import pageset

    real_apply = pageset.Pageset.apply
    full = {"on": True}

    def apply(self, *args, **kwargs):
        if full["on"]:
            raise pageset.PagesetFull(self.path, "MDB_MAP_FULL: Environment mapsize limit reached")
        return real_apply(self, *args, **kwargs)

    monkeypatch.setattr(pageset.Pageset, "apply", apply)
    qm = mqpy.embedded("DISKQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    queued = []  # what the queue must hold: acknowledged puts less acknowledged gets
    with pytest.raises(mqpy.MQMIError) as exc:
        for i in range(600):  # 2 KB each: more than the whole log (4 segments of 64 KB)
            data = b"%04d" % i + b"c" * 2000
            _put(q, data)
            queued.append(data)
            if i % 3 == 2:  # some got again meanwhile: they must not come back
                assert q.get() == queued.pop(0)
    assert exc.value.reason == CMQC.MQRC_RESOURCE_PROBLEM
    assert "AMQ7002S" in _errlog(qm_root)
    full["on"] = False
    _put(q, b"after")
    queued.append(b"after")
    assert q.get() == queued.pop(0)
    qm.disconnect()
    inprocess.stop_all()
    inprocess.start("DISKQM", qm_root)
    assert _contents(mqpy.embedded("DISKQM", data_path=qm_root)) == queued


@pytest.fixture
def full_for_gets(monkeypatch):
    """A log with no room for the record of a get outside syncpoint while ``.on`` is set."""
    from mqpy.engine.log import LogFull
    from mqpy.engine.records import RecordType
    from mqpy.engine.recoverylog import RecoveryLog

    real_append = RecoveryLog.append

    class Switch:
        on = False

    def append(self, rtype, payload, **kwargs):
        if Switch.on and rtype == RecordType.GET1:
            raise LogFull("active log full")
        return real_append(self, rtype, payload, **kwargs)

    monkeypatch.setattr(RecoveryLog, "append", append)
    return Switch


def test_a_get_that_finds_the_log_full_leaves_the_message_on_the_queue(qm_root, full_for_gets):
    """Given a persistent message, when a get outside syncpoint cannot log its removal (the
    log is full), then it fails with MQRC_RESOURCE_PROBLEM (2102), is not counted as a get in
    the statistics, and the message is still there for the next get, not gone until a
    restart."""
    qm = mqpy.embedded("DISKQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    _put(q, b"keep me")
    full_for_gets.on = True
    eng = inprocess.running("DISKQM", qm_root)
    with pytest.raises(mqpy.MQMIError) as exc:
        q.get()
    assert exc.value.reason == CMQC.MQRC_RESOURCE_PROBLEM
    assert eng.stats.queue("Q").gets == [0, 0]  # a get that failed is not counted as one
    full_for_gets.on = False
    assert q.get() == b"keep me"
    assert eng.stats.queue("Q").gets == [0, 1]


def test_an_expired_message_the_full_log_cannot_remove_stays_and_is_reported_once(
        qm_root, full_for_gets):
    """Given an expired persistent message asking for an expiration report, when the log is
    full as a get and the expiry scan find it, then neither fails with anything but the usual
    2033, and the message stays; once the log has room it is removed and reported exactly
    once. spec: the engine issue's 'log space exhausted ... nothing else breaks'"""
    import time

    eng = inprocess.running("DISKQM", qm_root)
    eng.define("QLOCAL", "REPLY", {})
    qm = mqpy.embedded("DISKQM", data_path=qm_root)
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"short-lived", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, Expiry=1,
                                   Report=CMQC.MQRO_EXPIRATION, ReplyToQ=b"REPLY"))
    time.sleep(0.2)
    full_for_gets.on = True
    with pytest.raises(mqpy.MQMIError) as exc:
        q.get()
    assert exc.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    assert eng.expire_scan() == 0
    assert eng.catalog.queues[eng.catalog.queue_def("Q").qid].depth == 1
    full_for_gets.on = False
    assert eng.expire_scan() == 1
    reply = mqpy.Queue(qm, "REPLY", CMQC.MQOO_INPUT_AS_Q_DEF)
    md = mqpy.MD()
    reply.get(None, md)  # MQRO_EXPIRATION: a report without the message's data
    assert md.Feedback == CMQC.MQFB_EXPIRATION and md.MsgType == CMQC.MQMT_REPORT
    with pytest.raises(mqpy.MQMIError):
        reply.get()


def test_a_checkpoint_for_log_space_that_the_full_disk_refuses_is_amq6708(qm_root, monkeypatch):
    """Given a call that found the log full, when the checkpoint it makes to free space needs
    a log segment the full disk refuses, then the call's failure stays a full log (2102 to the
    application) and the error log says AMQ6708E."""
    from mqpy.engine.log import LogDiskFull, LogFull

    eng = inprocess.running("DISKQM", qm_root)

    def refused() -> None:
        raise LogDiskFull("/the/log", "No space left on device")

    monkeypatch.setattr(eng.data, "checkpoint", refused)
    with pytest.raises(LogFull):
        eng.data._checkpoint_for_space()
    assert "AMQ6708E" in _errlog(qm_root)


@pytest.mark.parametrize("reserved_for_it", [True, False])
def test_a_backout_record_larger_than_the_fixed_reserve_fits_on_a_full_disk(
        tmp_path, monkeypatch, reserved_for_it):
    """Given the units of work open reserving room for a 100 KB backout record (a unit of
    work that got over 6,000 messages: 16 bytes of backout count each), when ordinary
    records bring the log within 90 KB of its segment's end and the disk fills, then that
    backout record is still appended and made durable; without the reservation it would
    need a segment the full disk cannot hold (LogDiskFull): the fixed 64 KB reserve is
    not enough. (Without formatting ahead: a segment formatted ahead of need would hold
    the record whatever was reserved.)"""
    from mqpy.engine.log import LogConfig, LogDiskFull
    from mqpy.engine.recoverylog import RecoveryLog

    monkeypatch.setattr(logfiles, "_FORMAT_AHEAD", False)
    cfg = LogConfig(LogFilePages=64)  # 256 KB segments
    log = RecoveryLog(str(tmp_path), cfg)
    list(log.scan(0))
    backout = b"c" * 100_000
    if reserved_for_it:
        log.reserve_more(len(backout))
    while log.end_lsn < cfg.segment_size - 90_000:
        log.append(1, b"g" * 10_000)
    log.force(log.end_lsn)
    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", small_log.FullDisk())
    if not reserved_for_it:
        with pytest.raises(LogDiskFull):
            log.append(3, backout, reserved=True)
        return
    end = log.append(3, backout, reserved=True)
    log.force(end)
    monkeypatch.undo()
    log.reserve_more(-len(backout))
    log.close()
    reread = RecoveryLog(str(tmp_path), cfg)
    assert [r.payload for r in reread.scan(0)][-1] == backout
    reread.close()


def test_each_get_under_syncpoint_reserves_its_backout_count_until_the_unit_ends(tmp_path):
    """Given 3 persistent messages, when they are got under syncpoint, then the log keeps
    48 bytes more formatted for the backout record (16 a message); when the unit of work
    backs out, and again when it commits, the reservation is given back."""
    qm = mqpy.embedded("RSVQM", data_path=str(tmp_path))
    eng = inprocess.running("RSVQM", str(tmp_path))
    log = eng.data.log
    eng.define("QLOCAL", "Q", {})
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    for _ in range(3):
        q.put(b"m", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
    base = log._reserve
    for end in (qm.backout, qm.commit):
        for _ in range(3):
            q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
        assert log._reserve == base + 48
        end()
        assert log._reserve == base
    q.close()
    qm.disconnect()
    inprocess.stop("RSVQM", str(tmp_path))
