"""Command events on SYSTEM.ADMIN.COMMAND.EVENT (CMDEV): one per command the command server
ran that worked, in IBM's format (MQCFH version 3, MQCMD_COMMAND_EVENT, reason
MQRC_COMMAND_PCF or MQRC_COMMAND_MQSC; the CommandContext group, then the CommandData group:
the PCF command's parameters as sent, or the MQSC text as sent).

One embedded queue manager for the file, its event queues added as strmqm adds them; the
requests go through the command server's request handling, without its threads."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, pcf
from mqpy.cmdserver import CommandServer
from mqpy.engine.defaultobjects import add_missing_objects
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.structs.tables import CFH, MD
from tests.support.embedded import EmbeddedQMgr, ended_at_teardown

from ._support import read_events

COMMAND_EVENTS = "SYSTEM.ADMIN.COMMAND.EVENT"


@pytest.fixture(scope="module")
def qmgr(tmp_path_factory):
    qmgr = EmbeddedQMgr("QMCMDEV", str(tmp_path_factory.mktemp("qmcmdev")))
    add_missing_objects(qmgr.eng)
    qmgr.server = CommandServer(None, lambda: MQSCProcessor(qmgr.eng))
    yield from ended_at_teardown(qmgr)


@pytest.fixture
def cmdev(qmgr):
    """The command event queue empty; CMDEV and CONFIGEV back to DISABLED at the end."""
    read_events(qmgr.qm, COMMAND_EVENTS)
    yield qmgr
    qmgr.eng.alter_qmgr({"CMDEV": "DISABLED", "CONFIGEV": "DISABLED"})
    read_events(qmgr.qm, COMMAND_EVENTS)
    read_events(qmgr.qm, "SYSTEM.ADMIN.CONFIG.EVENT")


def request_md(appl: bytes = b"pcfadmin") -> MD:
    return MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST, UserIdentifier=b"opsuser",
              AccountingToken=b"\x05" * 32, ApplIdentityData=b"ident", ApplOriginData=b"orig",
              PutApplType=CMQC.MQAT_UNIX, PutApplName=appl, ReplyToQMgr=b"QMCMDEV")


def send(qmgr, command: int, params: list, md: MD | None = None) -> int:
    """One request through the command server; its (first) reply's CompCode."""
    replies = qmgr.server.handle(md or request_md(),
                                 pcf.build(pcf.PCFMessage(CFH(Command=command), params)))
    return pcf.parse(replies[0][1]).header.CompCode


def mqsc(qmgr, text: bytes, md: MD | None = None) -> int:
    return send(qmgr, CMQCFC.MQCMD_ESCAPE, [pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC),
                                            pcf.CFST(CMQCFC.MQCACF_ESCAPE_TEXT, text)], md)


def events(qmgr):
    return read_events(qmgr.qm, COMMAND_EVENTS)


def groups(msg: pcf.PCFMessage) -> tuple[pcf.CFGR, pcf.CFGR]:
    context, data = msg.params
    assert (context.Parameter, data.Parameter) == (CMQCFC.MQGACF_COMMAND_CONTEXT,
                                                   CMQCFC.MQGACF_COMMAND_DATA)
    return context, data


CHANGE_Q = [pcf.CFST(CMQC.MQCA_Q_NAME, b"CMD.Q"), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL),
            pcf.CFIN(CMQC.MQIA_MAX_Q_DEPTH, 77)]


def test_a_pcf_command_is_a_command_event_with_its_context_and_parameters_as_sent(cmdev):
    """Given CMDEV(ENABLED), when a PCF Change Queue comes to the command server, then one
    Command event (2413, MQCFH version 3): the CommandContext group with the request's user,
    MQEVO_MSG, EventQMgr, its MQMD context and Command MQCMD_CHANGE_Q, in IBM's order, and
    the CommandData group holding the command's parameters as sent."""
    cmdev.eng.define("QLOCAL", "CMD.Q", {}, replace=True)
    cmdev.eng.alter_qmgr({"CMDEV": "ENABLED"})
    assert send(cmdev, CMQCFC.MQCMD_CHANGE_Q, CHANGE_Q) == CMQC.MQCC_OK
    (md, msg), = events(cmdev)
    assert md.Format.rstrip() == CMQC.MQFMT_EVENT.rstrip() and md.PutApplType == CMQC.MQAT_QMGR
    h = msg.header
    assert (h.Version, h.Command, h.Reason, h.CompCode, h.Control) == (
        CMQCFC.MQCFH_VERSION_3, CMQCFC.MQCMD_COMMAND_EVENT, CMQC.MQRC_COMMAND_PCF,
        CMQC.MQCC_WARNING, CMQCFC.MQCFC_LAST)
    context, data = groups(msg)
    assert [p.Parameter for p in context.Parameters] == [
        CMQCFC.MQCACF_EVENT_USER_ID, CMQCFC.MQIACF_EVENT_ORIGIN, CMQCFC.MQCACF_EVENT_Q_MGR,
        CMQCFC.MQBACF_EVENT_ACCOUNTING_TOKEN, CMQCFC.MQCACF_EVENT_APPL_IDENTITY,
        CMQCFC.MQIACF_EVENT_APPL_TYPE, CMQCFC.MQCACF_EVENT_APPL_NAME,
        CMQCFC.MQCACF_EVENT_APPL_ORIGIN, CMQCFC.MQIACF_COMMAND]
    assert context.get(CMQCFC.MQCACF_EVENT_USER_ID).rstrip() == b"opsuser"
    assert context.get(CMQCFC.MQIACF_EVENT_ORIGIN) == CMQCFC.MQEVO_MSG
    assert context.get(CMQCFC.MQBACF_EVENT_ACCOUNTING_TOKEN) == b"\x05" * 32
    assert context.get(CMQCFC.MQCACF_EVENT_APPL_NAME).rstrip() == b"pcfadmin"
    assert context.get(CMQCFC.MQIACF_COMMAND) == CMQCFC.MQCMD_CHANGE_Q
    assert data.Parameters == CHANGE_Q


def test_mqsc_text_is_carried_as_the_bytes_sent(cmdev):
    """Given CMDEV(ENABLED), when an MQCMD_ESCAPE's MQSC text, in mixed case with a quoted
    string holding brackets and a semicolon, works, then one Command event (2412) whose
    CommandData is one MQCFST MQCACF_COMMAND_MQSC with exactly those bytes."""
    cmdev.eng.alter_qmgr({"CMDEV": "ENABLED"})
    text = b"define qlocal(CMD.TEXT) replace descr('a) ; b( \"quoted\"')"
    assert mqsc(cmdev, text) == CMQC.MQCC_OK
    (_, msg), = events(cmdev)
    assert msg.header.Reason == CMQC.MQRC_COMMAND_MQSC
    context, data = groups(msg)
    assert context.get(CMQCFC.MQIACF_COMMAND) == CMQCFC.MQCMD_ESCAPE
    assert [(p.Parameter, p.String) for p in data.Parameters] == [
        (CMQCFC.MQCACF_COMMAND_MQSC, text)]


def test_nodisplay_leaves_out_inquiries_and_displays_and_failures_make_none(cmdev):
    """Given CMDEV(NODISPLAY), when an Inquire Queue, a DISPLAY QLOCAL, a command that fails
    and a Change Queue come, then only the Change Queue is a Command event."""
    cmdev.eng.define("QLOCAL", "CMD.Q", {}, replace=True)
    cmdev.eng.alter_qmgr({"CMDEV": "NODISPLAY"})
    assert send(cmdev, CMQCFC.MQCMD_INQUIRE_Q, [pcf.CFST(CMQC.MQCA_Q_NAME, b"CMD.Q")]) == \
        CMQC.MQCC_OK
    assert mqsc(cmdev, b"DISPLAY QLOCAL(CMD.Q)") == CMQC.MQCC_OK
    assert mqsc(cmdev, b"DELETE QLOCAL(CMD.NOT.THERE)") == CMQC.MQCC_FAILED
    assert send(cmdev, CMQCFC.MQCMD_CHANGE_Q, CHANGE_Q) == CMQC.MQCC_OK
    got = [groups(m)[0].get(CMQCFC.MQIACF_COMMAND) for _, m in events(cmdev)]
    assert got == [CMQCFC.MQCMD_CHANGE_Q]


def test_enabled_reports_inquiries_too_and_disabled_nothing(cmdev):
    """Given CMDEV(ENABLED), when an Inquire Queue comes, then it is a Command event; given
    IBM's default CMDEV(DISABLED), when a Change Queue comes, then none."""
    cmdev.eng.define("QLOCAL", "CMD.Q", {}, replace=True)
    assert send(cmdev, CMQCFC.MQCMD_CHANGE_Q, CHANGE_Q) == CMQC.MQCC_OK
    assert events(cmdev) == []
    cmdev.eng.alter_qmgr({"CMDEV": "ENABLED"})
    assert send(cmdev, CMQCFC.MQCMD_INQUIRE_Q, [pcf.CFST(CMQC.MQCA_Q_NAME, b"CMD.Q")]) == \
        CMQC.MQCC_OK
    assert [groups(m)[0].get(CMQCFC.MQIACF_COMMAND) for _, m in events(cmdev)] == [
        CMQCFC.MQCMD_INQUIRE_Q]


def test_alter_qmgr_is_an_event_when_cmdev_is_on_before_or_after(cmdev):
    """Given CMDEV(DISABLED), when ALTER QMGR CMDEV(ENABLED), then it is an event; when
    ALTER QMGR CMDEV(DISABLED) follows, then that is one too (on before the change)."""
    assert mqsc(cmdev, b"ALTER QMGR CMDEV(ENABLED)") == CMQC.MQCC_OK
    assert mqsc(cmdev, b"ALTER QMGR CMDEV(DISABLED)") == CMQC.MQCC_OK
    texts = [groups(m)[1].Parameters[0].String for _, m in events(cmdev)]
    assert texts == [b"ALTER QMGR CMDEV(ENABLED)", b"ALTER QMGR CMDEV(DISABLED)"]


def test_runmqsc_is_the_console_and_shares_its_correlid_with_the_configuration_event(cmdev):
    """Given CMDEV and CONFIGEV ENABLED, when runmqsc's request defines a queue, then its
    Command event reports MQEVO_CONSOLE without the message context, and the Create Object
    event of the same command carries the same CorrelId."""
    cmdev.eng.alter_qmgr({"CMDEV": "ENABLED", "CONFIGEV": "ENABLED"})
    read_events(cmdev.qm, "SYSTEM.ADMIN.CONFIG.EVENT")
    assert mqsc(cmdev, b"DEFINE QLOCAL(CMD.CONSOLE) REPLACE", request_md(b"runmqsc")) == \
        CMQC.MQCC_OK
    (md, msg), = events(cmdev)
    context, _ = groups(msg)
    assert context.get(CMQCFC.MQIACF_EVENT_ORIGIN) == CMQCFC.MQEVO_CONSOLE
    assert context.get(CMQCFC.MQBACF_EVENT_ACCOUNTING_TOKEN) is None
    (config_md, config), = read_events(cmdev.qm, "SYSTEM.ADMIN.CONFIG.EVENT")
    assert config.header.Reason == CMQC.MQRC_CONFIG_CREATE_OBJECT
    assert config.get(CMQCFC.MQIACF_EVENT_ORIGIN) == CMQCFC.MQEVO_CONSOLE
    assert config_md.CorrelId == md.CorrelId != CMQC.MQCI_NONE
