"""DISPLAY QMSTATUS and RESET QMGR TYPE(STATISTICS), in MQSC and in PCF (Inquire Queue
Manager Status, Reset Queue Manager)."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, pcf
from mqpy.cmdserver import start_command_server, stop_command_server
from mqpy.stats.collector import STATISTICS_QUEUE
from tests.support.pcf import Admin

from .conftest import run

pytestmark = pytest.mark.timeout(60)


def _attrs(lines: list[str]) -> dict[str, str]:
    """KEYWORD -> value of one DISPLAY's attribute lines."""
    out = {}
    for line in lines:
        for item in line.split():
            if "(" in item and item.endswith(")"):
                key, value = item[:-1].split("(", 1)
                out[key] = value
    return out


def test_display_qmstatus_shows_name_and_status_and_all_asks_for_the_rest(proc):
    """Given a running queue manager with no channel initiator or command server, when
    DISPLAY QMSTATUS is issued, then AMQ8705I shows QMNAME and STATUS(RUNNING) only; with ALL,
    the channel initiator and command server are STOPPED, the connections are counted, and
    the log extents are named as the files in LOGPATH; a list shows only what it names."""
    lines = run(proc, "DISPLAY QMSTATUS")
    assert lines[0] == "AMQ8705I: Display Queue Manager Status Details."
    assert _attrs(lines[1:]) == {"QMNAME": "QM1", "STATUS": "RUNNING"}

    shown = _attrs(run(proc, "DISPLAY QMSTATUS ALL")[1:])
    assert shown["CHINIT"] == "STOPPED" and shown["CMDSERV"] == "STOPPED"
    assert int(shown["CONNS"]) >= 1  # the test's own connection at least
    assert shown["CURRLOG"] == "S0000000.LOG" and shown["RECLOG"] == "S0000000.LOG"
    assert shown["LOGPATH"].endswith("/qmgrs/QM1/log/")
    assert 0 <= int(shown["LOGINUSE"]) <= 100
    assert shown["STARTDA"].count("-") == 2 and shown["STARTTI"].count(".") == 2
    assert shown["INSTNAME"] == "Installation1"

    picked = _attrs(run(proc, "DISPLAY QMSTATUS CONNS")[1:])
    assert set(picked) == {"QMNAME", "STATUS", "CONNS"}


def test_logutil_remembers_the_log_restart_needed_before_a_checkpoint_freed_it(qmgr, proc):
    """Given a queue manager whose persistent puts used some 5% of the primary log, when a
    checkpoint lets that log go, then LOGINUSE falls back to almost nothing while LOGUTIL
    (the most log restart needed over the last checkpoints) still shows what the workload
    took; both are percentages of the primary log space, in MQSC and in PCF."""
    qm, eng, root = qmgr
    q = mqpy.Queue(qm, "SYSTEM.DEFAULT.LOCAL.QUEUE", CMQC.MQOO_OUTPUT)
    for _ in range(40):
        q.put(b"x" * 16384, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
              mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    busy = _attrs(run(proc, "DISPLAY QMSTATUS LOGINUSE LOGUTIL")[1:])
    assert int(busy["LOGINUSE"]) >= 5 and int(busy["LOGUTIL"]) >= int(busy["LOGINUSE"])

    eng.checkpoint()
    quiet = _attrs(run(proc, "DISPLAY QMSTATUS LOGINUSE LOGUTIL")[1:])
    assert int(quiet["LOGINUSE"]) <= 1
    assert int(quiet["LOGUTIL"]) >= int(busy["LOGINUSE"])

    start_command_server("QM1", root)
    [status] = Admin(qm).command(CMQCFC.MQCMD_INQUIRE_Q_MGR_STATUS, [
        pcf.CFIL(CMQCFC.MQIACF_Q_MGR_STATUS_ATTRS, [CMQCFC.MQIACF_LOG_UTILIZATION])])
    assert status.get(CMQCFC.MQIACF_LOG_UTILIZATION) >= int(busy["LOGINUSE"])


def test_qmstatus_counts_connections_and_sees_the_command_server(qmgr, proc):
    """Given one more connection and a running command server, when DISPLAY QMSTATUS ALL is
    issued, then CONNS has grown by one and CMDSERV is RUNNING (it serves the command queue);
    after the server stops, CMDSERV is STOPPED again."""
    _, _, root = qmgr
    before = int(_attrs(run(proc, "DISPLAY QMSTATUS CONNS")[1:])["CONNS"])
    other = mqpy.embedded("QM1", data_path=root)
    try:
        assert int(_attrs(run(proc, "DISPLAY QMSTATUS CONNS")[1:])["CONNS"]) == before + 1
    finally:
        other.disconnect()
    start_command_server("QM1", root)
    try:
        assert _attrs(run(proc, "DISPLAY QMSTATUS CMDSERV")[1:])["CMDSERV"] == "RUNNING"
    finally:
        stop_command_server("QM1", root)
    assert _attrs(run(proc, "DISPLAY QMSTATUS CMDSERV")[1:])["CMDSERV"] == "STOPPED"


def _statistics_depth(qm) -> int:
    q = mqpy.Queue(qm, STATISTICS_QUEUE, CMQC.MQOO_INQUIRE)
    try:
        return q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        q.close()


def test_reset_qmgr_statistics_ends_the_interval_now(qmgr, proc):
    """Given STATMQI(ON) and five MQPUTs, when RESET QMGR TYPE(STATISTICS) is issued, then an
    MQI statistics message is on SYSTEM.ADMIN.STATISTICS.QUEUE at once counting those puts,
    and a second reset counts none (the interval really ended; the statistics message itself
    is an MQPUT1); the other TYPEs answer
    MQRC_FUNCTION_NOT_SUPPORTED and TYPE is required."""
    qm = qmgr[0]
    run(proc, "DEFINE QLOCAL(ST.Q)\nALTER QMGR STATMQI(ON)")
    q = mqpy.Queue(qm, "ST.Q", CMQC.MQOO_OUTPUT)
    for _ in range(5):
        q.put(b"counted")
    q.close()
    assert run(proc, "RESET QMGR TYPE(STATISTICS)") == [
        "AMQ8005I: IBM MQ queue manager changed."]
    assert _statistics_depth(qm) == 1
    stats = mqpy.Queue(qm, STATISTICS_QUEUE, CMQC.MQOO_INPUT_SHARED)
    first = pcf.parse(stats.get())
    assert first.header.Command == CMQCFC.MQCMD_STATISTICS_MQI
    assert sum(first.get(CMQCFC.MQIAMO_PUTS)) == 5
    run(proc, "RESET QMGR TYPE(STATISTICS)")
    second = pcf.parse(stats.get())
    assert sum(second.get(CMQCFC.MQIAMO_PUTS)) == 0
    stats.close()
    assert run(proc, "RESET QMGR TYPE(ADVANCELOG)") == ["AMQ8101S: IBM MQ error (8FA) has occurred."]
    assert run(proc, "RESET QMGR")[0].startswith("AMQ8405I")


def test_pcf_inquire_q_mgr_status_and_reset_q_mgr(qmgr):
    """Given a running command server, when a PCF application sends Inquire Queue Manager
    Status, then the reply has QMgrName, QMgrStatus MQQMSTA_RUNNING, CommandServerStatus
    MQSVC_STATUS_RUNNING and the log extent names; QMStatusAttrs narrows the reply; Reset
    Queue Manager with MQACT_COLLECT_STATISTICS writes the statistics, and another action is
    MQRC_FUNCTION_NOT_SUPPORTED."""
    qm, _, root = qmgr
    start_command_server("QM1", root)
    try:
        admin = Admin(qm)
        [status] = admin.command(CMQCFC.MQCMD_INQUIRE_Q_MGR_STATUS, [])
        assert status.get(CMQC.MQCA_Q_MGR_NAME).decode().rstrip() == "QM1"
        assert status.get(CMQCFC.MQIACF_Q_MGR_STATUS) == CMQCFC.MQQMSTA_RUNNING
        assert status.get(CMQCFC.MQIACF_CMD_SERVER_STATUS) == 2  # MQSVC_STATUS_RUNNING
        assert status.get(CMQCFC.MQIACF_CHINIT_STATUS) == 0  # MQSVC_STATUS_STOPPED
        assert status.get(CMQCFC.MQCACF_CURRENT_LOG_EXTENT_NAME).decode().rstrip() == \
            "S0000000.LOG"
        [narrow] = admin.command(CMQCFC.MQCMD_INQUIRE_Q_MGR_STATUS, [
            pcf.CFIL(CMQCFC.MQIACF_Q_MGR_STATUS_ATTRS, [CMQCFC.MQIACF_CONNECTION_COUNT])])
        assert narrow.get(CMQCFC.MQIACF_CONNECTION_COUNT) >= 2  # ours and the server's
        assert narrow.get(CMQCFC.MQCACF_LOG_PATH) is None

        admin.command(CMQCFC.MQCMD_ESCAPE, [
            pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC),
            pcf.CFST(CMQCFC.MQCACF_ESCAPE_TEXT, b"ALTER QMGR STATMQI(ON)")])
        [reset] = admin.command(CMQCFC.MQCMD_RESET_Q_MGR, [
            pcf.CFIN(CMQCFC.MQIACF_ACTION, CMQCFC.MQACT_COLLECT_STATISTICS)])
        assert reset.header.CompCode == CMQC.MQCC_OK
        assert _statistics_depth(qm) == 1
        [refused] = admin.command(CMQCFC.MQCMD_RESET_Q_MGR, [
            pcf.CFIN(CMQCFC.MQIACF_ACTION, CMQCFC.MQACT_ADVANCE_LOG)])
        assert (refused.header.CompCode, refused.header.Reason) == (
            CMQC.MQCC_FAILED, CMQC.MQRC_FUNCTION_NOT_SUPPORTED)
    finally:
        stop_command_server("QM1", root)


def test_reset_qmgr_statistics_whose_write_fails_answers_the_reason(qmgr, proc):
    """Given STATMQI(ON) and SYSTEM.ADMIN.STATISTICS.QUEUE put-inhibited, when RESET QMGR
    TYPE(STATISTICS) is issued, then it fails with AMQ8101S naming MQRC_PUT_INHIBITED (803),
    in PCF CompCode MQCC_FAILED Reason 2051, with no traceback and nothing written; once
    puts are allowed again, the next reset writes the two refused intervals' messages, late,
    and its own."""
    qm, _, root = qmgr
    run(proc, f"ALTER QMGR STATMQI(ON)\nALTER QLOCAL({STATISTICS_QUEUE}) PUT(DISABLED)")
    result = proc.execute_text("RESET QMGR TYPE(STATISTICS)")
    assert (result.ok, result.reason) == (False, CMQC.MQRC_PUT_INHIBITED)
    assert result.lines == ["AMQ8101S: IBM MQ error (803) has occurred."]
    start_command_server("QM1", root)
    try:
        [reset] = Admin(qm).command(CMQCFC.MQCMD_RESET_Q_MGR, [
            pcf.CFIN(CMQCFC.MQIACF_ACTION, CMQCFC.MQACT_COLLECT_STATISTICS)])
        assert (reset.header.CompCode, reset.header.Reason) == (
            CMQC.MQCC_FAILED, CMQC.MQRC_PUT_INHIBITED)
    finally:
        stop_command_server("QM1", root)
    assert _statistics_depth(qm) == 0
    run(proc, f"ALTER QLOCAL({STATISTICS_QUEUE}) PUT(ENABLED)")
    assert run(proc, "RESET QMGR TYPE(STATISTICS)") == [
        "AMQ8005I: IBM MQ queue manager changed."]
    assert _statistics_depth(qm) == 3


def test_qmstatus_shows_a_running_channel_initiator_and_a_quiescing_queue_manager(qmgr, proc):
    """Given an application serving SYSTEM.CHANNEL.INITQ (as the channel initiator does),
    when DISPLAY QMSTATUS CHINIT is issued, then CHINIT(RUNNING); once it closes the queue,
    STOPPED. Given a controlled end begun (the queue manager quiescing), then
    STATUS(QUIESCING); PCF's answer, built by the command server's dispatch (its MQGET
    fails if quiescing, so it is not asked through the queue), has QMgrStatus
    MQQMSTA_QUIESCING."""
    from mqpy.channelcommands import INITQ
    from mqpy.cmdserver import CommandServer
    from mqpy.mqsc.processor import MQSCProcessor
    from mqpy.structs.tables import CFH

    qm, eng, root = qmgr
    initq = mqpy.Queue(qm, INITQ, CMQC.MQOO_INPUT_SHARED)
    assert _attrs(run(proc, "DISPLAY QMSTATUS CHINIT")[1:]) == {
        "QMNAME": "QM1", "STATUS": "RUNNING", "CHINIT": "RUNNING"}
    initq.close()
    assert _attrs(run(proc, "DISPLAY QMSTATUS CHINIT")[1:])["CHINIT"] == "STOPPED"

    eng.quiesce()
    assert _attrs(run(proc, "DISPLAY QMSTATUS")[1:]) == {"QMNAME": "QM1",
                                                        "STATUS": "QUIESCING"}
    server = CommandServer(None, lambda: MQSCProcessor(eng))
    request = pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_INQUIRE_Q_MGR_STATUS), [])
    [answer] = server.dispatch(request)
    assert {p.Parameter: p.value for p in answer.params}[CMQCFC.MQIACF_Q_MGR_STATUS] == \
        CMQCFC.MQQMSTA_QUIESCING
