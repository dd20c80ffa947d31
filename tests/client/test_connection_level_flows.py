"""A shared client channel instance's connection-level flows -- heartbeats and the STATUS
that ends the instance -- travel in a TSHC (the 28-byte TSH whose StructId is "TSHC"), as
IBM's client reads them (``mqpy.fap.tshc``): in both directions, from the SVRCONN (relayed
or FASTPATH) and from mqpy's client. A conversation's flows stay in their TSHM."""

from __future__ import annotations

import time

import pytest

from mqpy import CMQC
from mqpy.fap import asyncflows, tshc
from mqpy.fap.asyncflows import Notice
from mqpy.fap.controlflows import Heartbeat, Status
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import STRUCTID_TSHC, ControlFlags1, parse_segment_header
from tests.client.test_framing_fast import _instance
from tests.support.raw_sessions import _started_instance
from tests.support.site_here import here_site_per_bind_type

_CONFIRM = ControlFlags1.CONFIRM_REQUEST


site = here_site_per_bind_type("tshc")


def _segments(sock, until_closed: bool = False) -> list[bytes]:
    """The whole segments read from ``sock``: the first, or all until it is closed."""
    data, out = b"", []
    while True:
        while len(data) >= 8 and len(data) >= int.from_bytes(data[4:8], "big"):
            length = int.from_bytes(data[4:8], "big")
            out.append(data[:length])
            data = data[length:]
        if out and not until_closed:
            return out
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            return out
        data += chunk


@pytest.mark.system
def test_a_heartbeat_of_a_shared_instance_is_answered_in_a_tshc(site):
    """Given a started instance sharing conversations, when the client sends a heartbeat
    asking for an answer in a TSHC (as IBM's client does), then the answer is a heartbeat
    in a TSHC."""
    sock = _started_instance(site)
    try:
        sock.settimeout(20)
        sock.sendall(tshc.connection_level(SegmentWriter().send(Heartbeat(flags=_CONFIRM))))
        [answer] = _segments(sock)
        assert parse_segment_header(answer).struct_id == STRUCTID_TSHC
        [event] = SegmentReader().feed(answer)
        assert isinstance(event, Heartbeat) and not event.flags & _CONFIRM
    finally:
        sock.close()


@pytest.mark.system
def test_the_status_ending_a_shared_instance_comes_in_a_tshc(site):
    """Given a started instance sharing conversations, when the client breaks the protocol
    (a NOTIFICATION that is not CONN_STATE), then the STATUS that ends the instance comes in
    a TSHC, its code PROTOCOL_SEGMENT_TYPE."""
    sock = _started_instance(site)
    try:
        sock.settimeout(20)
        sock.sendall(asyncflows.notification(1, Notice.CHECK_MSG, CMQC.MQRC_NONE, 1))
        [segment] = _segments(sock, until_closed=True)
        assert parse_segment_header(segment).struct_id == STRUCTID_TSHC
        [status] = SegmentReader().feed(segment)
        assert isinstance(status, Status) and status.code == StatusCode.PROTOCOL_SEGMENT_TYPE
    finally:
        sock.close()


def test_mqpys_client_answers_and_sends_heartbeats_of_a_shared_instance_in_a_tshc():
    """Given mqpy's client on an instance sharing conversations, when the queue manager's
    heartbeat asks for an answer, and when the client's own heartbeat is due, then both go
    in a TSHC."""
    instance = _instance()
    written: list[bytes] = []
    instance._write = written.append
    instance._on_event(Heartbeat(flags=_CONFIRM))
    instance.hbint = 1  # nothing heard for HBINT (1.5 s), within the receive timeout: a probe
    instance.last_received, instance.last_probe = time.monotonic() - 1.5, 0.0
    instance._heartbeat_due()
    assert [parse_segment_header(w).struct_id for w in written] == [STRUCTID_TSHC] * 2
    events = [SegmentReader().feed(w)[0] for w in written]
    assert [e.flags & _CONFIRM for e in events] == [0, _CONFIRM]
