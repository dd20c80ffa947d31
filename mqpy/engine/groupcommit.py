"""Group commit (:class:`GroupCommit`, a part of
:class:`~mqpy.engine.recoverylog.RecoveryLog`): ``force`` makes the log durable up to an
LSN in rounds of one write and one sync, each shared by every committer that queued while
the last one ran; the writing is handed from one forcer to the next, a round waits for the
committers of the round before, and a write or sync that fails stops the log (fail-stop) but
for a full disk, whose blocks are written again first. How and why: docs/engine/log.md.
"""

from __future__ import annotations

import errno
import mmap
import os
from _thread import allocate_lock
from time import perf_counter

from mqpy.engine.log import NO_SPACE, PAGE_SIZE, LogNoSpace, LogWriteError

#: Extra write+fsync rounds a forcer does for those who queued behind it before handing
#: over: none (docs/engine/log.md: tuning constants; what else was tried for group commit,
#: measured and dropped: docs/engine/group-commit.md).
_EXTRA_ROUNDS = 0
#: Rounds write and sync with one system call where they can (GroupCommit._write_dsync).
_RWF_DSYNC = getattr(os, "RWF_DSYNC", 0)
_DSYNC_WRITES = bool(_RWF_DSYNC) and os.environ.get("MQPY_LOG_DSYNC", "1") == "1"
#: Rounds of whole pages write through O_DIRECT descriptors (GroupCommit._write_direct), from
#: a page-aligned buffer of this size (a larger round goes through the page cache).
_DIRECT = _DSYNC_WRITES and hasattr(os, "O_DIRECT") \
    and os.environ.get("MQPY_LOG_DIRECT", "1") == "1"
_STAGE_SIZE = 256 * 1024
#: The usual round (its block within one segment, whole pages, no write pending or unsynced,
#: the segment's O_DIRECT descriptor open) is copied once, straight from the log buffer into
#: the stage, and written by one call (GroupCommit._stage_round_locked, _write_staged); off:
#: every round as _take_buffer_locked and _write_dsync do it (tests/engine/test_log_rounds_fast.py
#: holds the two equal).
_FAST_ROUNDS = _DIRECT and os.environ.get("MQPY_LOG_FAST_ROUNDS", "1") == "1"
_ZEROS = memoryview(bytes(PAGE_SIZE))
# The longest a round waits for the forcers of the round before (GroupCommit._hold), in mean
# round times (write and sync), counted from the end of that round, and at most _HOLD_MAX
# seconds ...
_HOLD = 1.0
_HOLD_MAX = 0.001
# ... and at least _BACK times the mean time all of them took to come back, in the last held
# rounds they all came back to (docs/engine/log.md: tuning constants).
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



class GroupCommit:
    """The forces of a :class:`~mqpy.engine.recoverylog.RecoveryLog` (which holds their
    state: see its constructor), and the writes of what it buffered."""

    def _failure(self, exc: OSError) -> LogWriteError:
        """The first write or sync failure, kept: the log takes nothing more."""
        if self._failed is None:
            self._failed = LogWriteError(self.directory, exc)
        return self._failed

    @property
    def failed(self) -> LogWriteError | None:
        return self._failed

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
        the round takes less time and less system CPU (docs/engine/log.md)."""
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
            self._stage_view = memoryview(stage)  # (_write_staged's)
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

    def _stage_round_locked(self) -> tuple[int, int, int, int] | None:
        """:meth:`_take_buffer_locked` and the copy :meth:`_write_direct` makes, fused for
        the usual round (log lock and ``_io`` held): the buffer, after the part of its first
        page written before and up to the end of its last page with zeros, copied once into
        the stage. Returns (the LSN the buffer ends at, the segment, the offset in it, the
        bytes to write), or None, nothing taken, for any other round."""
        data = self._buf
        head = self._page_head
        start = self._buf_start
        stage = self._stage
        if not data or head is None or stage is None or self._pending or self._unsynced \
                or not self._direct_ok:
            return None
        lh = len(head)
        if lh != start % PAGE_SIZE:
            return None
        ld = len(data)
        end = start + ld
        total = lh + ld
        n = total + (-end % PAGE_SIZE)
        segno, off = divmod(start - lh, self.segment_size)
        if n > _STAGE_SIZE or off + n > self.segment_size or segno not in self._direct \
                or segno not in self._fds:
            return None
        stage[:lh] = head
        stage[lh:total] = data
        if n > total:
            stage[total:n] = _ZEROS[:n - total]
        self._buf = bytearray()
        self._buf_start = self._written = end
        cut = end % PAGE_SIZE  # (as _take_buffer_locked: the bytes of the last page so far)
        self._page_head = data[ld - cut:] if cut <= ld else head + data
        return end, segno, off, n

    def _write_staged(self, segno: int, off: int, n: int) -> None:
        """Write and sync (RWF_DSYNC) the ``n`` bytes :meth:`_stage_round_locked` staged, at
        ``off`` of segment ``segno``; release ``_io`` (as :meth:`_write_dsync`, whose
        failures these are)."""
        try:
            block = self._stage_view[:n]
            try:
                done = os.pwritev(self._direct[segno], (block,), off, _RWF_DSYNC)
            except OSError as exc:
                if exc.errno != errno.EINVAL:
                    raise
                self._direct_ok = False  # (as _write_direct: the page cache will do)
                done = 0
            if done < n:  # refused, or a short write: the rest through the page cache
                fd = self._fds[segno]
                while done < n:
                    done += os.pwritev(fd, (block[done:],), off + done, _RWF_DSYNC)
        except OSError as exc:
            if exc.errno not in NO_SPACE or self._failed is not None:
                raise self._failure(exc) from exc
            self._pending = [(segno * self.segment_size + off, bytes(self._stage_view[:n]))]
            raise LogNoSpace(self.directory, exc) from exc
        finally:
            self._io.release()

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
        covered to force again, at most _HOLD mean round times after it ended (docs/engine/log.md).
        The last of them to queue writes the round, with this one queued in it.
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
                    self._io.acquire()
                    try:
                        staged = self._stage_round_locked() if _FAST_ROUNDS else None
                        if staged is None:
                            end, job = self._take_buffer_locked()
                        else:
                            end = staged[0]
                    except BaseException:
                        self._io.release()
                        raise
                began = perf_counter()
                if staged is not None:
                    self._write_staged(*staged[1:])
                    segs = ()  # written and synced by one call
                elif _DSYNC_WRITES and job is not None and self._write_dsync(*job):
                    segs = ()  # (as above)
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
                ended = perf_counter()
                stats.sync_seconds += ended - began
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
                    queue = self._queue
                    if queue:
                        done = [f for f in queue if f.lsn <= flushed]
                        queue = self._queue = [f for f in queue if f.lsn > flushed]
                    else:  # (one committer: nobody queued behind it)
                        done = ()  # (not the queue itself, which others may join now)
                    self._expect = len(done) + (flushed >= lsn)  # (the writer too)
                    self._round_end = ended
                    finished = flushed >= lsn and (not queue or rounds >= _EXTRA_ROUNDS)
                    if finished:
                        if queue:  # hand the writing over to the first still waiting
                            heir = queue.pop(0)
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
