"""The recovery log formats its next segment ahead of need, in a thread of its own: an append
that reaches it renames it instead of zero-filling it under the log lock, never past the
segments the log may have, never over a segment that exists, and neither a half-formatted
file left by a crash nor a full disk in that thread harms the log."""

from __future__ import annotations

import errno
import os
import threading
import time

import pytest

from mqpy.engine import groupcommit, logfiles
from mqpy.engine.log import LogConfig, LogDiskFull, LogFull, encode_record
from mqpy.engine.recoverylog import RecoveryLog

CFG = LogConfig(LogFilePages=64, LogPrimaryFiles=2, LogSecondaryFiles=1)  # 256 KB segments
SEG = CFG.segment_size
RECORD = b"r" * 1000


def _formatting_ahead(fd: int) -> bool:
    return os.readlink(f"/proc/self/fd/{fd}").endswith(logfiles._AHEAD_SUFFIX)


class _Disk:
    """The log module's ``os``: the writes formatting ahead wait for ``gate`` (or fail
    with ``ahead_error``), ``error`` fails everyone's, and a rename or link over a file
    that exists is an error of the test."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.gate.set()
        self.held = threading.Event()  #: a write formatting ahead has reached the gate
        self.ahead_error: int | None = None
        self.error: int | None = None
        self.overwrites: list[str] = []

    def __getattr__(self, name):
        return getattr(os, name)

    def write(self, fd, data):
        if _formatting_ahead(fd):
            self.held.set()
            self.gate.wait()
            if self.ahead_error is not None:
                raise OSError(self.ahead_error, os.strerror(self.ahead_error))
        if self.error is not None:
            raise OSError(self.error, os.strerror(self.error))
        return os.write(fd, data)

    def _check(self, dst):
        if os.path.exists(dst):
            self.overwrites.append(dst)

    def rename(self, src, dst):
        self._check(dst)
        return os.rename(src, dst)

    def replace(self, src, dst):
        self._check(dst)
        return os.replace(src, dst)

    def link(self, src, dst):
        self._check(dst)
        return os.link(src, dst)


@pytest.fixture
def disk(monkeypatch):
    fake = _Disk()
    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", fake)
    yield fake
    fake.gate.set()


def _open(path, cfg: LogConfig = CFG) -> RecoveryLog:
    log = RecoveryLog(str(path), cfg)
    list(log.scan(0))
    return log


def _fill_to(log: RecoveryLog, lsn: int) -> None:
    while log.end_lsn < lsn:
        log.append(1, RECORD)


def _temp_files(path) -> list[str]:
    return sorted(n for n in os.listdir(path) if n.endswith(".new"))


def _wait_until(cond) -> None:
    for _ in range(5000):
        if cond():
            return
        time.sleep(0.001)
    raise AssertionError("condition never came true")


def test_a_segment_formatted_ahead_is_renamed_not_formatted_by_the_append_that_needs_it(
        tmp_path, disk):
    """Given a log past half of its first segment, when the formatting thread has made the
    next segment and the appends reach it, then no append zero-filled it, and every record
    reads back after a restart."""
    log = _open(tmp_path)
    _fill_to(log, SEG // 2 + 1)
    log._ahead.done.wait()
    assert _temp_files(tmp_path) == ["S0000001.LOG.ahead.new"]
    _fill_to(log, SEG + 100)
    log.force()
    assert (log.stats.formats, log.stats.formats_ahead) == (1, 1)  # (segment 0 only)
    assert disk.overwrites == []
    n = log.stats.records
    log.close()
    assert _temp_files(tmp_path) == []
    assert len(list(RecoveryLog(str(tmp_path), CFG).scan(0))) == n


@pytest.mark.parametrize("ahead", [1.0, 0.5])
def test_segments_formatted_ahead_never_exceed_the_primary_and_secondary_files_and_reserve(
        tmp_path, disk, monkeypatch, ahead):
    """Given a log of 2 primary and 1 secondary files whose records are never released,
    when ordinary records fill it (formatting ahead a whole segment before it is needed, or
    half of one), then at no point are there more than 4 segment files (with the one kept in
    reserve) counting those being formatted, and the log ends full (LogFull)."""
    monkeypatch.setattr(logfiles, "_AHEAD", ahead)
    log = _open(tmp_path)
    limit = CFG.max_segments + 1
    with pytest.raises(LogFull):
        while True:
            log.append(1, RECORD)
            if log._ahead is not None:
                log._ahead.done.wait()
            names = os.listdir(tmp_path)
            assert len(names) <= limit, names
            assert all(int(n[1:8]) < limit for n in names), names
    assert sorted(os.listdir(tmp_path)) == [f"S{i:07d}.LOG" for i in range(limit)]
    log.close()


def test_a_segment_needed_while_it_is_being_formatted_ahead_is_waited_for_not_formatted_twice(
        tmp_path, disk):
    """Given the formatting thread held in its first write, when an append needs that
    segment, then the append waits for the thread and renames its file (it formats nothing
    itself, and nothing is renamed over a file that exists)."""
    log = _open(tmp_path)
    disk.gate.clear()
    _fill_to(log, SEG // 2 + 1)
    job = log._ahead
    appender = threading.Thread(target=_fill_to, args=(log, SEG + 100))
    appender.start()
    _wait_until(lambda: log._ahead is None)  # (taken by the append, which waits for it)
    assert not job.done.is_set()
    disk.gate.set()
    appender.join()
    log.force()
    assert (log.stats.formats, log.stats.formats_ahead, job.state) == (1, 1, "taken")
    assert disk.overwrites == []
    assert _temp_files(tmp_path) == []
    log.close()


def test_a_released_segment_reused_while_one_is_formatted_ahead_cancels_the_formatting(
        tmp_path, disk):
    """Given the formatting thread held while making segment 3 of a log whose segments 0 and
    1 become released, when an append needs segment 3, then segment 0's file is renamed to
    it, the formatting stops and its file is removed, and nothing is renamed over a file
    that exists."""
    cfg = LogConfig(LogFilePages=64, LogPrimaryFiles=4, LogSecondaryFiles=1)
    log = _open(tmp_path, cfg)
    _fill_to(log, 2 * SEG)  # (segment 2 formatted ahead and taken, 3 not begun)
    assert log._ahead is None
    disk.gate.clear()
    _fill_to(log, 2 * SEG + SEG // 2)
    job = log._ahead
    assert job is not None and job.segno == 3
    inode = os.stat(tmp_path / "S0000000.LOG").st_ino
    log.force()
    log.release(2 * SEG)
    _fill_to(log, 3 * SEG + 100)
    assert job.state == "cancelled"
    assert os.stat(tmp_path / "S0000003.LOG").st_ino == inode
    disk.gate.set()
    job.done.wait()
    assert _temp_files(tmp_path) == []
    assert disk.overwrites == []
    log.force()
    log.close()


def test_close_stops_the_formatting_ahead_and_removes_its_file(tmp_path, disk):
    """Given the formatting thread held in its first write, when the log is closed, then
    close returns once the thread has stopped and no half-formatted file is left."""
    log = _open(tmp_path)
    disk.gate.clear()
    _fill_to(log, SEG // 2 + 1)
    job = log._ahead
    assert disk.held.wait(10)  # the thread is in its first write (not merely started)
    closer = threading.Thread(target=log.close)
    closer.start()
    _wait_until(lambda: job.state == "cancelled")
    assert closer.is_alive()  # (waiting for the thread)
    disk.gate.set()
    closer.join()
    assert job.done.is_set()
    assert _temp_files(tmp_path) == []


def test_a_half_formatted_file_left_by_a_crash_is_no_segment_and_is_removed_at_restart(
        tmp_path):
    """Given a log of some records and, beside it, the files a crash left while formatting
    the next segments (one of them holding what looks like the log's next record), when
    the log is read back at restart, then the records are the ones appended, those files
    are gone, and the log goes on into the segments they were for."""
    log = _open(tmp_path)
    _fill_to(log, SEG // 4)
    log.force()
    n, end = log.stats.records, log.end_lsn
    log.close()
    stray = encode_record(1, b"not in the log", end, end)
    (tmp_path / "S0000000.LOG.new").write_bytes(bytes(end) + stray)
    (tmp_path / "S0000001.LOG.ahead.new").write_bytes(b"\0" * 100)
    (tmp_path / "S0000002.LOG.new").write_bytes(stray)
    (tmp_path / "notes.new").write_bytes(b"not the log's")
    log = RecoveryLog(str(tmp_path), CFG)
    assert len(list(log.scan(0))) == n
    assert _temp_files(tmp_path) == ["notes.new"]
    _fill_to(log, 2 * SEG + 100)
    log.force()
    log.close()
    assert len(list(RecoveryLog(str(tmp_path), CFG).scan(0))) > n


def test_a_full_disk_in_the_formatting_thread_is_no_failure_of_the_log(tmp_path, disk):
    """Given a disk the formatting thread cannot write, when the appends reach the segment it
    was making, then the log has not failed, its file is gone, and the append that needs the
    segment formats it itself; with the disk full for that append too it gets LogDiskFull
    and the log goes on once there is space."""
    disk.ahead_error = errno.ENOSPC
    log = _open(tmp_path)
    _fill_to(log, SEG // 2 + 1)
    log._ahead.done.wait()
    assert log.failed is None and log._ahead.state == "failed"
    assert _temp_files(tmp_path) == []
    disk.error = errno.ENOSPC
    with pytest.raises(LogDiskFull):
        _fill_to(log, SEG + 100)
    assert log.failed is None and _temp_files(tmp_path) == []
    disk.error = None
    _fill_to(log, SEG + 100)
    log.force()
    assert (log.stats.formats, log.stats.formats_ahead) == (2, 0)
    log.close()
