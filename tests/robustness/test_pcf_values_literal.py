"""PCF string parameters are values, never MQSC: quotes and parentheses in them land in the
object as sent, a PCF command reaches the processor as a command built from the request's
values (case kept, no keyword added), and a cluster request naming something that is not an
MQ name is refused before it reaches the processor."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, pcf
from mqpy.cmdserver import CommandServer
from mqpy.mqi import attach
from mqpy.mqsc import MQSCCommand
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.mqsc.results import EVERYONE, Requester, Result
from mqpy.structs.tables import CFH, MD

HOSTILE = "it's (x) ') MAXDEPTH(1) DESCR('"


def _ask(server, command: int, params: list) -> list[pcf.PCFMessage]:
    data = pcf.build(pcf.PCFMessage(CFH(Command=command), params))
    replies = server.handle(MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN), data)
    server.qm.backout()
    return [pcf.parse(body) for _, body in replies]


def test_create_queue_with_quotes_in_its_description_keeps_it_literally(server):
    """Given Create Queue whose QDesc holds quotes and ')' spelling MAXDEPTH(1), then Inquire
    Queue shows that QDesc as sent and MaxQDepth at its default."""
    replies = _ask(server, CMQCFC.MQCMD_CREATE_Q, [
        pcf.CFST(CMQC.MQCA_Q_NAME, b"QUOTED.DESC"), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL),
        pcf.CFST(CMQC.MQCA_Q_DESC, HOSTILE.encode())])
    assert replies[-1].header.CompCode == CMQC.MQCC_OK
    shown = _ask(server, CMQCFC.MQCMD_INQUIRE_Q, [pcf.CFST(CMQC.MQCA_Q_NAME, b"QUOTED.DESC")])
    assert shown[0].get(CMQC.MQCA_Q_DESC).rstrip(b" \x00").decode() == HOSTILE
    assert shown[0].get(CMQC.MQIA_MAX_Q_DEPTH) == 5000


class _Recording(MQSCProcessor):
    """The MQSC processor, keeping every command it is given to run or to display."""

    def __init__(self, engine) -> None:
        super().__init__(engine)
        self.commands: list[MQSCCommand] = []

    def execute(self, cmd: MQSCCommand, who: Requester = EVERYONE) -> Result:
        self.commands.append(cmd)
        return super().execute(cmd, who)

    def rows(self, cmd: MQSCCommand, who: Requester = EVERYONE) -> list[dict[str, object]]:
        self.commands.append(cmd)
        return super().rows(cmd, who)


def _recording_server(engine) -> CommandServer:
    return CommandServer(attach(engine), lambda: _Recording(engine))


def test_reset_cluster_keeps_the_case_of_the_queue_manager_it_removes(engine):
    """Given Reset Cluster ForceRemove of QMgrName qm4.lower, then the RESET CLUSTER it runs
    names qm4.lower (PCF names are exact) and QUEUES(NO), as RemoveQueues (absent) says."""
    server = _recording_server(engine)
    _ask(server, CMQCFC.MQCMD_RESET_CLUSTER, [
        pcf.CFST(CMQC.MQCA_CLUSTER_NAME, b"INV"),
        pcf.CFIN(CMQCFC.MQIACF_ACTION, CMQCFC.MQACT_FORCE_REMOVE),
        pcf.CFST(CMQC.MQCA_Q_MGR_NAME, b"qm4.lower")])
    cmd = server.processor.commands[-1]
    assert cmd.verb == "RESET" and cmd.name == "INV"
    assert cmd.params["QMNAME"] == "qm4.lower" and cmd.params["QUEUES"] == "NO"


def test_inquire_cluster_queue_manager_keeps_the_case_of_its_name(engine):
    """Given Inquire Cluster Queue Manager for qm.lower (PCF names are exact), then the
    DISPLAY CLUSQMGR it runs asks for qm.lower, not QM.LOWER."""
    server = _recording_server(engine)
    _ask(server, CMQCFC.MQCMD_INQUIRE_CLUSTER_Q_MGR, [
        pcf.CFST(CMQC.MQCA_CLUSTER_Q_MGR_NAME, b"qm.lower"),
        pcf.CFST(CMQC.MQCA_CLUSTER_NAME, b"inv")])
    cmd = server.processor.commands[-1]
    assert cmd.name == "qm.lower" and cmd.params["CLUSTER"] == "inv"


_FORCE_REMOVE = pcf.CFIN(CMQCFC.MQIACF_ACTION, CMQCFC.MQACT_FORCE_REMOVE)


@pytest.mark.parametrize("command, params", [
    (CMQCFC.MQCMD_RESET_CLUSTER, [pcf.CFST(CMQC.MQCA_CLUSTER_NAME, b"INV"), _FORCE_REMOVE,
                                  pcf.CFST(CMQC.MQCA_Q_MGR_NAME, b"QM4\nRESET QMGR")]),
    (CMQCFC.MQCMD_REFRESH_CLUSTER, [pcf.CFST(CMQC.MQCA_CLUSTER_NAME, b"IN'V")]),
    (CMQCFC.MQCMD_SUSPEND_Q_MGR_CLUSTER, [pcf.CFST(CMQC.MQCA_CLUSTER_NAMELIST, b"NL') ALL")]),
    (CMQCFC.MQCMD_INQUIRE_CLUSTER_Q_MGR, [pcf.CFST(CMQC.MQCA_CLUSTER_Q_MGR_NAME, b"QM(1)")]),
    (CMQCFC.MQCMD_INQUIRE_Q, [pcf.CFST(CMQC.MQCA_Q_NAME, b"Q\nDEFINE QLOCAL(X)"),
                              pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_CLUSTER)]),
])
def test_a_cluster_request_with_quotes_parentheses_or_newlines_in_a_name_runs_nothing(
        engine, command, params):
    """Given a cluster request whose name holds a quote, a parenthesis or a newline, then it
    is refused MQRCCF_OBJECT_NAME_ERROR and the processor is given no command."""
    server = _recording_server(engine)
    replies = _ask(server, command, params)
    assert replies[-1].header.Reason == CMQCFC.MQRCCF_OBJECT_NAME_ERROR
    assert server.processor.commands == []
