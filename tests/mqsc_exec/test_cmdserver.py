"""PCF round trips through the command server thread (spec: operations-dlq-clusters 7.7)."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, pcf
from mqpy.cmdserver import command_server_status, start_command_server, stop_command_server
from mqpy.structs.tables import CFH, GMO, MD
from tests.support.pcf import Admin

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def admin(qmgr):
    qm, eng, root = qmgr
    handle = start_command_server("QM1", root)
    assert command_server_status("QM1", root) == "Running"
    yield Admin(qm)
    assert stop_command_server("QM1", root)
    assert not handle.running
    assert command_server_status("QM1", root) == "Stopped"


def _name(p):
    return p.decode().rstrip()


def test_escape_runs_mqsc_and_answers_with_escape_text(admin):
    """Given an MQCMD_ESCAPE with DEFINE then DISPLAY, the replies carry runmqsc's text, with
    sequence numbers and MQCFC_LAST on the last."""
    ok = admin.command(CMQCFC.MQCMD_ESCAPE, [pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE,
                                                      CMQCFC.MQET_MQSC),
                                             pcf.CFST(CMQCFC.MQCACF_ESCAPE_TEXT,
                                                      b"DEFINE QLOCAL(ESC.Q)")])
    assert len(ok) == 1
    h = ok[0].header
    assert (h.Type, h.Command, h.MsgSeqNumber, h.CompCode) == (
        CMQCFC.MQCFT_RESPONSE, CMQCFC.MQCMD_ESCAPE, 1, CMQC.MQCC_OK)
    assert ok[0].get(CMQCFC.MQCACF_ESCAPE_TEXT) == b"AMQ8006I: IBM MQ queue created."
    shown = admin.command(CMQCFC.MQCMD_ESCAPE, [
        pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC),
        pcf.CFST(CMQCFC.MQCACF_ESCAPE_TEXT, b"DISPLAY QLOCAL(SYSTEM.DEFAULT.L*)")])
    assert [m.header.MsgSeqNumber for m in shown] == list(range(1, len(shown) + 1))
    assert [m.header.Control for m in shown][-1] == CMQCFC.MQCFC_LAST
    text = shown[0].get(CMQCFC.MQCACF_ESCAPE_TEXT).decode()
    assert text.startswith("AMQ8409I: Display Queue details.\n   QUEUE(SYSTEM.DEFAULT.LOCAL")
    bad = admin.command(CMQCFC.MQCMD_ESCAPE, [
        pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC),
        pcf.CFST(CMQCFC.MQCACF_ESCAPE_TEXT, b"DELETE QLOCAL(NOPE)")])
    assert bad[0].header.CompCode == CMQC.MQCC_FAILED
    assert bad[0].get(CMQCFC.MQCACF_ESCAPE_TEXT) == b"AMQ8147E: IBM MQ object NOPE not found."


def test_create_inquire_change_delete_queue(admin, qmgr):
    """Given CREATE_Q with attributes, INQUIRE_Q returns them as PCF, CHANGE_Q changes
    them, a second CREATE_Q without replace fails, DELETE_Q removes the queue."""
    create = [pcf.CFST(CMQC.MQCA_Q_NAME, b"PCF.Q"), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL),
              pcf.CFIN(CMQC.MQIA_MAX_Q_DEPTH, 123), pcf.CFST(CMQC.MQCA_Q_DESC, b"made by pcf"),
              pcf.CFIN(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)]
    r = admin.command(CMQCFC.MQCMD_CREATE_Q, create)
    assert (r[0].header.CompCode, r[0].header.Control) == (CMQC.MQCC_OK, CMQCFC.MQCFC_LAST)
    again = admin.command(CMQCFC.MQCMD_CREATE_Q, create)
    assert again[0].header.Reason == CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS
    inq = admin.command(CMQCFC.MQCMD_INQUIRE_Q, [
        pcf.CFST(CMQC.MQCA_Q_NAME, b"PCF.Q"),
        pcf.CFIL(CMQCFC.MQIACF_Q_ATTRS, [CMQC.MQIA_MAX_Q_DEPTH, CMQC.MQCA_Q_DESC,
                                         CMQC.MQIA_INHIBIT_PUT, CMQC.MQIA_CURRENT_Q_DEPTH])])
    d = inq[0].to_dict()
    assert _name(d[CMQC.MQCA_Q_NAME]) == "PCF.Q"
    assert d[CMQC.MQIA_Q_TYPE] == CMQC.MQQT_LOCAL
    assert d[CMQC.MQIA_MAX_Q_DEPTH] == 123
    assert _name(d[CMQC.MQCA_Q_DESC]) == "made by pcf"
    assert d[CMQC.MQIA_INHIBIT_PUT] == CMQC.MQQA_PUT_INHIBITED
    assert d[CMQC.MQIA_CURRENT_Q_DEPTH] == 0
    assert CMQC.MQIA_MAX_MSG_LENGTH not in d
    admin.command(CMQCFC.MQCMD_CHANGE_Q, [pcf.CFST(CMQC.MQCA_Q_NAME, b"PCF.Q"),
                                          pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL),
                                          pcf.CFIN(CMQC.MQIA_MAX_Q_DEPTH, 7)])
    assert qmgr[1].lookup("QLOCAL", "PCF.Q").attributes["MAXDEPTH"] == 7
    gone = admin.command(CMQCFC.MQCMD_DELETE_Q, [pcf.CFST(CMQC.MQCA_Q_NAME, b"PCF.Q")])
    assert gone[0].header.CompCode == CMQC.MQCC_OK
    assert qmgr[1].lookup("QLOCAL", "PCF.Q") is None


def test_inquire_q_generic_one_response_per_queue(admin):
    r = admin.command(CMQCFC.MQCMD_INQUIRE_Q, [pcf.CFST(CMQC.MQCA_Q_NAME, b"SYSTEM.DEFAULT.*"),
                                               pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_ALL)])
    names = [_name(m.get(CMQC.MQCA_Q_NAME)) for m in r]
    assert "SYSTEM.DEFAULT.LOCAL.QUEUE" in names and "SYSTEM.DEFAULT.ALIAS.QUEUE" in names
    assert [m.header.Control for m in r[:-1]] == [CMQCFC.MQCFC_NOT_LAST] * (len(r) - 1)
    missing = admin.command(CMQCFC.MQCMD_INQUIRE_Q, [pcf.CFST(CMQC.MQCA_Q_NAME, b"NOPE")])
    assert (missing[0].header.CompCode, missing[0].header.Reason) == (
        CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)


def test_q_names_status_ping_qmgr(admin, qmgr):
    qm = qmgr[0]
    admin.command(CMQCFC.MQCMD_ESCAPE, [pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC),
                                        pcf.CFST(CMQCFC.MQCACF_ESCAPE_TEXT,
                                                 b"DEFINE QLOCAL(ST.Q)")])
    qm.put1("ST.Q", b"abc")
    names = admin.command(CMQCFC.MQCMD_INQUIRE_Q_NAMES, [pcf.CFST(CMQC.MQCA_Q_NAME, b"ST.*")])
    assert [n.decode().rstrip() for n in names[0].get(CMQCFC.MQCACF_Q_NAMES)] == ["ST.Q"]
    st = admin.command(CMQCFC.MQCMD_INQUIRE_Q_STATUS, [pcf.CFST(CMQC.MQCA_Q_NAME, b"ST.Q")])
    assert st[0].get(CMQC.MQIA_CURRENT_Q_DEPTH) == 1
    assert st[0].get(CMQCFC.MQCACF_LAST_PUT_DATE) == b" " * 12  # MONQ(OFF): blank, as IBM
    ping = admin.command(CMQCFC.MQCMD_PING_Q_MGR, [])
    assert (ping[0].header.CompCode, ping[0].header.Command) == (CMQC.MQCC_OK,
                                                                 CMQCFC.MQCMD_PING_Q_MGR)
    q = admin.command(CMQCFC.MQCMD_INQUIRE_Q_MGR, [])
    assert _name(q[0].get(CMQC.MQCA_Q_MGR_NAME)) == "QM1"
    assert q[0].get(CMQC.MQIA_PLATFORM) == CMQC.MQPL_UNIX


def test_channel_create_inquire_delete(admin):
    r = admin.command(CMQCFC.MQCMD_CREATE_CHANNEL, [
        pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, b"PCF.SVRCONN"),
        pcf.CFIN(CMQCFC.MQIACH_CHANNEL_TYPE, CMQC.MQCHT_SVRCONN),
        pcf.CFIN(CMQCFC.MQIACH_SHARING_CONVERSATIONS, 5)])
    assert r[0].header.CompCode == CMQC.MQCC_OK
    inq = admin.command(CMQCFC.MQCMD_INQUIRE_CHANNEL,
                        [pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, b"PCF.*")])
    d = inq[0].to_dict()
    assert _name(d[CMQCFC.MQCACH_CHANNEL_NAME]) == "PCF.SVRCONN"
    assert d[CMQCFC.MQIACH_CHANNEL_TYPE] == CMQC.MQCHT_SVRCONN
    assert d[CMQCFC.MQIACH_SHARING_CONVERSATIONS] == 5
    assert d[CMQCFC.MQIACH_MAX_INSTANCES] == 999999999
    assert d[CMQCFC.MQIACH_KEEP_ALIVE_INTERVAL] == -1  # MQKAI_AUTO
    gone = admin.command(CMQCFC.MQCMD_DELETE_CHANNEL,
                         [pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, b"PCF.SVRCONN")])
    assert gone[0].header.CompCode == CMQC.MQCC_OK


@pytest.mark.parametrize("data, fmt, reason", [
    (b"\x01\x00\x00\x00garbage", CMQC.MQFMT_ADMIN, CMQCFC.MQRCCF_MSG_LENGTH_ERROR),
    (pcf.build(pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_INQUIRE_Q), [])) + b"xx",
     CMQC.MQFMT_ADMIN, CMQCFC.MQRCCF_MSG_LENGTH_ERROR),
    (pcf.build(pcf.PCFMessage(CFH(Command=9999), [])), CMQC.MQFMT_ADMIN,
     CMQCFC.MQRCCF_CFH_COMMAND_ERROR),
    (pcf.build(pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_INQUIRE_Q), [])), CMQC.MQFMT_STRING,
     CMQCFC.MQRCCF_MD_FORMAT_ERROR),
    (pcf.build(pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_INQUIRE_Q), [])), CMQC.MQFMT_ADMIN,
     CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL),
    (pcf.build(pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_ESCAPE),
                              [pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE, 99)])),
     CMQC.MQFMT_ADMIN, CMQCFC.MQRCCF_ESCAPE_TYPE_ERROR),
    (pcf.build(pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_CHANGE_Q),
                              [pcf.CFST(CMQC.MQCA_Q_NAME, b"SYSTEM.DEFAULT.LOCAL.QUEUE"),
                               pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL),
                               pcf.CFIN(4242, 1)])),
     CMQC.MQFMT_ADMIN, CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR),
])
def test_malformed_pcf_gets_an_error_response(admin, data, fmt, reason):
    """Given a request that is not valid PCF, the server answers one MQCFC_LAST response with
    MQCC_FAILED and an MQRCCF_* reason, and goes on serving."""
    md = admin.send(data, fmt=fmt)
    r = admin.collect(md)
    assert len(r) == 1
    h = r[0].header
    assert (h.CompCode, h.Control) == (CMQC.MQCC_FAILED, CMQCFC.MQCFC_LAST)
    assert h.Reason == reason
    assert admin.command(CMQCFC.MQCMD_PING_Q_MGR, [])[0].header.CompCode == CMQC.MQCC_OK


def test_pass_correl_id_report_option(admin):
    """Given MQRO_PASS_CORREL_ID, the reply carries the request's CorrelId."""
    correl = b"MYCORREL".ljust(24, b"\0")
    md = admin.send(pcf.build(pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_PING_Q_MGR), [])),
                    report=CMQC.MQRO_PASS_CORREL_ID, correl=correl)
    assert admin.collect(md, match=correl)[0].header.CompCode == CMQC.MQCC_OK


def test_stopped_command_server_leaves_requests_unanswered(qmgr):
    """spec: operations-dlq-clusters 7.7 - no command server, no reply; strmqcsv's work
    (start_command_server) then answers the waiting request."""
    qm, _, root = qmgr
    admin = Admin(qm)
    md = admin.send(pcf.build(pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_PING_Q_MGR), [])))
    with pytest.raises(mqpy.MQMIError) as e:
        admin.replies.get(None, MD(CorrelId=md.MsgId),
                          GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=300,
                              MatchOptions=CMQC.MQMO_MATCH_CORREL_ID))
    assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    start_command_server("QM1", root)
    assert admin.collect(md)[0].header.CompCode == CMQC.MQCC_OK


def test_refresh_security_and_sslrkeyc_in_pcf(admin):
    """Given MQCMD_REFRESH_SECURITY with each distributed SecurityType (and none), then each
    answers MQCC_OK (no channel initiator runs here, so nothing holds a key repository);
    MQSECTYPE_CLASSES (z/OS only) is MQRCCF_PARM_VALUE_ERROR. MQCMD_INQUIRE_Q_MGR shows
    MQIA_SSL_RESET_COUNT (SSLRKEYC, 0 by default)."""
    for params in ([], [pcf.CFIN(CMQCFC.MQIACF_SECURITY_TYPE, CMQCFC.MQSECTYPE_SSL)],
                   [pcf.CFIN(CMQCFC.MQIACF_SECURITY_TYPE, CMQCFC.MQSECTYPE_CONNAUTH)],
                   [pcf.CFIN(CMQCFC.MQIACF_SECURITY_TYPE, CMQCFC.MQSECTYPE_AUTHSERV)]):
        [r] = admin.command(CMQCFC.MQCMD_REFRESH_SECURITY, params)
        assert r.header.CompCode == CMQC.MQCC_OK, r.header.Reason
    [bad] = admin.command(CMQCFC.MQCMD_REFRESH_SECURITY, [
        pcf.CFIN(CMQCFC.MQIACF_SECURITY_TYPE, CMQCFC.MQSECTYPE_CLASSES)])
    assert bad.header.Reason == CMQCFC.MQRCCF_PARM_VALUE_ERROR
    [qmgr] = admin.command(CMQCFC.MQCMD_INQUIRE_Q_MGR, [])
    assert qmgr.to_dict()[CMQC.MQIA_SSL_RESET_COUNT] == 0
