"""TLS on channels of a channel initiator started by strmqm: SSLCIPH (IBM CipherSpecs),
SSLCAUTH, SSLPEER, QMGR SSLKEYR and the client's MQCD / MQSCO. The tests make their own CA
(trustme) and key repositories (directories of PEM files)."""

from __future__ import annotations

import os

import pytest
import trustme

import mqpy
from mqpy import CMQC
from tests.support.site import ALICE, ALICE_PW, QM, QUEUE, Site, key_repository

CIPH = "ECDHE_ECDSA_AES_128_GCM_SHA256"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("tls")
    ca = trustme.CA(organization_name="mqpy test CA")
    qm_repo = key_repository(str(root / "qmkeys"), ca,
                          ca.issue_cert("qms.example", common_name="QMS",
                                        organization_name="mqpy"))
    s = Site(str(root / "data"))
    try:
        s.start()
        s.repos = {  # type: ignore[attr-defined]
            "app": key_repository(str(root / "app"), ca,
                               ca.issue_cert("app1.example", common_name="app1",
                                             organization_name="mqpy")),
            "nocert": key_repository(str(root / "nocert"), ca, None),
            "stranger": key_repository(str(root / "stranger"), trustme.CA(), None),
        }
        s.mqsc(f"ALTER QMGR SSLKEYR('{qm_repo}')\n"
               f"DEFINE CHANNEL(TLS.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH({CIPH}) SSLCAUTH(REQUIRED)\n"
               f"DEFINE CHANNEL(TLS13.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH(TLS_AES_128_GCM_SHA256) "
               f"SSLCAUTH(OPTIONAL)\n"
               f"SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('{ALICE}') AUTHADD(CONNECT)\n"
               f"SET AUTHREC PROFILE({QUEUE}) OBJTYPE(QUEUE) PRINCIPAL('{ALICE}') AUTHADD(PUT)\n")
        yield s
    finally:
        s.stop()


@pytest.fixture(autouse=True)
def _log_mark(site):
    """Each test's log checks see only what was written during that test."""
    site.mark()


def _client(site: Site, channel: str = "TLS.SVRCONN", cipher: str = CIPH,
            repo: str = "app", peer: str = "") -> mqpy.QueueManager:
    qm = mqpy.QueueManager(None)
    cd = mqpy.CD(SSLCipherSpec=cipher.encode(), SSLPeerName=peer)
    sco = mqpy.SCO(KeyRepository=site.repos[repo].encode())  # type: ignore[attr-defined]
    qm.connect_tcp_client(QM, cd, channel, site.conn_info, ALICE, ALICE_PW, sco=sco)
    return qm


def _put(qm: mqpy.QueueManager) -> None:
    try:
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
        q.put(b"over TLS")
        q.close()
    finally:
        qm.disconnect()


def _refused(fn) -> int:
    with pytest.raises(mqpy.MQMIError) as err:
        fn()
    return err.value.reason


def test_matching_cipherspec_and_certificates(site):
    """Given TLS.SVRCONN with SSLCIPH(ECDHE_ECDSA_AES_128_GCM_SHA256) SSLCAUTH(REQUIRED) and
    the queue manager's certificate in QMGR SSLKEYR, when alice connects with the same
    CipherSpec, her certificate and the queue manager's CA (MQSCO.KeyRepository), then she
    can put, with CONNAUTH and object authorities applied as on a plain channel."""
    _put(_client(site))


def test_cipherspec_mismatch_is_amq9631(site):
    """Given TLS.SVRCONN's CipherSpec, when a client proposes another one (AES 256), then the
    queue manager refuses the channel with AMQ9631E (the client gets 2393) and serves the
    next client."""
    assert _refused(lambda: _client(site, cipher="ECDHE_ECDSA_AES_256_GCM_SHA384")) == \
        CMQC.MQRC_SSL_INITIALIZATION_ERROR
    log = site.wait_for_log("AMQ9631E")
    assert "does not match the required CipherSpec for channel 'TLS.SVRCONN'" in log
    _put(_client(site))


def test_tls13_cipherspec_and_a_tls12_client(site):
    """Given TLS13.SVRCONN with SSLCIPH(TLS_AES_128_GCM_SHA256), when a client uses
    ANY_TLS13 it connects (SSLCAUTH(OPTIONAL): no client certificate needed); a TLS 1.2
    CipherSpec is refused with AMQ9631E."""
    _put(_client(site, "TLS13.SVRCONN", "ANY_TLS13", repo="nocert"))
    assert _refused(lambda: _client(site, "TLS13.SVRCONN", CIPH)) == \
        CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert "channel 'TLS13.SVRCONN'" in site.wait_for_log("channel 'TLS13.SVRCONN'")


def test_sslcauth_required_needs_a_client_certificate(site):
    """Given SSLCAUTH(REQUIRED), when a client without a certificate connects, then it is
    refused (2393) and AMQ9637E is logged."""
    assert _refused(lambda: _client(site, repo="nocert")) == \
        CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert "AMQ9637E" in site.wait_for_log("AMQ9637E")


def test_sslpeer_on_the_channel(site):
    """Given SSLPEER('CN=app*, O=MQPY') on the channel, alice's certificate (CN=app1, O=mqpy)
    matches (IBM compares case-blind, with wildcards); with SSLPEER('CN=somebody') she is
    refused with 2398 and AMQ9636E."""
    site.mqsc("ALTER CHANNEL(TLS.SVRCONN) CHLTYPE(SVRCONN) SSLPEER('CN=app*, O=MQPY')\n")
    try:
        _put(_client(site))
        site.mqsc("ALTER CHANNEL(TLS.SVRCONN) CHLTYPE(SVRCONN) SSLPEER('CN=somebody')\n")
        assert _refused(lambda: _client(site)) == CMQC.MQRC_SSL_PEER_NAME_MISMATCH
        assert "AMQ9636E" in site.wait_for_log("AMQ9636E")
    finally:
        site.mqsc("ALTER CHANNEL(TLS.SVRCONN) CHLTYPE(SVRCONN) SSLPEER(' ')\n")


def test_client_sslpeername_and_an_untrusted_queue_manager(site):
    """Given the client's MQCD SSLPeerName, when it matches the queue manager's certificate
    (CN=QMS, O=mqpy) the client connects, when not MQCONN is 2398; a client that does not
    trust the queue manager's CA fails its handshake with 2393."""
    _put(_client(site, peer="CN=QMS, O=mqpy"))
    assert _refused(lambda: _client(site, peer="CN=OTHERQM")) == \
        CMQC.MQRC_SSL_PEER_NAME_MISMATCH
    assert _refused(lambda: _client(site, repo="stranger")) == \
        CMQC.MQRC_SSL_INITIALIZATION_ERROR


def test_plain_and_tls_mismatches(site):
    """Given TLS.SVRCONN (SSLCIPH set) and APP.SVRCONN (none), when a client reaches the TLS
    channel without TLS it is refused with AMQ9639E; when it reaches the plain channel with
    TLS, AMQ9641E; the listener keeps serving."""
    plain = mqpy.QueueManager(None)
    assert _refused(lambda: plain.connect_tcp_client(QM, mqpy.CD(), "TLS.SVRCONN",
                                                     site.conn_info, ALICE, ALICE_PW)) == \
        CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert "AMQ9639E" in site.wait_for_log("AMQ9639E")
    assert _refused(lambda: _client(site, channel="APP.SVRCONN")) == \
        CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert "AMQ9641E" in site.wait_for_log("AMQ9641E")
    _put(_client(site))


def test_sender_channel_starts_tls_with_its_cipherspec(site, tmp_path):
    """Given a SDR channel with SSLCIPH(ECDHE_ECDSA_AES_256_GCM_SHA384) whose partner is a TLS
    server trusting the same CA, when the channel starts, then it shakes hands with exactly
    that cipher, presents the queue manager's certificate (CN=QMS) and sends its TSH inside
    the session; with SSLPEER('CN=NOTTHEPARTNER') the channel refuses the partner (AMQ9636E).
    """
    import socket
    import ssl
    import threading

    ca_dir = site.repos["app"]  # type: ignore[attr-defined]
    partner = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    partner.load_cert_chain(os.path.join(ca_dir, "cert.pem"), os.path.join(ca_dir, "key.pem"))
    partner.load_verify_locations(os.path.join(ca_dir, "ca.pem"))
    partner.verify_mode = ssl.CERT_REQUIRED
    seen: dict[str, object] = {}
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        listener.settimeout(30)
        try:
            raw, _ = listener.accept()
            with partner.wrap_socket(raw, server_side=True) as conn:
                seen["cipher"] = conn.cipher()[0]
                seen["peer"] = dict(x[0] for x in conn.getpeercert()["subject"])
                seen["first"] = conn.recv(4)
        except (OSError, ssl.SSLError) as exc:
            seen["error"] = exc
        finally:
            listener.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    site.mqsc(f"DEFINE QLOCAL(TLS.XQ) USAGE(XMITQ) REPLACE\n"
              f"DEFINE CHANNEL(TLS.SDR) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') "
              f"XMITQ(TLS.XQ) SSLCIPH(ECDHE_ECDSA_AES_256_GCM_SHA384) SHORTRTY(0) LONGRTY(0) "
              f"REPLACE\n"
              "START CHANNEL(TLS.SDR)\n")
    thread.join(40)
    assert seen.get("cipher") == "ECDHE-ECDSA-AES256-GCM-SHA384", seen
    assert seen["peer"]["commonName"] == "QMS"
    assert seen["first"] == b"TSH "
    site.mqsc("STOP CHANNEL(TLS.SDR)\n", ok=False)

    # a partner whose DN is not the channel's SSLPEER is refused after the handshake
    listener2 = socket.create_server(("127.0.0.1", 0))
    port2 = listener2.getsockname()[1]

    def serve_once() -> None:
        listener2.settimeout(30)
        try:
            raw, _ = listener2.accept()
            with partner.wrap_socket(raw, server_side=True) as conn:
                conn.recv(4)
        except (OSError, ssl.SSLError):
            pass
        finally:
            listener2.close()

    thread = threading.Thread(target=serve_once, daemon=True)
    thread.start()
    site.mqsc(f"DEFINE CHANNEL(TLS.SDR2) CHLTYPE(SDR) CONNAME('127.0.0.1({port2})') "
              f"XMITQ(TLS.XQ) SSLCIPH({CIPH}) SSLPEER('CN=NOTTHEPARTNER') SHORTRTY(0) "
              f"LONGRTY(0) REPLACE\n"
              "START CHANNEL(TLS.SDR2)\n")
    thread.join(40)
    log = site.wait_for_log("does not match the peer name 'CN=NOTTHEPARTNER'")
    assert "AMQ9636E" in log and "'CN=NOTTHEPARTNER'" in log


def test_sslpeermap_maps_the_certificate_to_a_user(site):
    """Given SSLPEERMAP SSLPEER('CN=app1') USERSRC(MAP) MCAUSER('bob') on TLS.SVRCONN, when a
    client with that certificate connects without an MQCSP, then it runs as bob (bob may not
    put); with USERSRC(NOACCESS) it is refused with 2035 and AMQ9777E."""
    site.mqsc("SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('bob') AUTHADD(CONNECT)\n"
              "SET CHLAUTH(TLS.SVRCONN) TYPE(SSLPEERMAP) SSLPEER('CN=app1') USERSRC(MAP) "
              "MCAUSER('bob')\n")
    try:
        qm = mqpy.QueueManager(None)
        qm.connect_tcp_client(QM, mqpy.CD(SSLCipherSpec=CIPH.encode()), "TLS.SVRCONN",
                              site.conn_info,
                              sco=mqpy.SCO(KeyRepository=site.repos["app"].encode()))
        try:
            assert _refused(lambda: mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)) == \
                CMQC.MQRC_NOT_AUTHORIZED
        finally:
            qm.disconnect()
        site.mqsc("SET CHLAUTH(TLS.SVRCONN) TYPE(SSLPEERMAP) SSLPEER('CN=app1') "
                  "USERSRC(NOACCESS) ACTION(REPLACE)\n")
        assert _refused(lambda: _client(site)) == CMQC.MQRC_NOT_AUTHORIZED
        log = site.wait_for_log("CN=app1) CLNTUSER")
        assert "AMQ9777E" in log and "CN=app1) CLNTUSER(alice)" in log
    finally:
        site.mqsc("SET CHLAUTH(TLS.SVRCONN) TYPE(SSLPEERMAP) SSLPEER('CN=app1') "
                  "ACTION(REMOVE)\n")


def test_chstatus_shows_the_session(site):
    """Given alice connected over TLS.SVRCONN, when DISPLAY CHSTATUS runs, then it shows the
    CipherSpec negotiated (IBM's name), the client certificate's DN and the user the channel runs as."""
    qm = _client(site)
    try:
        out = " ".join(site.mqsc("DISPLAY CHSTATUS(TLS.SVRCONN) ALL\n").split())
    finally:
        qm.disconnect()
    assert f"SSLCIPH({CIPH})" in out
    assert "CN=app1" in out and f"MCAUSER({ALICE})" in out


def test_refresh_security_ssl_ends_tls_client_instances(site):
    """Given alice connected over TLS.SVRCONN and a plain client connected too, when REFRESH
    SECURITY TYPE(SSL) is issued (AMQ8560I), then alice's connection is ended (her next
    call fails with 2009) while the plain one goes on, and a new TLS connection (its
    handshake with the refreshed key repository) works."""
    tls_qm = _client(site)
    plain = site.client(ALICE, ALICE_PW)
    try:
        out = site.mqsc("REFRESH SECURITY TYPE(SSL)\n")
        assert "AMQ8560I: IBM MQ security cache refreshed." in out, out
        assert "REFRESH SECURITY TYPE(SSL) stopped it" in site.wait_for_log("REFRESH SECURITY")
        assert _refused(lambda: mqpy.Queue(tls_qm, QUEUE, CMQC.MQOO_OUTPUT)) == \
            CMQC.MQRC_CONNECTION_BROKEN
        q = mqpy.Queue(plain, QUEUE, CMQC.MQOO_OUTPUT)
        q.put(b"plain goes on")
        q.close()
    finally:
        plain.disconnect()
        try:
            tls_qm.disconnect()
        except mqpy.MQMIError:
            pass
    _put(_client(site))
