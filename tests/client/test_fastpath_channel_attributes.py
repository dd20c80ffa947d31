"""A SVRCONN's attributes for a client served by the queue manager's daemon
(MQIBindType=FASTPATH, crtmqm's default), as for one relayed by the channel initiator:
heartbeats (once nothing has been heard for the negotiated HBINT the SVRCONN asks the client
for one, and a client silent for the receive timeout, twice HBINT below 60 s, has its channel
ended with AMQ9259E) and MAXINSTC (instances from one client address)."""

from __future__ import annotations

import socket
import time

import attrs
import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.controlflows import Heartbeat
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.initialdata import InitialData
from mqpy.fap.tsh import ControlFlags1, SegmentType
from tests.client.conftest import wait_for
from tests.support.fastpath import _holders, daemon_alone_holds
from tests.support.site import ADMIT_OWNER, CHANNEL, QM, Site
from tests.support.site_here import HereSite

pytestmark = pytest.mark.system


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = HereSite(str(tmp_path_factory.mktemp("fastpath-hb") / "data"))  # crtmqm's qm.ini
    try:
        s.start()
        s.mqsc(ADMIT_OWNER + f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SVRCONN) HBINT(1)\n")
        yield s
    finally:
        s.stop()


def _connected_silent_client(site: Site) -> tuple[socket.socket, SegmentReader]:
    """A client that agreed HBINT(1) and connected (MQCONN), then says nothing more."""
    sock = socket.create_connection(("127.0.0.1", site.port))
    writer, reader = SegmentWriter(), SegmentReader()
    sock.sendall(writer.send(InitialData(fap_level=10, channel_name=CHANNEL,
                                         conv_per_socket=10, max_msg_batch=1,
                                         heartbeat_interval=1)))
    events: list = []
    while not any(isinstance(e, InitialData) for e in events):
        events += reader.feed(sock.recv(65536))
    conn = mqiflows.encode_request(SegmentType.MQCONN, [(QM, "silent")])
    sock.sendall(writer.send(attrs.evolve(conn, conv_id=1, request_id=1)))
    events = []
    while not events:
        events += reader.feed(sock.recv(65536))
    assert events[0].comp == 0
    return sock, reader


def test_a_silent_client_of_the_daemon_is_probed_then_ended(site):
    """Given a client served by the daemon on a SVRCONN with HBINT(1), when it stays silent,
    then the daemon asks it for a heartbeat (CONFIRM_REQUEST) within about HBINT and, with no
    answer, closes its socket after the receive timeout and logs AMQ9259E."""
    site.mark()
    sock, reader = _connected_silent_client(site)
    try:
        assert daemon_alone_holds(site), _holders(site)
        sock.settimeout(10)
        started = time.monotonic()
        seen: list = []
        while True:
            data = sock.recv(65536)
            if not data:
                break
            seen += reader.feed(data)
        probes = [e for e in seen if isinstance(e, Heartbeat)]
        assert probes and probes[0].flags & ControlFlags1.CONFIRM_REQUEST
        assert time.monotonic() - started < 8
    finally:
        sock.close()
    assert "AMQ9259E" in site.wait_for_log("AMQ9259E")


def test_maxinstc_limits_one_client_address_in_the_daemon(site):
    """Given MAXINSTC(1) and SHARECNV(1), and one client from 127.0.0.1 served by the daemon,
    when the same address starts a second instance, then it is refused 2537 with AMQ9490E;
    after the first disconnects, a client connects again."""
    site.mark()
    site.mqsc(f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SVRCONN) MAXINSTC(1) SHARECNV(1)\n")
    try:
        first = site.client()
        try:
            assert daemon_alone_holds(site), _holders(site)
            with pytest.raises(mqpy.MQMIError) as refused:
                site.client().disconnect()
            assert refused.value.reason == CMQC.MQRC_CHANNEL_NOT_AVAILABLE
            assert "AMQ9490E" in site.wait_for_log("AMQ9490E")
        finally:
            first.disconnect()
        assert wait_for(lambda: not _holders(site))
        site.client().disconnect()
    finally:
        site.mqsc(f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SVRCONN) MAXINSTC(999999999) "
                  "SHARECNV(10)\n")
