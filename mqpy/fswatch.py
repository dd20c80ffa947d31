"""Waiting for a file or a directory to change, for the threads that would otherwise look at
one on a timer: the trace control file's watcher (``mqpy.trace``) and the output files'
bound (``mqpy.outfiles``). Linux's inotify, through the C library; where it cannot be had
(another system, no C library, no watch left), :func:`open_watch` answers None and the
caller looks on its timer as before.

A :class:`Watch` only wakes its waiter: what changed is read again by the caller, never
taken from the events (a missed or merged event costs nothing but a later look).
"""

from __future__ import annotations

import ctypes
import os
import select
import sys

__all__ = ["IN_CLOSE_WRITE", "IN_CREATE", "IN_DELETE", "IN_DELETE_SELF", "IN_MODIFY",
           "IN_MOVED_FROM", "IN_MOVED_TO", "IN_MOVE_SELF", "Watch", "open_watch"]

# <sys/inotify.h>
IN_MODIFY = 0x002
IN_CLOSE_WRITE = 0x008
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = os.O_CLOEXEC

_libc: ctypes.CDLL | None = None


def _lib() -> ctypes.CDLL | None:
    global _libc
    if _libc is None and sys.platform.startswith("linux"):
        try:
            # the process's own symbols, the C library's among them (a library search by
            # name would start a process)
            libc = ctypes.CDLL(None, use_errno=True)
            libc.inotify_init1.argtypes = [ctypes.c_int]
            libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            _libc = libc
        except (OSError, AttributeError):
            return None
    return _libc


class Watch:
    """One inotify instance: paths added with a mask each, and a wait for any event."""

    def __init__(self, fd: int, libc: ctypes.CDLL) -> None:
        self.fd = fd
        self._libc = libc

    def add(self, path: str, mask: int) -> bool:
        """Watch ``path`` (a file or a directory) for the events of ``mask``; whether it
        could (it may not exist yet)."""
        return self._libc.inotify_add_watch(self.fd, os.fsencode(path), mask) >= 0

    def wait(self, timeout: float | None, also: int | None = None) -> bool:
        """Wait until an event comes (then read them all: True), ``timeout`` seconds pass
        (None: no end; False), or the file descriptor ``also`` is readable (False)."""
        poller = select.poll()  # not select(): a busy daemon's descriptors pass 1024
        poller.register(self.fd, select.POLLIN)
        if also is not None:
            poller.register(also, select.POLLIN)
        try:
            ready = poller.poll(None if timeout is None else timeout * 1000)
        except (OSError, ValueError):
            return False
        if not any(fd == self.fd for fd, _ in ready):
            return False
        try:
            while os.read(self.fd, 4096):
                pass
        except (BlockingIOError, OSError):
            pass
        return True

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def open_watch() -> Watch | None:
    """A new :class:`Watch`, or None where inotify cannot be had."""
    libc = _lib()
    if libc is None:
        return None
    fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
    if fd < 0:
        return None
    return Watch(fd, libc)
