"""IBM ``ibmmq``'s connecting example programs (connect_simple.py, connect_client.py,
connect_client_creds.py, connect_client_tls.py, is_connected.py, checking_cc_and_rc.py),
with ``import mqpy as mq`` as the only change, against QM1
(tests/pymqi_compat/_ibmmq_programs.py).

what ibmmq users rely on: "a pymqi or ibmmq program runs with only its import changed".
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
import trustme

import mqpy as mq
from mqpy import CMQC, CMQSTRC
from tests.client.conftest import Env
from tests.pymqi_compat._ibmmq_programs import APP_CHANNEL, QMGR, QUEUE_1, emptied, module_env
from tests.support.site import key_repository

pytestmark = pytest.mark.timeout(120)

user = "app"
password = "password"


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from module_env(tmp_path_factory, "ibmmq-connect")


def test_connect_simple_over_bindings_and_as_mqserver_says(env, monkeypatch, capsys):
    """Given connect_simple.py (``mq.connect(queue_manager)`` alone), then it connects
    locally; with MQSERVER set and MQ_CONNECT_TYPE=CLIENT, as its docstring says, the same
    call makes a client connection through MQSERVER's channel."""
    queue_manager = QMGR
    qmgr = mq.connect(queue_manager)
    print("Connection succeeded.")
    local = qmgr.connection().channel if hasattr(qmgr.connection(), "channel") else ""
    qmgr.disconnect()

    monkeypatch.setenv("MQSERVER", f"{APP_CHANNEL}/TCP/{env.conn_info}")
    monkeypatch.setenv("MQ_CONNECT_TYPE", "CLIENT")
    qmgr = mq.connect(queue_manager)
    print("Connection succeeded.")
    channel = qmgr.connection().channel
    qmgr.disconnect()
    assert capsys.readouterr().out == "Connection succeeded.\n" * 2
    assert not local and channel == APP_CHANNEL


def test_connect_client_with_positional_credentials_and_with_a_csp(env, capsys):
    """Given connect_client.py (user and password after conn_info) and
    connect_client_creds.py (an MQCSP's CSPUserId and CSPPassword as ``csp=``), then each
    connects as a client, and get_versions answers the package's versions."""
    conn_info = env.conn_info
    qmgr = mq.connect(QMGR, APP_CHANNEL, conn_info, user, password)
    print(f"Connection succeeded using Python {sys.version_info.major}."
          f"{sys.version_info.minor}")
    qmgr.disconnect()
    csp = mq.CSP()
    csp.CSPUserId = user
    csp.CSPPassword = password
    qmgr = mq.connect(QMGR, APP_CHANNEL, conn_info, csp=csp)
    print("Connection succeeded.")
    assert qmgr.is_connected is True
    qmgr.disconnect()
    assert qmgr.is_connected is False
    print("Using package version: ", mq.get_versions())
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [f"Connection succeeded using Python {sys.version_info.major}."
                       f"{sys.version_info.minor}", "Connection succeeded."]
    assert out[2].startswith("Using package version: ")


def test_checking_cc_and_rc_of_a_host_that_does_not_exist(env, capsys):
    """Given checking_cc_and_rc.py, when the program connects to localhost.invalid, then
    it catches MQCC_FAILED MQRC_HOST_NOT_AVAILABLE and names both through CMQSTRC."""
    host = "localhost.invalid"
    conn_info = "%s(%s)" % (host, "1414")
    try:
        mq.connect(QMGR, APP_CHANNEL, conn_info, user, password)
    except mq.MQMIError as e:
        if e.comp == CMQC.MQCC_FAILED and e.reason == CMQC.MQRC_HOST_NOT_AVAILABLE:
            print(f"Host `{host}` does not exist.")
        print(f"MQI Error is CC:{e.comp} [{CMQSTRC.MQCC_DICT[e.comp]}] "
              f"RC:{e.reason} [{CMQSTRC.MQRC_DICT[e.reason]}]")
    assert capsys.readouterr().out.splitlines() == [
        "Host `localhost.invalid` does not exist.",
        "MQI Error is CC:2 [MQCC_FAILED] RC:2538 [MQRC_HOST_NOT_AVAILABLE]"]


def test_connect_client_tls(env, tmp_path):
    """Given connect_client_tls.py, when the program fills an MQCD (SYSTEM.SSL.SVRCONN.1,
    MQCHT_CLNTCONN, MQXPT_TCP, SSLCipherSpec ANY_TLS12_OR_HIGHER), an MQSCO's
    KeyRepository and an MQCNO of MQCNO_CLIENT_BINDING, and calls
    ``connect_with_options(queue_manager, cd, sco, cno=cno)``, then it connects over TLS,
    puts and gets its message. The key repositories are made here (a CA, the queue
    manager's and the program's certificates): the example's /var/mqm/ssl/key is the
    only constant changed, and the channel is defined with SSLCIPH(ANY_TLS12_OR_HIGHER)."""
    ca = trustme.CA(organization_name="mqpy test CA")
    qm_repo = key_repository(str(tmp_path / "qmkeys"), ca,
                             ca.issue_cert("qm1.example", common_name=QMGR))
    key_repo_location = key_repository(str(tmp_path / "client"), ca,
                                       ca.issue_cert("app.example", common_name="app"))
    env.engine.alter_qmgr({"SSLKEYR": qm_repo})
    env.define("CHANNEL", "SYSTEM.SSL.SVRCONN.1", CHLTYPE="SVRCONN",
               SSLCIPH="ANY_TLS12_OR_HIGHER", SSLCAUTH="REQUIRED")
    cd = mq.CD()
    cd.ChannelName = "SYSTEM.SSL.SVRCONN.1"
    cd.ConnectionName = env.conn_info
    cd.ChannelType = mq.CMQXC.MQCHT_CLNTCONN
    cd.TransportType = mq.CMQXC.MQXPT_TCP
    cd.SSLCipherSpec = "ANY_TLS12_OR_HIGHER"
    sco = mq.SCO()
    sco.KeyRepository = key_repo_location
    cno = mq.CNO()
    cno.Options = mq.CMQC.MQCNO_CLIENT_BINDING
    qmgr = mq.QueueManager(None)
    qmgr.connect_with_options(QMGR, cd, sco, cno=cno)
    put_queue = mq.Queue(qmgr, QUEUE_1)
    put_queue.put("Hello from Python!")
    get_queue = mq.Queue(qmgr, QUEUE_1)
    message = get_queue.get()
    put_queue.close()
    get_queue.close()
    qmgr.disconnect()
    emptied(env)
    assert message == b"Hello from Python!"
