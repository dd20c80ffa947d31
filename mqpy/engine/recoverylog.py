"""The recovery log of one queue manager (:class:`RecoveryLog`): an append-only stream of
checksummed records in fixed-size segment files, whose LSNs are byte offsets. Appending
buffers a record (:meth:`RecoveryLog.append`); forcing makes it durable (group commit,
groupcommit.py); the segment files and their space are logfiles.py's; at restart
:meth:`RecoveryLog.scan` reads the records back and finds the end of the log, or damage
to what was forced (:class:`~mqpy.engine.log.LogCorrupt`). The only code that writes log
files; how it works: docs/engine/log.md.
"""

from __future__ import annotations

import contextlib
import mmap
import threading
import zlib
from collections.abc import Callable, Iterator

from mqpy import filemodes
from mqpy.engine.groupcommit import _DIRECT, GroupCommit, _Forcer
from mqpy.engine.log import (
    _HDR,
    _HEAD,
    HEADER_SIZE,
    MAGIC,
    MAX_RECORD,
    PAGE_SIZE,
    LogConfig,
    LogCorrupt,
    LogDiskFull,
    LogError,
    LogNoSpace,
    LogRecord,
    LogStats,
    LogWriteError,
    _crc,
)
from mqpy.engine.logfiles import _RESERVE, LogFiles, _Ahead
from mqpy.engine.logreplay import RECORDS_BETWEEN_CHECKS, ReplayProgress

_ZERO_PAGE = bytes(PAGE_SIZE)
# Above this many buffered bytes, append writes the buffer to the file (no fsync) to bound memory.
_WRITE_THROUGH = 4 * 1024 * 1024

#: the replay progress a restart in this process reports (:func:`watching_replay`)
_replay_progress: ReplayProgress | None = None


@contextlib.contextmanager
def watching_replay(progress: ReplayProgress) -> Iterator[ReplayProgress]:
    """Within the block, a restart's log replay (a log's :meth:`RecoveryLog.scan`) reports
    how many records it has read to ``progress`` (the daemon's strmqm, a restart at a time)."""
    global _replay_progress
    _replay_progress, previous = progress, _replay_progress
    try:
        yield progress
    finally:
        _replay_progress = previous


class RecoveryLog(LogFiles, GroupCommit):
    """Append, force and read back the recovery log of one queue manager."""

    def __init__(self, directory: str, config: LogConfig | None = None) -> None:
        self.directory = directory
        self.config = config or LogConfig()
        self.segment_size = self.config.segment_size
        # formatted log kept free after each record that does not end work, for the commit,
        # backout and checkpoint records that may follow it when the disk is full: _RESERVE,
        # plus what the open units of work's backout records need (reserve_more)
        self._reserve = min(_RESERVE, self.segment_size)
        self._reserved_for_backout = 0
        filemodes.makedirs(directory)
        self._lock = threading.Lock()  # buffer, next LSN, segment files
        # held from taking a buffer to write (under _lock, so writes go in LSN order) until
        # it is in the files; the write itself is made without _lock, so that appenders (who
        # hold the engine lock) wait on a disk write only behind a write-through
        self._io = threading.Lock()
        self._flush = threading.Lock()  # flushed LSN, the writing flag, the queue of forcers
        self._queue: list[_Forcer] = []
        self._buf = bytearray()
        self._buf_start = 0  # LSN of _buf[0]
        # the bytes already written on the page _buf_start falls in (None: not known, after a
        # restart that could not read them back), so that writes cover whole pages
        self._page_head: bytearray | None = bytearray()
        self._next = 0  # LSN of the next record
        self._written = 0  # bytes below this LSN are in the files (maybe not synced)
        self._flushed = 0  # bytes below this LSN are durable
        self._flushing = False
        # how many of those the last round made durable have not forced again (they are
        # likely to, soon), when that round ended, and the lock a writer holding its round
        # for them sleeps on (_hold)
        self._expect = 0
        self._round_end = 0.0
        self._back = 0.0  # (a moving mean: see _BACK)
        self._holder: _Forcer | None = None
        self._hold_began = 0.0
        #: may this thread's force wait for them? (None: yes; the data manager says no
        #: while the engine lock, which they need to come back, is held)
        self.may_hold: Callable[[], bool] | None = None
        self._release = 0  # restart needs nothing below this LSN
        self._fds: dict[int, int] = {}
        # O_DIRECT descriptors of the segments, for the rounds that can write a page-aligned
        # block from _stage (a page-aligned buffer, as O_DIRECT asks); _direct_ok goes False
        # for good once the file system refuses O_DIRECT (tmpfs, some network ones)
        self._direct: dict[int, int] = {}
        self._direct_ok = _DIRECT
        self._stage: mmap.mmap | None = None
        self._stage_view: memoryview | None = None  # (of _stage, kept)
        self._unsynced: set[int] = set()
        # blocks (LSN, bytes) a write left unwritten for want of space, written first by the
        # next write (under _io)
        self._pending: list[tuple[int, bytes | bytearray]] = []
        self._failed: LogWriteError | None = None
        #: an append ending at or below this LSN needs no space check (_make_room)
        self._room = 0
        # the segment being formatted ahead of need (None: none), and the highest segment
        # for which that was considered (_plan_ahead)
        self._ahead: _Ahead | None = None
        self._ahead_planned = -1
        self.stats = LogStats()

    # ------------------------------------------------------------------ writing


    @property
    def end_lsn(self) -> int:
        """LSN of the next record to be appended."""
        return self._next

    @property
    def flushed_lsn(self) -> int:
        return self._flushed

    def append(self, rtype: int, payload: bytes, *, reserved: bool = False,
               prefix: bytes = b"", reserve: int = 0) -> int:
        """Buffer one record; return the LSN just past it (what ``force`` must reach).

        ``reserved`` records (commit, backout, checkpoint: small, and needed to *free* log
        space) may use one segment beyond the limit, so ending work never fails for want of log.
        ``prefix``: bytes of the payload before ``payload`` (a record's key), copied into the
        buffer beside it rather than joined to it first. ``reserve``: :meth:`reserve_more`
        made under the same hold of the log lock, kept only if the append succeeds: a
        positive one (a get's) before the space checks, so that they count it, a negative
        one (the end of a unit of work) once the record is buffered.
        """
        n = len(prefix) + len(payload)
        if n > MAX_RECORD:
            raise LogError(f"log record of {n} bytes exceeds {MAX_RECORD}")
        if self._pending and not reserved:  # a write waits for space: it goes first
            try:
                self.force()
            except LogNoSpace as exc:  # (still full: this record is not appended)
                raise LogDiskFull(self.directory, exc.detail) from exc
        with self._lock:
            if self._failed is not None:
                raise self._failed
            lsn = self._next
            end = lsn + HEADER_SIZE + n
            if reserve > 0:
                self._reserve_locked(reserve)
            if end > self._room:  # (below _room both checks are known to pass)
                try:
                    self._make_room(lsn, end, reserved)
                except BaseException:
                    if reserve > 0:
                        self._reserve_locked(-reserve)
                    raise
            # encode_record, written straight into the buffer (no copy of the payload between)
            head = _HEAD.pack(MAGIC, rtype, 0, n, lsn, self._flushed)
            crc = zlib.crc32(head)
            buf = self._buf
            buf += head
            if prefix:
                crc = zlib.crc32(prefix, crc)
                buf += (zlib.crc32(payload, crc) & 0xFFFFFFFF).to_bytes(4, "little")
                buf += prefix
            else:
                buf += (zlib.crc32(payload, crc) & 0xFFFFFFFF).to_bytes(4, "little")
            buf += payload
            self._next = end
            if reserve < 0:
                self._reserve_locked(reserve)
            stats = self.stats
            stats.records += 1
            stats.bytes += end - lsn
            if len(buf) < _WRITE_THROUGH:
                return end
            job = self._take_buffer_locked()[1]
            self._io.acquire()
        try:
            self._write_out(job)
        except LogNoSpace:
            pass  # the record is buffered (pending): the next write writes it
        except BaseException:
            if reserve:  # (the log takes nothing more; the caller's count stays right)
                with self._lock:
                    self._reserve_locked(-reserve)
            raise
        return end

    def _take_buffer_locked(self) -> tuple[int, tuple[int, bytes | bytearray] | None]:
        """Take the buffer for writing (log lock held): the LSN it ends at, and where to
        write what (None: nothing).

        The write covers whole pages: the part of the buffer's first page written before, then
        the buffer, then zeros to the end of its last page. A write of part of a page the
        kernel no longer caches would read the page from disk first; a write of whole pages
        never does. The zeros lie past the end of the log, where restart expects nothing valid
        (the next write covers them again). The segments written are open already (append
        formats them before it buffers a record)."""
        data = self._buf
        start = self._buf_start
        end = start + len(data)
        self._buf = bytearray()
        self._buf_start = end
        self._written = end
        job = None
        if data:
            head = self._page_head
            if head is not None and len(head) == start % PAGE_SIZE:
                block = head + data
                pad = -end % PAGE_SIZE
                if pad:
                    block += _ZERO_PAGE[:pad]
                job = (start - len(head), block)
            else:
                job = (start, data)
            first = job[0] // self.segment_size
            last = (job[0] + len(job[1]) - 1) // self.segment_size
            fds = self._fds
            if first not in fds or last not in fds or last - first > 1:  # (usually open)
                try:
                    for segno in range(first, last + 1):
                        if segno not in fds:
                            self._fd(segno)
                except OSError as exc:
                    raise self._failure(exc) from exc
            cut = end % PAGE_SIZE  # bytes of the last page written so far
            if cut <= len(data):
                self._page_head = data[len(data) - cut:]
            elif head is not None:
                self._page_head = head + data
            else:
                self._page_head = None
        return end, job

    def release(self, lsn: int) -> None:
        """Restart needs nothing below ``lsn`` any more: its segments may be reused."""
        with self._lock:
            if lsn > self._release:
                self._release = lsn

    @property
    def release_lsn(self) -> int:
        return self._release

    # ------------------------------------------------------------------ reading

    def _read_record(self, lsn: int) -> LogRecord | None:
        head = self._pread(lsn, HEADER_SIZE)
        if len(head) < HEADER_SIZE or head[:2] != MAGIC:
            return None
        _, rtype, _flags, length, rlsn, _durable, crc = _HDR.unpack(head)
        if rlsn != lsn or length > MAX_RECORD:
            return None
        payload = self._pread(lsn + HEADER_SIZE, length)
        if len(payload) < length or _crc(head[:-4], payload) != crc:
            return None
        return LogRecord(lsn, rtype, payload)

    def _later_forced_record(self, bad_lsn: int) -> bool:
        """Is there a valid record after ``bad_lsn`` written after ``bad_lsn`` was forced?"""
        for segno in self._existing_segments():
            base = segno * self.segment_size
            if base + self.segment_size <= bad_lsn:
                continue
            with open(self.path_of(segno), "rb") as f:
                blob = f.read()
            pos = max(0, bad_lsn + 1 - base)
            while True:
                pos = blob.find(MAGIC, pos)
                if pos < 0 or pos + HEADER_SIZE > len(blob):
                    break
                _, _, _, length, rlsn, durable, _ = _HDR.unpack_from(blob, pos)
                if rlsn == base + pos and durable > bad_lsn and length <= MAX_RECORD:
                    if self._read_record(rlsn) is not None:
                        return True
                pos += 1
        return False

    def scan(self, start: int) -> Iterator[LogRecord]:
        """Yield records from ``start`` to the end of the log; raise LogCorrupt on damage.

        When the scan ends normally the log is positioned for appending after the last record.
        """
        lsn = start
        progress, count = _replay_progress, 0
        if progress is not None:
            progress.begin()
        while True:
            rec = self._read_record(lsn)
            if rec is None:
                if self._later_forced_record(lsn):
                    segno, off = divmod(lsn, self.segment_size)
                    raise LogCorrupt(self.path_of(segno), off, lsn)
                break
            yield rec
            lsn = rec.end
            count += 1
            if progress is not None and not count % RECORDS_BETWEEN_CHECKS:
                progress.records(count)
        self._position(lsn)
        if progress is not None:
            progress.done(count)

    def open_at(self, start: int) -> None:
        """Set the release point (the oldest LSN restart needs) before scanning."""
        self._release = start

    def _position(self, lsn: int) -> None:
        with self._lock:
            self._next = self._buf_start = self._written = self._flushed = lsn
            self._pending = []
            self._room = 0
            self._buf = bytearray()
            page = lsn - lsn % PAGE_SIZE
            head = self._pread(page, lsn - page)
            self._page_head = bytearray(head) if len(head) == lsn - page else None
            self._scrub_after(lsn)

    def close(self) -> None:
        with self._lock, self._io:  # (no write in flight)
            self._room = 0
            self._drop_ahead()
            for segno in list(self._fds) + list(self._direct):
                self._close_segment(segno)
            self._stage = self._stage_view = None  # (freed with its last view)
