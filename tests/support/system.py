"""Which tests are system tests: those that start processes (strmqm and its daemon, the
channel initiator's commands, any subprocess, Spark's JVM) or open TCP sockets (listeners,
channels and clients, to a process or to a server of this one).

The rule, applied at collection (``mark_system``): a test is marked ``system`` when its own
body or any fixture it uses (directly or through other fixtures) calls one of ``STARTERS``,
itself or through the suite's own helper functions and classes,
or when its module sets ``pytestmark = pytest.mark.system`` (for tests that start processes
through a helper function). ``SpawnGuard`` keeps the rule true as tests are added: a test
not marked ``system`` that starts a process or binds or connects a TCP socket fails, saying
so."""

from __future__ import annotations

import contextlib
import functools
import inspect
import socket
import subprocess
import threading
import traceback
import types
from collections.abc import Callable, Iterator

import pytest

#: what starts a process or opens a TCP socket, as it is written in a test or a fixture
STARTERS = ("Installation(", "Site(", "started_site(", "subprocess.", "Popen(", "SparkSession",
            "run_chinit(", "chinit_command(", "sys.executable", "os.fork(", "multiprocessing.",
            "free_port(", "ChinitThread(", "listening(", "open_tcp_", "serve_tcp(",
            "socket.socket(", "create_connection(", "FaultProxy(", "ThreadedProxy(",
            "TapProxy(", "127.0.0.1", ".ports[")


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


@functools.cache
def _starts_processes(function: Callable, depth: int = 0) -> bool:
    """Whether ``function`` calls a starter, itself or through the test suite's own functions
    and classes it names (three calls deep)."""
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return False
    if function.__doc__:
        source = source.replace(function.__doc__, "")  # what it says is not what it does
    if any(starter in source for starter in STARTERS):
        return True
    code = getattr(function, "__code__", None)
    if code is None or depth >= 3:
        return False
    for name in _code_names(code):
        called = function.__globals__.get(name)
        if (inspect.isfunction(called) or inspect.isclass(called)) and \
                getattr(called, "__module__", "").startswith("tests.") and \
                _starts_processes(called, depth + 1):
            return True
    return False


def is_system(item: pytest.Item) -> bool:
    """Whether ``item`` (a collected test) starts processes, by the rule above."""
    if item.get_closest_marker("system"):
        return True
    function = getattr(item, "function", None)
    if function is not None and _starts_processes(function):
        return True
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(_starts_processes(defs[-1].func) for defs in info.name2fixturedefs.values()
               if defs and getattr(defs[-1], "func", None) is not None)


def mark_system(items: list[pytest.Item]) -> None:
    for item in items:
        if is_system(item) and not item.get_closest_marker("system"):
            item.add_marker(pytest.mark.system)


def _where() -> str:
    """The thread and the innermost frames of the suite's and mqpy's code that did it (a
    thread an earlier test left running is named so)."""
    frames = [f for f in traceback.extract_stack()[:-2]
              if "/tests/" in f.filename or "/mqpy" in f.filename]
    calls = " < ".join(f"{f.filename.rsplit('/', 2)[-2]}/{f.filename.rsplit('/', 1)[-1]}"
                       f":{f.lineno} {f.name}" for f in reversed(frames[-3:]))
    return f"thread {threading.current_thread().name}: {calls or 'no frame of ours'}"


class SpawnGuard:
    """Records which test started a process (subprocess.Popen) or bound or connected a TCP
    socket, during its set-up or call, and fails a test that did without being marked
    ``system``."""

    def __init__(self) -> None:
        self.current: str | None = None
        self.spawned: dict[str, tuple[str, str]] = {}  # test -> what it did first, where
        subprocess.Popen.__init__ = self._recording(subprocess.Popen.__init__, "starts a process")
        for name in ("bind", "connect", "connect_ex"):
            setattr(socket.socket, name,
                    self._recording(getattr(socket.socket, name), "opens a TCP socket", tcp=True))

    def _recording(self, original: Callable, what: str, tcp: bool = False) -> Callable:
        guard = self

        @functools.wraps(original)
        def recording(obj, *args, **kwargs):
            if guard.current is not None and guard.current not in guard.spawned and (
                    not tcp or obj.family in (socket.AF_INET, socket.AF_INET6)):
                guard.spawned[guard.current] = (what, _where())
            return original(obj, *args, **kwargs)

        return recording

    @contextlib.contextmanager
    def watching(self, item: pytest.Item) -> Iterator[None]:
        """What starts a process in this block is ``item``'s doing."""
        self.current = item.nodeid
        try:
            yield
        finally:
            self.current = None

    def check(self, item: pytest.Item, report: pytest.TestReport) -> None:
        """Turn a passed set-up or call of an unmarked test that started a process (or
        opened a TCP socket) into a failure naming the rule."""
        done = self.spawned.get(item.nodeid)
        if report.when == "teardown" or done is None:
            return
        if item.get_closest_marker("system") or report.failed or report.skipped:
            return
        what, where = done
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} {what} but is not marked system: give it "
                           "pytestmark = pytest.mark.system (see tests/support/system.py); "
                           f"done by {where}")
