"""Status fields a monitoring program reads, as IBM gives them: a connection's process id
(DISPLAY CONN's and a handle's PID, PCF's ProcessId) for an application connected inside
its own process, and the keywords DISPLAY QSTATUS's WHERE (and an Inquire Queue Status
filter) may not name: QTIME among them, refused as IBM's command refuses it.

An embedded queue manager, its MQSC processor and command server driven directly: no
daemon. (The process id over bindings and client connections is checked with the other
connection kinds, in test_output_names_padded.py.)"""

from __future__ import annotations

import os

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, inprocess, pcf
from mqpy.cmdserver import CommandServer
from mqpy.mqi import attach
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.structs.tables import CFH, MD

QUEUE = "SYSTEM.DEFAULT.LOCAL.QUEUE"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("statusfields"))
    mqpy.embedded("QM1", data_path=root)
    try:
        yield root
    finally:
        mqpy.stop_embedded("QM1", data_path=root)


@pytest.fixture(scope="module")
def engine(root):
    return inprocess.running("QM1", root)


def _ask(engine, command: int, params: list) -> list[pcf.PCFMessage]:
    server = CommandServer(attach(engine), lambda: MQSCProcessor(engine))
    data = pcf.build(pcf.PCFMessage(CFH(Command=command), params))
    replies = server.handle(MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN), data)
    server.qm.disconnect()
    return [pcf.parse(body) for _, body in replies]


def test_an_embedded_connection_shows_its_process(engine, root):
    """Given an application connected to an embedded queue manager with QUEUE open, when
    Inquire Connection and DISPLAY QSTATUS TYPE(HANDLE) are asked, then its ProcessId and
    the handle's PID are this process's id (IBM's: the connected application's), not 0."""
    app = mqpy.embedded("QM1", data_path=root, create=False)
    queue = mqpy.Queue(app, QUEUE, CMQC.MQOO_INQUIRE)
    try:
        replies = _ask(engine, CMQCFC.MQCMD_INQUIRE_CONNECTION, [
            pcf.CFBS(CMQCFC.MQBACF_GENERIC_CONNECTION_ID, b""),
            pcf.CFIL(CMQCFC.MQIACF_CONNECTION_ATTRS, [CMQCFC.MQIACF_PROCESS_ID])])
        shown = MQSCProcessor(engine).execute_text(
            f"DISPLAY QSTATUS({QUEUE}) TYPE(HANDLE) PID")
    finally:
        queue.close()
    pids = {r.get(CMQCFC.MQIACF_PROCESS_ID) for r in replies
            if r.get(CMQCFC.MQIACF_CONN_INFO_TYPE) == CMQCFC.MQIACF_CONN_INFO_CONN}
    assert pids == {os.getpid()}
    assert f"PID({os.getpid()})" in " ".join(shown.lines)


@pytest.mark.parametrize("keyword", ["QTIME", "TYPE", "OPENTYPE", "MONITOR"])
def test_qstatus_where_refuses_what_ibm_cannot_filter(engine, keyword):
    """Given DISPLAY QSTATUS WHERE on a keyword IBM lists as no filter keyword (QTIME,
    TYPE, OPENTYPE, MONITOR ...), then the command is a syntax error (AMQ8405I), as
    runmqsc answers a keyword WHERE cannot take; WHERE(CURDEPTH GE 0) still answers."""
    processor = MQSCProcessor(engine)
    refused = processor.execute_text(f"DISPLAY QSTATUS({QUEUE}) WHERE({keyword} GT 0)")
    assert not refused.ok
    assert refused.lines[0].startswith("AMQ8405I")
    kept = processor.execute_text(f"DISPLAY QSTATUS({QUEUE}) WHERE(CURDEPTH GE 0)")
    assert kept.ok and f"QUEUE({QUEUE})" in " ".join(kept.lines)


def test_inquire_queue_status_refuses_a_filter_on_on_q_time(engine):
    """Given Inquire Queue Status with an integer filter on OnQTime
    (MQIACF_Q_TIME_INDICATOR, QTIME's parameter), then it fails MQRCCF_CFIF_PARM_ID_ERROR
    (IBM: a parameter that cannot be filtered) naming the parameter."""
    [reply] = _ask(engine, CMQCFC.MQCMD_INQUIRE_Q_STATUS, [
        pcf.CFST(CMQC.MQCA_Q_NAME, QUEUE.encode()),
        pcf.CFIF(CMQCFC.MQIACF_Q_TIME_INDICATOR, CMQCFC.MQCFOP_GREATER, 0)])
    assert (reply.header.CompCode, reply.header.Reason) == (
        CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CFIF_PARM_ID_ERROR)
    assert reply.get(CMQCFC.MQIACF_PARAMETER_ID) == CMQCFC.MQIACF_Q_TIME_INDICATOR
