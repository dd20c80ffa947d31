"""An MQGET whose buffer is too small moves as much of the message as fits into the buffer,
whether or not MQGMO_ACCEPT_TRUNCATED_MSG is given (IBM's MQGET, Buffer parameter). Without
it the call is MQRC_TRUNCATED_MSG_FAILED (a warning), the message stays on the queue, the
MQMD is filled and DataLength is the message's full length; a pymqi-shaped program sees the
first BufferLength bytes as the MQMIError's ``message`` and the length as its
``original_length``, as pymqi's ``Queue.get`` raises them. The same over every connection:
embedded, bindings to a daemon started by strmqm, a client served by the channel initiator
(MQIBindType=STANDARD) or by the daemon itself (FASTPATH), a read-ahead handle, a browse."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

import mqpy
from mqpy import CMQC, inprocess
from tests.support.site import Site
from tests.support.site_here import QUEUE, here_started_site

pytestmark = pytest.mark.timeout(180)

BODY = b"0123456789" * 3
FAILED = (CMQC.MQCC_WARNING, CMQC.MQRC_TRUNCATED_MSG_FAILED)



@pytest.fixture(scope="module")
def standard(tmp_path_factory) -> Iterator[Site]:
    """A daemon started by strmqm whose channel initiator serves its clients."""
    yield from here_started_site(str(tmp_path_factory.mktemp("trunc-std") / "data"),
                                 {"MQIBindType": "STANDARD"})


@pytest.fixture(scope="module")
def fastpath(tmp_path_factory) -> Iterator[Site]:
    """A daemon started by strmqm that serves its clients itself (MQIBindType=FASTPATH)."""
    yield from here_started_site(str(tmp_path_factory.mktemp("trunc-fp") / "data"),
                                 {"MQIBindType": "FASTPATH"})


@pytest.fixture
def embedded(tmp_path) -> Iterator[Callable[[], mqpy.QueueManager]]:
    """A queue manager of this process that has QUEUE."""
    root = str(tmp_path)
    mqpy.embedded("QMT", data_path=root)
    inprocess.running("QMT", root).define("QLOCAL", QUEUE, {})
    try:
        yield lambda: mqpy.embedded("QMT", data_path=root)
    finally:
        inprocess.stop("QMT", root)


_MODES = ["embedded"] + [pytest.param(mode, marks=pytest.mark.system) for mode in (
    "bindings", "client-standard", "client-fastpath")]


@pytest.fixture(params=_MODES)
def qmgr(request) -> Iterator[mqpy.QueueManager]:
    """A connection of each kind, QUEUE emptied first: embedded, bindings, a client served
    by the channel initiator (STANDARD) or by the daemon itself (FASTPATH)."""
    if request.param == "embedded":
        qm = request.getfixturevalue("embedded")()
    elif request.param == "bindings":
        qm = request.getfixturevalue("standard").bindings()
    else:
        site: Site = request.getfixturevalue(request.param.split("-")[1])
        qm = site.client()
    _drain(qm)
    try:
        yield qm
    finally:
        if qm.is_connected:
            _drain(qm)
            qm.disconnect()


def _drain(qm: mqpy.QueueManager) -> list[bytes]:
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED)
    got = []
    try:
        while True:
            got.append(q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT)))
    except mqpy.MQMIError as e:
        assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE, e
    q.close()
    return got


def _put(qm: mqpy.QueueManager, body: bytes = BODY,
         persistence: int = CMQC.MQPER_PERSISTENT) -> mqpy.MD:
    md = mqpy.MD(CorrelId=b"C" * 24, Persistence=persistence)
    mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT).put(body, md)
    return md


def test_a_short_buffer_fails_with_the_part_that_fitted(qmgr):
    """Given a 30-byte message, when a program gets it with max_length 8 and no
    MQGMO_ACCEPT_TRUNCATED_MSG, then the MQMIError is MQCC_WARNING /
    MQRC_TRUNCATED_MSG_FAILED with ``message`` the first 8 bytes and ``original_length``
    30 (ibmmq's ``get('message')`` too), the MQMD is the message's, and the message stays:
    a get with room then returns all of it."""
    put_md = _put(qmgr)
    queue = mqpy.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_SHARED)
    md, gmo = mqpy.MD(), mqpy.GMO()
    with pytest.raises(mqpy.MQMIError) as err:
        queue.get(8, md, gmo)
    assert (err.value.comp, err.value.reason) == FAILED
    assert err.value.message == err.value.get("message") == BODY[:8]
    assert err.value.original_length == len(BODY)
    assert (md.MsgId, md.CorrelId) == (put_md.MsgId, b"C" * 24)
    assert gmo.ReturnedLength in (8, CMQC.MQRL_UNDEFINED)  # the bytes in the buffer
    assert queue.get(None, mqpy.MD(), mqpy.GMO()) == BODY
    queue.close()


def test_a_zero_length_buffer_fails_with_no_data_and_the_length(qmgr):
    """Given a 30-byte message, when a program gets it with max_length 0 (asking only how
    long it is), then MQRC_TRUNCATED_MSG_FAILED carries an empty ``message`` and
    ``original_length`` 30, and the message stays."""
    _put(qmgr)
    queue = mqpy.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_SHARED)
    with pytest.raises(mqpy.MQMIError) as err:
        queue.get(0)
    assert (err.value.comp, err.value.reason) == FAILED
    assert (err.value.message, err.value.original_length) == (b"", len(BODY))
    queue.close()
    assert _drain(qmgr) == [BODY]


def test_a_short_browse_fails_with_the_part_that_fitted_and_the_cursor_stays(qmgr):
    """Given two 30-byte messages, when a program browses with max_length 8 and no
    MQGMO_ACCEPT_TRUNCATED_MSG, then each browse is MQRC_TRUNCATED_MSG_FAILED with the
    message's first 8 bytes and its length, and the browse cursor does not move: the next
    BROWSE_NEXT with room returns that same message whole; both stay on the queue."""
    second = b"abcdefghij" * 3
    _put(qmgr)
    _put(qmgr, second)
    queue = mqpy.Queue(qmgr, QUEUE, CMQC.MQOO_BROWSE)
    seen = []
    for opts, length in ((CMQC.MQGMO_BROWSE_FIRST, 8), (CMQC.MQGMO_BROWSE_NEXT, None),
                         (CMQC.MQGMO_BROWSE_NEXT, 8), (CMQC.MQGMO_BROWSE_NEXT, None)):
        try:
            seen.append(queue.get(length, mqpy.MD(), mqpy.GMO(Options=opts)))
        except mqpy.MQMIError as e:
            seen.append((e.comp, e.reason, e.message, e.original_length))
    queue.close()
    assert seen == [(*FAILED, BODY[:8], len(BODY)), BODY,
                    (*FAILED, second[:8], len(second)), second]
    assert _drain(qmgr) == [BODY, second]


def test_a_read_ahead_message_that_does_not_fit_gives_the_part_that_fitted(qmgr):
    """Given non-persistent messages streamed to a read-ahead handle (MQOO_READ_AHEAD),
    when a get offers 8 bytes for the 30-byte one, then MQRC_TRUNCATED_MSG_FAILED carries
    its first 8 bytes and the length 30, as a get without read ahead does, and the next
    get with room returns it whole."""
    for body in (b"a", BODY, b"c"):
        _put(qmgr, body, CMQC.MQPER_NOT_PERSISTENT)
    queue = mqpy.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_READ_AHEAD)
    assert queue.get(None) == b"a"
    with pytest.raises(mqpy.MQMIError) as err:
        queue.get(8)
    assert (err.value.comp, err.value.reason) == FAILED
    assert (err.value.message, err.value.original_length) == (BODY[:8], len(BODY))
    assert [queue.get(None), queue.get(None)] == [BODY, b"c"]
    queue.close()
