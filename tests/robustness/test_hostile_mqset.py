"""A hostile application's MQSET (``mqiflows.set_attributes``: a count and that many
selectors, then a count and that many values, each an integer or characters), sent by hand
on the bindings socket of a queue manager started by strmqm and over a client connection
(its SVRCONN run by the channel initiator's host).

Whatever the counts and values say, the call gets an MQ answer (IBM's reason for the
selectors and values given, or the connection ended for bytes that are no MQSET), nothing is
set unless all of it is, the connection and others go on, and what is set never makes a later
call fail: a character attribute longer than it holds is cut to its length, as IBM's MQSET
takes only that many characters (a 1000-byte TRIGDATA stored made every put to the queue
fail MQRC_TM_ERROR once a trigger monitor listened, though the put was made)."""

from __future__ import annotations

import socket
import struct

import attrs
import pytest

import mqpy
from mqpy import CMQC, bindings
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.tsh import SegmentType
from tests.support.raw_sessions import _started_instance
from tests.support.site import QM
from tests.support.site_here import here_started_site

pytestmark = pytest.mark.timeout(300)

_T = SegmentType
_Q, _INITQ = "SET.Q", "SET.INITQ"
_SET_OPTIONS = CMQC.MQOO_SET | CMQC.MQOO_INQUIRE | CMQC.MQOO_OUTPUT
_LONG = struct.Struct("<i")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A queue manager started by strmqm with its channel initiator; SET.Q triggered
    (EVERY) through SET.INITQ, its process defined."""
    for s in here_started_site(str(tmp_path_factory.mktemp("hostile_set") / "data")):
        s.mqsc_here(f"""
            DEFINE QLOCAL({_INITQ})
            DEFINE PROCESS(SET.PROC) APPLICID('/bin/true')
            DEFINE QLOCAL({_Q}) INITQ({_INITQ}) PROCESS(SET.PROC) TRIGTYPE(EVERY) NOTRIGGER
        """)
        yield s


class _Bindings:
    """A local application on the bindings socket, by hand: connected, SET.Q open."""

    def __init__(self, site) -> None:
        self.flows = bindings.Flows()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(20)
        with bindings.bind_address(bindings.socket_path(site.qmdir)) as address:
            self.sock.connect(address)
        self.events: list = []
        assert self.send(mqiflows.encode_request(_T.MQCONN, [(QM, "hostile"), None])).comp == 0
        reply = self.send(mqiflows.encode_request(_T.MQOPEN, [mqpy.OD(ObjectName=_Q),
                                                               _SET_OPTIONS]))
        assert reply.comp == CMQC.MQCC_OK, reply
        self.hobj = reply.hobj

    def send(self, request) -> MQIReply:
        self.sock.sendall(self.flows._writer.send(request))
        while not self.events:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("the queue manager closed the connection")
            self.events += self.flows._reader.feed(data)
        return self.events.pop(0)

    def close(self) -> None:
        self.sock.close()


class _Client:
    """A client (one conversation) spoken by hand: connected, SET.Q open."""

    def __init__(self, site) -> None:
        self.sock = _started_instance(site)
        self.sock.settimeout(20)
        self.writer, self.reader = SegmentWriter(), SegmentReader()
        self.events: list = []
        self.request_id = 0
        assert self.send(mqiflows.encode_request(_T.MQCONN, [(QM, "hostile")])).comp == 0
        reply = self.send(mqiflows.encode_request(_T.MQOPEN, [mqpy.OD(ObjectName=_Q.encode()),
                                                               _SET_OPTIONS]))
        assert reply.comp == CMQC.MQCC_OK, reply
        self.hobj = reply.hobj

    def send(self, request) -> MQIReply:
        self.request_id += 1
        self.sock.sendall(self.writer.send(attrs.evolve(request, conv_id=1,
                                                        request_id=self.request_id)))
        while not self.events:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("the channel instance was closed")
            self.events += self.reader.feed(data)
        return self.events.pop(0)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(params=["bindings", "client"])
def app(request, site):
    a = (_Bindings if request.param == "bindings" else _Client)(site)
    try:
        yield a
    finally:
        a.close()


def _set_request(hobj: int, body: bytes):
    return attrs.evolve(mqiflows.encode_request(_T.MQSET, [[], []], hobj=hobj), body=body)


def _selectors(*selectors: int, count: int | None = None) -> bytes:
    return _LONG.pack(len(selectors) if count is None else count) + b"".join(
        _LONG.pack(s) for s in selectors)


def _values(*values: int | bytes, count: int | None = None) -> bytes:
    out = [_LONG.pack(len(values) if count is None else count)]
    for v in values:
        if isinstance(v, bytes):
            out.append(_LONG.pack(1) + _LONG.pack(len(v)) + v)
        else:
            out.append(_LONG.pack(0) + _LONG.pack(v))
    return b"".join(out)


def _attributes(site) -> tuple[int, int, bytes]:
    """SET.Q's INHIBIT_PUT, TRIGGER_DEPTH and TRIGDATA, as MQINQ gives them."""
    qm = site.bindings()
    try:
        q = mqpy.Queue(qm, _Q, CMQC.MQOO_INQUIRE)
        return (q.inquire(CMQC.MQIA_INHIBIT_PUT), q.inquire(CMQC.MQIA_TRIGGER_DEPTH),
                q.inquire(CMQC.MQCA_TRIGGER_DATA))
    finally:
        qm.disconnect()


_PUT, _DEPTH = CMQC.MQIA_INHIBIT_PUT, CMQC.MQIA_TRIGGER_DEPTH
_INHIBITED = CMQC.MQQA_PUT_INHIBITED


@pytest.mark.parametrize(("body", "reason"), [
    (_selectors(_PUT) + _values(_INHIBITED, 5), CMQC.MQRC_SELECTOR_COUNT_ERROR),
    (_selectors(_PUT, _DEPTH) + _values(_INHIBITED), CMQC.MQRC_SELECTOR_COUNT_ERROR),
    (_selectors(*[_PUT] * 300) + _values(*[_INHIBITED] * 300), CMQC.MQRC_SELECTOR_COUNT_ERROR),
    (_selectors(_PUT, -7) + _values(_INHIBITED, 1), CMQC.MQRC_SELECTOR_ERROR),
    (_selectors(_PUT, _DEPTH) + _values(_INHIBITED, -1), CMQC.MQRC_TRIGGER_DEPTH_ERROR),
    (_selectors(_PUT, _DEPTH) + _values(_INHIBITED, b"5"), CMQC.MQRC_TRIGGER_DEPTH_ERROR),
    (_selectors(_PUT, CMQC.MQCA_TRIGGER_DATA) + _values(_INHIBITED, 7),
     CMQC.MQRC_CHAR_ATTRS_ERROR),
    (_selectors(_PUT, count=0x7FFF_FFFF) + _values(_INHIBITED), None),
    (_selectors(_PUT, count=-1) + _values(_INHIBITED), None),
    (_selectors(_PUT) + _values(_INHIBITED, count=0x7FFF_FFFF), None),
    (_selectors(_PUT) + _values(_INHIBITED, count=-5), None),
    (_selectors(_PUT) + _LONG.pack(1) + _LONG.pack(9) + _LONG.pack(1), None),
    (_selectors(CMQC.MQCA_TRIGGER_DATA) + _LONG.pack(1) + _LONG.pack(1)
     + _LONG.pack(0x7FFF_FFF0) + b"abc", None),
    (_selectors(CMQC.MQCA_TRIGGER_DATA) + _LONG.pack(1) + _LONG.pack(1) + _LONG.pack(-3),
     None),
    (_selectors(_PUT)[:6], None),
], ids=["values-more", "values-fewer", "300-selectors", "bad-selector", "depth-negative",
        "depth-chars", "trigdata-int", "selectors-huge-count", "selectors-negative-count",
        "values-huge-count", "values-negative-count", "value-kind-9", "chars-huge-length",
        "chars-negative-length", "cut-short"])
def test_an_mqset_whose_counts_or_values_are_wrong_sets_nothing(site, app, body, reason):
    """Given an application with a queue open for set, when it sends an MQSET whose counts
    or values are wrong (counts that disagree, more than 256, larger than the data or
    negative, an unknown selector or value kind, a value its selector does not take, a
    character value of a huge or negative length), then it is answered with IBM's reason
    (``reason``), or, for bytes that are no MQSET (``None``), with a failure or the
    connection ended; nothing of it is set, and the queue manager serves on."""
    before = _attributes(site)
    try:
        reply = app.send(_set_request(app.hobj, body))
    except EOFError:
        reply = None
    if not isinstance(reply, MQIReply):  # a STATUS ending a client's instance: AMQ9504E
        assert reason is None, reply
        reply = None
    if reason is not None:
        assert reply is not None and (reply.comp, reply.reason) == \
            (CMQC.MQCC_FAILED, reason), reply
    elif reply is not None:
        assert reply.comp == CMQC.MQCC_FAILED, reply
    assert _attributes(site) == before


def test_a_trigger_data_longer_than_its_field_is_cut_and_fails_no_put(site, app):
    """Given SET.Q triggered EVERY with a trigger monitor's get waiting on its initiation
    queue, when an application sets TRIGDATA to 1000 characters and TRIGGER on in one MQSET,
    then the MQSET is done with TRIGDATA cut to its 64 characters, and a put to the queue is
    made once and answered MQCC_OK, its trigger message carrying those 64 characters."""
    qm = site.bindings()
    try:
        initq = mqpy.Queue(qm, _INITQ, CMQC.MQOO_INPUT_SHARED)  # (a trigger monitor's)
        reply = app.send(_set_request(app.hobj, _selectors(
            CMQC.MQCA_TRIGGER_DATA, CMQC.MQIA_TRIGGER_CONTROL) + _values(
            b"T" * 1000, CMQC.MQTC_ON)))
        assert (reply.comp, reply.reason) == (CMQC.MQCC_OK, 0), reply
        assert _attributes(site)[2] == b"T" * 64
        q = mqpy.Queue(qm, _Q, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
        q.put(b"once")
        tm = mqpy.TM().unpack(initq.get(None, mqpy.MD(), mqpy.GMO(
            Options=CMQC.MQGMO_WAIT, WaitInterval=5000)))
        assert tm.TriggerData == b"T" * 64
        assert q.get() == b"once"
        with pytest.raises(mqpy.MQMIError) as none:
            q.get()
        assert none.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    finally:
        reply = app.send(_set_request(app.hobj, _selectors(
            CMQC.MQCA_TRIGGER_DATA, CMQC.MQIA_TRIGGER_CONTROL) + _values(b"", CMQC.MQTC_OFF)))
        qm.disconnect()
