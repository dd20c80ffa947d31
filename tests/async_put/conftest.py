"""An application putting asynchronously, in each way it reaches a queue manager: embedded,
the bindings socket of a daemon started by strmqm, a client channel of its channel initiator
(relayed to the daemon: MQIBindType=STANDARD), and a client channel with MQIBindType=FASTPATH
(the daemon serves the client itself, what crtmqm writes). Each queue manager has this package's queues (QUEUES)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator

import pytest

import mqpy
from mqpy import CMQC, inprocess
from tests.mqi._support import drain  # noqa: F401 - the package's tests take it from here
from tests.support.fastpath import FASTPATH, STANDARD
from tests.support.site import QM, Site
from tests.support.site_here import here_started_site

#: name -> (type, attributes): what each test's queue manager has
QUEUES = {
    "AP.Q": ("QLOCAL", {}),
    "AP.OTHER": ("QLOCAL", {}),
    "AP.INHIBITED": ("QLOCAL", {"PUT": "DISABLED"}),
    "AP.FULL": ("QLOCAL", {"MAXDEPTH": "1"}),
    "AP.DEFASYNC": ("QLOCAL", {"DEFPRESP": "ASYNC"}),
    "AP.DEFASYNC.INHIBITED": ("QLOCAL", {"DEFPRESP": "ASYNC", "PUT": "DISABLED"}),
    "AP.ALIAS.ASYNC": ("QALIAS", {"TARGET": "AP.INHIBITED", "DEFPRESP": "ASYNC"}),
    "AP.ALIAS.SYNC": ("QALIAS", {"TARGET": "AP.DEFASYNC.INHIBITED", "DEFPRESP": "SYNC"}),
}
OUT = CMQC.MQOO_OUTPUT
IN = CMQC.MQOO_INPUT_AS_Q_DEF
ASYNC = CMQC.MQPMO_ASYNC_RESPONSE

Connect = Callable[[], mqpy.QueueManager]


def _mqsc() -> str:
    lines = []
    for name, (objtype, attrs) in QUEUES.items():
        lines.append(f"DEFINE {objtype}({name}) " + " ".join(f"{k}({v})" for k, v in attrs.items()))
    return "\n".join(lines) + "\n"


def _site(root: str, channels: dict[str, str] | None) -> Iterator[Site]:
    for site in here_started_site(root, channels):
        site.mqsc(_mqsc())
        yield site


@pytest.fixture(scope="package")
def site(tmp_path_factory) -> Iterator[Site]:
    """A daemon started by strmqm, its channel initiator relaying clients (STANDARD)."""
    yield from _site(str(tmp_path_factory.mktemp("asyncput")), STANDARD)


@pytest.fixture(scope="package")
def fastpath_site(tmp_path_factory) -> Iterator[Site]:
    """A daemon started by strmqm that serves its clients itself (MQIBindType=FASTPATH)."""
    yield from _site(str(tmp_path_factory.mktemp("asyncput-fp")), FASTPATH)


@pytest.fixture
def embedded(tmp_path) -> Iterator[Connect]:
    root = str(tmp_path)
    mqpy.embedded("QMS", data_path=root)
    eng = inprocess.running("QMS", root)
    for name, (objtype, attrs) in QUEUES.items():
        eng.define(objtype, name, attrs)
    try:
        yield lambda: mqpy.embedded("QMS", data_path=root)
    finally:
        inprocess.stop("QMS", root)


_DAEMON = pytest.mark.system
MODES = ["embedded", pytest.param("bindings", marks=_DAEMON),
         pytest.param("client", marks=_DAEMON), pytest.param("fastpath", marks=_DAEMON)]


@pytest.fixture(params=MODES)
def connect(request) -> Connect:
    """A way to connect: embedded, bindings, client (relayed), client (FASTPATH)."""
    mode = request.param
    if mode == "embedded":
        return request.getfixturevalue("embedded")
    if mode == "fastpath":
        return request.getfixturevalue("fastpath_site").client
    site = request.getfixturevalue("site")
    return site.bindings if mode == "bindings" else site.client


@pytest.fixture
def qm(connect) -> Iterator[mqpy.QueueManager]:
    """A connection whose queues are empty and whose asynchronous put status is new."""
    qm = connect()
    for name, (objtype, _attrs) in QUEUES.items():
        if objtype == "QLOCAL" and name != "AP.DEFASYNC.INHIBITED" and name != "AP.INHIBITED":
            drain(qm, name)
    qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    try:
        yield qm
    finally:
        if qm.is_connected:
            qm.disconnect()


def returns_while_stopped(site: Site, work: Callable[[], None], timeout: float = 20) -> bool:
    """Run ``work`` in a thread while ``site``'s daemon is stopped (SIGSTOP): did it return
    without the queue manager? The daemon runs again (SIGCONT) before this returns."""
    pid = site.inst.pid(QM)
    assert pid is not None
    returned = threading.Event()

    def run() -> None:
        work()
        returned.set()

    os.kill(pid, signal.SIGSTOP)
    try:
        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(timeout)
        return returned.is_set()
    finally:
        os.kill(pid, signal.SIGCONT)
