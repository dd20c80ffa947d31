"""The recovery log writes a round of whole pages through O_DIRECT, and through the page cache
where the file system refuses it; either way every record forced is read back."""

from __future__ import annotations

import errno
import os

import pytest

from mqpy.engine import groupcommit, logfiles
from mqpy.engine.log import PAGE_SIZE, LogConfig, LogWriteError
from mqpy.engine.recoverylog import RecoveryLog

pytestmark = pytest.mark.skipif(not groupcommit._DIRECT, reason="no O_DIRECT or RWF_DSYNC here")

SMALL = LogConfig(LogFilePages=4, LogPrimaryFiles=2, LogSecondaryFiles=1)  # 16 KB segments


def _direct_works(path) -> bool:
    probe = os.path.join(path, "probe")
    with open(probe, "wb") as f:
        f.write(bytes(PAGE_SIZE))
    try:
        os.close(os.open(probe, os.O_RDWR | os.O_DIRECT))
        return True
    except OSError:
        return False
    finally:
        os.unlink(probe)


class _Disk:
    """The log module's view of ``os``: records each pwritev (fd, offset, length, address of
    the buffer) and can refuse O_DIRECT opens or fail the writes."""

    def __init__(self) -> None:
        self.writes: list[tuple[int, int, int, int]] = []
        self.refuse_direct = False
        self.direct_opens = 0
        self.fail: OSError | None = None

    def __getattr__(self, name):
        return getattr(os, name)

    def open(self, path, flags, *args):
        if flags & os.O_DIRECT:
            self.direct_opens += 1
            if self.refuse_direct:
                raise OSError(errno.EINVAL, "Invalid argument")
        return os.open(path, flags, *args)

    def pwritev(self, fd, buffers, offset, flags=0):
        import ctypes

        if self.fail is not None:
            raise self.fail
        for b in buffers:
            view = memoryview(b)
            address = ctypes.addressof(ctypes.c_char.from_buffer(view)) if not view.readonly \
                else -1
            self.writes.append((fd, offset, view.nbytes, address))
        return os.pwritev(fd, buffers, offset, flags)


def _direct_log(tmp_path, monkeypatch) -> tuple[RecoveryLog, _Disk]:
    """An empty log in ``tmp_path`` seeing the disk through a _Disk (skip without O_DIRECT)."""
    if not _direct_works(str(tmp_path)):
        pytest.skip("this file system refuses O_DIRECT")
    disk = _Disk()
    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", disk)
    log = RecoveryLog(str(tmp_path), SMALL)
    list(log.scan(0))
    return log, disk


def _reread(path, config=SMALL) -> list[bytes]:
    log = RecoveryLog(path, config)
    try:
        return [r.payload for r in log.scan(0)]
    finally:
        log.close()


def test_rounds_of_whole_pages_go_through_o_direct_from_an_aligned_buffer(tmp_path, monkeypatch):
    """Given a log on a file system that does O_DIRECT, when records are forced one by one
    (each round rewrites the page the last one ended in), then each round is one write
    through the segment's O_DIRECT descriptor, at a page offset, of whole pages, from a
    page-aligned buffer; and a new log instance reads every record back in order."""
    log, disk = _direct_log(tmp_path, monkeypatch)
    payloads = [b"r%03d-" % i * (i % 7 + 1) for i in range(40)]
    for p in payloads:
        log.force(log.append(1, p))
    assert len(disk.writes) == 40
    for fd, offset, length, address in disk.writes:
        assert fd in log._direct.values()
        assert offset % PAGE_SIZE == 0 and length % PAGE_SIZE == 0
        assert address % PAGE_SIZE == 0
    log.close()
    monkeypatch.undo()
    assert _reread(str(tmp_path)) == payloads


def test_a_file_system_refusing_o_direct_gets_the_page_cache_for_good(tmp_path, monkeypatch):
    """Given a file system that refuses O_DIRECT (EINVAL at the open, as tmpfs does), when
    records are forced, then each round is written through the page cache instead, O_DIRECT
    is asked for once only, and every record reads back."""
    disk = _Disk()
    disk.refuse_direct = True
    for module in (logfiles, groupcommit):  # (the log modules that do I/O)
        monkeypatch.setattr(module, "os", disk)
    log = RecoveryLog(str(tmp_path), SMALL)
    list(log.scan(0))
    for i in range(5):
        log.force(log.append(1, b"rec-%d" % i))
    assert disk.direct_opens == 1 and not log._direct
    assert len(disk.writes) == 5 and all(fd == log._fds[0] for fd, *_ in disk.writes)
    log.close()
    monkeypatch.undo()
    assert _reread(str(tmp_path)) == [b"rec-%d" % i for i in range(5)]


def test_a_failed_direct_write_fails_the_log_and_is_not_retried(tmp_path, monkeypatch):
    """Given a log writing through O_DIRECT, when a round's write fails with EIO, then the
    forcer gets LogWriteError and the log refuses later appends (fail-stop): an I/O error is
    not taken for a refusal of O_DIRECT and written again through the page cache."""
    log, disk = _direct_log(tmp_path, monkeypatch)
    log.force(log.append(1, b"durable"))
    disk.fail = OSError(errno.EIO, "I/O error")
    with pytest.raises(LogWriteError):
        log.force(log.append(1, b"lost"))
    assert log._direct_ok
    with pytest.raises(LogWriteError):
        log.append(1, b"after")
    log.close()
    monkeypatch.undo()
    assert _reread(str(tmp_path))[0] == b"durable"


def test_a_reused_segment_is_written_through_its_own_descriptors(tmp_path):
    """Given a small circular log written past its end several times (released segments
    renamed and reused), then no O_DIRECT descriptor is kept for a segment that no longer
    exists under its number, and every record after the release point reads back."""
    if not _direct_works(str(tmp_path)):
        pytest.skip("this file system refuses O_DIRECT")
    log = RecoveryLog(str(tmp_path), SMALL)
    list(log.scan(0))
    written = []
    for i in range(1000):  # (some 12 segments' worth: the 3 files are reused 3 times)
        start = log.end_lsn
        log.force(log.append(1, b"%04d" % i * 40))
        written.append((start, b"%04d" % i * 40))
        # (the release point at a record: the oldest one within the last segment's length)
        log.release(next(lsn for lsn, _ in written if lsn >= log.end_lsn - log.segment_size))
    live = set(log._existing_segments())
    assert max(live) > 9 and len(live) <= 4
    assert set(log._direct) <= live and set(log._fds) <= live
    release = log.release_lsn
    log.close()
    reread = RecoveryLog(str(tmp_path), SMALL)
    reread.open_at(release)
    got = [r.payload for r in reread.scan(release)]
    reread.close()
    assert got == [p for lsn, p in written if lsn >= release]
