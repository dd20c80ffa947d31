"""Secret key reset counts (QMGR SSLRKEYC, MQSCO.KeyResetCount, MQSSLRESET): accepted and
shown with IBM's range checking. mqpy never resets the secret key (Python's ssl has no
renegotiation or KeyUpdate call), so these tests check the attribute, not a reset."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy.fap.tls import client_key_reset_count, key_reset_count
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.structs.tables import CD, SCO


@pytest.mark.parametrize(("value", "used"), [
    (0, 0), (1, 32768), (32767, 32768), (32768, 32768), (40000, 40000),
    (999_999_999, 999_999_999), (1_000_000_000, None), (-1, None), ("lots", None),
])
def test_key_reset_count_range_as_ibm_uses_it(value, used):
    """0 is never; 1 byte to 32 KB is used as 32 KB; outside 0..999 999 999 is no count."""
    assert key_reset_count(value) == used


def test_client_count_comes_from_the_sco_else_mqsslreset():
    """An MQSCO of version 2 or later gives KeyResetCount (MQSSLRESET is then ignored), an
    older one or none leaves MQSSLRESET, and no setting at all is 0."""
    assert client_key_reset_count(SCO(KeyResetCount=50000), {"MQSSLRESET": "-5"}) == 50000
    assert client_key_reset_count(SCO(Version=1, KeyResetCount=-5),
                                  {"MQSSLRESET": "70000"}) == 70000
    assert client_key_reset_count(None, {"MQSSLRESET": "1000000000"}) is None
    assert client_key_reset_count(None, {}) == 0


def test_qmgr_sslrkeyc_is_accepted_range_checked_and_shown(tmp_path):
    """Given a queue manager, then DISPLAY QMGR shows SSLRKEYC(0); ALTER QMGR SSLRKEYC(1000)
    is stored as given (IBM shows the value; channels would use 32 KB) and MQINQ
    MQIA_SSL_RESET_COUNT answers it; 1 000 000 000 and -1 are refused with AMQ8425E."""
    qm = mqpy.embedded("KEYQM", data_path=str(tmp_path))
    proc = MQSCProcessor(inprocess.running("KEYQM", str(tmp_path)))
    try:
        assert "SSLRKEYC(0)" in "\n".join(proc.execute_text("DISPLAY QMGR SSLRKEYC").lines)
        assert proc.execute_text("ALTER QMGR SSLRKEYC(1000)").ok
        assert "SSLRKEYC(1000)" in "\n".join(proc.execute_text("DISPLAY QMGR ALL").lines)
        assert qm.inquire(CMQC.MQIA_SSL_RESET_COUNT) == 1000
        for bad in ("1000000000", "-1"):
            refused = proc.execute_text(f"ALTER QMGR SSLRKEYC({bad})")
            assert not refused.ok and refused.lines[0].startswith("AMQ8425E")
        assert qm.inquire(CMQC.MQIA_SSL_RESET_COUNT) == 1000
    finally:
        qm.disconnect()
        inprocess.stop_all()


def _connect_reason(monkeypatch, sco=None, env: str | None = None) -> int:
    if env is None:
        monkeypatch.delenv("MQSSLRESET", raising=False)
    else:
        monkeypatch.setenv("MQSSLRESET", env)
    qm = mqpy.QueueManager(None)
    with pytest.raises(mqpy.MQMIError) as err:
        qm.connect_tcp_client("QM1", CD(), "APP.SVRCONN", "127.0.0.1(1)", sco=sco)
    return err.value.reason


def test_client_key_reset_count_out_of_range_fails_mqconn_with_2409(monkeypatch):
    """Given MQSCO.KeyResetCount -1, or MQSSLRESET 1000000000 with no MQSCO, when a client
    connects, then MQCONN fails with MQRC_SSL_KEY_RESET_ERROR (2409) before any network
    flow; a valid count goes on to connect (nothing listens on port 1: 2538)."""
    assert _connect_reason(monkeypatch, SCO(KeyResetCount=-1)) == \
        CMQC.MQRC_SSL_KEY_RESET_ERROR
    assert _connect_reason(monkeypatch, None, "1000000000") == CMQC.MQRC_SSL_KEY_RESET_ERROR
    assert _connect_reason(monkeypatch, SCO(KeyResetCount=40000), "1000000000") == \
        CMQC.MQRC_HOST_NOT_AVAILABLE
