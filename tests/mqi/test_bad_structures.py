"""A call whose MQMD, MQOD, MQPMO or MQGMO has a wrong StrucId or Version fails with that
structure's reason (MQRC_MD_ERROR 2026, MQRC_OD_ERROR 2044, MQRC_PMO_ERROR 2173,
MQRC_GMO_ERROR 2186), as IBM fails it; the connection goes on and its unit of work in
progress is still there to commit. The same answers embedded, over the bindings socket of a
daemon and over a client channel of its channel initiator; and the queue manager's and the
channel initiator's own side gives them to a program that sends the bad structures as bytes
(the application library checks first)."""

from __future__ import annotations

import socket
from collections.abc import Callable

import attrs
import pytest

import mqpy
from mqpy import CMQC, bindings
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIRequest
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.tsh import SegmentType
from tests.support.raw_sessions import _raw_session, _replies, _started_instance
from tests.support.site import CHANNEL, Site

from ._modes import QUEUE, drain, fails_alone
from ._support import IN, OUT

pytestmark = pytest.mark.timeout(180)

_MD, _PMO, _GMO, _OD = (CMQC.MQRC_MD_ERROR, CMQC.MQRC_PMO_ERROR, CMQC.MQRC_GMO_ERROR,
                        CMQC.MQRC_OD_ERROR)


def _od(**fields) -> mqpy.OD:
    return mqpy.OD(ObjectName=QUEUE.encode(), **fields)


#: (what is wrong, the call made on an open queue ``q`` of connection ``qm``, the reason)
CASES: list[tuple[str, Callable[[mqpy.QueueManager, mqpy.Queue], object], int]] = [
    ("put-md-strucid", lambda qm, q: q.put(b"bad", mqpy.MD(StrucId=b"XXXX")), _MD),
    ("put-md-version-0", lambda qm, q: q.put(b"bad", mqpy.MD(Version=0)), _MD),
    ("put-md-version-99", lambda qm, q: q.put(b"bad", mqpy.MD(Version=99)), _MD),
    ("put-pmo-strucid",
     lambda qm, q: q.put(b"bad", mqpy.MD(), mqpy.PMO(StrucId=b"PMX ")), _PMO),
    ("put-pmo-version-0", lambda qm, q: q.put(b"bad", mqpy.MD(), mqpy.PMO(Version=0)), _PMO),
    ("get-md-strucid", lambda qm, q: q.get(None, mqpy.MD(StrucId=b"DM  ")), _MD),
    ("get-gmo-strucid",
     lambda qm, q: q.get(None, mqpy.MD(), mqpy.GMO(StrucId=b"XXXX")), _GMO),
    ("get-gmo-version-99", lambda qm, q: q.get(None, mqpy.MD(), mqpy.GMO(Version=99)), _GMO),
    ("open-od-strucid",
     lambda qm, q: mqpy.Queue(qm, _od(StrucId=b"OX  "), CMQC.MQOO_OUTPUT), _OD),
    ("open-od-version-9", lambda qm, q: mqpy.Queue(qm, _od(Version=9), CMQC.MQOO_OUTPUT), _OD),
    ("put1-od-strucid", lambda qm, q: qm.put1(_od(StrucId=b"XXXX"), b"bad"), _OD),
    ("put1-md-version-0", lambda qm, q: qm.put1(_od(), b"bad", mqpy.MD(Version=0)), _MD),
    ("put1-pmo-strucid",
     lambda qm, q: qm.put1(_od(), b"bad", mqpy.MD(), mqpy.PMO(StrucId=b"XXXX")), _PMO),
]


@pytest.mark.parametrize(("case", "call", "reason"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_structure_fails_only_its_call(connect, case, call, reason):
    """Given a connection with a message put in syncpoint, when a call carries a structure
    with a wrong StrucId or Version, then that call fails MQCC_FAILED with the structure's
    reason, the connection still works, and its unit of work commits the message."""
    fails_alone(connect, call, reason)


# -- the bytes themselves, as a program that skips the library's checks sends them ---------

def _corrupt(request: MQIRequest, at: int, raw: bytes) -> MQIRequest:
    body = bytearray(request.body)
    body[at:at + len(raw)] = raw
    return attrs.evolve(request, body=bytes(body))


_MD_LEN = mqpy.MD.length(2)
_VERSION_0 = (0).to_bytes(4, "little")
#: (what is wrong, the verb, its body values (hobj filled in), where to write what, reason)
RAW_CASES = [
    ("put-md-strucid", SegmentType.MQPUT, [mqpy.MD(), mqpy.PMO(), b"bad"], 0, b"XXXX", _MD),
    ("put-md-version-0", SegmentType.MQPUT, [mqpy.MD(), mqpy.PMO(), b"bad"], 4, _VERSION_0,
     _MD),
    ("put-pmo-strucid", SegmentType.MQPUT, [mqpy.MD(), mqpy.PMO(), b"bad"], _MD_LEN, b"XXXX",
     _PMO),
    ("put-pmo-recs-negative", SegmentType.MQPUT, [mqpy.MD(), mqpy.PMO(Version=2), b"bad"],
     _MD_LEN + mqpy.PMO.offset_of("RecsPresent"), (-1).to_bytes(4, "little", signed=True),
     CMQC.MQRC_RECS_PRESENT_ERROR),
    ("get-gmo-version-0", SegmentType.MQGET, [mqpy.MD(), mqpy.GMO(), -1], _MD_LEN + 4,
     _VERSION_0, _GMO),
    ("open-od-strucid", SegmentType.MQOPEN, [_od(), CMQC.MQOO_OUTPUT], 0, b"XXXX", _OD),
    ("put1-od-version-0", SegmentType.MQPUT1, [_od(), mqpy.MD(), mqpy.PMO(), b"bad"], 4,
     _VERSION_0, _OD),
    # not a structure, but a value the library refuses before sending: a BufferLength
    # below -1 (-1 is "the whole message") is the queue manager's 2005 too
    ("get-buffer-length-minus-5", SegmentType.MQGET, [mqpy.MD(), mqpy.GMO(), 0],
     _MD_LEN + mqpy.GMO.length(), (-5).to_bytes(4, "little", signed=True),
     CMQC.MQRC_BUFFER_LENGTH_ERROR),
]


class _RawBindings:
    """MQI flows on a daemon's bindings socket, one request and its reply at a time."""

    def __init__(self, site: Site, *, connected: bool = True) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(20)
        with bindings.bind_address(bindings.socket_path(site.qmdir)) as address:
            self.sock.connect(address)
        self.writer = SegmentWriter(bindings.MAX_TRANSMISSION_SIZE)
        self.reader = SegmentReader(bindings.MAX_TRANSMISSION_SIZE)
        if connected:
            self.connect()

    def connect(self) -> None:
        assert self.call(mqiflows.encode_request(
            SegmentType.MQCONN, [("QMS", "raw"), None])).comp == CMQC.MQCC_OK

    def call(self, request: MQIRequest):
        self.sock.sendall(self.writer.send(request))
        return _replies(self.sock, self.reader, 1)[0]


def _syncpoint_put(hobj: int) -> MQIRequest:
    return mqiflows.encode_request(
        SegmentType.MQPUT, [mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT), b"kept"],
        hobj=hobj)


@pytest.mark.parametrize(("case", "verb", "values", "at", "raw", "reason"), RAW_CASES,
                         ids=[c[0] for c in RAW_CASES])
def test_bad_structure_bytes_on_the_bindings_socket(site, case, verb, values, at, raw,
                                                    reason):
    """Given a bindings connection with a message put in syncpoint, when a request arrives
    whose structure bytes are wrong, then the daemon answers that call with the
    structure's reason, and the same connection commits the message."""
    conn = _RawBindings(site)
    with conn.sock:
        _drain_via(site)
        opened = conn.call(mqiflows.encode_request(SegmentType.MQOPEN, [_od(), OUT | IN]))
        hobj = opened.hobj
        assert conn.call(_syncpoint_put(hobj)).comp == CMQC.MQCC_OK
        bad = _corrupt(mqiflows.encode_request(verb, values, hobj=hobj), at, raw)
        reply = conn.call(bad)
        assert (reply.comp, reply.reason) == (CMQC.MQCC_FAILED, reason), case
        assert conn.call(mqiflows.encode_request(SegmentType.MQCMIT)).comp == CMQC.MQCC_OK
    assert _drain_via(site) == [b"kept"]


@pytest.mark.parametrize(("case", "verb", "values", "at", "raw", "reason"), RAW_CASES,
                         ids=[c[0] for c in RAW_CASES])
def test_bad_structure_bytes_on_a_client_channel(site, case, verb, values, at, raw, reason):
    """Given a client conversation with a message put in syncpoint, when a request arrives
    whose structure bytes are wrong, then the channel initiator answers that call with the
    structure's reason (the channel goes on), and the conversation commits the message."""
    _drain_via(site)
    with _started_instance(site) as sock:
        writer, reader, hobj = _raw_session(sock)

        def call(request: MQIRequest, request_id: int):
            sock.sendall(writer.send(attrs.evolve(request, conv_id=1, request_id=request_id)))
            return _replies(sock, reader, 1)[0]

        assert call(_syncpoint_put(hobj), 3).comp == CMQC.MQCC_OK
        reply = call(_corrupt(mqiflows.encode_request(verb, values, hobj=hobj), at, raw), 4)
        assert (reply.comp, reply.reason) == (CMQC.MQCC_FAILED, reason), case
        assert call(mqiflows.encode_request(SegmentType.MQCMIT), 5).comp == CMQC.MQCC_OK
    assert _drain_via(site) == [b"kept"]


def _drain_via(site: Site) -> list[bytes]:
    qm = site.bindings()
    try:
        return drain(qm)
    finally:
        qm.disconnect()


@pytest.mark.parametrize(("case", "cd", "sco", "reason"), [
    ("cd-version-0", {"Version": 0}, None, CMQC.MQRC_CD_ERROR),
    ("cd-version-99", {"Version": 99}, None, CMQC.MQRC_CD_ERROR),
    ("sco-strucid", {}, {"StrucId": b"SCX "}, CMQC.MQRC_SCO_ERROR),
    ("sco-version-9", {}, {"Version": 9}, CMQC.MQRC_SCO_ERROR),
], ids=lambda v: v if isinstance(v, str) else "")
def test_a_bad_mqcd_or_mqsco_fails_the_mqconnx(site, case, cd, sco, reason):
    """Given an MQCONNX of a client whose MQCD or MQSCO has a wrong StrucId or Version,
    then it fails with that structure's reason (MQRC_CD_ERROR, MQRC_SCO_ERROR) before
    anything is sent; the same structures put right connect."""
    qm = mqpy.QueueManager(None)
    with pytest.raises(mqpy.MQMIError) as err:
        qm.connect_tcp_client("QMS", mqpy.CD(**cd), CHANNEL, site.conn_info,
                              sco=None if sco is None else mqpy.SCO(**sco))
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED, reason), case
    qm.connect_tcp_client("QMS", mqpy.CD(), CHANNEL, site.conn_info, sco=mqpy.SCO())
    qm.disconnect()


def test_a_bad_structure_in_an_spi_run_ends_the_run_not_the_connection(site):
    """Given an SPI RUN (calls made in order as one, as a channel's batch) of a put, a put
    whose MQMD StrucId is wrong, and another put, then the run answers the first put and
    fails the second with MQRC_MD_ERROR, the third is not made, and the connection goes
    on to commit the first."""
    conn = _RawBindings(site)
    with conn.sock:
        _drain_via(site)
        hobj = conn.call(mqiflows.encode_request(SegmentType.MQOPEN, [_od(), OUT | IN])).hobj
        bad = _corrupt(mqiflows.encode_request(SegmentType.MQPUT, [mqpy.MD(), mqpy.PMO(),
                                                                     b"bad"], hobj=hobj),
                       0, b"XXXX")
        flows = mqiflows.pack_flows([_syncpoint_put(hobj), bad, _syncpoint_put(hobj)])
        reply = conn.call(mqiflows.encode_request(SegmentType.SPI,
                                                  [mqiflows.SpiVerb.RUN, flows, 0]))
        assert reply.comp == CMQC.MQCC_OK
        (replies,) = mqiflows.decode_reply(reply).values
        answered = [mqiflows.unpack_flows(r)[0] for r in replies]
        assert [(r.comp, r.reason) for r in answered] == [
            (CMQC.MQCC_OK, CMQC.MQRC_NONE), (CMQC.MQCC_FAILED, CMQC.MQRC_MD_ERROR)]
        assert conn.call(mqiflows.encode_request(SegmentType.MQCMIT)).comp == CMQC.MQCC_OK
    assert _drain_via(site) == [b"kept"]


def test_a_bad_structure_before_mqconn_is_2018(site):
    """Given a bindings connection that has not made its MQCONN, when an MQOPEN with a bad
    MQOD arrives, then it fails MQRC_HCONN_ERROR (2018) as any call then would, and the
    MQCONN that follows is made."""
    conn = _RawBindings(site, connected=False)
    with conn.sock:
        bad = _corrupt(mqiflows.encode_request(SegmentType.MQOPEN, [_od(), OUT]), 0, b"XXXX")
        reply = conn.call(bad)
        assert (reply.comp, reply.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_HCONN_ERROR)
        conn.connect()
