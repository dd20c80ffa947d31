"""The three ways an application reaches a queue manager -- embedded, the bindings socket of a
daemon started by strmqm, a client channel of its channel initiator (a process of its own) --
as pytest fixtures, and the check that a call fails alone: with its reason, the connection
still working and its unit of work still there to commit. A test module imports the
fixtures (``from ._modes import connect, embedded, site``) and gets one daemon for itself."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

import mqpy
from mqpy import CMQC, inprocess
from tests.mqi import _support
from tests.support.fastpath import STANDARD
from tests.support.site import Site
from tests.support.site_here import QUEUE, here_started_site

from ._support import IN, OUT


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:
    """A daemon started by strmqm with its channel initiator relaying client calls
    (MQIBindType=STANDARD: test_calls_fail_alone_fastpath runs these tests with FASTPATH),
    and QUEUE; killed by pid at the end (nothing is checked after it)."""
    yield from here_started_site(str(tmp_path_factory.mktemp("modes")), STANDARD)


def _embedded_in(root: str) -> Iterator[Callable[[], mqpy.QueueManager]]:
    """A fixture's body: a queue manager of this process in ``root`` that has QUEUE, and the
    way to connect to it; stopped at the end."""
    mqpy.embedded("QMS", data_path=root)
    inprocess.running("QMS", root).define("QLOCAL", QUEUE, {})
    try:
        yield lambda: mqpy.embedded("QMS", data_path=root)
    finally:
        inprocess.stop("QMS", root)


@pytest.fixture
def embedded(tmp_path) -> Iterator[Callable[[], mqpy.QueueManager]]:
    """Connect to a queue manager of this process that has QUEUE."""
    yield from _embedded_in(str(tmp_path))


@pytest.fixture(scope="module")
def embedded_for_module(tmp_path_factory) -> Iterator[Callable[[], mqpy.QueueManager]]:
    """Connect to a queue manager of this process that has QUEUE, one for the module's tests,
    as ``site`` is one daemon for them (their tests leave QUEUE as they found it)."""
    yield from _embedded_in(str(tmp_path_factory.mktemp("embedded")))


#: the bindings and client modes reach a daemon started by strmqm: system tests
_DAEMON = pytest.mark.system


_MODES = ["embedded", pytest.param("bindings", marks=_DAEMON),
          pytest.param("client", marks=_DAEMON)]


def _connect(request, embedded: str) -> Callable[[], mqpy.QueueManager]:
    if request.param == "embedded":
        return request.getfixturevalue(embedded)
    site = request.getfixturevalue("site")
    return site.bindings if request.param == "bindings" else site.client


@pytest.fixture(params=_MODES)
def connect(request) -> Callable[[], mqpy.QueueManager]:
    """A way to connect, in each of the three modes (embedded: a queue manager of the
    test's own)."""
    return _connect(request, "embedded")


@pytest.fixture(name="connect", params=_MODES)
def connect_to_one_per_module(request) -> Callable[[], mqpy.QueueManager]:
    """``connect`` whose embedded mode, like the other two, reaches one queue manager for
    the module's tests (``embedded_for_module``): a module imports it for tests that each
    leave QUEUE as they found it (``fails_alone``)."""
    return _connect(request, "embedded_for_module")


def drain(qm: mqpy.QueueManager) -> list[bytes]:
    """Every message on QUEUE, got outside syncpoint."""
    return _support.drain(qm, QUEUE)


def fails_alone(connect: Callable[[], mqpy.QueueManager],
                call: Callable[[mqpy.QueueManager, mqpy.Queue], object], reason: int,
                comp: int = CMQC.MQCC_FAILED) -> None:
    """Given a connection with a message put in syncpoint on QUEUE (opened for output and
    input as ``q``), ``call(qm, q)`` raises MQMIError ``comp`` / ``reason``; then the same
    connection puts another message and commits both, which another connection gets."""
    qm = connect()
    try:
        drain(qm)
        q = mqpy.Queue(qm, QUEUE, OUT | IN)
        q.put(b"kept", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        with pytest.raises(mqpy.MQMIError) as err:
            call(qm, q)
        assert (err.value.comp, err.value.reason) == (comp, reason), str(err.value)
        q.put(b"after", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        qm.commit()
        q.close()
    finally:
        qm.disconnect()
    other = connect()
    try:
        assert drain(other) == [b"kept", b"after"]
    finally:
        other.disconnect()
