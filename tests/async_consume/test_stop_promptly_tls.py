"""MQCTL STOP and SUSPEND, and MQDISC with consumers started, over a TLS client channel (a
TLS SVRCONN stays in the channel initiator, whatever MQIBindType says): they return as
promptly as over plain TCP, the dispatcher's waiting get woken by the client's NOTIFICATION
CONN_STATE, not left to the end of its wait slice."""

from __future__ import annotations

import pytest
import trustme

import mqpy
from mqpy import CMQC
from tests.async_consume.test_stop_promptly import (
    PROMPT,
    assert_prompt,
    stop_times,
    timed,
    waiting_consumer,
)
from tests.support.site import ADMIT_OWNER, QM, Site, key_repository
from tests.support.site_here import HereSite

pytestmark = [pytest.mark.system, pytest.mark.timeout(180)]

CIPH = "ECDHE_ECDSA_AES_128_GCM_SHA256"
_QUEUE = "TLS.CQ"


@pytest.fixture(scope="module", params=["STANDARD", "FASTPATH"])
def site(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"tls_stop_{request.param.lower()}")
    ca = trustme.CA(organization_name="mqpy test CA")
    qm_repo = key_repository(str(root / "qmkeys"), ca,
                             ca.issue_cert("qms.example", common_name="QMS"))
    s = HereSite(str(root / "data"), {"MQIBindType": request.param})
    try:
        s.start()
        s.app_repo = key_repository(  # type: ignore[attr-defined]
            str(root / "app"), ca, ca.issue_cert("app.example", common_name="app"))
        s.mqsc(ADMIT_OWNER + f"ALTER QMGR SSLKEYR('{qm_repo}')\n"
               f"DEFINE CHANNEL(TLS.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH({CIPH}) "
               f"SSLCAUTH(OPTIONAL)\n"
               "SET CHLAUTH(TLS.SVRCONN) TYPE(BLOCKUSER) USERLIST('nobody')\n"
               f"DEFINE QLOCAL({_QUEUE})\n")
        yield s
    finally:
        s.stop()


def _tls_client(site: Site) -> mqpy.QueueManager:
    qm = mqpy.QueueManager(None)
    qm.connect_tcp_client(QM, mqpy.CD(SSLCipherSpec=CIPH.encode()), "TLS.SVRCONN",
                          site.conn_info,
                          sco=mqpy.SCO(KeyRepository=site.app_repo.encode()))  # type: ignore[attr-defined]
    return qm


@pytest.mark.parametrize("options", [CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_NO_READ_AHEAD,
                                     CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_READ_AHEAD],
                         ids=["plain gets", "read ahead"])
def test_stop_suspend_and_disc_return_promptly_over_a_tls_client_channel(site, options):
    """Given a TLS client connection's consumer waiting on an empty queue (plain gets, or
    reading ahead), when another thread issues MQOP_STOP or MQOP_SUSPEND and then any call,
    then both return promptly (well within the dispatcher's 200 ms wait slice); then MQDISC
    with consumption started returns promptly too."""
    qm = _tls_client(site)
    waiting_consumer(qm, _QUEUE, options)
    assert_prompt(stop_times(qm, CMQC.MQOP_STOP))
    assert_prompt(stop_times(qm, CMQC.MQOP_SUSPEND))
    qm.ctl(CMQC.MQOP_START)
    assert timed(qm.disconnect) < PROMPT
