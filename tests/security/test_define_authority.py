"""DEFINE's authorities as IBM's command server checks them: crt on the object type, and dsp
on the LIKE object when one is named, else on the system default object of that type
(SYSTEM.DEFAULT.LOCAL.QUEUE, SYSTEM.DEF.SVRCONN, ...) that the definition starts from.
IBM: "For DEFINE commands, MQZAO_DISPLAY authority is also needed for the LIKE object if one
is specified, or on the appropriate SYSTEM.DEFAULT.xxx object if LIKE is omitted"."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, pcf
from mqpy.security.commands import command_needs, default_object
from mqpy.security.policy import set_authority

from .requester import q_name, reason

pytestmark = pytest.mark.timeout(60)


def _needs(objtype, name, params=None, *, exists=False, flags=frozenset()):
    got = command_needs("DEFINE", objtype, name, params or {}, flags, generic=False,
                        qmgr="QM", exists=exists)
    return [(n.objtype, n.name, set(n.auths)) for n in got[1:]]


@pytest.mark.parametrize(("objtype", "params", "default"), [
    ("QLOCAL", {}, "SYSTEM.DEFAULT.LOCAL.QUEUE"),
    ("QMODEL", {}, "SYSTEM.DEFAULT.MODEL.QUEUE"),
    ("QALIAS", {}, "SYSTEM.DEFAULT.ALIAS.QUEUE"),
    ("QREMOTE", {}, "SYSTEM.DEFAULT.REMOTE.QUEUE"),
    ("PROCESS", {}, "SYSTEM.DEFAULT.PROCESS"),
    ("NAMELIST", {}, "SYSTEM.DEFAULT.NAMELIST"),
    ("CHANNEL", {"CHLTYPE": "SDR"}, "SYSTEM.DEF.SENDER"),
    ("CHANNEL", {"CHLTYPE": "SVRCONN"}, "SYSTEM.DEF.SVRCONN"),
    ("CHANNEL", {"CHLTYPE": "CLUSRCVR"}, "SYSTEM.DEF.CLUSRCVR"),
    ("LISTENER", {"TRPTYPE": "TCP"}, "SYSTEM.DEFAULT.LISTENER.TCP"),
    ("LISTENER", {"TRPTYPE": "LU62"}, "SYSTEM.DEFAULT.LISTENER.LU62"),
    ("SERVICE", {}, "SYSTEM.DEFAULT.SERVICE"),
    ("AUTHINFO", {"AUTHTYPE": "IDPWOS"}, "SYSTEM.DEFAULT.AUTHINFO.IDPWOS"),
    ("AUTHINFO", {"AUTHTYPE": "CRLLDAP"}, "SYSTEM.DEFAULT.AUTHINFO.CRLLDAP"),
    ("TOPIC", {}, "SYSTEM.DEFAULT.TOPIC"),
])
def test_default_object_of_each_type(objtype, params, default):
    assert default_object(objtype, params) == default


def test_define_without_like_needs_dsp_on_the_default_object():
    """The table: crt on the new name, then dsp on the default object (a CLNTCONN's as type
    clntconn); with LIKE, dsp on the LIKE object instead."""
    assert _needs("QLOCAL", "APP.Q") == [("queue", "APP.Q", {"crt"}),
                                         ("queue", "SYSTEM.DEFAULT.LOCAL.QUEUE", {"dsp"})]
    assert _needs("CHANNEL", "C1", {"CHLTYPE": "CLNTCONN"}) == [
        ("clntconn", "C1", {"crt"}), ("clntconn", "SYSTEM.DEF.CLNTCONN", {"dsp"})]
    assert _needs("QLOCAL", "APP.Q", {"LIKE": "Q1"}) == [("queue", "APP.Q", {"crt"}),
                                                         ("queue", "Q1", {"dsp"})]


def test_define_refused_without_dsp_on_the_default_queue(carol):
    """Given carol with crt on APP.** but no dsp on SYSTEM.DEFAULT.LOCAL.QUEUE, when she
    creates APP.NEW (PCF) or defines APP.ESC (escape), then 2035 / AMQ8135E, AMQ8077W names
    the default queue and dsp, and no queue exists; once she holds dsp on it both are
    created."""
    eng, req = carol.eng, carol.requester
    set_authority(eng, "queue", "APP.**", ["+crt"], principal="carol")
    create = [q_name("APP.NEW"), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL)]
    assert reason(req.command(CMQCFC.MQCMD_CREATE_Q, create)) == CMQC.MQRC_NOT_AUTHORIZED
    assert req.mqsc_text("DEFINE QLOCAL(APP.ESC)") == "AMQ8135E: Not authorized."
    log = " ".join(carol.errors().split())
    assert "access object 'SYSTEM.DEFAULT.LOCAL.QUEUE'. The following authorities were " \
           "needed: dsp" in log, log
    assert eng.lookup("QLOCAL", "APP.NEW") is None and eng.lookup("QLOCAL", "APP.ESC") is None
    set_authority(eng, "queue", "SYSTEM.DEFAULT.LOCAL.QUEUE", ["+dsp"], principal="carol")
    assert req.command(CMQCFC.MQCMD_CREATE_Q, create)[-1].header.CompCode == CMQC.MQCC_OK
    assert "AMQ8006I" in req.mqsc_text("DEFINE QLOCAL(APP.ESC)")
    assert eng.lookup("QLOCAL", "APP.NEW") is not None
    assert eng.lookup("QLOCAL", "APP.ESC") is not None


def test_define_channel_needs_dsp_on_its_default_channel(carol):
    """Given carol with crt on channels APP.** and dsp on SYSTEM.DEF.SENDER only, then a
    SVRCONN is refused (its default is SYSTEM.DEF.SVRCONN) and a SDR is defined."""
    eng, req = carol.eng, carol.requester
    set_authority(eng, "channel", "APP.**", ["+crt"], principal="carol")
    set_authority(eng, "channel", "SYSTEM.DEF.SENDER", ["+dsp"], principal="carol")
    assert req.mqsc_text("DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN)") == \
        "AMQ8135E: Not authorized."
    assert "AMQ8135E" not in req.mqsc_text(
        "DEFINE CHANNEL(APP.SDR) CHLTYPE(SDR) CONNAME('127.0.0.1(1414)') XMITQ(Q1)")
    assert eng.lookup("CHANNEL", "APP.SVRCONN") is None
    assert eng.lookup("CHANNEL", "APP.SDR") is not None


def test_define_replace_of_an_existing_object_needs_chg_not_crt(carol):
    """IBM: DEFINE ... REPLACE needs chg when the object exists (no crt), and is checked as
    a DEFINE without REPLACE (crt) when it does not. Given carol with chg on Q1 and dsp on
    the default queue but no crt at all, DEFINE QLOCAL(Q1) REPLACE changes Q1, while
    DEFINE QLOCAL(Q9) REPLACE (a new queue) is refused."""
    eng, req = carol.eng, carol.requester
    set_authority(eng, "queue", "Q*", ["+chg"], principal="carol")
    set_authority(eng, "queue", "SYSTEM.DEFAULT.LOCAL.QUEUE", ["+dsp"], principal="carol")
    assert "AMQ8135E" not in req.mqsc_text("DEFINE QLOCAL(Q1) MAXDEPTH(33) REPLACE")
    assert eng.lookup("QLOCAL", "Q1").attributes["MAXDEPTH"] == 33
    assert req.mqsc_text("DEFINE QLOCAL(Q9) REPLACE") == "AMQ8135E: Not authorized."
    assert eng.lookup("QLOCAL", "Q9") is None
    assert _needs("QLOCAL", "Q1", exists=True, flags=frozenset({"REPLACE"})) == [
        ("queue", "Q1", {"chg"}), ("queue", "SYSTEM.DEFAULT.LOCAL.QUEUE", {"dsp"})]
    assert _needs("QLOCAL", "Q9", flags=frozenset({"REPLACE"})) == [
        ("queue", "Q9", {"crt"}), ("queue", "SYSTEM.DEFAULT.LOCAL.QUEUE", {"dsp"})]
