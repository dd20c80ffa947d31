"""Hostile TLS peers at a queue manager's listener (strmqm, QMGR SSLKEYR set, a TLS
SVRCONN): a peer that opens TCP and never completes its handshake (nothing sent, a
ClientHello cut short, one byte at a time) holds one unauthenticated place for UnauthTimeout
at most, never the listener (a TLS client connects meanwhile); a peer that sends garbage
after the handshake byte is refused at once (AMQ9665E); one whose first byte is not TLS is
read as plain MQ and refused as such (AMQ9504E). Each is logged, and no traceback is
written anywhere."""

from __future__ import annotations

import os
import socket
import time

import pytest
import trustme

import mqpy
from mqpy import CMQC
from tests.support.site import ADMIT_OWNER, QM, QUEUE, Site, key_repository

pytestmark = pytest.mark.timeout(180)

CIPH = "ECDHE_ECDSA_AES_128_GCM_SHA256"
UNAUTH_TIMEOUT = 3
PER_ADDRESS = 4
#: the first bytes of a TLS 1.2 ClientHello record, cut short: the handshake never ends
HELLO_START = bytes.fromhex("160301020001") + b"\x03\x03" + b"\x00" * 8


@pytest.fixture(scope="module")
def tls_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("tls")
    s = Site(str(root), {"UnauthTimeout": str(UNAUTH_TIMEOUT),
                         "MaxUnauthChannelsPerAddress": str(PER_ADDRESS)}).start()
    ca = trustme.CA(organization_name="mqpy test CA")
    qm_repo = key_repository(str(root / "qmkeys"), ca,
                             ca.issue_cert("qms.example", common_name="QMS"))
    app = key_repository(str(root / "app"), ca, ca.issue_cert("app.example",
                                                              common_name="app"))
    try:
        s.mqsc_here(f"ALTER QMGR SSLKEYR('{qm_repo}')\n"
                    f"DEFINE CHANNEL(TLS.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH({CIPH}) "
                    f"SSLCAUTH(OPTIONAL) REPLACE\n"
                    f"SET CHLAUTH(TLS.SVRCONN) TYPE(BLOCKUSER) USERLIST('nobody')\n"
                    + ADMIT_OWNER)
        yield s, app
    finally:
        s.stop()


def _tls_client_works(site: Site, app: str) -> float:
    """A TLS client's MQCONN, put and get: the seconds it took."""
    start = time.monotonic()
    qm = mqpy.QueueManager(None)
    qm.connect_tcp_client(QM, mqpy.CD(SSLCipherSpec=CIPH.encode()), "TLS.SVRCONN",
                          site.conn_info, sco=mqpy.SCO(KeyRepository=app.encode()))
    try:
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        q.put(b"over TLS")
        assert q.get() == b"over TLS"
        q.close()
    finally:
        qm.disconnect()
    return time.monotonic() - start


def _closed_within(sock: socket.socket, seconds: float) -> float | None:
    """When the queue manager closed ``sock`` (seconds from now), reading what it sends;
    None if it is still open after ``seconds``."""
    start = time.monotonic()
    sock.settimeout(0.2)
    while time.monotonic() - start < seconds:
        try:
            if sock.recv(65536) == b"":
                return time.monotonic() - start
        except TimeoutError:
            continue
        except OSError:
            return time.monotonic() - start
    return None


def _connect(site: Site) -> socket.socket:
    return socket.create_connection(("127.0.0.1", site.port), timeout=10)


@pytest.mark.parametrize("first", [b"", HELLO_START, b"\x16"], ids=[
    "nothing-sent", "client-hello-cut-short", "handshake-byte-alone"])
def test_a_handshake_never_completed_is_closed_after_unauth_timeout(tls_site, first):
    """Given a peer that opens TCP and sends ``first`` and then nothing, then it is
    closed within UnauthTimeout (AMQ9259E), and meanwhile a TLS client is served."""
    site, app = tls_site
    site.mark()
    stalled = _connect(site)
    try:
        stalled.sendall(first)
        assert _tls_client_works(site, app) < UNAUTH_TIMEOUT + 5
        closed = _closed_within(stalled, UNAUTH_TIMEOUT + 5)
    finally:
        stalled.close()
    assert closed is not None, "still open after UnauthTimeout"
    site.wait_for_log("AMQ9259E")


def test_a_trickled_handshake_is_closed_after_unauth_timeout(tls_site):
    """Given a peer that sends its ClientHello one byte a second, then it is closed by
    UnauthTimeout all the same: the deadline runs from the accept, not from the last
    byte."""
    site, _app = tls_site
    sock = _connect(site)
    start = time.monotonic()
    try:
        for byte in HELLO_START + b"\x00" * 20:
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                break
            if _closed_within(sock, 1) is not None:
                break
    finally:
        sock.close()
    assert time.monotonic() - start < UNAUTH_TIMEOUT + 3


def test_stalled_handshakes_take_unauthenticated_places_only_until_their_timeout(tls_site):
    """Given as many stalled handshakes from one address as MaxUnauthChannelsPerAddress,
    then the next connection from there is refused (AMQ9513E); once UnauthTimeout has
    closed them, a TLS client from there is served again."""
    site, app = tls_site
    site.mark()
    stalled = [_connect(site) for _ in range(PER_ADDRESS)]
    try:
        for s in stalled:
            s.sendall(HELLO_START)
        time.sleep(0.5)
        extra = _connect(site)
        assert _closed_within(extra, 3) is not None
        extra.close()
        site.wait_for_log("AMQ9513E")
        for s in stalled:
            assert _closed_within(s, UNAUTH_TIMEOUT + 5) is not None
    finally:
        for s in stalled:
            s.close()
    assert _tls_client_works(site, app) < 10


@pytest.mark.parametrize("garbage", [
    b"\x16" + os.urandom(2000),
    bytes.fromhex("1603010004") + b"\xff\xff\xff\xff",
    bytes.fromhex("16030140000100") + b"\x00" * 100,
], ids=["random-after-0x16", "bad-handshake-type", "record-length-16k-announced"])
def test_garbage_in_place_of_a_client_hello_is_refused_at_once(tls_site, garbage):
    """Given a peer that starts a TLS record and sends garbage, then it is closed at
    once with AMQ9665E, and the listener goes on serving TLS clients."""
    site, app = tls_site
    site.mark()
    sock = _connect(site)
    try:
        sock.sendall(garbage)
        closed = _closed_within(sock, UNAUTH_TIMEOUT + 5)
    finally:
        sock.close()
    assert closed is not None
    site.wait_for_log("AMQ9665E") if closed < UNAUTH_TIMEOUT else site.wait_for_log(
        "AMQ9259E")
    assert _tls_client_works(site, app) < 10


def test_a_first_byte_that_is_not_tls_is_read_as_plain_mq_and_refused(tls_site):
    site, app = tls_site
    site.mark()
    sock = _connect(site)
    try:
        sock.sendall(os.urandom(1).replace(b"\x16", b"\x17") + b"garbage" * 100)
        assert _closed_within(sock, UNAUTH_TIMEOUT + 5) is not None
    finally:
        sock.close()
    assert _tls_client_works(site, app) < 10


def test_no_traceback_was_written(tls_site):
    site, _app = tls_site
    errors = os.path.join(site.qmdir, "errors")
    for name in os.listdir(errors):
        with open(os.path.join(errors, name), encoding="latin-1") as f:
            assert "Traceback" not in f.read(), name
