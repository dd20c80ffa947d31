"""The recovery log's segment files (:class:`LogFiles`, a part of
:class:`~mqpy.engine.recoverylog.RecoveryLog`): their names and descriptors, a new segment
zero-filled before records go into it (ahead of need, by a thread of its own), released
segments reused, the space the active log has left (:class:`~mqpy.engine.log.LogFull`,
:class:`~mqpy.engine.log.LogDiskFull`), writes and reads at an LSN, and the scrub of what
follows the log's end at restart. The only code besides group commit's that touches the
files (docs/engine/log.md).
"""

from __future__ import annotations

import errno
import os
import threading
from _thread import allocate_lock, start_new_thread

from mqpy import filemodes
from mqpy.engine.log import LogDiskFull, LogFull

# A new segment is formatted ahead of need (LogFiles._plan_ahead) once the appends are
# within this fraction of a segment of needing it (docs/engine/log.md: tuning constants).
_AHEAD = 0.5
# (MQPY_LOG_FORMAT_AHEAD=0: not ahead, by the append that needs it)
_FORMAT_AHEAD = os.environ.get("MQPY_LOG_FORMAT_AHEAD", "1") == "1"
# Suffixes of the files a segment is formatted in before it is renamed to its name: by the
# appender that needs it, and ahead of need. Restart removes those a crash left.
_FORMAT_SUFFIX = ".new"
_AHEAD_SUFFIX = ".ahead.new"
# Formatted log kept ahead of ordinary records for the records that end work (see append).
_RESERVE = 64 * 1024


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



def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass



class LogFiles:
    """The segment files of a :class:`~mqpy.engine.recoverylog.RecoveryLog` (which holds
    their state: see its constructor), and the space they leave."""

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
        # (_thread, not threading.Thread: Thread.start waits for the new thread to run, with
        # the log and engine locks held: docs/engine/log.md)
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

    # ------------------------------------------------------------------ space

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

    def _close_segment(self, segno: int) -> None:
        """Close a segment's descriptors (it is reused under another number, or removed)."""
        for fds in (self._fds, self._direct):
            fd = fds.pop(segno, None)
            if fd is not None:
                os.close(fd)


    def _scrub_after(self, lsn: int) -> None:
        """Restart found the end of the log at ``lsn`` (log lock held): scrub what follows
        it in its segment, so a torn record there can never later pass for a valid one;
        remove the segments wholly past it (stale data, free for reuse) and what a crash
        left half-formatted."""
        segno, off = divmod(lsn, self.segment_size)
        if os.path.exists(self.path_of(segno)):
            fd = self._fd(segno)
            tail = self.segment_size - off
            os.pwrite(fd, bytes(min(tail, 1024 * 1024)), off)
            os.fdatasync(fd)
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
