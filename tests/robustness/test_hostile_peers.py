"""Hostile peers of a queue manager started by strmqm (its channel initiator's listener and
its bindings socket), with small qm.ini limits on what an unauthenticated peer may hold:
every flow that breaks them is refused over a real socket, that connection alone is closed,
the error log says why with an AMQ message (the byte counts in it show how much was held),
and a normal client still works afterwards."""

from __future__ import annotations

import os
import socket
import time

import pytest

import mqpy
from mqpy.admission import LOG_LINES
from mqpy.bindings import socket_path
from mqpy.fap.controlflows import Heartbeat, Status
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.initialdata import InitialData
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import ByteOrder, ControlFlags1, SegmentType, build_segment_header
from tests.support.fastpath import STANDARD
from tests.support.site import ADMIT_OWNER, CHANNEL, Site

pytestmark = [pytest.mark.system, pytest.mark.timeout(300)]

#: (the timeouts are waited out by two tests; the others hold an idle connection for well
#: under a second or two)
LIMITS = {"MaxUnauthChannels": "6", "MaxUnauthChannelsPerAddress": "3",
          "MaxUnauthBytes": "8192", "UnauthTimeout": "5", "MaxUnauthBindings": "4",
          "BindingsConnectTimeout": "5"}
FIRST = ControlFlags1.FIRST


def _started(tmp_path_factory, name: str, channels: dict[str, str]):
    """A queue manager started by strmqm with these qm.ini Channels values, admitting its
    owner's clients; stopped at the end."""
    s = Site(str(tmp_path_factory.mktemp(name) / "data"), channels)
    try:
        s.start()
        s.mqsc_here(ADMIT_OWNER)
        yield s
    finally:
        s.stop()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    yield from _started(tmp_path_factory, "hostile", {**LIMITS, **STANDARD})


@pytest.fixture(autouse=True)
def _mark(site):
    site.mark()


def _segment(segment_type: int, body: bytes, flags: ControlFlags1) -> bytes:
    return build_segment_header(segment_type, 28 + len(body), flags1=flags,
                                byte_order=ByteOrder.LITTLE) + body


def _tcp(site: Site, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", site.port), timeout=30,
                                    source_address=(source, 0))
    return sock


def _answer(sock: socket.socket) -> list:
    """What the peer sends until it closes the connection, as events."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return SegmentReader().feed(data)


def _status(events: list) -> StatusCode:
    [status] = [e for e in events if isinstance(e, Status)]
    return StatusCode(status.code)


def _refused_with(sock: socket.socket, code: StatusCode) -> None:
    """The peer answered ``code`` and closed; or it reset the connection, closing it with
    bytes of ours unread, and the kernel dropped its STATUS with them (the log says why)."""
    try:
        events = _answer(sock)
    except ConnectionResetError:
        return
    assert _status(events) == code


def _negotiated(site: Site) -> socket.socket:
    """A client connection whose INITIAL_DATA is agreed, before any MQCONN."""
    sock = _tcp(site)
    sock.sendall(SegmentWriter().send(InitialData(fap_level=10, channel_name=CHANNEL)))
    reader = SegmentReader()
    events: list = []
    while not events:
        events = reader.feed(sock.recv(65536))
    assert isinstance(events[0], InitialData), events
    return sock


def _endless(sock: socket.socket, segment_type: int, size: int, total: int) -> None:
    """A FIRST segment, then continuations, never LAST, until ``total`` bytes or the peer
    stops taking them."""
    try:
        sock.sendall(_segment(segment_type, bytes(16) + bytes(size), FIRST))
        for _ in range(total // size):
            sock.sendall(_segment(segment_type, bytes(size), ControlFlags1.NONE))
    except OSError:
        pass  # refused and closed: what follows is in the log and the answer


def _still_serving(site: Site) -> None:
    qm = site.client()
    try:
        mqpy.Queue(qm, "APP.Q").put(b"still served")
    finally:
        qm.disconnect()


# -- before INITIAL_DATA -----------------------------------------------------------------


def test_a_split_flow_before_initial_data_is_refused_at_its_first_segment(site):
    """Given a connection that sends a segment marked FIRST (not LAST) and then endless
    continuations instead of INITIAL_DATA, then it is refused at the first segment
    (STATUS PROTOCOL_SEGMENT_ERROR, AMQ9504E naming the peer), nothing buffered."""
    with _tcp(site) as sock:
        _endless(sock, SegmentType.MQPUT, 500, 2_000_000)
        _refused_with(sock, StatusCode.PROTOCOL_SEGMENT_ERROR)
    log = site.wait_for_log("AMQ9504E")
    assert "127.0.0.1" in log and "before the channel's INITIAL_DATA was agreed" in log
    assert "Traceback" not in log and "AMQ9999E" not in log
    _still_serving(site)


def test_a_first_segment_longer_than_an_id_is_refused_from_its_header(site):
    """Given a first TSH announcing 32766 bytes, then it is refused before the body is
    read (PROTOCOL_LENGTH_ERROR, AMQ9504E with the length)."""
    with _tcp(site) as sock:
        sock.sendall(_segment(SegmentType.INITIAL_DATA, bytes(32766 - 28),
                              FIRST | ControlFlags1.LAST)[:8])
        _refused_with(sock, StatusCode.PROTOCOL_LENGTH_ERROR)
    log = site.wait_for_log("AMQ9504E")
    assert "segment length 32766 exceeds the maximum transmission size 1024" in log


def test_a_first_flow_that_is_not_initial_data_is_a_protocol_error(site):
    """Given a HEARTBEAT as the first flow, then the connection is refused with STATUS
    PROTOCOL_SEGMENT_TYPE and AMQ9504E naming the peer and the flow; no traceback text."""
    with _tcp(site) as sock:
        sock.sendall(SegmentWriter().send(Heartbeat(flags=ControlFlags1.CONFIRM_REQUEST)))
        _refused_with(sock, StatusCode.PROTOCOL_SEGMENT_TYPE)
    log = site.wait_for_log("AMQ9504E")
    assert "from 127.0.0.1: its first flow was HEARTBEAT, not INITIAL_DATA" in log
    assert "UnboundLocalError" not in log and "AMQ9999E" not in log


# -- after INITIAL_DATA, before MQCONN --------------------------------------------------


def test_before_mqconn_unfinished_flows_hold_at_most_max_unauth_bytes(site):
    """Given a client whose INITIAL_DATA was agreed, when it starts an MQCONN flow that
    never ends, then it is refused once the flow passes MaxUnauthBytes (8192): the log's
    AMQ9504E says how many bytes it would have held."""
    _endless_mqconn_is_refused_at_8192_bytes(site)


def _endless_mqconn_is_refused_at_8192_bytes(site: Site) -> None:
    with _negotiated(site) as sock:
        _endless(sock, SegmentType.MQCONN, 3000, 2_000_000)
        _refused_with(sock, StatusCode.MESSAGE_LENGTH_ERROR)
    log = site.wait_for_log("AMQ9504E")
    assert "more than the 8192 allowed at once" in log
    _still_serving(site)


def test_a_client_that_never_sends_mqconn_is_closed_after_unauth_timeout(site):
    """Given a client that agrees INITIAL_DATA and then sends only a heartbeat, then the
    listener closes it after UnauthTimeout (5 s) with AMQ9259E naming the peer."""
    with _negotiated(site) as sock:
        sock.sendall(SegmentWriter().send(Heartbeat()))
        sock.settimeout(120)
        while sock.recv(65536):
            pass
    log = site.wait_for_log("UnauthTimeout", timeout=30)
    assert "AMQ9259E" in log and "127.0.0.1" in log


def test_unauthenticated_connections_are_limited_per_address_and_in_all(site):
    """Given MaxUnauthChannelsPerAddress 3 and MaxUnauthChannels 6, when 3 idle
    connections come from 127.0.0.1, then a 4th from there is closed unread (AMQ9513E);
    when 3 more come from 127.0.0.2, one from 127.0.0.3 is closed too (the total); once
    they are gone, a client connects as usual."""
    held = [_tcp(site) for _ in range(3)]
    try:
        time.sleep(0.5)  # accepted and counted before the next
        with _tcp(site) as extra:
            assert extra.recv(1) == b""
        assert "from 127.0.0.1 are not authenticated yet" in site.wait_for_log("AMQ9513E")
        held += [_tcp(site, "127.0.0.2") for _ in range(3)]
        time.sleep(0.5)
        with _tcp(site, "127.0.0.3") as extra:
            assert extra.recv(1) == b""
        log = site.wait_for_log("the most allowed in all")
        assert "the connection from 127.0.0.3 was refused" in log
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.5)
    _still_serving(site)


# -- the bindings socket -----------------------------------------------------------------


def _unix(site: Site) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(60)
    sock.connect(socket_path(site.qmdir))
    return sock


def _closed(sock: socket.socket) -> bool:
    """Whether the peer closed ``sock`` (at its end, or with our bytes unread: a reset)."""
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def _bindings_mqconn_works(site: Site) -> None:
    qm = site.bindings()
    try:
        assert mqpy.Queue(qm, "APP.Q").put(b"an application") is None
    finally:
        qm.disconnect()


def test_a_bindings_flow_that_never_ends_is_refused_at_max_unauth_bytes(site):
    """Given a bindings connection that starts an MQCONN flow and never ends it, then the
    queue manager closes it once it would hold more than MaxUnauthBytes (AMQ9207E with
    the byte count); the daemon serves the next application."""
    with _unix(site) as sock:
        _endless(sock, SegmentType.MQCONN, 3000, 50_000_000)
        assert _closed(sock)
    log = site.wait_for_log("AMQ9207E")
    assert "more than the 8192 allowed at once" in log and f"process {os.getpid()}" in log
    _bindings_mqconn_works(site)


def test_malformed_bindings_traffic_is_logged_once_a_flow_and_rate_limited(site):
    """Given bindings connections sending garbage, then each is closed and logged with
    AMQ9207E, at most LOG_LINES lines a minute for a flood of them."""
    for _ in range(LOG_LINES * 2):
        with _unix(site) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\n\r\n")
            assert _closed(sock)
    log = site.wait_for_log("AMQ9207E")
    assert "not a TSH" in log
    assert 1 <= log.count("AMQ9207E") <= LOG_LINES
    _bindings_mqconn_works(site)


def test_bindings_connections_without_mqconn_are_limited_and_timed_out(site):
    """Given MaxUnauthBindings 4, when 4 connections send nothing, then a 5th is closed at
    once (AMQ9513E), and the 4 are closed after BindingsConnectTimeout (AMQ9259E); an
    application connects as usual afterwards."""
    held = [_unix(site) for _ in range(4)]
    try:
        time.sleep(0.5)
        with _unix(site) as extra:
            assert _closed(extra)
        assert "MaxUnauthBindings 4" in site.wait_for_log("AMQ9513E")
        for sock in held:
            assert _closed(sock)  # by the queue manager, not by us
    finally:
        for sock in held:
            sock.close()
    assert "BindingsConnectTimeout" in site.wait_for_log("AMQ9259E", timeout=30)
    _bindings_mqconn_works(site)


# -- a client handed to the queue manager (MQIBindType=FASTPATH) ----------------------------


@pytest.fixture(scope="module")
def fastpath_site(tmp_path_factory):
    yield from _started(tmp_path_factory, "hostile_fastpath",
                        {**LIMITS, "MQIBindType": "FASTPATH"})


def test_a_client_handed_to_the_queue_manager_keeps_qm_ini_limits(fastpath_site):
    """Given a FASTPATH queue manager whose qm.ini says MaxUnauthBytes 8192, when a client
    handed to the queue manager starts an MQCONN flow that never ends, then it is refused
    at qm.ini's 8192 bytes (not the default 65536), and clients are still served."""
    fastpath_site.mark()
    _endless_mqconn_is_refused_at_8192_bytes(fastpath_site)
