"""SSLPEER and SSLPEERMAP distinguished names: certificate DNs escaped when written, patterns
and DNs parsed with RFC 4514 escaping, malformed patterns refused when they are entered
(MQRCCF_SSL_PEER_NAME_ERROR, 4093) and never matching anything."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQCFC, inprocess
from mqpy.errors import MQMIError
from mqpy.fap import tls
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.security.chlauth import apply_set, dn_matches, evaluate, parse_dn, valid_dn_pattern


def _cert(*pairs: tuple[str, str]) -> dict:
    """A getpeercert() subject: one RDN per pair."""
    return {"subject": tuple(((k, v),) for k, v in pairs)}


def test_a_comma_in_a_cn_cannot_pose_as_another_attribute():
    """Given a certificate whose CN is 'x, O=Trusted' (and whose O is Mallory), when SSLPEER
    asks for O=Trusted, then it does not match: the CN's comma is escaped in the peer DN and
    the match is made on attribute pairs; the CN itself still matches."""
    dn = tls.peer_dn(_cert(("commonName", "x, O=Trusted"), ("organizationName", "Mallory")))
    assert dn == "CN=x\\, O\\=Trusted,O=Mallory"
    assert parse_dn(dn) == [("CN", "X, O=TRUSTED"), ("O", "MALLORY")]
    assert not dn_matches("O=Trusted", dn)
    assert dn_matches("O=Mallory", dn)
    assert dn_matches('CN="x, O=Trusted"', dn)
    assert dn_matches("CN=x\\2C O=Trusted", dn)


def test_values_with_blanks_semicolons_and_pluses_round_trip():
    dn = tls.peer_dn(_cert(("commonName", " lead;plus+trail "), ("countryName", "GB")))
    assert parse_dn(dn) == [("CN", " LEAD;PLUS+TRAIL "), ("C", "GB")]


@pytest.mark.parametrize("pattern", ["QM2", "CN", "=x", "CN=a,", "CN=a\\", 'CN="a',
                                     "CN=a*b", "C N=x", ""])
def test_malformed_patterns_are_invalid_and_match_nothing(pattern):
    """Given a pattern with no '=' (SSLPEER('QM2')), a dangling escape or quote, an asterisk
    inside a value, then it is not a valid SSLPEER and matches no certificate."""
    assert not valid_dn_pattern(pattern)
    if "*" not in pattern:
        assert not dn_matches(pattern, "CN=QM2,O=mqpy")


@pytest.mark.parametrize("pattern", ["CN=QM*", "CN=app1, O=mqpy", "cn=APP1;o=MQPY",
                                     "OU=a, OU=b", "2.5.4.3=app1", 'CN="a, b"'])
def test_well_formed_patterns_are_valid(pattern):
    assert valid_dn_pattern(pattern)


def test_set_chlauth_refuses_a_malformed_sslpeer():
    """Given SET CHLAUTH TYPE(SSLPEERMAP) SSLPEER('QM2') (or a malformed SSLCERTI), then it
    is refused with MQRCCF_SSL_PEER_NAME_ERROR and nothing is stored."""
    for params in ({"SSLPEER": "QM2"}, {"SSLPEER": "CN=QM2", "SSLCERTI": "O"}):
        with pytest.raises(MQMIError) as err:
            apply_set([], "APP.SVRCONN", {"TYPE": "SSLPEERMAP", "USERSRC": "MAP",
                                          "MCAUSER": "pay", **params})
        assert err.value.reason == CMQCFC.MQRCCF_SSL_PEER_NAME_ERROR


def test_a_malformed_stored_sslpeermap_lets_nobody_in_as_its_user():
    """A record can only hold a valid pattern now; a match is made on pairs, so a DN with
    an escaped comma does not satisfy a record for the attribute it spells."""
    put, _ = apply_set([], "APP.SVRCONN", {"TYPE": "SSLPEERMAP", "SSLPEER": "O=Trusted",
                                           "USERSRC": "MAP", "MCAUSER": "pay"})
    dn = tls.peer_dn(_cert(("commonName", "x, O=Trusted")))
    d = evaluate(put, "APP.SVRCONN", "192.0.2.1", client_user="alice", ssl_peer=dn)
    assert d.allowed and d.user == "alice"


def test_define_and_alter_channel_refuse_a_malformed_sslpeer(tmp_path):
    """Given DEFINE CHANNEL ... SSLPEER('QM2'), then runmqsc refuses it (reason 4093, AMQ8101S)
    and no channel is defined; ALTER likewise; a well-formed SSLPEER is accepted."""
    mqpy.embedded("PEERQM", data_path=str(tmp_path))
    proc = MQSCProcessor(inprocess.running("PEERQM", str(tmp_path)))
    try:
        bad = proc.execute_text("DEFINE CHANNEL(A.SVRCONN) CHLTYPE(SVRCONN) SSLPEER('QM2')")
        assert not bad.ok and bad.reason == CMQCFC.MQRCCF_SSL_PEER_NAME_ERROR
        assert bad.lines[0].startswith("AMQ8101S")
        assert not proc.execute_text("DISPLAY CHANNEL(A.SVRCONN)").ok
        assert proc.execute_text("DEFINE CHANNEL(A.SVRCONN) CHLTYPE(SVRCONN) "
                                 "SSLPEER('CN=QM2, O=mqpy')").ok
        bad = proc.execute_text("ALTER CHANNEL(A.SVRCONN) CHLTYPE(SVRCONN) SSLPEER('QM2')")
        assert not bad.ok and bad.reason == CMQCFC.MQRCCF_SSL_PEER_NAME_ERROR
    finally:
        inprocess.stop_all()
