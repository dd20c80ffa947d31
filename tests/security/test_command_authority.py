"""The command server checks the requester's object authorities (dsp, crt, chg, dlt, ctrl).

A user outside mqm (carol, in the queue manager's user file) with +connect and +put on the
command queue sends PCF and MQCMD_ESCAPE requests through her own connection, so the MQMD
UserIdentifier is the one the queue manager fills in; the command server runs as the owner.
"""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, pcf
from mqpy.cmdserver import COMMAND_QUEUE
from mqpy.security.commands import PRIVILEGED, command_needs
from mqpy.security.policy import set_authority
from mqpy.structs.tables import MD, PMO

from .requester import Requester, q_name, reason

pytestmark = pytest.mark.timeout(60)

# ------------------------------------------------------------------ the pure table


def test_command_table():
    """DISPLAY dsp, DEFINE crt (+dsp on LIKE), ALTER chg, DELETE dlt, CLEAR clr, START
    CHANNEL ctrl, RESET CHANNEL ctrlx, ALTER QMGR chg; every command dsp on the queue
    manager; what the table does not know needs mqm."""
    def needs(verb, obj, name, params=None, flags=frozenset(), generic=False):
        got = command_needs(verb, obj, name, params or {}, flags, generic=generic, qmgr="QM")
        return got if got is None else [(n.objtype, n.name, set(n.auths)) for n in got]

    base = ("qmgr", "QM", {"dsp"})
    assert needs("DISPLAY", "QLOCAL", "Q1") == [base, ("queue", "Q1", {"dsp"})]
    assert needs("DISPLAY", "QUEUE", "Q*", generic=True) == [base]
    assert needs("DEFINE", "QLOCAL", "Q2", {"LIKE": "Q1"}) == [
        base, ("queue", "Q2", {"crt"}), ("queue", "Q1", {"dsp"})]
    assert needs("ALTER", "CHANNEL", "C1") == [base, ("channel", "C1", {"chg"})]
    assert needs("DELETE", "QALIAS", "A") == [base, ("queue", "A", {"dlt"})]
    assert needs("CLEAR", "QLOCAL", "Q1") == [base, ("queue", "Q1", {"clr"})]
    assert needs("START", "CHANNEL", "C1") == [base, ("channel", "C1", {"ctrl"})]
    assert needs("RESET", "CHANNEL", "C1") == [base, ("channel", "C1", {"ctrlx"})]
    assert needs("ALTER", "QMGR", None) == [base, ("qmgr", "QM", {"chg"})]
    assert needs("PING", "QMGR", None) == [base, base]
    assert needs("DISPLAY", "CHSTATUS", "*", generic=True) == [base]  # rows filtered
    assert needs("DISPLAY", "LSSTATUS", "L1") == [base, ("listener", "L1", {"dsp"})]
    assert needs("DISPLAY", "SVSTATUS", "S1") == [base, ("service", "S1", {"dsp"})]
    assert needs("START", "SERVICE", "S1") == [base, ("service", "S1", {"ctrl"})]
    assert needs("DISPLAY", "QMSTATUS", None) == [base, base]
    assert needs("RESET", "QMGR", None) == [base, ("qmgr", "QM", {"chg"})]
    assert needs("STOP", "CHINIT", None) is PRIVILEGED


# ------------------------------------------------------------------ through the command server


def test_generic_inquiry_shows_only_displayable_queues(carol):
    """Given carol has +dsp on PAY.* only, when she inquires queue names * (PCF) and
    DISPLAY QLOCAL(*) (escape), then only PAY.IN and PAY.OUT are shown; a specific inquiry
    of Q1 is refused with 2035."""
    set_authority(carol.eng, "queue", "PAY.*", ["+dsp"], principal="carol")
    (names,) = carol.requester.command(CMQCFC.MQCMD_INQUIRE_Q_NAMES, [q_name("*")])
    assert names.header.CompCode == CMQC.MQCC_OK
    assert {n.decode().strip() for n in names.get(CMQCFC.MQCACF_Q_NAMES)} == {"PAY.IN",
                                                                            "PAY.OUT"}
    shown = carol.requester.mqsc("DISPLAY QLOCAL(*)")
    text = "\n".join(m.get(CMQCFC.MQCACF_ESCAPE_TEXT).decode() for m in shown)
    assert "QUEUE(PAY.IN)" in text and "QUEUE(PAY.OUT)" in text
    assert "Q1" not in text and "SYSTEM.ADMIN" not in text
    refused = carol.requester.command(CMQCFC.MQCMD_INQUIRE_Q, [q_name("Q1")])
    assert refused[-1].header.CompCode == CMQC.MQCC_FAILED
    assert reason(refused) == CMQC.MQRC_NOT_AUTHORIZED


def test_define_needs_crt(carol):
    """Given carol without crt, when she creates APP.NEW (PCF), then 2035, AMQ8077W in the
    error log and no queue; after setmqaut -t queue -n 'APP.**' +crt (and dsp on the
    default queue it starts from, test_define_authority) it is created."""
    create = [q_name("APP.NEW"), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL)]
    assert reason(carol.requester.command(CMQCFC.MQCMD_CREATE_Q, create)) == \
        CMQC.MQRC_NOT_AUTHORIZED
    assert carol.eng.lookup("QLOCAL", "APP.NEW") is None
    assert "Entity 'carol' has insufficient authority to access object 'APP.NEW'" in \
        " ".join(carol.errors().split())
    set_authority(carol.eng, "queue", "APP.**", ["+crt"], principal="carol")
    set_authority(carol.eng, "queue", "SYSTEM.DEFAULT.LOCAL.QUEUE", ["+dsp"],
                  principal="carol")
    ok = carol.requester.command(CMQCFC.MQCMD_CREATE_Q, create)
    assert ok[-1].header.CompCode == CMQC.MQCC_OK
    assert carol.eng.lookup("QLOCAL", "APP.NEW") is not None


def test_escape_define_refused_with_amq8135(carol):
    """Given carol without crt, when she sends DEFINE QLOCAL(ESC.Q) as an escape, then the
    answer is IBM's AMQ8135E line and the queue does not exist."""
    (answer,) = carol.requester.mqsc("DEFINE QLOCAL(ESC.Q)")
    assert answer.header.CompCode == CMQC.MQCC_FAILED
    assert answer.get(CMQCFC.MQCACF_ESCAPE_TEXT) == b"AMQ8135E: Not authorized."
    assert carol.eng.lookup("QLOCAL", "ESC.Q") is None


def test_alter_and_delete_need_chg_and_dlt(carol):
    """Given carol without chg / dlt on Q1, ALTER and DELETE are refused with 2035; with
    +chg the change is made, with +dlt the queue is deleted."""
    change = [q_name("Q1"), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL),
              pcf.CFIN(CMQC.MQIA_MAX_Q_DEPTH, 77)]
    delete = [q_name("Q1")]
    req = carol.requester
    assert reason(req.command(CMQCFC.MQCMD_CHANGE_Q, change)) == CMQC.MQRC_NOT_AUTHORIZED
    assert reason(req.command(CMQCFC.MQCMD_DELETE_Q, delete)) == CMQC.MQRC_NOT_AUTHORIZED
    assert carol.eng.lookup("QLOCAL", "Q1") is not None
    set_authority(carol.eng, "queue", "Q1", ["+chg"], principal="carol")
    assert req.command(CMQCFC.MQCMD_CHANGE_Q, change)[-1].header.CompCode == CMQC.MQCC_OK
    assert carol.eng.lookup("QLOCAL", "Q1").attributes["MAXDEPTH"] == 77
    assert reason(req.command(CMQCFC.MQCMD_DELETE_Q, delete)) == CMQC.MQRC_NOT_AUTHORIZED
    set_authority(carol.eng, "queue", "Q1", ["+dlt"], principal="carol")
    assert req.command(CMQCFC.MQCMD_DELETE_Q, delete)[-1].header.CompCode == CMQC.MQCC_OK
    assert carol.eng.lookup("QLOCAL", "Q1") is None


def test_start_channel_needs_ctrl(carol):
    """Given a sender channel and carol without ctrl on it, START CHANNEL is refused with
    2035; with +ctrl the command is no longer refused for authority (it then fails or
    succeeds on its own merits: no channel initiator runs here)."""
    carol.eng.define("CHANNEL", "TO.X", {"CHLTYPE": "SDR", "CONNAME": "127.0.0.1(1)",
                                         "XMITQ": "Q1"})
    start = [pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, b"TO.X")]
    assert reason(carol.requester.command(CMQCFC.MQCMD_START_CHANNEL, start)) == \
        CMQC.MQRC_NOT_AUTHORIZED
    set_authority(carol.eng, "channel", "TO.X", ["+ctrl"], principal="carol")
    assert reason(carol.requester.command(CMQCFC.MQCMD_START_CHANNEL, start)) != \
        CMQC.MQRC_NOT_AUTHORIZED


def test_without_dsp_on_the_queue_manager_nothing_is_served(carol):
    """IBM: every PCF command needs dsp on the queue manager; without it even Ping Queue
    Manager is refused."""
    set_authority(carol.eng, "qmgr", carol.eng.name, ["-dsp"], principal="carol")
    assert reason(carol.requester.command(CMQCFC.MQCMD_PING_Q_MGR, [])) == \
        CMQC.MQRC_NOT_AUTHORIZED


def test_user_identifier_cannot_be_forged_without_setid(carol):
    """Given carol without setid on the command queue, when she puts a request with
    MQPMO_SET_IDENTITY_CONTEXT naming the owner, then the put itself is refused (2035)."""
    owner = next(u for u, e in carol.users.load().items() if "mqm" in e.groups)
    with pytest.raises(mqpy.MQMIError) as exc:
        carol.requester.send(CMQCFC.MQCMD_PING_Q_MGR, [],
                             PMO(Options=CMQC.MQPMO_SET_IDENTITY_CONTEXT),
                             MD(UserIdentifier=owner.encode()))
    assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED


def test_owner_is_unaffected(carol):
    """Given the owner (in mqm) with no authority records at all, its requests are served:
    it defines a queue and sees every queue."""
    owner = next(u for u, e in carol.users.load().items() if "mqm" in e.groups)
    admin = Requester(carol.eng.connect("admin", user=owner))
    assert admin.command(CMQCFC.MQCMD_CREATE_Q, [
        q_name("OWNER.Q"), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL)])[-1].header.CompCode \
        == CMQC.MQCC_OK
    (names,) = admin.command(CMQCFC.MQCMD_INQUIRE_Q_NAMES, [q_name("*")])
    assert {"Q1", "OWNER.Q", COMMAND_QUEUE} <= {
        n.decode().strip() for n in names.get(CMQCFC.MQCACF_Q_NAMES)}
