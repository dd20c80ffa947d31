"""Configuration events of the security records (CONFIGEV): SET CHLAUTH makes, changes and
removes channel authentication records (ObjectType MQOT_CHLAUTH, their attributes as Inquire
Channel Authentication Records answers them); SET and DELETE AUTHREC are IBM's Create,
Change and Delete Authority Record (MQOT_AUTH_REC, the profile, then AuthorityRecordType,
AuthorizationList, EntityName, EntityType). From the console (MQSC) and from a PCF command.

One embedded queue manager for the file, its event queues added as strmqm adds them."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, CMQZC, pcf
from mqpy.cmdserver import CommandServer
from mqpy.engine.defaultobjects import add_missing_objects
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.structs.tables import CFH, MD
from tests.support.embedded import EmbeddedQMgr, ended_at_teardown

from ._support import params, read_events

CONFIG_EVENTS = "SYSTEM.ADMIN.CONFIG.EVENT"
CREATE, CHANGE, DELETE = (CMQC.MQRC_CONFIG_CREATE_OBJECT, CMQC.MQRC_CONFIG_CHANGE_OBJECT,
                          CMQC.MQRC_CONFIG_DELETE_OBJECT)


@pytest.fixture(scope="module")
def qmgr(tmp_path_factory):
    qmgr = EmbeddedQMgr("QMSECEV", str(tmp_path_factory.mktemp("qmsecev")))
    add_missing_objects(qmgr.eng)
    qmgr.server = CommandServer(None, lambda: MQSCProcessor(qmgr.eng))
    yield from ended_at_teardown(qmgr)


@pytest.fixture
def cfg(qmgr):
    """CONFIGEV(ENABLED) and the configuration event queue empty; DISABLED at the end."""
    qmgr.eng.alter_qmgr({"CONFIGEV": "ENABLED"})
    read_events(qmgr.qm, CONFIG_EVENTS)
    yield qmgr
    qmgr.eng.alter_qmgr({"CONFIGEV": "DISABLED"})
    read_events(qmgr.qm, CONFIG_EVENTS)


def run(qmgr, text: str) -> None:
    result = MQSCProcessor(qmgr.eng).execute_text(text)
    assert result.ok, result.lines


def events(qmgr) -> list[tuple[MD, pcf.PCFMessage]]:
    return read_events(qmgr.qm, CONFIG_EVENTS)


def summary(qmgr) -> list[tuple[int, int, dict]]:
    """(reason, MsgSeqNumber, parameters) of each event."""
    return [(m.header.Reason, m.header.MsgSeqNumber, dict(params(m))) for _, m in events(qmgr)]


def dispatch(qmgr, command: int, parameters: list) -> list[pcf.PCFMessage]:
    """One PCF request through the command server, as a command message: its replies."""
    md = MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST, UserIdentifier=b"opsuser",
            PutApplType=CMQC.MQAT_UNIX, PutApplName=b"pcfadmin", ReplyToQMgr=b"QMSECEV")
    replies = qmgr.server.handle(md, pcf.build(pcf.PCFMessage(CFH(Command=command),
                                                               parameters)))
    return [pcf.parse(data) for _, data in replies]


def test_set_chlauth_add_replace_remove_are_create_change_delete(cfg):
    """Given CONFIGEV(ENABLED), when SET CHLAUTH adds an ADDRESSMAP record, replaces it with
    another USERSRC, then removes it, then Create Object, a Change Object pair (before
    NOACCESS, after CHANNEL) and Delete Object, each MQOT_CHLAUTH naming the profile."""
    base = "SET CHLAUTH('SEC.*') TYPE(ADDRESSMAP) ADDRESS('10.1.2.3')"
    run(cfg, f"{base} USERSRC(NOACCESS) ACTION(ADD)")
    run(cfg, f"{base} USERSRC(CHANNEL) ACTION(REPLACE)")
    run(cfg, f"{base} ACTION(REMOVE)")
    got = summary(cfg)
    assert [(r, seq) for r, seq, _ in got] == [(CREATE, 1), (CHANGE, 1), (CHANGE, 2),
                                               (DELETE, 1)]
    for _, _, p in got:
        assert p[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_CHLAUTH
        assert p[CMQCFC.MQCACH_CHANNEL_NAME] == "SEC.*"
        assert p[CMQCFC.MQIACF_CHLAUTH_TYPE] == CMQCFC.MQCAUT_ADDRESSMAP
        assert p[CMQCFC.MQCACH_CONNECTION_NAME] == "10.1.2.3"
    assert [p[CMQCFC.MQIACH_USER_SOURCE] for _, _, p in got[1:3]] == [
        CMQC.MQUSRC_NOACCESS, CMQC.MQUSRC_CHANNEL]


def test_a_chlauth_event_carries_the_record_as_inquire_answers_it(cfg):
    """Given CONFIGEV(ENABLED), when a PCF Set Channel Authentication Record blocks a user,
    then its Create Object event (EventOrigin MQEVO_MSG) carries, after the origin, object
    type, profile and disposition, the record's attributes exactly as Inquire Channel
    Authentication Records answers them."""
    dispatch(cfg, CMQCFC.MQCMD_SET_CHLAUTH_REC, [
        pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, b"SEC.BLOCK"),
        pcf.CFIN(CMQCFC.MQIACF_CHLAUTH_TYPE, CMQCFC.MQCAUT_BLOCKUSER),
        pcf.CFSL(CMQCFC.MQCACH_MCA_USER_ID_LIST, [b"baduser"])])
    (_, msg), = events(cfg)
    assert msg.header.Reason == CREATE
    assert msg.get(CMQCFC.MQIACF_EVENT_ORIGIN) == CMQCFC.MQEVO_MSG
    answer, = dispatch(cfg, CMQCFC.MQCMD_INQUIRE_CHLAUTH_RECS, [
        pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, b"SEC.BLOCK")])
    ids = [p.Parameter for p in msg.params]
    name_at = ids.index(CMQCFC.MQCACH_CHANNEL_NAME)
    assert [msg.params[name_at], *msg.params[name_at + 2:]] == answer.params


def test_set_and_delete_authrec_are_create_change_delete_authority_record(cfg):
    """Given CONFIGEV(ENABLED), when SET AUTHREC grants a principal put on a profile, then
    get, and DELETE AUTHREC removes the record, then Create, a Change pair (put; put and get)
    and Delete events of MQOT_AUTH_REC: the profile, AuthorityRecordType MQOT_Q, the
    AuthorizationList, EntityName and EntityType principal."""
    user = "mqm"
    base = f"PROFILE('SEC.Q') OBJTYPE(QUEUE) PRINCIPAL('{user}')"
    run(cfg, f"SET AUTHREC {base} AUTHADD(PUT)")
    run(cfg, f"SET AUTHREC {base} AUTHADD(GET)")
    run(cfg, f"DELETE AUTHREC {base}")
    got = summary(cfg)
    assert [(r, seq) for r, seq, _ in got] == [(CREATE, 1), (CHANGE, 1), (CHANGE, 2),
                                               (DELETE, 1)]
    for _, _, p in got:
        assert p[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_AUTH_REC
        assert p[CMQCFC.MQCACF_AUTH_PROFILE_NAME] == "SEC.Q"
        assert (p[CMQCFC.MQIACF_AUTH_REC_TYPE], p[CMQCFC.MQCACF_ENTITY_NAME],
                p[CMQCFC.MQIACF_ENTITY_TYPE]) == (CMQC.MQOT_Q, user, CMQZC.MQZAET_PRINCIPAL)
    assert [sorted(p[CMQCFC.MQIACF_AUTHORIZATION_LIST]) for _, _, p in got] == [
        [CMQCFC.MQAUTH_OUTPUT], [CMQCFC.MQAUTH_OUTPUT],
        sorted([CMQCFC.MQAUTH_OUTPUT, CMQCFC.MQAUTH_INPUT]),
        sorted([CMQCFC.MQAUTH_OUTPUT, CMQCFC.MQAUTH_INPUT])]


def test_no_security_record_event_while_configev_is_disabled(cfg):
    """Given CONFIGEV(DISABLED), when SET CHLAUTH and SET AUTHREC change records, then no
    configuration event is put."""
    cfg.eng.alter_qmgr({"CONFIGEV": "DISABLED"})
    run(cfg, "SET CHLAUTH('SEC.OFF') TYPE(BLOCKUSER) USERLIST('nobody') ACTION(REPLACE)")
    run(cfg, "SET AUTHREC PROFILE('SEC.OFF') OBJTYPE(QUEUE) PRINCIPAL('mqm') AUTHADD(BROWSE)")
    assert events(cfg) == []


def test_refresh_qmgr_refreshes_authority_and_channel_authentication_records(cfg):
    """Given an authority record and a channel authentication record of profile SEC.R*,
    when REFRESH QMGR TYPE(CONFIGEV) names OBJECT(AUTHREC), then OBJECT(CHLAUTH) NAME(SEC.R*),
    then a Refresh Object (2370) for each record selected: MQOT_AUTH_REC with its profile,
    then MQOT_CHLAUTH with its."""
    run(cfg, "SET AUTHREC PROFILE('SEC.RQ') OBJTYPE(QUEUE) PRINCIPAL('mqm') AUTHADD(INQ)")
    run(cfg, "SET CHLAUTH('SEC.RCHL') TYPE(BLOCKUSER) USERLIST('nobody') ACTION(REPLACE)")
    events(cfg)
    run(cfg, "REFRESH QMGR TYPE(CONFIGEV) OBJECT(AUTHREC) NAME('SEC.R*')")
    run(cfg, "REFRESH QMGR TYPE(CONFIGEV) OBJECT(CHLAUTH) NAME('SEC.R*')")
    got = [(r, p[CMQCFC.MQIACF_OBJECT_TYPE],
            p.get(CMQCFC.MQCACF_AUTH_PROFILE_NAME) or p.get(CMQCFC.MQCACH_CHANNEL_NAME))
           for r, _, p in summary(cfg)]
    assert got == [(CMQC.MQRC_CONFIG_REFRESH_OBJECT, CMQC.MQOT_AUTH_REC, "SEC.RQ"),
                   (CMQC.MQRC_CONFIG_REFRESH_OBJECT, CMQC.MQOT_CHLAUTH, "SEC.RCHL")]


def test_inquire_chlauth_with_a_type_answers_the_records_of_that_type(cfg):
    """Given a BLOCKUSER record, when Inquire Channel Authentication Records names its
    profile and Type MQCAUT_BLOCKUSER, then it answers the record (not a refusal)."""
    run(cfg, "SET CHLAUTH('SEC.TYPED') TYPE(BLOCKUSER) USERLIST('nobody') ACTION(REPLACE)")
    answer, = dispatch(cfg, CMQCFC.MQCMD_INQUIRE_CHLAUTH_RECS, [
        pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, b"SEC.TYPED"),
        pcf.CFIN(CMQCFC.MQIACF_CHLAUTH_TYPE, CMQCFC.MQCAUT_BLOCKUSER)])
    assert (answer.header.CompCode, answer.get(CMQCFC.MQIACF_CHLAUTH_TYPE)) == (
        CMQC.MQCC_OK, CMQCFC.MQCAUT_BLOCKUSER)
