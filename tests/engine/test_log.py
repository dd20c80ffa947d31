"""The recovery log: records come back as written; a torn tail is cut, damage is refused."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mqpy.engine import groupcommit, logfiles, recoverylog
from mqpy.engine.log import HEADER_SIZE, PAGE_SIZE, LogConfig, LogCorrupt, LogFull, LogWriteError
from mqpy.engine.recoverylog import RecoveryLog

SMALL = LogConfig(LogFilePages=4, LogPrimaryFiles=2, LogSecondaryFiles=1)  # 16 KB segments


def write(path, records, config=SMALL, force_each=True):
    log = RecoveryLog(path, config)
    list(log.scan(0))
    lsns = []
    for rtype, payload in records:
        lsns.append(log.end_lsn)
        end = log.append(rtype, payload)
        if force_each:
            log.force(end)
    log.force()
    log.close()
    return lsns


def read(path, config=SMALL, start=0):
    log = RecoveryLog(path, config)
    out = [(r.rtype, r.payload) for r in log.scan(start)]
    return log, out


records_st = st.lists(st.tuples(st.integers(1, 9), st.binary(max_size=3000)), max_size=25)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=records_st)
def test_records_round_trip_across_segments(tmp_path_factory, records):
    """Given any records, some larger than a segment's remainder, when the log is reopened,
    then scan returns exactly them, in order."""
    path = str(tmp_path_factory.mktemp("log"))
    write(path, records, LogConfig(LogFilePages=4, LogPrimaryFiles=30, LogSecondaryFiles=0))
    _, out = read(path, LogConfig(LogFilePages=4, LogPrimaryFiles=30, LogSecondaryFiles=0))
    assert out == records


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(st.tuples(st.integers(1, 9), st.binary(min_size=1, max_size=500)),
                        min_size=1, max_size=15), cut=st.integers(0, 10_000))
@example(records=[(1, b"\0")] * 7, cut=202)  # the cut crosses a record ending in a zero
def test_a_torn_tail_is_cut_at_the_last_whole_record(tmp_path_factory, records, cut):
    """Given records written in one unforced batch, when the crash keeps only the first `cut`
    bytes (the rest of the formatted segment zeros), then restart returns exactly the records
    left whole and never fails: those before the cut, and one the cut crosses only where
    its bytes past the cut were zeros already (a payload ending in zero bytes)."""
    path = str(tmp_path_factory.mktemp("log"))
    cfg = LogConfig(LogFilePages=8, LogPrimaryFiles=3, LogSecondaryFiles=0)
    lsns = write(path, records, cfg, force_each=False)
    seg = os.path.join(path, "S0000000.LOG")
    with open(seg, "r+b") as f:
        written = f.read()
        f.seek(cut)
        f.write(b"\0" * (cfg.segment_size - cut))
    _, out = read(path, cfg)
    whole = []
    for lsn, record in zip(lsns, records, strict=True):
        end = lsn + HEADER_SIZE + len(record[1])
        if end > cut and written[cut:end].strip(b"\0"):
            break
        whole.append(record)
    assert out == whole


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(st.lists(st.binary(max_size=2500), min_size=1, max_size=6),
                        min_size=1, max_size=6))
def test_the_log_writes_whole_pages_and_restart_keeps_what_the_page_held(
        tmp_path_factory, batches):
    """Given batches of records, each batch forced and the log reopened after it (so appending
    resumes in the middle of a page), then every write of the buffer covers whole pages (a
    recycled segment's page is never read from disk before it is written) and the reopened
    log holds every record in order."""
    path = str(tmp_path_factory.mktemp("log"))
    cfg = LogConfig(LogFilePages=2, LogPrimaryFiles=60, LogSecondaryFiles=0)
    writes = []
    real, real_dsync = RecoveryLog._pwrite, RecoveryLog._write_dsync

    def recording(self, lsn, data):
        writes.append((lsn, len(data)))
        real(self, lsn, data)

    def recording_dsync(self, lsn, data):  # (a round's write and sync in one call)
        done = real_dsync(self, lsn, data)
        if done:
            writes.append((lsn, len(data)))
        return done

    RecoveryLog._pwrite, RecoveryLog._write_dsync = recording, recording_dsync
    try:
        for batch in batches:
            log = RecoveryLog(path, cfg)
            list(log.scan(0))
            for payload in batch:
                log.append(1, payload)
            log.force()
            log.close()
    finally:
        RecoveryLog._pwrite, RecoveryLog._write_dsync = real, real_dsync
    assert writes and all(lsn % PAGE_SIZE == 0 and n % PAGE_SIZE == 0 for lsn, n in writes)
    _, out = read(path, cfg)
    assert out == [(1, p) for batch in batches for p in batch]


def test_a_torn_record_followed_by_an_unforced_one_is_a_torn_tail(tmp_path):
    """Given two records written by one force, when the first is damaged but the second
    reached the disk, then restart ends the log before the first: nothing was acknowledged."""
    path = str(tmp_path)
    lsns = write(path, [(1, b"a" * 100), (2, b"b" * 100), (3, b"c" * 100)], force_each=False)
    _flip(path, lsns[1] + HEADER_SIZE + 5)
    log, out = read(path)
    assert out == [(1, b"a" * 100)]
    assert log.end_lsn == lsns[1]


def test_damage_to_a_forced_record_refuses_restart_naming_file_and_offset(tmp_path):
    """Given records each forced before the next was written, when a middle record is damaged,
    then restart raises LogCorrupt naming the segment file and the offset.
    spec: the engine issue's 'corrupt log record at restart'"""
    path = str(tmp_path)
    lsns = write(path, [(1, b"a" * 100), (2, b"b" * 100), (3, b"c" * 100)])
    _flip(path, lsns[1] + HEADER_SIZE + 5)
    log = RecoveryLog(path, SMALL)
    with pytest.raises(LogCorrupt) as exc:
        list(log.scan(0))
    assert exc.value.path.endswith("S0000000.LOG")
    assert exc.value.offset == lsns[1]
    assert "S0000000.LOG" in str(exc.value) and str(lsns[1]) in str(exc.value)


def test_appending_after_restart_continues_the_stream(tmp_path):
    """Given a log cut at a torn tail, when new records are appended and the log reopened,
    then the stream is the survivors followed by the new records."""
    path = str(tmp_path)
    lsns = write(path, [(1, b"x" * 50), (2, b"y" * 50)], force_each=False)
    _flip(path, lsns[1] + 3)
    log, out = read(path)
    end = log.append(7, b"new")
    log.force(end)
    log.close()
    _, out = read(path)
    assert out == [(1, b"x" * 50), (7, b"new")]


def test_segments_below_the_release_point_are_reused_and_the_log_has_a_limit(tmp_path):
    """Given 3 segments at most, when more is appended without release, then LogFull; once a
    checkpoint releases the old segments, appends go on and old files are recycled."""
    path = str(tmp_path)
    log = RecoveryLog(path, SMALL)
    list(log.scan(0))
    with pytest.raises(LogFull):
        for _ in range(100):
            log.force(log.append(1, b"z" * 1000))
    for i in range(60):
        if i % 10 == 0:
            log.release(log.end_lsn)
            start = log.end_lsn
        log.force(log.append(1, b"z" * 1000))
    # and the one kept formatted in reserve for the records that end work
    assert len([n for n in os.listdir(path) if n.endswith(".LOG")]) <= SMALL.max_segments + 1
    log.close()
    log2 = RecoveryLog(path, SMALL)
    log2.open_at(start)
    assert len(list(log2.scan(start))) == 10


def test_the_statistics_count_each_force_that_waited_for_a_round_once(tmp_path):
    """Given one thread appending and forcing 5 records, then a force of what is already
    durable, then the log counts 5 rounds, 5 forces that waited for one (the commits an
    fsync carries: 1) and some time in the syncs; the force with nothing to do is not
    counted."""
    log = RecoveryLog(str(tmp_path), LogConfig(LogFilePages=256))
    list(log.scan(0))
    for i in range(5):
        log.force(log.append(1, b"r%d" % i))
    log.force()
    assert (log.stats.forces, log.stats.forced) == (5, 5)
    assert log.stats.sync_seconds > 0
    log.close()


def test_concurrent_forces_share_fsyncs(tmp_path):
    """Given 8 threads each appending and forcing 50 records, then there are fewer fsyncs than
    forces (group commit) and every record is durable and readable."""
    import threading

    log = RecoveryLog(str(tmp_path), LogConfig(LogFilePages=256))
    list(log.scan(0))

    def worker(i):
        for j in range(50):
            log.force(log.append(1, b"%d-%d" % (i, j)))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert log.stats.forces < 400
    log.close()
    _, out = read(str(tmp_path), LogConfig(LogFilePages=256))
    assert len(out) == 400


def _flip(path, lsn, cfg=SMALL):
    seg, off = divmod(lsn, cfg.segment_size)
    with open(os.path.join(path, f"S{seg:07d}.LOG"), "r+b") as f:
        f.seek(off)
        b = f.read(1)
        f.seek(off)
        f.write(bytes([b[0] ^ 0xFF]))


class _SlowDisk:
    """A sync (fdatasync, or a write with RWF_DSYNC: a round's one call) that holds the first
    caller until released, so other forcers must queue, and that can be made to fail."""

    def __init__(self, log, monkeypatch):
        import threading


        self.log = log
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.fail: OSError | None = None
        self.calls = 0
        self.by: list[str] = []  # the threads that synced, in order
        real, real_pwritev = os.fdatasync, os.pwritev

        def sync():
            self.calls += 1
            self.by.append(threading.current_thread().name)
            self.entered.set()
            self.gate.wait(10)
            if self.fail is not None:
                raise self.fail

        def fdatasync(fd):
            sync()
            real(fd)

        def pwritev(fd, buffers, offset, flags=0):
            if flags & groupcommit._RWF_DSYNC:
                sync()
            return real_pwritev(fd, buffers, offset, flags)

        monkeypatch.setattr("mqpy.engine.groupcommit.os.fdatasync", fdatasync)
        monkeypatch.setattr("mqpy.engine.groupcommit.os.pwritev", pwritev)


def _forcers(log, n):
    """Start ``n`` threads that each append one record and force it; return them and results."""
    import threading

    results: dict[int, object] = {}

    def worker(i):
        try:
            log.force(log.append(1, b"rec-%d" % i))
            results[i] = "ok"
        except (OSError, LogWriteError) as e:
            results[i] = e

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    return threads, results


def _eight_behind_a_slow_fsync(tmp_path, monkeypatch, n=8):
    """One force stuck in fdatasync, ``n`` more queued behind it, then the disk answers and
    all are joined: the log, the disk, and the first's and the n's results."""
    log = RecoveryLog(str(tmp_path), LogConfig(LogFilePages=256))
    list(log.scan(0))
    disk = _SlowDisk(log, monkeypatch)
    first, first_result = _forcers(log, 1)
    first[0].start()
    assert disk.entered.wait(10)
    threads, results = _forcers(log, n)
    for t in threads:
        t.start()
    while len(log._queue) < n and any(t.is_alive() for t in threads):
        threads[0].join(0.01)
    disk.gate.set()
    for t in first + threads:
        t.join(10)
    return log, disk, first_result, results


def test_forcers_queued_behind_a_slow_fsync_are_all_made_durable(tmp_path, monkeypatch):
    """Given one force stuck in fdatasync, when 8 more threads force meanwhile, then once the
    disk answers every one of them returns, each record is durable, and the queued ones
    shared fsyncs (group commit with hand-over between writers)."""
    log, disk, first_result, results = _eight_behind_a_slow_fsync(tmp_path, monkeypatch)
    assert first_result == {0: "ok"}
    assert results == {i: "ok" for i in range(8)}
    assert disk.calls < 9 and log.flushed_lsn == log.end_lsn
    assert not log._flushing and not log._queue
    # the statistics count each of the 9 forces once, whichever round made it durable
    assert log.stats.forced == 9 and log.stats.forces == disk.calls
    log.close()
    _, out = read(str(tmp_path), LogConfig(LogFilePages=256))
    assert len(out) == 9


def test_a_failing_fsync_fails_every_forcer_waiting_on_it_and_the_log_takes_nothing_more(
        tmp_path, monkeypatch):
    """Given queued forcers behind a fdatasync that fails, then each of them gets
    LogWriteError (none returns as if durable); and even once the disk answers again the log
    refuses appends and forces: after a failed fdatasync the kernel may have dropped the
    pages, so a later successful one would prove nothing (fail-stop; restart decides)."""
    log = RecoveryLog(str(tmp_path), LogConfig(LogFilePages=256))
    list(log.scan(0))
    disk = _SlowDisk(log, monkeypatch)
    disk.fail = OSError(5, "I/O error")
    first, first_result = _forcers(log, 1)
    first[0].start()
    assert disk.entered.wait(10)
    threads, results = _forcers(log, 4)
    for t in threads:
        t.start()
    while len(log._queue) < 4 and any(t.is_alive() for t in threads):
        threads[0].join(0.01)
    disk.gate.set()
    for t in first + threads:
        t.join(10)
    assert isinstance(first_result[0], LogWriteError) and first_result[0].errno == 5
    assert all(isinstance(r, LogWriteError) for r in results.values()) and len(results) == 4
    assert log.flushed_lsn < log.end_lsn
    disk.fail = None
    with pytest.raises(LogWriteError):
        log.append(1, b"after")
    with pytest.raises(LogWriteError):
        log.force()
    log.close()


class _HeldWrite:
    """A log whose first forcer's pwrite is held in the "disk" until ``release()``: the
    forcer (thread ``writer``) has taken the buffer and is writing it, outside the log
    lock, when the test goes on."""

    def __init__(self, tmp_path, monkeypatch) -> None:
        import threading


        self.cfg = LogConfig(LogFilePages=256)
        self.log = RecoveryLog(str(tmp_path), self.cfg)
        list(self.log.scan(0))
        self.gate, entered = threading.Event(), threading.Event()
        real_pwrite, real_pwritev, gate = os.pwrite, os.pwritev, self.gate
        held = self

        class Disk:
            def __getattr__(self, name):
                return getattr(os, name)

            @staticmethod
            def pwrite(fd, data, off):
                if threading.current_thread() is held.writer:
                    entered.set()
                    gate.wait(120)  # (longer than a test waits for anything)
                return real_pwrite(fd, data, off)

            @staticmethod
            def pwritev(fd, buffers, off, flags=0):  # (a round's write and sync in one call)
                if threading.current_thread() is held.writer:
                    entered.set()
                    gate.wait(120)
                return real_pwritev(fd, buffers, off, flags)

        for module in (logfiles, groupcommit):  # (the log modules that do I/O)
            monkeypatch.setattr(module, "os", Disk())
        first = self.log.append(1, b"first")
        self.writer = threading.Thread(target=self.log.force, args=(first,), daemon=True)
        self.writer.start()
        assert entered.wait(30)

    def release(self) -> None:
        self.gate.set()
        self.writer.join(30)

    def reread(self, tmp_path, monkeypatch) -> list[bytes]:
        """Force, close, and read the log back from a new instance (the disk real again)."""
        self.log.force()
        self.log.close()
        monkeypatch.undo()
        reread = RecoveryLog(str(tmp_path), self.cfg)
        try:
            return [r.payload for r in reread.scan(0)]
        finally:
            reread.close()


def test_an_append_does_not_wait_for_a_log_write_in_progress(tmp_path, monkeypatch):
    """Given a forcer whose write of the log buffer is held up in the disk, when another
    thread appends a record, then the append completes meanwhile (appenders hold the engine
    lock, so they must never wait on the disk: every other call would queue behind them),
    and once the write is let go both records are durable and read back in order."""
    import threading

    held = _HeldWrite(tmp_path, monkeypatch)
    try:
        appended = threading.Event()
        appender = threading.Thread(
            target=lambda: (held.log.append(1, b"second"), appended.set()), daemon=True)
        appender.start()
        assert appended.wait(30), "the append waited for the disk write"
    finally:
        held.release()
    assert held.reread(tmp_path, monkeypatch) == [b"first", b"second"]


def test_a_write_through_waits_for_the_write_before_it(tmp_path, monkeypatch):
    """Given a forcer whose write is held up in the disk, when another thread's append fills
    the buffer past the write-through size, then its write goes after the held one (they
    share a page: the later write covers the earlier's records again, the earlier one ends
    in zeros), and after a force and a reopening both records read back in order."""
    import threading


    held = _HeldWrite(tmp_path, monkeypatch)
    monkeypatch.setattr(recoverylog, "_WRITE_THROUGH", 1)
    through = threading.Thread(target=held.log.append, args=(1, b"second"), daemon=True)
    through.start()
    through.join(0.5)  # (it waits for the held write; let it queue behind it)
    held.release()
    through.join(30)
    assert held.reread(tmp_path, monkeypatch) == [b"first", b"second"]


def test_a_writer_hands_the_next_round_to_the_first_forcer_queued(tmp_path, monkeypatch):
    """Given a writer whose fdatasync is held and a second forcer queued behind it, when the
    fdatasync ends, then the writer returns to its caller with its own record durable and
    the queued forcer writes and syncs its record itself (group commit goes on without
    keeping the first committer waiting for the others' fsyncs); both records are durable."""
    import threading


    cfg = LogConfig(LogFilePages=256)
    log = RecoveryLog(str(tmp_path), cfg)
    list(log.scan(0))
    gate, entered = threading.Event(), threading.Event()
    synced_by: list[str] = []
    real_fdatasync, real_pwritev = os.fdatasync, os.pwritev

    def syncing():
        if threading.current_thread() is first:
            entered.set()
            gate.wait(120)
        synced_by.append(threading.current_thread().name)

    class Disk:
        def __getattr__(self, name):
            return getattr(os, name)

        @staticmethod
        def fdatasync(fd):
            syncing()
            return real_fdatasync(fd)

        @staticmethod
        def pwritev(fd, buffers, off, flags=0):  # (a round's write and sync in one call)
            if flags & groupcommit._RWF_DSYNC:
                syncing()
            return real_pwritev(fd, buffers, off, flags)

    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", Disk())
    lsn1 = log.append(1, b"one")
    first = threading.Thread(target=log.force, args=(lsn1,), name="first", daemon=True)
    first.start()
    assert entered.wait(30)
    lsn2 = log.append(1, b"two")
    second = threading.Thread(target=log.force, args=(lsn2,), name="second", daemon=True)
    second.start()
    while not log._queue and second.is_alive():
        second.join(0.01)
    gate.set()
    first.join(30)
    second.join(30)
    assert synced_by == ["first", "second"]
    assert log.flushed_lsn >= lsn2
    log.close()


def test_a_write_through_landing_while_a_round_syncs_is_synced_before_it_is_durable(
        tmp_path, monkeypatch):
    """Given a force round F that has written its record and is about to sync, when a
    write-through append B (a record crossing into the next segment) finishes its write just
    as F gathers the segments to sync, and B then forces its own record, then B's segment is
    fdatasync'ed after B's write before B is told its record is durable. (The review of the
    log-writes-outside-the-lock change found that F could drop B's segment from the set to
    sync while B's force, finding nothing left to write, synced nothing.)"""
    import threading


    # (the round that writes then syncs the segments written since the last sync: F's own
    # write then goes by pwrite too, as when a write-through is waiting to be synced)
    monkeypatch.setattr(groupcommit, "_DSYNC_WRITES", False)
    lg = RecoveryLog(str(tmp_path), LogConfig(LogFilePages=4, LogPrimaryFiles=3,
                                              LogSecondaryFiles=2))
    list(lg.scan(0))
    seg = lg.segment_size
    while lg.end_lsn < seg - 3000:
        lg.append(1, b"x" * 500)
    lg.force()
    f_record = lg.append(1, b"a" * 100)  # F's record, in segment 0

    b_in_pwrite, b_go, b_written = threading.Event(), threading.Event(), threading.Event()
    synced: list[tuple[list[int], bool]] = []  # (segments of the fd, after B's write?)
    real_fdatasync = os.fdatasync

    def fdatasync(fd):
        synced.append(([s for s, f in lg._fds.items() if f == fd], b_written.is_set()))
        real_fdatasync(fd)

    monkeypatch.setattr(os, "fdatasync", fdatasync)
    real_pwrite = RecoveryLog._pwrite

    def pwrite(self, lsn, data):
        if threading.current_thread().name == "B":
            b_in_pwrite.set()
            assert b_go.wait(30)
            real_pwrite(self, lsn, data)
            b_written.set()
        else:
            real_pwrite(self, lsn, data)

    monkeypatch.setattr(RecoveryLog, "_pwrite", pwrite)
    out: dict[str, int] = {}

    def b_thread():
        monkeypatch.setattr(recoverylog, "_WRITE_THROUGH", 1)  # this append writes through
        out["end"] = lg.append(1, b"B" * 6000)  # crosses into segment 1
        monkeypatch.setattr(recoverylog, "_WRITE_THROUGH", 4 * 1024 * 1024)
        lg.force(out["end"])

    b = threading.Thread(target=b_thread, name="B", daemon=True)
    real_write_out = RecoveryLog._write_out

    def write_out(self, job, **kw):
        result = real_write_out(self, job, **kw)
        if threading.current_thread().name == "F" and not b.is_alive() and "end" not in out:
            b.start()  # B's write-through may now take _io: it waits in its pwrite
            assert b_in_pwrite.wait(30)
        return result

    monkeypatch.setattr(RecoveryLog, "_write_out", write_out)

    class Unsynced(set):
        """The set of segments to sync: as F reads it, B's write ends (a thread switch)."""

        def __iter__(self):
            snapshot = list(set.__iter__(self))
            if threading.current_thread().name == "F" and b_in_pwrite.is_set() \
                    and not b_written.is_set():
                b_go.set()
                assert b_written.wait(30)
            return iter(snapshot)

    lg._unsynced = Unsynced()
    f = threading.Thread(target=lambda: lg.force(f_record), name="F", daemon=True)
    f.start()
    f.join(60)
    b.join(60)
    assert (out["end"] - 1) // seg == 1
    assert lg.flushed_lsn >= out["end"]
    assert any(1 in segs and after for segs, after in synced), synced
    lg.close()


def test_the_forcers_a_round_covered_are_woken_one_by_the_other(tmp_path, monkeypatch):
    """Given one force stuck in fdatasync and 8 more queued behind it, when the disk answers,
    then every forcer returns with its record durable, and no thread wakes more than one
    other: the writer wakes the next writer and one forcer it covered, and each woken forcer
    wakes the next (waking a blocked thread costs the waker time with the GIL held)."""
    import collections
    import threading


    wakers: list[str] = []

    class Wake:
        def __init__(self, lock):
            self.lock = lock

        def acquire(self, *args, **kwargs):
            return self.lock.acquire(*args, **kwargs)

        def release(self):
            wakers.append(threading.current_thread().name)
            self.lock.release()

    class Forcer(groupcommit._Forcer):
        __slots__ = ()

        def __init__(self, lsn):
            super().__init__(lsn)
            self.wake = Wake(self.wake)

    monkeypatch.setattr(groupcommit, "_Forcer", Forcer)
    log, disk, first_result, results = _eight_behind_a_slow_fsync(tmp_path, monkeypatch)
    assert first_result == {0: "ok"} and results == {i: "ok" for i in range(8)}
    assert log.flushed_lsn == log.end_lsn
    # the first writer wakes the next writer (its round covered no one else), which wakes
    # one of the 7 its round covered, who wakes the next, and so on
    assert len(wakers) == 8
    assert max(collections.Counter(wakers).values()) == 1, wakers
    log.close()


def _a_round_of_two(tmp_path, monkeypatch):
    """A log whose last round made the records of two forcers durable (one stuck in a slow
    fdatasync while they queued, then one round for both), and its disk (no longer slow;
    ``by`` emptied)."""
    log, disk, _, results = _eight_behind_a_slow_fsync(tmp_path, monkeypatch, n=2)
    assert results == {0: "ok", 1: "ok"} and disk.calls == 2
    disk.by.clear()
    return log, disk


def _force_in_thread(log, name, results):
    import threading

    def run():
        try:
            log.force(log.append(1, name.encode()))
            results[name] = "ok"
        except LogWriteError as e:
            results[name] = e

    t = threading.Thread(target=run, name=name, daemon=True)
    t.start()
    return t


def _no_end_to_the_wait(monkeypatch):
    """A round waits for the last round's forcers without a limit that a test could meet.
    (Set after _a_round_of_two: that round's writer holds for the forcer of the round
    before, which never forces again, and would wait out _HOLD mean sync times.)"""

    monkeypatch.setattr(groupcommit, "_HOLD", 1000.0)
    monkeypatch.setattr(groupcommit, "_HOLD_MAX", 120.0)


def _holding(log, thread):
    """Wait until a force is holding its round (bounded by the thread's life)."""
    while log._holder is None and thread.is_alive():
        thread.join(0.01)
    return log._holder is not None


def test_a_round_waits_for_the_forcers_of_the_round_before_and_the_last_of_them_writes_it(
        tmp_path, monkeypatch):
    """Given a round that made two forcers' records durable, when one of them forces again
    with the disk idle, then it writes nothing yet; when the other forces too, then one
    round, written by that other thread, makes both records durable (a committer that is
    quickly back joins the next round instead of leaving it to the first one back alone)."""

    log, disk = _a_round_of_two(tmp_path, monkeypatch)
    _no_end_to_the_wait(monkeypatch)
    results: dict[str, object] = {}
    back = _force_in_thread(log, "back", results)
    assert _holding(log, back)
    assert disk.by == [] and "back" not in results
    last = _force_in_thread(log, "last", results)
    back.join(30)
    last.join(30)
    assert results == {"back": "ok", "last": "ok"}
    assert disk.by == ["last"]
    assert log.flushed_lsn == log.end_lsn and not log._flushing and log._holder is None
    log.close()
    _, out = read(str(tmp_path), LogConfig(LogFilePages=256))
    assert [p for _, p in out][-2:] == [b"back", b"last"]


def test_a_forcer_handed_the_writing_waits_for_the_last_rounds_forcers_too(
        tmp_path, monkeypatch):
    """Given a forcer queued behind a round whose writer is stuck in its sync, when the sync
    ends and the writing is handed to the queued forcer, then it writes nothing until the
    last round's writer forces again, and then one round, written by that one, makes both
    records durable."""
    _no_end_to_the_wait(monkeypatch)
    log = RecoveryLog(str(tmp_path), LogConfig(LogFilePages=256))
    list(log.scan(0))
    disk = _SlowDisk(log, monkeypatch)
    results: dict[str, object] = {}
    first = _force_in_thread(log, "first", results)
    assert disk.entered.wait(10)
    queued = _force_in_thread(log, "queued", results)
    while not log._queue and queued.is_alive():
        queued.join(0.01)
    disk.gate.set()
    first.join(30)
    assert _holding(log, queued)
    assert disk.by == ["first"] and "queued" not in results
    again = _force_in_thread(log, "again", results)
    queued.join(30)
    again.join(30)
    assert results == {"first": "ok", "queued": "ok", "again": "ok"}
    assert disk.by == ["first", "again"] and log.flushed_lsn == log.end_lsn
    log.close()


def test_a_round_waits_for_the_others_no_longer_than_a_round_takes(tmp_path, monkeypatch):
    """Given a round that made two forcers' records durable, when one of them forces again
    and the other never does, then the wait ends (after about one round's time) and the
    first writes its round itself: its record is durable."""
    log, disk = _a_round_of_two(tmp_path, monkeypatch)
    results: dict[str, object] = {}
    back = _force_in_thread(log, "back", results)
    back.join(30)
    assert not back.is_alive() and results == {"back": "ok"}
    assert disk.by == ["back"] and log.flushed_lsn == log.end_lsn
    log.close()


def test_a_force_that_may_not_wait_writes_its_round_at_once(tmp_path, monkeypatch):
    """Given a round that made two forcers' records durable, when one of them forces again
    saying it may not wait (it holds the engine lock the other needs to come back), then it
    writes its round at once, without the other."""
    log, disk = _a_round_of_two(tmp_path, monkeypatch)
    _no_end_to_the_wait(monkeypatch)
    log.may_hold = lambda: False
    log.force(log.append(1, b"locked"))
    assert disk.by == ["MainThread"] and log.flushed_lsn == log.end_lsn
    log.close()


def test_a_force_under_the_engine_lock_does_not_wait_for_others(tmp_path):
    """Given an engine's data manager, then its log's forces may wait for other forcers
    except while this thread holds the engine lock."""
    import threading

    from mqpy.engine.catalog import Catalog
    from mqpy.engine.datamgr import DataManager

    dm = DataManager(str(tmp_path), Catalog(), lambda *a: None)
    dm.lock = threading.RLock()
    assert dm.log.may_hold()
    with dm.lock:
        assert not dm.log.may_hold()
    other: list[bool] = []
    with dm.lock:  # held here, not by the other thread
        t = threading.Thread(target=lambda: other.append(dm.log.may_hold()))
        t.start()
        t.join(10)
    assert other == [True]
    dm.close()


def test_a_failed_round_written_for_a_waiting_forcer_fails_it_too(tmp_path, monkeypatch):
    """Given a forcer waiting for the other forcer of the last round, when that other one
    writes the round and its sync fails, then both get LogWriteError: neither returns as
    if its record were durable."""
    log, disk = _a_round_of_two(tmp_path, monkeypatch)
    _no_end_to_the_wait(monkeypatch)
    results: dict[str, object] = {}
    back = _force_in_thread(log, "back", results)
    assert _holding(log, back)
    disk.fail = OSError(5, "I/O error")
    last = _force_in_thread(log, "last", results)
    back.join(30)
    last.join(30)
    assert disk.by == ["last"]
    assert isinstance(results["back"], LogWriteError) and isinstance(results["last"],
                                                                     LogWriteError)
    assert log.flushed_lsn < log.end_lsn
    log.close()


def test_a_lone_forcer_never_waits_for_anyone(tmp_path, monkeypatch):
    """Given one thread forcing record after record, then no force waits for others (the
    round before covered only this thread): each is a round of its own at once."""
    from mqpy.engine.recoverylog import RecoveryLog as Log

    held: list[object] = []
    real_hold = Log._hold

    def hold(self, forcer):
        held.append(forcer)
        return real_hold(self, forcer)

    monkeypatch.setattr(Log, "_hold", hold)
    log = RecoveryLog(str(tmp_path), LogConfig(LogFilePages=256))
    list(log.scan(0))
    disk = _SlowDisk(log, monkeypatch)
    disk.gate.set()
    for i in range(20):
        log.force(log.append(1, b"%d" % i))
    assert held == [] and len(disk.by) == 20
    log.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(pages=20, steps=[(30000, False, False)] * 8 + [(10000, False, False)])  # the limit
@given(pages=st.sampled_from([2, 20]),  # a segment smaller than the reserve, and larger
       steps=st.lists(st.tuples(st.integers(0, 30000), st.booleans(), st.booleans()),
                      min_size=1, max_size=40))
def test_appends_known_to_fit_are_refused_exactly_where_a_checked_append_is(
        tmp_path_factory, monkeypatch, pages, steps):
    """Given the same appends (ordinary or reserved, of any size, some followed by a release
    of the log so far) on two logs, one checking the space for every append (its ``_room``
    cleared before each) and one skipping the checks below the room it knows, then both give
    the same LSN or the same LogFull for every append and hold the same segment files. (The
    skipped checks are the append's fast path: a room too large would accept a record the
    log has no space, or no formatted reserve, for.) New segments are formatted by the
    append that needs them: a segment formatted ahead by a thread of its own, or a released
    one reused, is a matter of that thread's timing, which would make the two logs' files
    differ for a reason that is not this test's."""

    monkeypatch.setattr(logfiles, "_FORMAT_AHEAD", False)
    cfg = LogConfig(LogFilePages=pages, LogPrimaryFiles=2, LogSecondaryFiles=1)
    logs = []
    for _ in range(2):
        lg = RecoveryLog(str(tmp_path_factory.mktemp("log")), cfg)
        list(lg.scan(0))
        logs.append(lg)
    checked, fast = logs
    try:
        for size, reserved, release in steps:
            outcomes = []
            for lg in logs:
                if lg is checked:
                    lg._room = 0
                try:
                    outcomes.append(lg.append(1, b"r" * size, reserved=reserved))
                except LogFull:
                    outcomes.append("full")
                if release:
                    lg.force()
                    lg.release(lg.end_lsn)
            assert outcomes[0] == outcomes[1]
            assert sorted(os.listdir(checked.directory)) == sorted(os.listdir(fast.directory))
    finally:
        for lg in logs:
            lg.close()


class _Calls:
    """The log module's view of ``os``, recording its writes and syncs (call, fd)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def __getattr__(self, name):
        real = getattr(os, name)
        if name not in ("pwrite", "pwritev", "fdatasync"):
            return real

        def recording(fd, *args):

            dsync = name == "pwritev" and len(args) > 2 and args[2] & groupcommit._RWF_DSYNC
            self.calls.append(("pwritev+dsync" if dsync else name, fd))
            return real(fd, *args)

        return recording


@pytest.mark.skipif(not getattr(os, "RWF_DSYNC", 0), reason="no RWF_DSYNC on this system")
def test_a_round_writes_and_syncs_in_one_call_unless_a_write_awaits_its_sync(
        tmp_path, monkeypatch):
    """Given a log, when a record is forced, then its round is one pwritev with RWF_DSYNC
    (no pwrite, no fdatasync); when an append has written the buffer through (a write not
    yet synced) and a record is forced, then the round writes with pwrite and fdatasyncs the
    segment (RWF_DSYNC would make durable its own range only, not the write-through's); and
    when a round's write crosses into the next segment, both segments are written and synced
    apart. Every record reads back."""

    cfg = LogConfig(LogFilePages=4, LogPrimaryFiles=3, LogSecondaryFiles=1)  # 16 KB segments
    lg = RecoveryLog(str(tmp_path), cfg)
    list(lg.scan(0))
    disk = _Calls()
    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", disk)
    lg.force(lg.append(1, b"usual"))
    # (through segment 0's O_DIRECT descriptor where the file system does O_DIRECT)
    assert disk.calls == [("pwritev+dsync", lg._direct.get(0, lg._fds[0]))]

    disk.calls.clear()
    monkeypatch.setattr(recoverylog, "_WRITE_THROUGH", 1)
    lg.append(1, b"written through")  # the append writes the buffer (pwrite, no sync)
    monkeypatch.setattr(recoverylog, "_WRITE_THROUGH", 4 * 1024 * 1024)
    lg.force(lg.append(1, b"after it"))
    assert [c for c, _ in disk.calls] == ["pwrite", "pwrite", "fdatasync"]
    assert disk.calls[-1] == ("fdatasync", lg._fds[0])

    disk.calls.clear()
    while lg.end_lsn < lg.segment_size - 2000:
        lg.append(1, b"f" * 500)
    lg.force()
    disk.calls.clear()
    lg.force(lg.append(1, b"c" * 5000))  # crosses into segment 1
    synced = sorted(fd for call, fd in disk.calls if call == "fdatasync")
    assert "pwritev+dsync" not in [c for c, _ in disk.calls]
    assert synced == sorted((lg._fds[0], lg._fds[1]))
    lg.close()
    monkeypatch.undo()
    payloads = [r.payload for r in RecoveryLog(str(tmp_path), cfg).scan(0)]
    assert payloads[:3] == [b"usual", b"written through", b"after it"]
    assert payloads[-1] == b"c" * 5000 and len(payloads) == 4 + payloads.count(b"f" * 500)
