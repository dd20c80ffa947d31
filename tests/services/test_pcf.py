"""The service PCF commands through the command server: Create, Change, Copy, Delete and
Inquire Service, Start and Stop Service, Inquire Service Status (IBM's PCF pages of those
names)."""

from __future__ import annotations

import os

import pytest

from mqpy import CMQC, CMQCFC, pcf
from tests.support.waiting import wait_for

from .conftest import read_pid

pytestmark = [pytest.mark.system, pytest.mark.timeout(60)]


def _name(value: bytes) -> str:
    return value.decode().rstrip()


def _server(admin, programs, name=b"P1"):
    pidfile = programs.path(f"{name.decode()}.pid")
    (reply,) = admin.command(CMQCFC.MQCMD_CREATE_SERVICE, [
        pcf.CFST(CMQC.MQCA_SERVICE_NAME, name),
        pcf.CFIN(CMQC.MQIA_SERVICE_TYPE, CMQC.MQSVC_TYPE_SERVER),
        pcf.CFST(CMQC.MQCA_SERVICE_START_COMMAND, programs.python.encode()),
        pcf.CFST(CMQC.MQCA_SERVICE_START_ARGS,
                 f"{programs.path('server.py')} {pidfile}".encode()),
        pcf.CFST(CMQC.MQCA_SERVICE_DESC, b"pcf server")])
    assert reply.header.CompCode == CMQC.MQCC_OK, reply.header.Reason
    return pidfile


def test_create_change_copy_inquire_delete(admin, programs):
    """Given a service created by PCF, when it is changed, copied and inquired, then Inquire
    Service returns the name always and the attributes asked (words as MQ's numbers), the
    copy has the original's attributes, and Delete removes it (then 2085)."""
    _server(admin, programs)
    (reply,) = admin.command(CMQCFC.MQCMD_CHANGE_SERVICE, [
        pcf.CFST(CMQC.MQCA_SERVICE_NAME, b"P1"),
        pcf.CFIN(CMQC.MQIA_SERVICE_CONTROL, CMQC.MQSVC_CONTROL_Q_MGR_START)])
    assert reply.header.CompCode == CMQC.MQCC_OK
    (reply,) = admin.command(CMQCFC.MQCMD_COPY_SERVICE, [
        pcf.CFST(CMQCFC.MQCACF_FROM_SERVICE_NAME, b"P1"),
        pcf.CFST(CMQCFC.MQCACF_TO_SERVICE_NAME, b"P2")])
    assert reply.header.CompCode == CMQC.MQCC_OK, reply.header.Reason
    replies = admin.command(CMQCFC.MQCMD_INQUIRE_SERVICE, [
        pcf.CFST(CMQC.MQCA_SERVICE_NAME, b"P*"),
        pcf.CFIL(CMQCFC.MQIACF_SERVICE_ATTRS, [CMQC.MQIA_SERVICE_CONTROL,
                                               CMQC.MQIA_SERVICE_TYPE,
                                               CMQC.MQCA_SERVICE_DESC])])
    assert [_name(r.get(CMQC.MQCA_SERVICE_NAME)) for r in replies] == ["P1", "P2"]
    for r in replies:
        assert r.get(CMQC.MQIA_SERVICE_CONTROL) == CMQC.MQSVC_CONTROL_Q_MGR_START
        assert r.get(CMQC.MQIA_SERVICE_TYPE) == CMQC.MQSVC_TYPE_SERVER
        assert _name(r.get(CMQC.MQCA_SERVICE_DESC)) == "pcf server"
        assert r.get(CMQC.MQCA_SERVICE_START_COMMAND) is None  # not asked for
    (reply,) = admin.command(CMQCFC.MQCMD_DELETE_SERVICE,
                             [pcf.CFST(CMQC.MQCA_SERVICE_NAME, b"P2")])
    assert reply.header.CompCode == CMQC.MQCC_OK
    (reply,) = admin.command(CMQCFC.MQCMD_INQUIRE_SERVICE,
                             [pcf.CFST(CMQC.MQCA_SERVICE_NAME, b"P2")])
    assert reply.header.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    (reply,) = admin.command(CMQCFC.MQCMD_CHANGE_SERVICE, [
        pcf.CFST(CMQC.MQCA_SERVICE_NAME, b"P1"), pcf.CFIN(CMQC.MQIA_SERVICE_TYPE, 7)])
    assert reply.header.Reason == CMQCFC.MQRCCF_PARM_VALUE_ERROR


def test_start_inquire_status_stop(admin, programs):
    """Given a server service, when Start Service is sent, then Inquire Service Status
    answers MQSVC_STATUS_RUNNING with the program's own pid, start date and time, and the
    definition's attributes (or only those ServiceStatusAttrs asks); a second Start is
    MQRCCF_SERVICE_RUNNING unless IgnoreState is MQIS_YES; Stop with no STOPCMD is
    MQRCCF_NO_STOP_CMD; once the program has ended, the status is not found and Stop is
    MQRCCF_SERVICE_STOPPED, or success with IgnoreState."""
    pidfile = _server(admin, programs)
    name = pcf.CFST(CMQC.MQCA_SERVICE_NAME, b"P1")
    (reply,) = admin.command(CMQCFC.MQCMD_START_SERVICE, [name])
    assert reply.header.CompCode == CMQC.MQCC_OK
    pid = wait_for(lambda: read_pid(pidfile))
    (status,) = admin.command(CMQCFC.MQCMD_INQUIRE_SERVICE_STATUS,
                              [pcf.CFST(CMQC.MQCA_SERVICE_NAME, b"*")])
    assert _name(status.get(CMQC.MQCA_SERVICE_NAME)) == "P1"
    assert status.get(CMQCFC.MQIACF_SERVICE_STATUS) == 2  # MQSVC_STATUS_RUNNING
    assert status.get(CMQCFC.MQIACF_PROCESS_ID) == pid
    assert _name(status.get(CMQCFC.MQCACF_SERVICE_START_DATE)).count("-") == 2
    assert _name(status.get(CMQCFC.MQCACF_SERVICE_START_TIME)).count(".") == 2
    assert status.get(CMQC.MQIA_SERVICE_TYPE) == CMQC.MQSVC_TYPE_SERVER
    assert _name(status.get(CMQC.MQCA_SERVICE_START_COMMAND)) == programs.python
    (picked,) = admin.command(CMQCFC.MQCMD_INQUIRE_SERVICE_STATUS, [
        name, pcf.CFIL(CMQCFC.MQIACF_SERVICE_STATUS_ATTRS, [CMQCFC.MQIACF_PROCESS_ID])])
    assert {p.Parameter for p in picked.params} == {CMQC.MQCA_SERVICE_NAME,
                                                    CMQCFC.MQIACF_PROCESS_ID}

    (reply,) = admin.command(CMQCFC.MQCMD_START_SERVICE, [name])
    assert reply.header.Reason == CMQCFC.MQRCCF_SERVICE_RUNNING
    (reply,) = admin.command(CMQCFC.MQCMD_START_SERVICE, [
        name, pcf.CFIN(CMQCFC.MQIACF_IGNORE_STATE, CMQCFC.MQIS_YES)])
    assert reply.header.CompCode == CMQC.MQCC_OK
    (reply,) = admin.command(CMQCFC.MQCMD_STOP_SERVICE, [name])
    assert reply.header.Reason == CMQCFC.MQRCCF_NO_STOP_CMD

    os.kill(pid, 9)
    wait_for(lambda: admin.command(CMQCFC.MQCMD_INQUIRE_SERVICE_STATUS, [name])[0]
             .header.Reason == CMQCFC.MQRCCF_SERV_STATUS_NOT_FOUND)
    (reply,) = admin.command(CMQCFC.MQCMD_STOP_SERVICE, [name])
    assert reply.header.Reason == CMQCFC.MQRCCF_SERVICE_STOPPED
    (reply,) = admin.command(CMQCFC.MQCMD_STOP_SERVICE, [
        name, pcf.CFIN(CMQCFC.MQIACF_IGNORE_STATE, CMQCFC.MQIS_YES)])
    assert reply.header.CompCode == CMQC.MQCC_OK
    (reply,) = admin.command(CMQCFC.MQCMD_START_SERVICE,
                             [pcf.CFST(CMQC.MQCA_SERVICE_NAME, b"NOSUCH")])
    assert reply.header.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    (reply,) = admin.command(CMQCFC.MQCMD_INQUIRE_SERVICE_STATUS,
                             [pcf.CFST(CMQC.MQCA_SERVICE_NAME, b"NOSUCH")])
    assert reply.header.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_a_parameter_in_the_wrong_structure_is_refused_not_stored(admin, programs):
    """Given a service, when Change Service sends ServiceDesc as an MQCFIN, StartCommand as
    an MQCFSL, or ServiceType as an MQCFST, then each is refused with the reason naming the
    structure it came in (MQRCCF_CFIN_PARM_ID_ERROR, MQRCCF_CFSL_PARM_ID_ERROR,
    MQRCCF_CFST_PARM_ID_ERROR, as IBM's command server answers) and nothing is stored: the
    description is not "5" and the start command is not the list's text."""
    _server(admin, programs)
    name = pcf.CFST(CMQC.MQCA_SERVICE_NAME, b"P1")
    for param, reason in (
            (pcf.CFIN(CMQC.MQCA_SERVICE_DESC, 5), CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR),
            (pcf.CFSL(CMQC.MQCA_SERVICE_START_COMMAND, [b"/bin/a", b"/bin/b"]),
             CMQCFC.MQRCCF_CFSL_PARM_ID_ERROR),
            (pcf.CFST(CMQC.MQIA_SERVICE_TYPE, b"SERVER"), CMQCFC.MQRCCF_CFST_PARM_ID_ERROR),
            (pcf.CFST(CMQC.MQCA_ALTERATION_DATE, b"2026-01-01"),
             CMQCFC.MQRCCF_CFST_PARM_ID_ERROR)):
        (reply,) = admin.command(CMQCFC.MQCMD_CHANGE_SERVICE, [name, param])
        assert (reply.header.CompCode, reply.header.Reason) == (CMQC.MQCC_FAILED, reason)
        (reply,) = admin.command(CMQCFC.MQCMD_CREATE_SERVICE, [
            pcf.CFST(CMQC.MQCA_SERVICE_NAME, b"NEW"), param])
        assert reply.header.Reason == reason
    (shown,) = admin.command(CMQCFC.MQCMD_INQUIRE_SERVICE, [name])
    assert _name(shown.get(CMQC.MQCA_SERVICE_DESC)) == "pcf server"
    assert _name(shown.get(CMQC.MQCA_SERVICE_START_COMMAND)) == programs.python
    assert shown.get(CMQC.MQIA_SERVICE_TYPE) == CMQC.MQSVC_TYPE_SERVER
    (reply,) = admin.command(CMQCFC.MQCMD_INQUIRE_SERVICE,
                             [pcf.CFST(CMQC.MQCA_SERVICE_NAME, b"NEW")])
    assert reply.header.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_a_queue_attribute_in_the_wrong_structure_is_refused(admin):
    """Given Create Queue, when a string attribute (QDesc) comes as an MQCFIN or an integer
    one (MaxQDepth) as an MQCFST, then the request is refused with the structure's
    PARM_ID_ERROR by the same attribute check the service commands use."""
    for param, reason in ((pcf.CFIN(CMQC.MQCA_Q_DESC, 5), CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR),
                          (pcf.CFST(CMQC.MQIA_MAX_Q_DEPTH, b"10"),
                           CMQCFC.MQRCCF_CFST_PARM_ID_ERROR)):
        (reply,) = admin.command(CMQCFC.MQCMD_CREATE_Q, [
            pcf.CFST(CMQC.MQCA_Q_NAME, b"Q.WRONG"), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL),
            param])
        assert reply.header.Reason == reason
