"""Queue manager events on SYSTEM.ADMIN.QMGR.EVENT: local (LOCALEV), remote (REMOTEEV) and
authority (AUTHOREV) events of MQOPEN, MQPUT1 and MQCONN, read back as amqsevt reads them.

The application's call fails with its reason whether or not an event is put; with the
queue manager's switch DISABLED (IBM's default) nothing is put."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, CMQCFC
from mqpy.errors import MQMIError

from ._support import params, read_events


def _open_fails(qm, name: str, qmname: str = "", options: int = CMQC.MQOO_OUTPUT) -> int:
    with pytest.raises(MQMIError) as failed:
        mqpy.Queue(qm, mqpy.OD(ObjectName=name.encode(), ObjectQMgrName=qmname.encode()),
                   options)
    return failed.value.reason


def _one_event(qm) -> tuple[mqpy.MD, int, dict]:
    got = read_events(qm)
    assert len(got) == 1, [m.header.Reason for _, m in got]
    md, msg = got[0]
    return md, msg.header.Reason, dict(params(msg))


def test_unknown_object_name_is_an_event_while_localev_is_enabled(qmev):
    """Given LOCALEV(ENABLED), when an MQOPEN names a queue not defined, then it fails 2085 and
    one Unknown Object Name event, an MQEVENT datagram, names the queue manager, the queue
    and the application."""
    qmev.eng.alter_qmgr({"LOCALEV": "ENABLED"})
    assert _open_fails(qmev.qm, "NO.SUCH.Q") == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    md, reason, p = _one_event(qmev.qm)
    assert md.Format.rstrip() == CMQC.MQFMT_EVENT.rstrip()
    assert md.MsgType == CMQC.MQMT_DATAGRAM and md.PutApplType == CMQC.MQAT_QMGR
    assert reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert p[CMQC.MQCA_Q_MGR_NAME] == "QMEV" and p[CMQC.MQCA_Q_NAME] == "NO.SUCH.Q"
    assert p[CMQC.MQIA_APPL_TYPE] == CMQC.MQAT_UNIX and p[CMQCFC.MQCACF_APPL_NAME]


def test_no_event_while_the_switch_is_disabled(qmev):
    """Given IBM's defaults (LOCALEV, REMOTEEV, AUTHOREV DISABLED), when MQOPENs fail 2085 and
    2087, then no event is put."""
    assert _open_fails(qmev.qm, "NO.SUCH.Q") == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert _open_fails(qmev.qm, "Q", "FAR.AWAY") == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
    assert read_events(qmev.qm) == []


def test_mqput1_of_an_unknown_queue_is_an_event_too(qmev):
    """Given LOCALEV(ENABLED), when an MQPUT1 names a queue not defined, then it fails 2085 and
    an Unknown Object Name event names the queue."""
    qmev.eng.alter_qmgr({"LOCALEV": "ENABLED"})
    with pytest.raises(MQMIError) as failed:
        qmev.qm.put1(mqpy.OD(ObjectName=b"NOT.HERE"), b"x", mqpy.MD(), mqpy.PMO())
    assert failed.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    _md, reason, p = _one_event(qmev.qm)
    assert (reason, p[CMQC.MQCA_Q_NAME]) == (CMQC.MQRC_UNKNOWN_OBJECT_NAME, "NOT.HERE")


def test_alias_events_name_the_base_queue(qmev):
    """Given LOCALEV(ENABLED), an alias whose TARGET is not defined and one whose TARGET is a
    model queue, when each is opened, then 2082 and 2001 are each an event naming the alias
    and its BaseObjectName (and for 2001 the base's QType)."""
    qmev.eng.alter_qmgr({"LOCALEV": "ENABLED"})
    qmev.eng.define("QALIAS", "EV.AL.GONE", {"TARGET": "EV.NOT.DEFINED"}, replace=True)
    qmev.eng.define("QALIAS", "EV.AL.MODEL", {"TARGET": "SYSTEM.DEFAULT.MODEL.QUEUE"},
                    replace=True)
    assert _open_fails(qmev.qm, "EV.AL.GONE") == CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q
    _md, reason, p = _one_event(qmev.qm)
    assert reason == CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q
    assert (p[CMQC.MQCA_Q_NAME], p[CMQC.MQCA_BASE_OBJECT_NAME], p[CMQC.MQIA_BASE_TYPE]) == \
        ("EV.AL.GONE", "EV.NOT.DEFINED", CMQC.MQOT_Q)
    assert _open_fails(qmev.qm, "EV.AL.MODEL") == CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR
    _md, reason, p = _one_event(qmev.qm)
    assert reason == CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR
    assert (p[CMQC.MQCA_BASE_OBJECT_NAME], p[CMQC.MQIA_Q_TYPE]) == \
        ("SYSTEM.DEFAULT.MODEL.QUEUE", CMQC.MQQT_MODEL)


def test_remote_events_name_the_queue_manager_and_transmission_queue(qmev):
    """Given REMOTEEV(ENABLED), when an MQOPEN names a queue manager with no route (2087), a
    remote queue whose XMITQ is a local queue not USAGE(XMITQ) (2092) and one whose XMITQ is
    an alias (2091), then each is an event: ObjectQMgrName for the first, XmitQName (and the
    QType found) for the others."""
    qmev.eng.alter_qmgr({"REMOTEEV": "ENABLED"})
    assert _open_fails(qmev.qm, "Q", "FAR.AWAY") == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
    _md, reason, p = _one_event(qmev.qm)
    assert (reason, p[CMQC.MQCA_Q_NAME], p[CMQCFC.MQCACF_OBJECT_Q_MGR_NAME]) == \
        (CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR, "Q", "FAR.AWAY")
    eng = qmev.eng
    eng.define("QLOCAL", "EV.NOT.XMITQ", {}, replace=True)
    eng.define("QALIAS", "EV.XQ.ALIAS", {"TARGET": "EV.NOT.XMITQ"}, replace=True)
    eng.define("QREMOTE", "EV.RQ.USAGE", {"RNAME": "A", "RQMNAME": "QMB",
                                          "XMITQ": "EV.NOT.XMITQ"}, replace=True)
    eng.define("QREMOTE", "EV.RQ.TYPE", {"RNAME": "A", "RQMNAME": "QMB",
                                         "XMITQ": "EV.XQ.ALIAS"}, replace=True)
    assert _open_fails(qmev.qm, "EV.RQ.USAGE") == CMQC.MQRC_XMIT_Q_USAGE_ERROR
    _md, reason, p = _one_event(qmev.qm)
    assert (reason, p[CMQC.MQCA_Q_NAME], p[CMQC.MQCA_XMIT_Q_NAME]) == \
        (CMQC.MQRC_XMIT_Q_USAGE_ERROR, "EV.RQ.USAGE", "EV.NOT.XMITQ")
    assert _open_fails(qmev.qm, "EV.RQ.TYPE") == CMQC.MQRC_XMIT_Q_TYPE_ERROR
    _md, reason, p = _one_event(qmev.qm)
    assert (reason, p[CMQC.MQCA_XMIT_Q_NAME], p[CMQC.MQIA_Q_TYPE]) == \
        (CMQC.MQRC_XMIT_Q_TYPE_ERROR, "EV.XQ.ALIAS", CMQC.MQQT_ALIAS)


class _Refusing:
    """An authority that refuses one queue and every MQCSP (as CONNAUTH refusing a password)."""

    def check_connect(self, user, password, appl_name, channel, *, asserted, adopted=False):
        if password is not None:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED)
        return user

    def check_open(self, user, objtype, name, options, *, alternate_user=None):
        if name == "EV.SECRET":
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED)

    def check_topic(self, user, names, needed):
        return None


@pytest.fixture
def refusing(qmev):
    eng = qmev.eng
    before, eng.authority = eng.authority, _Refusing()
    yield qmev
    eng.authority = before


def test_an_open_refused_2035_is_not_authorized_type_2(refusing):
    """Given AUTHOREV(ENABLED) and a queue the user may not open, when MQOPEN asks for output,
    then it fails 2035 and a Not Authorized event with ReasonQualifier
    MQRQ_OPEN_NOT_AUTHORIZED gives the options, the user and the queue."""
    refusing.eng.define("QLOCAL", "EV.SECRET", {}, replace=True)
    refusing.eng.alter_qmgr({"AUTHOREV": "ENABLED"})
    assert _open_fails(refusing.qm, "EV.SECRET") == CMQC.MQRC_NOT_AUTHORIZED
    _md, reason, p = _one_event(refusing.qm)
    assert reason == CMQC.MQRC_NOT_AUTHORIZED
    assert p[CMQCFC.MQIACF_REASON_QUALIFIER] == CMQCFC.MQRQ_OPEN_NOT_AUTHORIZED
    assert p[CMQCFC.MQIACF_OPEN_OPTIONS] == CMQC.MQOO_OUTPUT
    assert p[CMQC.MQCA_Q_NAME] == "EV.SECRET" and p[CMQCFC.MQCACF_USER_IDENTIFIER]


def test_a_connect_refused_2035_is_not_authorized_type_1(refusing):
    """Given AUTHOREV(ENABLED), when an MQCONNX's MQCSP user and password are refused, then it
    fails 2035 and a Not Authorized event with MQRQ_CSP_NOT_AUTHORIZED names the MQCSP's
    user, the channel's client address and the application."""
    refusing.eng.alter_qmgr({"AUTHOREV": "ENABLED"})
    with pytest.raises(MQMIError) as failed:
        refusing.eng.connect("evapp", user="mallory", password="guess", asserted="app",
                             channel="EV.SVRCONN", conname="192.0.2.1")
    assert failed.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    _md, reason, p = _one_event(refusing.qm)
    assert reason == CMQC.MQRC_NOT_AUTHORIZED
    assert p[CMQCFC.MQIACF_REASON_QUALIFIER] == CMQCFC.MQRQ_CSP_NOT_AUTHORIZED
    assert (p[CMQCFC.MQCACF_USER_IDENTIFIER], p[CMQCFC.MQCACF_CSP_USER_IDENTIFIER],
            p[CMQCFC.MQCACH_CONNECTION_NAME], p[CMQCFC.MQCACF_APPL_NAME]) == \
        ("app", "mallory", "192.0.2.1", "evapp")


def test_an_event_that_cannot_be_put_is_lost_and_the_call_fails_alone(qmev):
    """Given LOCALEV(ENABLED) and the event queue PUT(DISABLED), when an MQOPEN fails 2085,
    then the application gets 2085 (no other reason, no broken connection) and the connection
    goes on working."""
    eng = qmev.eng
    eng.alter_qmgr({"LOCALEV": "ENABLED"})
    eng.alter("QLOCAL", "SYSTEM.ADMIN.QMGR.EVENT", {"PUT": "DISABLED"})
    try:
        assert _open_fails(qmev.qm, "NO.SUCH.Q") == CMQC.MQRC_UNKNOWN_OBJECT_NAME
        mqpy.Queue(qmev.qm, "SYSTEM.ADMIN.QMGR.EVENT", CMQC.MQOO_INQUIRE).close()
    finally:
        eng.alter("QLOCAL", "SYSTEM.ADMIN.QMGR.EVENT", {"PUT": "ENABLED"})
    assert read_events(qmev.qm) == []
