"""The sans-IO pieces of channel security: the UID / CAUT flows, the bindings MQCONN's
security tail, and the TLS rules (CipherSpecs, SSLCAUTH, SSLPEER), without sockets."""

from __future__ import annotations

import pytest

from mqpy.fap import mqiflows, mqiparams, tls, userid
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import SegmentType

# ---------------------------------------------------------------- UID and CAUT


@pytest.mark.parametrize("little", [True, False])
def test_uid_and_caut_round_trip(little):
    """Given a user id and an MQCSP, when built and parsed in either byte order, then the
    same values come back; the UID is the 132-byte layout Wireshark reads."""
    body = userid.build_uid("alice", little=little)
    assert len(body) == userid.UID_LENGTH == 132
    assert userid.parse_uid(body, little=little) == "alice"
    creds = userid.Credentials("alice.b", "pässword")
    raw = userid.build_caut(creds, little=little)
    assert userid.parse_caut(raw, little=little) == (creds, len(raw))


def test_malformed_identity_flows_are_protocol_errors():
    """Given a UID of a wrong length, a CAUT whose lengths run past its segment, a CAUT of an
    unknown AuthType, then each is a ProtocolError naming invalid data (AMQ9504E upstream)."""
    good = userid.build_caut(userid.Credentials("a", "b"))
    for bad in (lambda: userid.parse_uid(b"UID " + bytes(20)),
                lambda: userid.parse_caut(good[:-1]),
                lambda: userid.parse_caut(b"CAUT" + (7).to_bytes(4, "little") + good[8:]),
                lambda: userid.parse_caut(b"XXXX" + good[4:])):
        with pytest.raises(ProtocolError) as err:
            bad()
        assert err.value.status_code == StatusCode.PROTOCOL_INVALID_DATA


@pytest.mark.parametrize("raw", ["alice" + " " * 7 + "zz", "mqm" + " " * 9 + "x", "ålice",
                                 " mqm", ""])
def test_flowed_user_ids_that_are_not_user_ids_come_back_uncut(raw):
    """Given a well-formed UID or CAUT whose user id has embedded blanks or characters no
    user id holds ('mqm' + 9 blanks + 'x' would be mqm once cut to 12), then parsing gives
    it back as sent (trailing blanks dropped, never cut), so it is no user id to any check:
    the queue manager refuses it at MQCONN (2035, AMQ9557E), not the channel (AMQ9504E)."""
    from mqpy.security.policy import flowed_user_refusal

    for parsed in (userid.parse_uid(userid.build_uid(raw)),
                   userid.parse_caut(userid.build_caut(userid.Credentials(raw, "pw")))[0].user):
        assert parsed == raw.rstrip(" ")
        d = flowed_user_refusal(parsed, None) or {}
        assert d.get("allowed") is False and d.get("msgid") == "AMQ9557E"
        assert flowed_user_refusal("alice", parsed)["msgid"] == "AMQ9557E"
    assert flowed_user_refusal("alice", "bob") is None
    assert flowed_user_refusal(None, None) is None


def test_flowed_user_ids_are_cut_to_twelve_once():
    """Given a valid 14-character MQCSP user id, then it is read as its 12-character MQ user
    id, the one string CHLAUTH, CONNAUTH and the OAM all see."""
    raw = userid.build_caut(userid.Credentials("abcdefghijklmn", "pw"))
    assert userid.parse_caut(raw)[0].user == "abcdefghijkl"
    assert userid.parse_uid(userid.build_uid("alice   ")) == "alice"


def test_identity_events_are_the_segment_types_mq_uses():
    assert userid.userid_event("bob").segment_type == SegmentType.USERID_DATA
    assert userid.conauth_event(userid.Credentials("bob", "x")).segment_type == \
        SegmentType.CONAUTH_INFO


def test_bindings_mqconn_without_security_is_mq_s_120_bytes():
    """Given an MQCONN with no MQCSP, then its body is MQ's 120 bytes (what tshark expects);
    with one, the CSEC tail follows and decodes back."""
    plain = mqiflows.encode_request(SegmentType.MQCONN, [("QM1", "app")])
    assert len(plain.body) == 120
    assert mqiflows.decode_request(plain).values == (("QM1", "app"), None)
    sec = mqiparams.ConnSecurity(userid.Credentials("alice", "pw"))
    assert not sec.asserts_identity
    assert sec.connect_args("root") == {"user": "alice", "password": "pw", "channel": None,
                                        "asserted": "root", "adopted": False,
                                        "conname": None}
    asserted = mqiparams.ConnSecurity(None, user="bob", channel="APP.SVRCONN",
                                     address="192.0.2.7")
    assert asserted.asserts_identity
    assert asserted.connect_args("root") == {"user": "bob", "password": None,
                                             "channel": "APP.SVRCONN",
                                             "conname": "192.0.2.7"}
    adopted = mqiparams.ConnSecurity(userid.Credentials("alice", "pw"), user="alice",
                                    channel="APP.SVRCONN", adopted=True)
    request = mqiflows.encode_request(SegmentType.MQCONN, [("QM1", "app"), adopted])
    assert mqiflows.decode_request(request).values[1] == adopted


# ---------------------------------------------------------------- TLS rules


@pytest.mark.parametrize("spec, negotiated, ok", [
    ("ECDHE_ECDSA_AES_128_GCM_SHA256", ("ECDHE-ECDSA-AES128-GCM-SHA256", "TLSv1.2", 128), True),
    ("ECDHE_ECDSA_AES_128_GCM_SHA256", ("ECDHE-ECDSA-AES256-GCM-SHA384", "TLSv1.2", 256), False),
    ("ECDHE_ECDSA_AES_128_GCM_SHA256", ("TLS_AES_128_GCM_SHA256", "TLSv1.3", 128), False),
    ("ANY_TLS12", ("ECDHE-RSA-AES256-GCM-SHA384", "TLSv1.2", 256), True),
    ("ANY_TLS12", ("TLS_AES_128_GCM_SHA256", "TLSv1.3", 128), False),
    ("ANY_TLS12_OR_HIGHER", ("TLS_AES_128_GCM_SHA256", "TLSv1.3", 128), True),
    ("TLS_AES_256_GCM_SHA384", ("TLS_AES_128_GCM_SHA256", "TLSv1.3", 128), True),
    ("NO_SUCH_CIPHERSPEC", ("TLS_AES_128_GCM_SHA256", "TLSv1.3", 128), False),
    ("ANY_TLS13", None, False),
])
def test_cipherspec_matching(spec, negotiated, ok):
    """IBM CipherSpec names against the negotiated session (TLS 1.3 names: version only)."""
    assert tls.cipher_matches(spec, negotiated) is ok


CERT = {"subject": ((("commonName", "app1"),), (("organizationName", "mqpy"),),
                    (("organizationalUnitName", "pay"),))}
SESSION = ("ECDHE-ECDSA-AES128-GCM-SHA256", "TLSv1.2", 128)


def test_peer_dn_in_ibm_form():
    assert tls.peer_dn(CERT) == "CN=app1,O=mqpy,OU=pay"
    assert tls.peer_dn({}) is None and tls.peer_dn(None) is None


@pytest.mark.parametrize("definition, negotiated, cert, expected", [
    ({}, None, None, None),
    ({"SSLCIPH": "ECDHE_ECDSA_AES_128_GCM_SHA256"}, SESSION, CERT, None),
    ({"SSLCIPH": "ECDHE_ECDSA_AES_128_GCM_SHA256"}, None, None,
     (StatusCode.CIPHER_SPEC, "AMQ9639E")),
    ({}, SESSION, CERT, (StatusCode.CIPHER_SPEC, "AMQ9641E")),
    ({"SSLCIPH": "ECDHE_ECDSA_AES_256_GCM_SHA384"}, SESSION, CERT,
     (StatusCode.CIPHER_SPEC, "AMQ9631E")),
    ({"SSLCIPH": "ANY_TLS12"}, SESSION, None, (StatusCode.SSL_CLIENT_CERTIFICATE, "AMQ9637E")),
    ({"SSLCIPH": "ANY_TLS12", "SSLCAUTH": "OPTIONAL"}, SESSION, None, None),
    ({"SSLCIPH": "ANY_TLS12", "SSLPEER": "CN=APP*, OU=pay"}, SESSION, CERT, None),
    ({"SSLCIPH": "ANY_TLS12", "SSLPEER": "CN=app1, O=other"}, SESSION, CERT,
     (StatusCode.PEER_NAME, "AMQ9636E")),
    ({"SSLCIPH": "ANY_TLS12", "SSLCAUTH": "OPTIONAL", "SSLPEER": "CN=x"}, SESSION, None,
     (StatusCode.PEER_NAME, "AMQ9636E")),
])
def test_responder_checks(definition, negotiated, cert, expected):
    """The responder's TLS decision for each combination of channel attributes, session and
    client certificate: the STATUS the partner gets and the AMQ message logged."""
    refusal = tls.check_inbound(definition, "CH", "127.0.0.1", negotiated, cert)
    if expected is None:
        assert refusal is None
    else:
        assert refusal is not None and (refusal.status, refusal.msgid) == expected


def test_key_repository_must_be_a_directory_with_a_certificate(tmp_path):
    """A responder's key repository must hold cert.pem and key.pem (AMQ9657E otherwise); an
    unknown CipherSpec is a KeyError for the initiator (2393 upstream)."""
    with pytest.raises(tls.KeyRepositoryError):
        tls.server_context(str(tmp_path / "missing"))
    with pytest.raises(tls.KeyRepositoryError):
        tls.server_context(str(tmp_path))
    with pytest.raises(KeyError):
        tls.client_context(str(tmp_path), "NOT_A_CIPHERSPEC")


# ---------------------------------------------------------------- the channel initiator asks


@pytest.mark.parametrize("fault", [ValueError("bad address"), RuntimeError("gone")])
def test_any_fault_in_the_chlauth_question_refuses_the_channel(fault):
    """Given an admin whose CHLAUTH answer fails with any exception (not only an MQ error),
    when the channel initiator asks, then the channel is refused with AMQ9999E naming the
    fault: never let in blind, never an exception that reaches the listener."""
    import trio

    from mqpy_chinit.access import ChannelAccess

    class Admin:
        def channel_decision(self, query):
            raise fault

    access = ChannelAccess(Admin(), lambda: None, None, lambda msgid, text: None)
    d = trio.run(access.decide, {"channel": "APP.SVRCONN", "address": "fe80::1%eth0"})
    assert not d["allowed"] and d["msgid"] == "AMQ9999E" and str(fault) in d["text"]
    assert trio.run(access.address_allowed, "fe80::1%eth0") is False


def test_tls_contexts_are_built_once_per_key_repository_version(tmp_path):
    """Given a key repository, when contexts are asked for twice, then the same one is
    reused (no per-connection file reads); once a PEM file changes, a new one is built."""
    import os

    import trustme

    from mqpy_chinit import tlsstream

    ca = trustme.CA()
    leaf = ca.issue_cert("qm.example")
    repo = tmp_path / "keys"
    repo.mkdir()
    ca.cert_pem.write_to_path(str(repo / "ca.pem"))
    leaf.cert_chain_pems[0].write_to_path(str(repo / "cert.pem"))
    leaf.private_key_pem.write_to_path(str(repo / "key.pem"))
    first = tlsstream.context("server", str(repo))
    assert tlsstream.context("server", str(repo)) is first
    assert tlsstream.context("client", str(repo), "ANY_TLS12") is not first
    st = os.stat(repo / "ca.pem")
    os.utime(repo / "ca.pem", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert tlsstream.context("server", str(repo)) is not first
