"""The cluster PCF commands' own checks, in one process (no channel initiator needed: a
request refused for its parameters never reaches the repository manager)."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, inprocess, pcf
from mqpy.cmdserver import CommandServer
from mqpy.command.requests import Refused
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.structs.tables import CFH


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("pcf") / "QM1")
    inprocess.create("QM1", root)
    eng = inprocess.start("QM1", root)
    yield CommandServer(None, lambda: MQSCProcessor(eng))
    inprocess.stop_all()


def _refusal(server, command: int, params: list) -> int:
    with pytest.raises(Refused) as refused:
        server.dispatch(pcf.PCFMessage(CFH(Command=command), params))
    return refused.value.reason


INV = pcf.CFST(CMQC.MQCA_CLUSTER_NAME, b"INV")


@pytest.mark.parametrize("command, params, reason", [
    (CMQCFC.MQCMD_SUSPEND_Q_MGR_CLUSTER, [], CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL),
    (CMQCFC.MQCMD_SUSPEND_Q_MGR_CLUSTER,
     [INV, pcf.CFST(CMQC.MQCA_CLUSTER_NAMELIST, b"NL")], CMQCFC.MQRCCF_PARM_CONFLICT),
    (CMQCFC.MQCMD_SUSPEND_Q_MGR_CLUSTER, [INV, pcf.CFIN(CMQCFC.MQIACF_MODE, 7)],
     CMQCFC.MQRCCF_MODE_VALUE_ERROR),
    (CMQCFC.MQCMD_RESUME_Q_MGR_CLUSTER, [pcf.CFST(CMQC.MQCA_CLUSTER_NAME, b"IN V")],
     CMQCFC.MQRCCF_OBJECT_NAME_ERROR),
    (CMQCFC.MQCMD_REFRESH_CLUSTER, [], CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL),
    (CMQCFC.MQCMD_REFRESH_CLUSTER, [INV, pcf.CFIN(CMQCFC.MQIACF_REFRESH_REPOSITORY, 5)],
     CMQCFC.MQRCCF_PARM_VALUE_ERROR),
    (CMQCFC.MQCMD_RESET_CLUSTER, [INV, pcf.CFST(CMQC.MQCA_Q_MGR_NAME, b"QM4")],
     CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL),
    (CMQCFC.MQCMD_RESET_CLUSTER, [INV, pcf.CFIN(CMQCFC.MQIACF_ACTION, 9),
                                  pcf.CFST(CMQC.MQCA_Q_MGR_NAME, b"QM4")],
     CMQCFC.MQRCCF_ACTION_VALUE_ERROR),
    (CMQCFC.MQCMD_RESET_CLUSTER, [INV, pcf.CFIN(CMQCFC.MQIACF_ACTION,
                                                CMQCFC.MQACT_FORCE_REMOVE)],
     CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL),
    (CMQCFC.MQCMD_RESET_CLUSTER, [INV, pcf.CFIN(CMQCFC.MQIACF_ACTION,
                                                CMQCFC.MQACT_FORCE_REMOVE),
                                  pcf.CFST(CMQC.MQCA_Q_MGR_IDENTIFIER, b"QM4_'x")],
     CMQCFC.MQRCCF_PARM_VALUE_ERROR),
    (CMQCFC.MQCMD_INQUIRE_CLUSTER_Q_MGR, [], CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL),
    (CMQCFC.MQCMD_INQUIRE_CLUSTER_Q_MGR,
     [pcf.CFST(CMQC.MQCA_CLUSTER_Q_MGR_NAME, b"QM') ALL")], CMQCFC.MQRCCF_OBJECT_NAME_ERROR),
])
def test_bad_parameters_get_their_pcf_reason(server, command, params, reason):
    """Given a cluster PCF request with a missing, conflicting or bad parameter (a name
    that is not an MQ name never reaches MQSC), then the response carries IBM's MQRCCF_*
    reason.  spec: operations-dlq-clusters 4 (commands)"""
    assert _refusal(server, command, params) == reason


def test_without_a_channel_initiator_the_inquiry_fails_with_a_reason(server):
    """Given no channel initiator (the repository is its), when Inquire Cluster Queue
    Manager arrives, then one failed response with a reason comes back, no traceback."""
    [response] = server.dispatch(pcf.PCFMessage(
        CFH(Command=CMQCFC.MQCMD_INQUIRE_CLUSTER_Q_MGR),
        [pcf.CFST(CMQC.MQCA_CLUSTER_Q_MGR_NAME, b"*")]))
    assert response.comp == CMQC.MQCC_FAILED and response.reason
