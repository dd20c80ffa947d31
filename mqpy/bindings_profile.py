"""A cProfile of the daemon's bindings connections, for measuring where a call's time goes.

Off unless the environment variable MQPY_PROFILE_BINDINGS names a directory when the daemon
starts: then the event loop's thread is profiled from the listener's start, and each busy
connection's thread (``mqpy.bindings_thread``) while it serves; at the daemon's end each
thread's profile is written there as ``<pid>-<thread>.prof`` (``pstats`` reads them, and
``pstats.Stats(*files)`` adds them up).
"""

from __future__ import annotations

import atexit
import cProfile
import os
import threading

__all__ = ["DIRECTORY", "start", "stop"]

DIRECTORY = os.environ.get("MQPY_PROFILE_BINDINGS") or None
_profiles: dict[int, cProfile.Profile] = {}
_lock = threading.Lock()


def start() -> cProfile.Profile | None:
    """Profile this thread from now (None when profiling is off)."""
    if DIRECTORY is None:
        return None
    ident = threading.get_ident()
    with _lock:
        profile = _profiles.get(ident)
        if profile is None:
            profile = _profiles[ident] = cProfile.Profile()
    profile.enable()
    return profile


def stop(profile: cProfile.Profile | None) -> None:
    """Stop profiling this thread (what :func:`start` gave)."""
    if profile is not None:
        profile.disable()


def _write() -> None:
    with _lock:
        for ident, profile in _profiles.items():
            profile.disable()
            profile.dump_stats(os.path.join(DIRECTORY, f"{os.getpid()}-{ident}.prof"))


if DIRECTORY is not None:
    atexit.register(_write)
