"""Configuration events on SYSTEM.ADMIN.CONFIG.EVENT (CONFIGEV): Create, Change (the object
before, then after, one CorrelId), Delete and Refresh Object, in IBM's format (MQCFH version
2, MQCMD_CONFIG_EVENT; the origin, ObjectType, the object's name, Disposition, then its
attributes as its Inquire answers them), read back as amqsevt reads them.

One embedded queue manager for the file, its event queues added as strmqm adds them to a
queue manager that lacks them; commands run through the MQSC processor (the console) or the
command server's request handling (a command message), without its threads."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, pcf
from mqpy.cmdserver import CommandServer
from mqpy.engine.defaultobjects import add_missing_objects
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.structs.tables import CFH, MD
from tests.support.embedded import EmbeddedQMgr, ended_at_teardown

from ._support import read_events

CONFIG_EVENTS = "SYSTEM.ADMIN.CONFIG.EVENT"


@pytest.fixture(scope="module")
def qmgr(tmp_path_factory):
    qmgr = EmbeddedQMgr("QMCFG", str(tmp_path_factory.mktemp("qmcfg")))
    add_missing_objects(qmgr.eng)
    yield from ended_at_teardown(qmgr)


@pytest.fixture
def cfg(qmgr):
    """CONFIGEV(ENABLED), the event queue empty (the refresh the switch made read away);
    DISABLED again at the end."""
    qmgr.eng.alter_qmgr({"CONFIGEV": "ENABLED"})
    read_events(qmgr.qm, CONFIG_EVENTS)
    yield qmgr
    qmgr.eng.alter_qmgr({"CONFIGEV": "DISABLED"})
    read_events(qmgr.qm, CONFIG_EVENTS)


def run(qmgr, text: str) -> None:
    result = MQSCProcessor(qmgr.eng).execute_text(text)
    assert result.ok, result.lines


def events(qmgr) -> list[tuple[mqpy.MD, pcf.PCFMessage]]:
    return read_events(qmgr.qm, CONFIG_EVENTS)


def value(msg: pcf.PCFMessage, parameter: int) -> object:
    found = msg.get(parameter)
    return found.rstrip(b" ").decode() if isinstance(found, bytes) else found


def inquiry(qmgr, command: int, params: list) -> list[pcf.Parameter]:
    """What the command server's Inquire answers for one object."""
    server = CommandServer(None, lambda: MQSCProcessor(qmgr.eng))
    return server.dispatch(pcf.PCFMessage(CFH(Command=command), params))[0].params


def test_define_is_a_create_object_event_with_the_queue_as_inquire_queue_answers_it(cfg):
    """Given CONFIGEV(ENABLED), when DEFINE QLOCAL makes a queue at the console, then one
    Create Object event (2367, MQCFH version 2, MQCC_WARNING) reports the console's origin,
    MQOT_Q, the queue's name, MQQSGD_Q_MGR, then the queue's attributes exactly as Inquire
    Queue answers them."""
    run(cfg, "DEFINE QLOCAL(CFG.NEW) MAXDEPTH(42) DESCR('made by the test')")
    (md, msg), = events(cfg)
    assert md.Format.rstrip() == CMQC.MQFMT_EVENT.rstrip() and md.MsgType == CMQC.MQMT_DATAGRAM
    h = msg.header
    assert (h.Type, h.Version, h.Command, h.Reason, h.CompCode, h.MsgSeqNumber, h.Control) == (
        CMQCFC.MQCFT_EVENT, CMQCFC.MQCFH_VERSION_2, CMQCFC.MQCMD_CONFIG_EVENT,
        CMQC.MQRC_CONFIG_CREATE_OBJECT, CMQC.MQCC_WARNING, 1, CMQCFC.MQCFC_LAST)
    ids = [p.Parameter for p in msg.params]
    assert ids[:7] == [CMQCFC.MQCACF_EVENT_USER_ID, CMQCFC.MQIACF_EVENT_ORIGIN,
                       CMQCFC.MQCACF_EVENT_Q_MGR, CMQCFC.MQIACF_OBJECT_TYPE, CMQC.MQCA_Q_NAME,
                       CMQC.MQIA_QSG_DISP, CMQC.MQIA_Q_TYPE]
    assert value(msg, CMQCFC.MQIACF_EVENT_ORIGIN) == CMQCFC.MQEVO_CONSOLE
    assert value(msg, CMQCFC.MQCACF_EVENT_Q_MGR) == "QMCFG"
    assert (value(msg, CMQCFC.MQIACF_OBJECT_TYPE), value(msg, CMQC.MQIA_QSG_DISP)) == (
        CMQC.MQOT_Q, CMQC.MQQSGD_Q_MGR)
    answer = inquiry(cfg, CMQCFC.MQCMD_INQUIRE_Q, [pcf.CFST(CMQC.MQCA_Q_NAME, b"CFG.NEW")])
    assert [p for p in msg.params if p.Parameter != CMQC.MQCA_Q_NAME][5:] == answer[1:]
    assert value(msg, CMQC.MQIA_MAX_Q_DEPTH) == 42


def test_alter_is_two_change_object_events_before_then_after_with_one_correlid(cfg):
    """Given a queue of MAXDEPTH 10, when ALTER QLOCAL sets 20, then two Change Object
    events: MsgSeqNumber 1 MQCFC_NOT_LAST with 10, then 2 MQCFC_LAST with 20, one CorrelId."""
    run(cfg, "DEFINE QLOCAL(CFG.ALT) MAXDEPTH(10) REPLACE")
    events(cfg)
    run(cfg, "ALTER QLOCAL(CFG.ALT) MAXDEPTH(20)")
    (md1, before), (md2, after) = events(cfg)
    assert [m.header.Reason for m in (before, after)] == [CMQC.MQRC_CONFIG_CHANGE_OBJECT] * 2
    assert [(m.header.MsgSeqNumber, m.header.Control) for m in (before, after)] == [
        (1, CMQCFC.MQCFC_NOT_LAST), (2, CMQCFC.MQCFC_LAST)]
    assert (value(before, CMQC.MQIA_MAX_Q_DEPTH), value(after, CMQC.MQIA_MAX_Q_DEPTH)) == (10, 20)
    assert md1.CorrelId == md2.CorrelId != CMQC.MQCI_NONE


def test_define_replace_changes_an_existing_object_and_creates_a_new_one(cfg):
    """Given CONFIGEV(ENABLED), when DEFINE ... REPLACE names an existing process and then a
    new one, then the first is a Change Object pair and the second a Create Object."""
    run(cfg, "DEFINE PROCESS(CFG.PROC) APPLICID('one') REPLACE")
    events(cfg)
    run(cfg, "DEFINE PROCESS(CFG.PROC) APPLICID('two') REPLACE")
    run(cfg, "DEFINE PROCESS(CFG.PROC2) REPLACE")
    got = [(m.header.Reason, value(m, CMQC.MQCA_PROCESS_NAME), value(m, CMQC.MQCA_APPL_ID))
           for _, m in events(cfg)]
    assert got == [(CMQC.MQRC_CONFIG_CHANGE_OBJECT, "CFG.PROC", "one"),
                   (CMQC.MQRC_CONFIG_CHANGE_OBJECT, "CFG.PROC", "two"),
                   (CMQC.MQRC_CONFIG_CREATE_OBJECT, "CFG.PROC2", "")]


def test_delete_is_a_delete_object_event_with_the_attributes_it_had(cfg):
    """Given a queue alias, when DELETE QALIAS removes it, then a Delete Object event reports
    its name, QType alias and its TARGET as it was."""
    run(cfg, "DEFINE QALIAS(CFG.AL) TARGET(CFG.SOMEWHERE) REPLACE")
    events(cfg)
    run(cfg, "DELETE QALIAS(CFG.AL)")
    (_, msg), = events(cfg)
    assert msg.header.Reason == CMQC.MQRC_CONFIG_DELETE_OBJECT
    assert (value(msg, CMQC.MQCA_Q_NAME), value(msg, CMQC.MQIA_Q_TYPE),
            value(msg, CMQC.MQCA_BASE_OBJECT_NAME)) == ("CFG.AL", CMQC.MQQT_ALIAS,
                                                         "CFG.SOMEWHERE")


@pytest.mark.parametrize(("text", "object_type", "name_parameter"), [
    ("DEFINE CHANNEL(CFG.CHL) CHLTYPE(SVRCONN)", CMQC.MQOT_CHANNEL, CMQCFC.MQCACH_CHANNEL_NAME),
    ("DEFINE NAMELIST(CFG.NL) NAMES(A, B)", CMQC.MQOT_NAMELIST, CMQC.MQCA_NAMELIST_NAME),
    ("DEFINE TOPIC(CFG.TOPIC) TOPICSTR('cfg/t')", CMQC.MQOT_TOPIC, CMQC.MQCA_TOPIC_NAME),
    ("DEFINE LISTENER(CFG.LSR) TRPTYPE(TCP) PORT(1)", CMQC.MQOT_LISTENER,
     CMQCFC.MQCACH_LISTENER_NAME),
    ("DEFINE SERVICE(CFG.SVC)", CMQC.MQOT_SERVICE, CMQC.MQCA_SERVICE_NAME),
    ("DEFINE AUTHINFO(CFG.AI) AUTHTYPE(IDPWOS)", CMQC.MQOT_AUTH_INFO,
     CMQC.MQCA_AUTH_INFO_NAME),
])
def test_every_object_type_is_created_with_its_object_type_and_name(cfg, text, object_type,
                                                                     name_parameter):
    """Given CONFIGEV(ENABLED), when an object of each type mqpy defines is made, then its
    Create Object event names its ObjectType and carries its name in its own parameter."""
    run(cfg, text)
    (_, msg), = events(cfg)
    assert msg.header.Reason == CMQC.MQRC_CONFIG_CREATE_OBJECT
    assert value(msg, CMQCFC.MQIACF_OBJECT_TYPE) == object_type
    assert value(msg, name_parameter) == text.split("(")[1].split(")")[0]


def test_a_temporary_dynamic_queue_raises_no_configuration_event(cfg):
    """Given CONFIGEV(ENABLED), when MQOPEN of a model makes a temporary dynamic queue, ALTER
    QLOCAL changes it and MQCLOSE deletes it, then no configuration event is put (IBM: none
    for a temporary dynamic queue, and MQOPEN is no DEFINE)."""
    od = mqpy.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"CFG.DYN.*")
    q = mqpy.Queue(cfg.qm, od, CMQC.MQOO_INPUT_EXCLUSIVE)
    try:
        altered = MQSCProcessor(cfg.eng).execute(MQSCCommand(
            "ALTER", "QLOCAL", od.ObjectName.rstrip().decode(), {"DESCR": "changed"},
            frozenset()))
        assert altered.ok, altered.lines
    finally:
        q.close()
    assert events(cfg) == []


def test_no_event_while_configev_is_disabled_and_a_failed_command_makes_none(qmgr):
    """Given IBM's default CONFIGEV(DISABLED), when a queue is defined, then no event; given
    ENABLED, when a DEFINE fails (the queue exists), then none either."""
    read_events(qmgr.qm, CONFIG_EVENTS)
    run(qmgr, "DEFINE QLOCAL(CFG.QUIET) REPLACE")
    assert events(qmgr) == []
    qmgr.eng.alter_qmgr({"CONFIGEV": "ENABLED"})
    try:
        events(qmgr)
        assert not MQSCProcessor(qmgr.eng).execute_text("DEFINE QLOCAL(CFG.QUIET)").ok
        assert events(qmgr) == []
    finally:
        qmgr.eng.alter_qmgr({"CONFIGEV": "DISABLED"})


def test_enabling_configev_changes_the_qmgr_and_refreshes_every_object(qmgr):
    """Given CONFIGEV(DISABLED), when ALTER QMGR CONFIGEV(ENABLED), then the queue manager's
    Change Object pair (CONFIGEV DISABLED, then ENABLED) and a Refresh Object for every
    object, the configuration event queue included, one CorrelId for them all."""
    read_events(qmgr.qm, CONFIG_EVENTS)
    try:
        run(qmgr, "ALTER QMGR CONFIGEV(ENABLED)")
        got = events(qmgr)
    finally:
        qmgr.eng.alter_qmgr({"CONFIGEV": "DISABLED"})
    (_, before), (_, after), *refreshed = got
    assert [value(m, CMQC.MQIA_CONFIGURATION_EVENT) for m in (before, after)] == [
        CMQCFC.MQEVR_DISABLED, CMQCFC.MQEVR_ENABLED]
    assert value(after, CMQCFC.MQIACF_OBJECT_TYPE) == CMQC.MQOT_Q_MGR
    assert {m.header.Reason for _, m in refreshed} == {CMQC.MQRC_CONFIG_REFRESH_OBJECT}
    names = {value(m, CMQC.MQCA_Q_NAME) for _, m in refreshed}
    assert {CONFIG_EVENTS, "SYSTEM.DEFAULT.LOCAL.QUEUE"} <= names
    assert len(refreshed) == sum(1 for o in qmgr.eng.catalog.objects.values()
                                 if o.objtype not in ("STGCLASS", "QMGR")) + 1
    assert len({md.CorrelId for md, _ in got}) == 1


def test_refresh_qmgr_selects_by_type_and_generic_name(cfg):
    """Given two local queues and an alias named CFG.R.*, when REFRESH QMGR TYPE(CONFIGEV)
    OBJECT(QLOCAL) NAME(CFG.R.*) INCLINT(60), then a Refresh Object for each local queue
    only; when CONFIGEV is DISABLED, the command fails MQRCCF_EVENTS_DISABLED."""
    for text in ("DEFINE QLOCAL(CFG.R.ONE) REPLACE", "DEFINE QLOCAL(CFG.R.TWO) REPLACE",
                 "DEFINE QALIAS(CFG.R.AL) TARGET(X) REPLACE"):
        run(cfg, text)
    events(cfg)
    run(cfg, "REFRESH QMGR TYPE(CONFIGEV) OBJECT(QLOCAL) NAME(CFG.R.*) INCLINT(60)")
    got = [(m.header.Reason, value(m, CMQC.MQCA_Q_NAME)) for _, m in events(cfg)]
    assert got == [(CMQC.MQRC_CONFIG_REFRESH_OBJECT, "CFG.R.ONE"),
                   (CMQC.MQRC_CONFIG_REFRESH_OBJECT, "CFG.R.TWO")]
    cfg.eng.alter_qmgr({"CONFIGEV": "DISABLED"})
    refused = MQSCProcessor(cfg.eng).execute_text("REFRESH QMGR TYPE(CONFIGEV)")
    assert (refused.ok, refused.reason) == (False, CMQCFC.MQRCCF_EVENTS_DISABLED)


def test_pcf_refresh_and_create_come_from_a_command_message(cfg):
    """Given CONFIGEV(ENABLED), when a PCF Create Queue and a Refresh Queue Manager
    (MQRT_CONFIGURATION, ObjectName the queue) come to the command server, then both events
    report MQEVO_MSG with the request's context (user, accounting token, application)."""
    server = CommandServer(None, lambda: MQSCProcessor(cfg.eng))
    md = MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST, UserIdentifier=b"opsuser",
            AccountingToken=b"\x07" * 32, ApplIdentityData=b"ident", ApplOriginData=b"orig",
            PutApplType=CMQC.MQAT_UNIX, PutApplName=b"pcfadmin", ReplyToQMgr=b"QMCFG")
    for command, params in (
            (CMQCFC.MQCMD_CREATE_Q, [pcf.CFST(CMQC.MQCA_Q_NAME, b"CFG.PCF"),
                                     pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL),
                                     pcf.CFIN(CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_YES)]),
            (CMQCFC.MQCMD_REFRESH_Q_MGR, [
                pcf.CFIN(CMQCFC.MQIACF_REFRESH_TYPE, CMQCFC.MQRT_CONFIGURATION),
                pcf.CFIN(CMQCFC.MQIACF_OBJECT_TYPE, CMQC.MQOT_Q),
                pcf.CFST(CMQCFC.MQCACF_OBJECT_NAME, b"CFG.PCF")])):
        (_, reply), = server.handle(md, pcf.build(pcf.PCFMessage(CFH(Command=command), params)))
        assert pcf.parse(reply).header.CompCode == CMQC.MQCC_OK
    got = [m for _, m in events(cfg)]
    assert [m.header.Reason for m in got] == [CMQC.MQRC_CONFIG_CREATE_OBJECT,
                                              CMQC.MQRC_CONFIG_REFRESH_OBJECT]
    for msg in got:
        assert value(msg, CMQCFC.MQIACF_EVENT_ORIGIN) == CMQCFC.MQEVO_MSG
        assert value(msg, CMQCFC.MQCACF_EVENT_USER_ID) == "opsuser"
        assert msg.get(CMQCFC.MQBACF_EVENT_ACCOUNTING_TOKEN) == b"\x07" * 32
        assert (value(msg, CMQCFC.MQCACF_EVENT_APPL_NAME),
                value(msg, CMQCFC.MQCACF_EVENT_APPL_IDENTITY),
                value(msg, CMQCFC.MQCACF_EVENT_APPL_ORIGIN),
                value(msg, CMQCFC.MQIACF_EVENT_APPL_TYPE)) == ("pcfadmin", "ident", "orig",
                                                               CMQC.MQAT_UNIX)


def test_an_event_that_cannot_be_put_is_lost_and_the_command_works(cfg):
    """Given the configuration event queue PUT(DISABLED), when a queue is defined, then the
    command works and no event is there."""
    cfg.eng.alter("QLOCAL", CONFIG_EVENTS, {"PUT": "DISABLED"})
    try:
        run(cfg, "DEFINE QLOCAL(CFG.LOST) REPLACE")
    finally:
        cfg.eng.alter("QLOCAL", CONFIG_EVENTS, {"PUT": "ENABLED"})
    assert cfg.eng.lookup("QLOCAL", "CFG.LOST") is not None
    assert events(cfg) == []
