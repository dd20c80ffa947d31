"""ibmmq's additions to pymqi's MQI classes: inquire() of a list of selectors (and its
``inq`` name), QueueManager and Queue as MQObjects, connect() with MQCONNX's structures,
and PCFExecute's ``responses`` list (each response with its MQCFH, kept when one fails)."""

from __future__ import annotations

import pytest

import mqpy as ibmmq
from mqpy import CMQC, CMQCFC
from tests.client.test_connecting import _ccdt
from tests.pymqi_compat.conftest import QMGR, QUEUE


def test_inquire_a_list_of_selectors_answers_a_dict(qmgr):
    """Given a connection, when QueueManager.inquire / Queue.inq is given a list of
    selectors, then each selector's value comes back in a dict keyed by the selector; a
    single selector still answers its value."""
    answer = qmgr.inq([CMQC.MQCA_Q_MGR_NAME, CMQC.MQIA_PLATFORM])
    assert answer[CMQC.MQCA_Q_MGR_NAME].strip() == QMGR.encode()
    assert answer[CMQC.MQIA_PLATFORM] == qmgr.inquire(CMQC.MQIA_PLATFORM)
    queue = ibmmq.Queue(qmgr, QUEUE)
    depths = queue.inquire([CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQIA_MAX_Q_DEPTH])
    assert depths[CMQC.MQIA_CURRENT_Q_DEPTH] == 0
    assert depths[CMQC.MQIA_MAX_Q_DEPTH] == queue.inq(CMQC.MQIA_MAX_Q_DEPTH)
    queue.close()
    assert isinstance(qmgr, ibmmq.MQObject) and isinstance(queue, ibmmq.MQObject)


def test_connect_with_mqconnx_structures(env, monkeypatch):
    """Given ibmmq.connect with a channel and a CSP / CNO, then it makes the client
    connection with them; without a channel, a CNO alone makes a bindings connection."""
    csp = ibmmq.CSP(CSPUserId="app", CSPPassword="")
    qm = ibmmq.connect(QMGR, "APP.SVRCONN", env.conn_info, csp=csp, cno=ibmmq.CNO())
    assert qm.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == QMGR.encode()
    qm.disconnect()
    monkeypatch.setenv("MQPY_DATA_PATH", env.root)
    local = ibmmq.connect(env.name, cno=ibmmq.CNO(), bytes_encoding="utf8")
    assert local.is_connected
    local.disconnect()


def test_pcf_responses_list_holds_each_response_with_its_cfh(pcf_exec):
    """Given PCFExecute's ``responses`` list, when a command succeeds, then the list holds
    (parameters, MQCFH) per response and is returned; when it fails, the list still holds
    the failed response, and MQMIError is raised after it is filled."""
    responses: list = []
    got = pcf_exec.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: QUEUE}, responses=responses)
    assert got is responses and len(responses) == 1
    attrs, cfh = responses[0]
    assert attrs[CMQC.MQCA_Q_NAME].strip() == QUEUE.encode()
    assert (cfh.CompCode, cfh.Control) == (CMQC.MQCC_OK, CMQCFC.MQCFC_LAST)
    with pytest.raises(ibmmq.MQMIError) as err:
        pcf_exec.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: "NO.SUCH.Q"}, responses=responses)
    assert err.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert [cfh.Reason for _, cfh in responses] == [CMQC.MQRC_UNKNOWN_OBJECT_NAME]


def test_cno_ccdt_url_names_the_channel_definitions(env, tmp_path):
    """Given a JSON CCDT and an MQCNO whose CCDTUrl names it (MQCCDTURL not set), when
    connect_with_options asks for a client binding, then the connection is made through
    the CCDT's channel for the queue manager."""
    url = _ccdt(tmp_path / "ccdt.json", [("APP.SVRCONN", env.chinit.port, QMGR)])
    cno = ibmmq.CNO(Version=CMQC.MQCNO_VERSION_6, Options=CMQC.MQCNO_CLIENT_BINDING)
    cno.CCDTUrl = url
    qm = ibmmq.QueueManager(None)
    qm.connect_with_options(QMGR, cno=cno)
    assert qm.connection().channel == "APP.SVRCONN"
    qm.disconnect()
