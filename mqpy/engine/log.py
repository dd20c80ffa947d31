"""The recovery log: an append-only stream of checksummed records in fixed-size segment files.

This module is the only code that writes log files. It owns LSNs, segment files, the write-ahead
force (group commit) and reading the log back at restart. It knows nothing of messages or queues:
a record is a type byte and a payload.

Theory of operation
-------------------
The log is one logical byte stream; an LSN is a byte offset in it. Segment ``n`` (file
``S0000000n.LOG`` in the log directory) holds the bytes ``[n*S, (n+1)*S)`` where ``S`` is
``LogFilePages * 4096``. A record may span segments, so a 100 MB message is one record.

Each record is a 28-byte header then the payload. The header carries the record's own LSN (so a
reused segment's stale records are recognised), the payload length, the LSN that was already
durable when the record was appended ("durable") and a CRC-32 over header and payload.

``append`` copies a record into the log buffer and returns the LSN just past it. ``force(lsn)``
makes everything below ``lsn`` durable. A forcer that finds no write in progress writes the
whole buffer and calls ``fdatasync`` itself; forcers that arrive meanwhile queue up and sleep.
When an fsync ends, the writer wakes exactly the forcers it covered and, if others are still
queued, hands the writing over to the first of them, which writes and syncs for all of them
(``_EXTRA_ROUNDS`` more rounds by the same writer first: none, see there). A commit thus costs
one fsync shared by every committer that arrived while the previous fsync ran, and the disk
never idles while someone waits for it (but for the short wait for the last round's
forcers below). The writer wakes the first forcer it covered and each
woken forcer wakes the next: waking a thread blocked on a lock costs the waker some
microseconds with the GIL held, and the woken thread then contends for the GIL the waker
holds, so one writer waking them all in a row delayed its own return and the next round
(with 8 persistent connections, 15% fewer messages a second than the chain). Writes are made
without the log lock (``_io`` keeps them in order), so an append waits on the disk only when
a write-through (a buffer of 4 MB) is being written: the next buffer taken, under the log
lock, waits for it (and, behind a round's one-call write and sync, for that sync).

A round waits, before it takes the buffer, for the forcers the round before it made durable:
a committer goes on to its next unit of work and forces again some tens of microseconds
later, so a round started at once by the first of them back carried that one alone while the
others queued for the next (with 8 persistent connections rounds alternated between 1 or 2
commits and 8). So a forcer that finds no round in progress while some of those have not
forced again holds the writing flag and waits for them (``_hold``); the last of them to
queue writes the round, with the one that waited queued in it (no wake-up between the two),
and if they are not all back one mean round time, or 1.5 times the mean time they took to come
back in the last held rounds, whichever is longer (1 ms at most), after the last round
ended, the waiting one writes it. (The second: they come back one after the other, each
running its caller's Python between two forces with the GIL, so with 8 connections the
last is back some 250 us after the round, later than a sync takes on a fast disk; with the
sync's time alone as the limit, 42-61% of the rounds ended their wait before the last one
was back, 6.9-7.2 commits an fsync; with both, 1%, 7.9.) A forcer handed the writing by the last round's writer waits the
same way (else a round cut short by the limit left its latecomers a small round of their
own, and rounds alternated again). A lone committer never waits (the last round covered only
itself), nor does a force that comes later than that after a round, nor one made with the
engine lock held (``may_hold``: the others need that lock to come back). Alternating runs of
8 persistent connections on this shared 2-core machine, with only a forcer finding the disk
idle waiting: 10 pairs, 7,082-9,589 messages a second (mean 8,422) against 6,304-8,002 (mean
7,228), 81 against 89 us of CPU a message, 6.4 commits an fsync instead of 4.4; the gain
shrinks as the disk gets faster (8 pairs at a mean sync of 190 us: 8,064 against 8,018).
With the handed-over writer waiting too: 7.3-7.9 commits an fsync; two sets of runs of three
(main, without, with), 5 and 7 runs each: means 7,795 / 7,603 / 8,166 and 6,519 / 6,964 /
7,076 messages a second, CPU 106.7 / 102.5 / 92.9 and 101.5 / 93.2 / 87.9 us a message. A
held round's commits no longer overlap its sync with the others' work, so what it costs is
the Python each committer runs between two forces: that is where the next gains are.

A round writes and syncs with one system call (``pwritev`` with RWF_DSYNC) when its write
lies in one segment and nothing written before it awaits a sync; otherwise (a write-through
before it, a write crossing segments) it writes with ``pwrite`` and ``fdatasync``s every
segment written since the last sync. One call rather than two also lets the GIL go once, not
twice: between a ``pwrite`` and its ``fdatasync`` another thread could take the GIL and hold
the round up (six alternating runs of 8 persistent connections on this shared machine:
5,450-6,310 messages a second with two calls, mean 5,850; 5,680-6,780 with one, mean 6,280).
Such a round is a block of whole pages (see _take_buffer_locked), and it goes through an
O_DIRECT descriptor of the segment, copied first into a page-aligned buffer: the kernel then
neither copies it into the page cache nor writes cached pages back before the sync. On this
machine's ext4 (2 pages at a time, each write rewriting the last one's page, 40 of each kind
in turn, three runs) that took 718 / 517 / 120 us of wall clock and 44 / 52 / 38 us of system
CPU a sync, against 807 / 650 / 141 and 55 / 67 / 42 through the page cache (the disk was
shared and busy). persistent_1 (a sync a commit), 4 alternating pairs with MQPY_LOG_DIRECT
1 and 0: 4,047 / 3,873 / 3,972 / 4,337 against 3,962 / 3,530 / 3,930 / 3,489 messages a
second, 127-134 against 134-153 us of CPU (45-60 against 60-75 of it system); with 8
connections (a sync for 8 commits) 7 pairs showed no difference beyond the noise (means
8,822 and 8,883 messages a second). A file system that refuses O_DIRECT (tmpfs) gets the
page cache for good; anything else the write raises is a failure of the log, as any write's
(fail-stop). MQPY_LOG_DIRECT=0 turns O_DIRECT off.

At restart :meth:`RecoveryLog.scan` reads records from a given LSN until the first record that is
missing or invalid. That is the end of the log, unless some *later* valid record says that the
bad one had already been forced ("durable" beyond it): then committed data has been damaged and
:class:`LogCorrupt` names the file and offset, and the queue manager refuses to start rather than
silently lose work. A torn tail (a write that a crash interrupted before its fsync returned) can
never be followed by such a record, so it is simply truncated.

Space: at most ``primary + secondary`` segments exist at once (one more is kept in reserve for
the small records that end units of work and take checkpoints). Segments wholly below the
"release" LSN (the oldest LSN restart still needs, moved forward by checkpoints) are renamed and
reused (circular logging). An append that would need more segments raises :class:`LogFull`; the
caller turns it into MQRC_RESOURCE_PROBLEM (2102).

Errors that are retried: a write (``pwrite``/``pwritev``) refused for want of space (ENOSPC,
EDQUOT: a file system that allocates on write, a quota) writes nothing of the block, or a
part the next write rewrites with the same bytes, and the buffer still holds it all. So
the block is kept (``_pending``, in LSN order, under ``_io``) and every later write writes
it first, again, before its own: nothing later reaches the files before it, no round says
durable what is not, and a crash before then leaves a torn tail restart truncates. The
forcers of that round get :class:`LogNoSpace` (the log is not failed); an ordinary append
made while a block is pending first forces it, and gets :class:`LogDiskFull` (2102, nothing
appended) if the disk is still full. Every other error, and a failed sync whatever its
errno (after one the kernel may have dropped the pages), stops the log (fail-stop).

A new segment (none released to rename) is zero-filled and synced before records go into it,
so that a full disk refuses an append (:class:`LogDiskFull`) rather than a later force. That
takes tens of milliseconds for 16 MB, so it is done ahead of need, by a thread of its own, once
the appends are half a segment from needing the next one (``_plan_ahead``): one segment at a
time, never past the limit above, in a file of its own name (``S0000005.LOG.ahead.new``) that
the append needing the segment renames, under the log lock, having found no segment of that
name (it waits for the thread if it is still formatting). Formatting there at ``crtmqm``, as
IBM MQ does its primary files, would cost every queue manager created 48 MB of writes. A
failure there is nobody's: the append that needs the segment formats it itself, and its
failure is the one that counts. Restart removes what a crash left half-formatted.
"""

from __future__ import annotations

import errno
import mmap
import os
import threading
import zlib
from _thread import allocate_lock, start_new_thread
from collections.abc import Callable, Iterator
from time import perf_counter

import attrs
import construct as c

from mqpy import filemodes
from mqpy.engine.layout import fast

PAGE_SIZE = 4096

RecordHeader = c.Struct(
    "magic" / c.Const(b"LR"),  # 0
    "rtype" / c.Int8ul,  # 2
    "flags" / c.Int8ul,  # 3
    "length" / c.Int32ul,  # 4  payload length
    "lsn" / c.Int64ul,  # 8  this record's own LSN
    "durable" / c.Int64ul,  # 16 LSN already forced when this record was appended
    "crc" / c.Int32ul,  # 24 CRC-32 of bytes 0..23 and the payload
)  # 28 bytes
_HDR = fast(RecordHeader)
_HEAD = fast(c.Struct(*RecordHeader.subcons[:-1]))  # the header up to its CRC
HEADER_SIZE = _HDR.size
MAGIC = b"LR"
#: Largest payload accepted: a 100 MB message plus its descriptor and headers.
MAX_RECORD = 128 * 1024 * 1024

_ZERO_PAGE = bytes(PAGE_SIZE)
# A new segment is formatted ahead of need (RecoveryLog._plan_ahead) once the appends are
# within this fraction of a segment of needing it: zero-filling 16 MB and syncing it took
# 36 ms, a stall of every connection when an append did it under the log and engine locks.
_AHEAD = 0.5
# (MQPY_LOG_FORMAT_AHEAD=0: not ahead, by the append that needs it)
_FORMAT_AHEAD = os.environ.get("MQPY_LOG_FORMAT_AHEAD", "1") == "1"
# Suffixes of the files a segment is formatted in before it is renamed to its name: by the
# appender that needs it, and ahead of need. Restart removes those a crash left.
_FORMAT_SUFFIX = ".new"
_AHEAD_SUFFIX = ".ahead.new"
# Above this many buffered bytes, append writes the buffer to the file (no fsync) to bound memory.
_WRITE_THROUGH = 4 * 1024 * 1024
# Formatted log kept ahead of ordinary records for the records that end work (see append).
_RESERVE = 64 * 1024
# Extra write+fsync rounds a forcer does for those who queued behind it before handing over.
# None: a writer whose own record is durable returns to its caller at once (its connection goes
# on to its next unit of work, whose commit joins a later group) and the first forcer queued
# writes the next round. With 8 persistent connections, 2 extra rounds kept one connection of
# the 8 waiting for three fsyncs a commit: 13% more fsyncs (smaller groups) and 18-25% fewer
# messages a second than none.
_EXTRA_ROUNDS = 0
# What else was tried for group commit, measured and dropped: docs/engine/group-commit.md.
#: Rounds write and sync with one system call where they can (RecoveryLog._write_dsync).
_RWF_DSYNC = getattr(os, "RWF_DSYNC", 0)
_DSYNC_WRITES = bool(_RWF_DSYNC) and os.environ.get("MQPY_LOG_DSYNC", "1") == "1"
#: Rounds of whole pages write through O_DIRECT descriptors (RecoveryLog._write_direct), from
#: a page-aligned buffer of this size (a larger round goes through the page cache).
_DIRECT = _DSYNC_WRITES and hasattr(os, "O_DIRECT") \
    and os.environ.get("MQPY_LOG_DIRECT", "1") == "1"
_STAGE_SIZE = 256 * 1024
# The longest a round waits for the forcers of the round before (RecoveryLog._hold), in mean
# round times (write and sync), counted from the end of that round, and at most _HOLD_MAX
# seconds (they come back in tens of microseconds; a disk that once stalled for seconds must
# not make every later round wait that long).
# Measured at 2 and 4 as well: rounds a little fuller (7.5-7.9 commits), less CPU a
# message, no clear difference in messages a second; 1 keeps a committer waiting least when
# the others of its round never come back.
_HOLD = 1.0
_HOLD_MAX = 0.001
# ... and at least _BACK times the mean time all of them took to come back, in the last held
# rounds they all came back to (RecoveryLog._back): with 8 connections each one's Python
# between two forces takes 25-35 us and the GIL lets one run at a time, so the last is back
# some 250 us after the round, later than a sync (120-250 us here) and the limit above.
_BACK = 1.5


class _Forcer:
    """One thread waiting in ``force``: the LSN it needs and the lock it sleeps on."""

    __slots__ = ("lsn", "wake", "lead", "error", "after")

    def __init__(self, lsn: int) -> None:
        self.lsn = lsn
        self.wake = allocate_lock()
        self.wake.acquire()
        self.lead = False  # woken to take over writing, not because it is durable
        self.error: BaseException | None = None
        self.after: list[_Forcer] | None = None  # the others to wake, one by one (force)


class _Ahead:
    """A segment being formatted ahead of need by a thread of its own, in a file of its own.

    ``state`` (under ``lock``): "formatting", then "ready" or "failed" (the thread's outcome),
    "cancelled" (not wanted any more) or "taken" (renamed to its segment name by the log).
    The file is removed by the thread for "failed", by the canceller for "cancelled" (at
    once: the thread only stops writing to it). ``done`` is set once the thread has finished
    with the file."""

    __slots__ = ("segno", "path", "state", "lock", "done")

    def __init__(self, segno: int, path: str) -> None:
        self.segno = segno
        self.path = path
        self.state = "formatting"
        self.lock = allocate_lock()
        self.done = threading.Event()


class LogError(Exception):
    """Base of log failures."""


class LogFull(LogError):
    """No segment can be released: the active log is full (MQRC_RESOURCE_PROBLEM)."""


class LogDiskFull(LogFull):
    """A new segment could not be formatted (disk full, AMQ6708): the log is full as far as
    the caller is concerned, and nothing was appended."""

    def __init__(self, location: str, detail: str) -> None:
        super().__init__(f"disk full formatting a new log file in {location}: {detail}")
        self.location = location
        self.detail = detail


class LogNoSpace(LogDiskFull):
    """A write of the log found the disk full: what it was writing is kept and written again,
    first, by the next write (see Theory of operation), so the log goes on once there is
    space. The records of the round are neither durable nor lost: whoever forced them may
    force again."""

    def __init__(self, directory: str, error: OSError) -> None:
        super().__init__(directory, error.strerror or str(error))


#: OSError numbers of a write that a later write may retry: the disk was full (see above)
NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


class LogWriteError(LogError):
    """Writing or syncing the log failed. What was buffered may or may not be on disk, and
    after a failed fdatasync the kernel may have dropped the pages, so a retry proves
    nothing: the log refuses every later append and force (fail-stop), and restart recovers
    from what the disk holds."""

    def __init__(self, directory: str, error: OSError) -> None:
        super().__init__(f"{error.strerror or error} writing the log in {directory}")
        self.errno = error.errno
        self.detail = f"{error.errno} - {error.strerror or error}"


@attrs.define
class LogCorrupt(LogError):
    """A forced record is damaged: restart must not go on."""

    path: str
    offset: int
    lsn: int

    def __str__(self) -> str:
        return f"log record at LSN {self.lsn} damaged: file {self.path}, offset {self.offset}"


@attrs.frozen
class LogRecord:
    lsn: int
    rtype: int
    payload: bytes

    @property
    def end(self) -> int:
        return self.lsn + HEADER_SIZE + len(self.payload)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _crc(header_wo_crc: bytes, payload: bytes | memoryview) -> int:
    return zlib.crc32(payload, zlib.crc32(header_wo_crc)) & 0xFFFFFFFF


def encode_record(rtype: int, payload: bytes, lsn: int, durable: int) -> bytes:
    """Header + payload, as written to the log."""
    head = _HEAD.pack(MAGIC, rtype, 0, len(payload), lsn, durable)
    return head + _crc(head, payload).to_bytes(4, "little") + payload


@attrs.define
class LogConfig:
    """qm.ini ``Log:`` stanza (IBM's names and defaults)."""

    # 16 MB segments, preallocated like IBM's; MQPY_LOG_FILE_PAGES changes the default (the
    # test suite uses small segments so hundreds of queue managers fit on a small disk)
    LogFilePages: int = attrs.field(
        factory=lambda: int(os.environ.get("MQPY_LOG_FILE_PAGES", "4096")))
    LogPrimaryFiles: int = 3
    LogSecondaryFiles: int = 2

    @property
    def segment_size(self) -> int:
        return self.LogFilePages * PAGE_SIZE

    @property
    def max_segments(self) -> int:
        return self.LogPrimaryFiles + self.LogSecondaryFiles


class RecoveryLog:
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

    # ------------------------------------------------------------------ files

    def path_of(self, segno: int) -> str:
        return os.path.join(self.directory, f"S{segno:07d}.LOG")

    def _existing_segments(self) -> list[int]:
        out = []
        for name in os.listdir(self.directory):
            if name.startswith("S") and name.endswith(".LOG") and name[1:-4].isdigit():
                out.append(int(name[1:-4]))
        return sorted(out)

    def _fd(self, segno: int) -> int:
        fd = self._fds.get(segno)
        if fd is None:
            path = self.path_of(segno)
            if not os.path.exists(path):
                self._create_segment(segno)
            fd = os.open(path, os.O_RDWR)
            self._fds[segno] = fd
        return fd

    def _create_segment(self, segno: int) -> None:
        """Reuse a released segment file if there is one, else the one formatted ahead of need
        if it is ready (or, being formatted, once it is), else make a new zero-filled one. (Log
        lock held: only this makes a segment's name, after _fd found none there.)"""
        path = self.path_of(segno)
        first_needed = self._release // self.segment_size
        if segno - first_needed >= self.config.max_segments + 1:
            raise LogFull(f"active log full: segment {segno} would exceed "
                          f"{self.config.max_segments} segments")
        ahead = self._ahead
        if ahead is not None and ahead.segno <= segno:
            self._ahead = None
            if ahead.segno == segno and ahead.done.is_set() and self._take(ahead, path):
                return
        else:
            ahead = None
        old = self._released_segment(segno)
        if old is not None:
            if ahead is not None:
                self._cancel(ahead)
            self._close_segment(old)
            self._unsynced.discard(old)
            os.rename(self.path_of(old), path)
            self._sync_dir()
            return
        if ahead is not None:
            if ahead.segno == segno:
                ahead.done.wait()  # (a thread that never takes the log lock)
                if self._take(ahead, path):
                    return
            else:
                self._cancel(ahead)
        tmp = path + _FORMAT_SUFFIX
        self._write_zeros(os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC,
                                   filemodes.FILE_MODE), tmp)
        self.stats.formats += 1
        os.rename(tmp, path)
        self._sync_dir()

    def _released_segment(self, segno: int) -> int | None:
        """A segment file wholly below the release point, to be renamed to ``segno``."""
        for old in self._existing_segments():
            if (old + 1) * self.segment_size <= self._release and old < segno:
                return old
        return None

    def _write_zeros(self, fd: int, tmp: str, ahead: _Ahead | None = None) -> None:
        """Make ``tmp``, open on ``fd`` (closed here), a zero-filled segment, synced; on a
        failure remove what it took. A job formatting ahead stops (OSError ECANCELED) once
        it is cancelled (its canceller has removed the file)."""
        try:
            zeros = bytes(1024 * 1024)
            left = self.segment_size
            while left > 0:
                if ahead is not None and ahead.state == "cancelled":
                    raise OSError(errno.ECANCELED, "formatting ahead cancelled")
                n = min(left, len(zeros))
                os.write(fd, zeros[:n])
                left -= n
            os.fsync(fd)
        except OSError:
            os.close(fd)
            _remove(tmp)  # give back what the half-formatted file took
            raise
        os.close(fd)

    # ------------------------------------------------------------------ formatting ahead

    def _plan_ahead(self, last: int) -> None:
        """Format segment ``last + 1`` in a thread of its own, if it will have to be formatted:
        it does not exist, no released segment can be renamed to it, and it is within the
        segments the log may have (LogPrimaryFiles + LogSecondaryFiles and the reserve one).
        One at a time, and only the one after the last formatted. (Log lock held.)"""
        self._ahead_planned = segno = last + 1
        if self._ahead is not None or self._failed is not None:
            return
        first_needed = self._release // self.segment_size
        if segno - first_needed >= self.config.max_segments + 1:
            return
        existing = self._existing_segments()
        if segno in existing or len(existing) >= self.config.max_segments + 1:
            return
        if self._released_segment(segno) is not None:
            return
        job = _Ahead(segno, self.path_of(segno) + _AHEAD_SUFFIX)
        try:  # (made here: the directory holds it from this append on, whatever the thread does)
            fd = os.open(job.path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, filemodes.FILE_MODE)
        except OSError:
            return
        # (_thread, not threading.Thread: Thread.start waits for the new thread to run, which
        # under load meant waiting for the GIL, 12 ms once, with the log and engine locks held)
        try:
            start_new_thread(self._format_ahead, (job, fd))
        except RuntimeError:  # (no thread to be had: the appender formats it, as without)
            os.close(fd)
            _remove(job.path)
            return
        self._ahead = job

    def _format_ahead(self, job: _Ahead, fd: int) -> None:
        """The thread formatting a segment ahead of need. It never takes the log lock (an
        appender that needs the segment waits for it holding that lock), and a failure here
        (a full disk) is nobody's: the appender's own attempt decides, as without it."""
        ok = False
        try:
            self._write_zeros(fd, job.path, job)
            ok = True
        except OSError:
            pass
        finally:  # (whatever happened: an appender may be waiting for ``done``)
            with job.lock:
                if job.state == "formatting":
                    job.state = "ready" if ok else "failed"
                    if ok:
                        self.stats.formats_ahead += 1
            job.done.set()

    def _take(self, job: _Ahead, path: str) -> bool:
        """Rename a job's file to the segment name ``path`` (which does not exist: log lock
        held), if the job formatted it."""
        with job.lock:
            if job.state != "ready":
                return False
            job.state = "taken"
        try:
            os.rename(job.path, path)
        except OSError:  # (gone: e.g. removed by a restart in another process)
            return False
        self._sync_dir()
        return True

    def _cancel(self, job: _Ahead) -> None:
        """The job's segment is not wanted: remove its file (its thread, if still writing,
        stops at its next write)."""
        with job.lock:
            state = job.state
            if state in ("formatting", "ready"):
                job.state = "cancelled"
        if state in ("formatting", "ready"):
            _remove(job.path)

    def _remove_leftovers(self) -> None:
        """Remove the files a crash left half-formatted (restart: nothing is formatting)."""
        for name in os.listdir(self.directory):
            for suffix in (_AHEAD_SUFFIX, _FORMAT_SUFFIX):
                stem = name[:-len(suffix)]
                if name.endswith(suffix) and stem.startswith("S") and stem.endswith(".LOG") \
                        and stem[1:-4].isdigit():
                    _remove(os.path.join(self.directory, name))
                    break

    def _sync_dir(self) -> None:
        dfd = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)

    def _pwrite(self, lsn: int, data: bytes | memoryview) -> None:
        segno, off = divmod(lsn, self.segment_size)
        if off + len(data) <= self.segment_size:  # the usual case: within one segment
            fd = self._fds.get(segno)
            if fd is None:
                fd = self._fd(segno)
            if os.pwrite(fd, data, off) == len(data):
                self._unsynced.add(segno)
                return
            self._unsynced.add(segno)  # a short write: the loop below writes the rest again
        view = memoryview(data)
        while view:
            segno, off = divmod(lsn, self.segment_size)
            n = min(len(view), self.segment_size - off)
            fd = self._fd(segno)
            done = 0
            while done < n:
                done += os.pwrite(fd, view[done:n], off + done)
            self._unsynced.add(segno)
            view = view[n:]
            lsn += n

    def _pread(self, lsn: int, n: int) -> bytes:
        """Read ``n`` bytes of the stream at ``lsn`` (short at the end of existing files)."""
        out = bytearray()
        while n > 0:
            segno, off = divmod(lsn, self.segment_size)
            path = self.path_of(segno)
            if not os.path.exists(path):
                break
            take = min(n, self.segment_size - off)
            with open(path, "rb") as f:
                f.seek(off)
                chunk = f.read(take)
            out += chunk
            if len(chunk) < take:
                break
            n -= take
            lsn += take
        return bytes(out)

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

    def reserve_more(self, n: int) -> None:
        """Keep ``n`` more bytes (fewer, if negative) of formatted log after each ordinary
        record, for the backout records of the units of work now open: as IBM MQ reserves log
        space for undoing each unit of work, so that backing one out never fails for want of
        log on a full disk. A backout record grows with the messages its unit of work got
        (each one's new backout count), past the fixed reserve once it has got a few
        thousand. At most one segment in all: the one a record ending work may use beyond
        the log's limit. (:meth:`append` does the same with its record: ``reserve``.)"""
        with self._lock:
            self._reserve_locked(n)

    def _reserve_locked(self, n: int) -> None:
        self._reserved_for_backout = max(0, self._reserved_for_backout + n)
        before = self._reserve
        self._reserve = min(_RESERVE + self._reserved_for_backout, self.segment_size)
        if self._reserve > before:
            # (_room left the old reserve after the formatted end: now the new one)
            self._room -= self._reserve - before

    def _make_room(self, lsn: int, end: int, reserved: bool) -> None:
        """The space checks of an append ending at ``end`` (LogFull, LogDiskFull), and
        ``_room``: the end below which the next appends need none of them.

        A record that does not end work also needs the formatted room after it that the
        records which do may take (the reserve): on a full disk it fails, not they. ``_room``
        stays true while the log only grows: the release point only moves forward (more
        space), and the segments formatted ahead are closed only by :meth:`_position` and
        :meth:`close`, which reset it."""
        seg = self.segment_size
        self._check_space(end, 1 if reserved else 0)
        last = (end - 1 + (0 if reserved else self._reserve)) // seg
        if last not in self._fds:
            self._format(lsn // seg, last)
        if reserved:
            return  # (it may have used the segment kept in reserve: no room is known)
        # every segment from this record's to ``last`` is open (formatted), so a record of
        # the ordinary kind ending at or below room passes both checks above
        first_needed = self._release // seg
        room = min((first_needed + self.config.max_segments) * seg,
                   (last + 1) * seg - self._reserve)
        if _FORMAT_AHEAD and self._ahead_planned <= last:  # (the next one formatted ahead?)
            trigger = (last + 1) * seg - self._reserve - int(seg * _AHEAD)
            if end >= trigger:
                self._plan_ahead(last)
            else:
                room = min(room, trigger)
        self._room = room

    def _format(self, first: int, last: int) -> None:
        """Make the segments ``first`` to ``last`` exist before a record is buffered, so
        that a full disk refuses the append (LogDiskFull) rather than a later force."""
        for segno in range(first, last + 1):
            if segno not in self._fds:
                try:
                    self._fd(segno)
                except OSError as exc:
                    raise LogDiskFull(self.directory, exc.strerror or str(exc)) from exc

    def _failure(self, exc: OSError) -> LogWriteError:
        """The first write or sync failure, kept: the log takes nothing more."""
        if self._failed is None:
            self._failed = LogWriteError(self.directory, exc)
        return self._failed

    @property
    def failed(self) -> LogWriteError | None:
        return self._failed

    def _check_space(self, end: int, extra: int = 0) -> None:
        last_seg = (end - 1) // self.segment_size
        first_needed = self._release // self.segment_size
        if last_seg - first_needed >= self.config.max_segments + extra:
            raise LogFull(f"active log full at LSN {end}")

    def space_left(self) -> int:
        """Bytes that can still be appended before LogFull."""
        first_needed = self._release // self.segment_size
        limit = (first_needed + self.config.max_segments) * self.segment_size
        return limit - self._next

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

    def _write_out(self, job: tuple[int, bytes | bytearray] | None, *,
                   take_unsynced: bool = False) -> set[int]:
        """Write what :meth:`_take_buffer_locked` took, without the log lock; the caller
        acquired ``_io`` with the log lock held and it is released here. A failure is kept
        (fail-stop) before ``_io`` is released, so that a write round after this one, which
        must wait for ``_io``, sees it and says nothing is durable.

        ``take_unsynced`` (a force round): the segments written since the last sync, this
        write's included, are taken while ``_io`` is still held, so that no later write can
        add itself to the set this round syncs and clears: a write that lands after this
        round has taken it is in the next round's set, never lost between two."""
        segs: set[int] = set()
        blocks = self._pending + [job] if job is not None else self._pending
        try:
            for i, block in enumerate(blocks):
                try:
                    self._pwrite(*block)
                except OSError as exc:
                    if exc.errno not in NO_SPACE or self._failed is not None:
                        raise self._failure(exc) from exc
                    self._pending = blocks[i:]  # (written again, first, by the next write)
                    raise LogNoSpace(self.directory, exc) from exc
            self._pending = []
            if take_unsynced:
                segs, self._unsynced = self._unsynced, set()
        finally:
            self._io.release()
        return segs

    def _write_dsync(self, lsn: int, data: bytes | bytearray) -> bool:
        """Write a round's buffer and sync it in one call (``pwritev`` with RWF_DSYNC), when
        the write lies in one segment and no earlier write awaits a sync (RWF_DSYNC makes
        durable the range written, not the file). True: done, and ``_io`` (acquired by the
        caller with the log lock, so that no later write reaches the file before this one)
        released; False: nothing written, ``_io`` still held, the caller writes and syncs
        as usual. A failure is kept (fail-stop) before ``_io`` is released.

        A block of whole pages (the usual round: see _take_buffer_locked) goes through the
        segment's O_DIRECT descriptor, from a page-aligned copy: the kernel then neither
        copies it into the page cache nor writes the cached pages back before the sync, and
        the round takes less time and less system CPU (see Theory of operation)."""
        segno, off = divmod(lsn, self.segment_size)
        n = len(data)
        fd = self._fds.get(segno)
        if self._unsynced or self._pending or off + n > self.segment_size or fd is None:
            return False
        try:
            done = 0
            if self._direct_ok and not (off | n) % PAGE_SIZE and n <= _STAGE_SIZE:
                done = self._write_direct(segno, off, data)
            if not done:
                done = os.pwritev(fd, (data,), off, _RWF_DSYNC)
            while done < n:  # a short write: the rest, synced the same way
                done += os.pwritev(fd, (memoryview(data)[done:],), off + done, _RWF_DSYNC)
        except OSError as exc:
            if exc.errno not in NO_SPACE or self._failed is not None:
                raise self._failure(exc) from exc
            self._pending = [(lsn, data)]  # (nothing was pending: see the test above)
            raise LogNoSpace(self.directory, exc) from exc
        finally:
            self._io.release()
        return True

    def _write_direct(self, segno: int, off: int, data: bytes | bytearray) -> int:
        """Write (and sync: RWF_DSYNC) whole pages at ``off`` through the segment's O_DIRECT
        descriptor; the bytes written, 0 if O_DIRECT is refused here (nothing written:
        the caller writes through the page cache, and so does every later round)."""
        dfd = self._direct.get(segno)
        if dfd is None:
            try:
                dfd = self._direct[segno] = os.open(self.path_of(segno),
                                                    os.O_RDWR | os.O_DIRECT)
            except OSError:  # (EINVAL: no O_DIRECT on this file system; the page cache will do)
                self._direct_ok = False
                return 0
        stage = self._stage
        if stage is None:
            stage = self._stage = mmap.mmap(-1, _STAGE_SIZE)  # (page-aligned)
        n = len(data)
        stage[:n] = data
        try:
            with memoryview(stage) as view, view[:n] as block:
                return os.pwritev(dfd, (block,), off, _RWF_DSYNC)
        except OSError as exc:
            if exc.errno != errno.EINVAL:
                raise
            # the file system wants an alignment larger than a page: refused before anything
            # is written
            self._direct_ok = False
            return 0

    def _close_segment(self, segno: int) -> None:
        """Close a segment's descriptors (it is reused under another number, or removed)."""
        for fds in (self._fds, self._direct):
            fd = fds.pop(segno, None)
            if fd is not None:
                os.close(fd)

    def force(self, lsn: int | None = None) -> None:
        """Make the log durable up to ``lsn`` (default: everything appended)."""
        if lsn is None or lsn > self._next:
            lsn = self._next
        if self._flushed >= lsn:
            return
        if self._failed is not None:
            raise self._failed
        holding = None
        with self._flush:
            if self._flushed >= lsn:
                return
            self.stats.forced += 1
            expect = self._expect
            if expect:  # one of the last round's forcers is back
                self._expect = expect = expect - 1
            if not self._flushing:
                self._flushing = True
                me = None
                if expect and (self.may_hold is None or self.may_hold()):
                    # others of the last round will force soon: wait for them
                    holding = self._holder = _Forcer(lsn)
                    self._hold_began = perf_counter()
            elif not expect and self._holder is not None:
                # the last one awaited: it writes the round, and the writer that held it
                # waits for it as a queued forcer does
                me = None
                self._queue.append(self._holder)
                self._holder = None
                stats = self.stats
                stats.holds += 1
                now = perf_counter()
                stats.hold_seconds += now - self._hold_began
                self._back += (now - self._round_end - self._back) * 0.125
            else:
                me = _Forcer(lsn)
                self._queue.append(me)
        if holding is None and me is not None:
            if self._woken(me):
                return
            with self._flush:  # handed the writing: wait for the last round's forcers too
                if self._expect and self._holder is None and (
                        self.may_hold is None or self.may_hold()):
                    holding = self._holder = _Forcer(lsn)
                    self._hold_began = perf_counter()
        if holding is not None and not self._hold(holding):
            return
        self._write_rounds(lsn)

    def _woken(self, me: _Forcer, wait: bool = True) -> bool:
        """Wait, queued, for a round to make ``me`` durable (True) or hand the writing
        over to it (False); raise the round's failure."""
        if wait:
            me.wake.acquire()  # released by a writer: durable, failed, or our turn to write
        after = me.after
        if after:  # the round's wake-up goes on: this thread wakes the next forcer
            nxt = after.pop()
            nxt.after = after
            nxt.wake.release()
        if me.error is not None:
            raise me.error
        return not me.lead

    def _hold(self, hold: _Forcer) -> bool:
        """Before writing a round (the writing flag held), wait for the forcers the last round
        covered to force again, at most _HOLD mean round times after it ended (see Theory of
        operation). The last of them to queue writes the round, with this one queued in it.
        True: write the round here; False: a round made ``hold`` durable."""
        stats = self.stats
        limit = min(max(stats.sync_seconds / stats.forces * _HOLD, self._back * _BACK),
                    _HOLD_MAX) if stats.forces else 0.0
        began = perf_counter()
        left = self._round_end + limit - began
        if left > 0 and hold.wake.acquire(True, left):
            return not self._woken(hold, wait=False)  # (queued, and its round has ended)
        with self._flush:
            if self._holder is hold:  # nobody took the round over: write it
                self._holder = None
                self._expect = 0
                if left > 0:
                    stats.holds += 1
                    stats.hold_timeouts += 1
                    stats.hold_seconds += perf_counter() - began
                return True
        return not self._woken(hold)  # queued by the last one awaited, which writes

    def _write_rounds(self, lsn: int) -> None:
        """Write and sync (this thread holds the writing flag) until ``lsn`` is durable, then
        for whoever queued meanwhile, a few rounds at most; then hand the flag over."""
        rounds = 0
        while True:
            error = None
            end = self._flushed
            try:
                with self._lock:
                    if self._failed is not None:
                        # an append's write-through failed meanwhile: what it took from the
                        # buffer is not in the file, so no round may say it is durable
                        raise self._failed
                    end, job = self._take_buffer_locked()
                    self._io.acquire()
                began = perf_counter()
                if _DSYNC_WRITES and job is not None and self._write_dsync(*job):
                    segs = ()  # written and synced by one call
                else:
                    segs = self._write_out(job, take_unsynced=True)
                # (a write-through before ours failed: it said so before it let _io go)
                if self._failed is not None:
                    raise self._failed
                # (read without the log lock: a segment is closed only once wholly below
                # the release point, which never passes what is not yet durable)
                fds = self._fds
                for segno in sorted(segs) if len(segs) > 1 else segs:
                    fd = fds.get(segno)
                    if fd is not None:
                        os.fdatasync(fd)
                stats = self.stats
                stats.sync_seconds += perf_counter() - began
                stats.forces += 1
            except OSError as exc:
                error = self._failure(exc)
            except BaseException as exc:
                error = exc
            heir = None
            with self._flush:
                if error is not None:
                    done, self._queue = self._queue, []
                    self._flushing = False
                    finished = True
                else:
                    if end > self._flushed:
                        self._flushed = end
                    flushed = self._flushed
                    done = [f for f in self._queue if f.lsn <= flushed]
                    self._expect = len(done) + (flushed >= lsn)  # (the writer too)
                    self._round_end = perf_counter()
                    self._queue = [f for f in self._queue if f.lsn > flushed]
                    finished = flushed >= lsn and (not self._queue or rounds >= _EXTRA_ROUNDS)
                    if finished:
                        if self._queue:  # hand the writing over to the first still waiting
                            heir = self._queue.pop(0)
                            heir.lead = True
                        else:
                            self._flushing = False
            for f in done:
                f.error = error
            if heir is not None:
                heir.wake.release()
            if done:  # wake one; it wakes the next (see _Forcer.after and force)
                first = done.pop()
                first.after = done
                first.wake.release()
            if error is not None:
                raise error
            if finished:
                return
            if flushed >= lsn:
                rounds += 1

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
        while True:
            rec = self._read_record(lsn)
            if rec is None:
                if self._later_forced_record(lsn):
                    segno, off = divmod(lsn, self.segment_size)
                    raise LogCorrupt(self.path_of(segno), off, lsn)
                break
            yield rec
            lsn = rec.end
        self._position(lsn)

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
            # Scrub what follows the end of the log in its segment, so a torn record there can
            # never later pass for a valid one.
            segno, off = divmod(lsn, self.segment_size)
            if os.path.exists(self.path_of(segno)):
                fd = self._fd(segno)
                tail = self.segment_size - off
                os.pwrite(fd, bytes(min(tail, 1024 * 1024)), off)
                os.fdatasync(fd)
            # Segments wholly past the end hold only stale data: they are free for reuse.
            for old in self._existing_segments():
                if old > segno:
                    self._close_segment(old)
                    os.unlink(self.path_of(old))
            self._drop_ahead()
            self._ahead_planned = -1
            self._remove_leftovers()

    def _drop_ahead(self) -> None:
        """Cancel the formatting ahead, and wait for its thread to be done with its file."""
        job, self._ahead = self._ahead, None
        if job is not None:
            self._cancel(job)
            job.done.wait()

    def close(self) -> None:
        with self._lock, self._io:  # (no write in flight)
            self._room = 0
            self._drop_ahead()
            for segno in list(self._fds) + list(self._direct):
                self._close_segment(segno)
            self._stage = None  # (freed with its last view)


@attrs.define
class LogStats:
    """Counters for statistics (log bytes, records, forces)."""

    records: int = 0
    bytes: int = 0
    forces: int = 0  # write+sync rounds
    #: forces that waited for a round (a commit each, mostly): ``forced / forces`` is the
    #: number of commits an fsync carries
    forced: int = 0
    sync_seconds: float = 0.0  # time spent in the rounds' writes and syncs
    #: rounds that waited for the last round's forcers (_hold), how many of them ended the
    #: wait at its limit (not every one came back), and the time they waited
    holds: int = 0
    hold_timeouts: int = 0
    hold_seconds: float = 0.0
    #: new segments zero-filled by an append that needed them (under the log lock), and
    #: formatted ahead of need by a thread of their own
    formats: int = 0
    formats_ahead: int = 0
