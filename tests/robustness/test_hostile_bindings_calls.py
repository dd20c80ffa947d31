"""A hostile local application's calls on the bindings socket (and, for MQINQ, a client's)
against the queue manager's event loop and the busy thread that serves a connection calling
in a loop (``mqpy.bindings_thread``): a request must cost the queue manager what IBM's limits
allow, never hold other connections up, and act only on the connection's own handles.

- MQINQ and MQSET take at most 256 selectors (IBM's MQRC_SELECTOR_COUNT_ERROR beyond),
  judged before any is inquired: an MQINQ of a million selectors was served one selector at
  a time in the event loop, every other bindings connection waiting seconds for it.
- A handle is the connection's own: another connection's handle number, on the loop's path
  or the busy thread's, is MQRC_HOBJ_ERROR and takes none of its messages."""

from __future__ import annotations

import threading
import time

import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.tsh import SegmentType
from tests.robustness.test_hostile_mqset import _Bindings, _Client
from tests.support.site_here import here_started_site

pytestmark = pytest.mark.timeout(300)

_T = SegmentType
_Q = "SET.Q"  # (the queue _Bindings and _Client open)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A queue manager started by strmqm with its channel initiator, and SET.Q."""
    for s in here_started_site(str(tmp_path_factory.mktemp("hostile_calls") / "data")):
        s.mqsc_here(f"DEFINE QLOCAL({_Q})\n")
        yield s


@pytest.fixture(params=["bindings", "client"])
def app(request, site):
    a = (_Bindings if request.param == "bindings" else _Client)(site)
    try:
        yield a
    finally:
        a.close()


class _Watch:
    """Another application inquiring a queue's depth every 10 ms: the longest it waited."""

    def __init__(self, site) -> None:
        self.qm = site.bindings()
        self.q = mqpy.Queue(self.qm, _Q, CMQC.MQOO_INQUIRE)
        self.worst, self.stop = 0.0, False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        time.sleep(0.2)

    def _run(self) -> None:
        while not self.stop:
            began = time.monotonic()
            self.q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
            self.worst = max(self.worst, time.monotonic() - began)
            time.sleep(0.01)

    def end(self) -> float:
        self.stop = True
        self.thread.join(30)
        self.qm.disconnect()
        return self.worst


@pytest.mark.parametrize("count", [257, 1_000_000])
def test_an_mqinq_of_too_many_selectors_is_refused_before_any_is_inquired(site, app, count):
    """Given an application with a queue open, when it inquires the queue manager with
    ``count`` selectors (more than IBM's 256), then the call fails
    MQRC_SELECTOR_COUNT_ERROR at once, its connection goes on, and another application's
    calls meanwhile wait no longer than usual."""
    watch = _Watch(site)
    try:
        began = time.monotonic()
        reply = app.send(mqiflows.encode_request(
            _T.MQINQ, [[CMQC.MQIA_CODED_CHAR_SET_ID] * count], hobj=0))
        took = time.monotonic() - began
    finally:
        worst = watch.end()
    assert worst < 1.0, f"another application waited {worst:.2f} s"
    assert took < 3, took
    assert isinstance(reply, MQIReply), reply
    assert (reply.comp, reply.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_SELECTOR_COUNT_ERROR)
    reply = app.send(mqiflows.encode_request(
        _T.MQINQ, [[CMQC.MQIA_CODED_CHAR_SET_ID] * 256], hobj=0))
    assert (reply.comp, reply.reason) == (CMQC.MQCC_OK, 0), reply


def test_another_connections_handle_is_no_handle_on_either_path(site):
    """Given connection A with SET.Q open and a message on it, when connection B (nothing
    open) calls with A's handle -- MQGET, MQPUT, MQINQ, MQSET, MQCLOSE -- once from the
    event loop's path and then again in a burst that the busy thread serves, then each fails
    MQRC_HOBJ_ERROR and A's message is still A's to get, once."""
    a = _Bindings(site)
    b = _Bindings(site)
    try:
        opened = a.send(mqiflows.encode_request(_T.MQOPEN, [
            mqpy.OD(ObjectName=_Q), CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT]))
        assert opened.comp == CMQC.MQCC_OK, opened
        hobj = opened.hobj
        put = a.send(mqiflows.encode_request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(
            Options=CMQC.MQPMO_NO_SYNCPOINT), b"A's"], hobj=hobj))
        assert put.comp == CMQC.MQCC_OK, put
        calls = [
            (_T.MQGET, [mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT), 100]),
            (_T.MQPUT, [mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), b"B's"]),
            (_T.MQINQ, [[CMQC.MQIA_CURRENT_Q_DEPTH]]),
            (_T.MQSET, [[CMQC.MQIA_INHIBIT_PUT], [CMQC.MQQA_PUT_INHIBITED]]),
            (_T.MQCLOSE, [0]),
        ]
        for _round in range(2):  # the loop's, then (called in a loop) the busy thread's
            for verb, values in calls:
                for _ in range(20 if _round else 1):
                    reply = b.send(mqiflows.encode_request(verb, values, hobj=hobj))
                    assert (reply.comp, reply.reason) == \
                        (CMQC.MQCC_FAILED, CMQC.MQRC_HOBJ_ERROR), (verb, reply)
        got = a.send(mqiflows.encode_request(_T.MQGET, [mqpy.MD(), mqpy.GMO(
            Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT), 100], hobj=hobj))
        assert got.comp == CMQC.MQCC_OK and got.body.endswith(b"A's"), got
        none = a.send(mqiflows.encode_request(_T.MQGET, [mqpy.MD(), mqpy.GMO(
            Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT), 100], hobj=hobj))
        assert none.reason == CMQC.MQRC_NO_MSG_AVAILABLE, none
    finally:
        a.close()
        b.close()
