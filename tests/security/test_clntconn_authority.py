"""A CLNTCONN channel's administration is judged against the clntconn object type, as IBM's
OAM does (``setmqaut -t clntconn``): DEFINE by the CHLTYPE given, ALTER / DELETE / DISPLAY
by the CHLTYPE of the channel defined under that name; authority on type channel does not
count for it, nor clntconn authority for the other channel types."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, pcf
from mqpy.security.commands import command_needs
from mqpy.security.policy import set_authority
from mqpy_cli.security import dspmqaut, setmqaut
from tests.security.conftest import QM
from tests.support.cli import run

from .requester import reason

pytestmark = pytest.mark.timeout(60)


def _needs(verb, name, params=None, *, chltype=None, flags=frozenset(), generic=False):
    got = command_needs(verb, "CHANNEL", name, params or {}, flags, generic=generic,
                        qmgr="QM", chltype=chltype, exists=chltype is not None)
    return [(n.objtype, n.name, set(n.auths)) for n in got[1:]]


def test_command_table_uses_clntconn_for_clntconn_channels():
    """DEFINE by the CHLTYPE given (LIKE and REPLACE too); ALTER, DELETE and DISPLAY by the
    CHLTYPE of the channel defined under that name, whatever the command says."""
    assert _needs("DEFINE", "C1", {"CHLTYPE": "CLNTCONN", "LIKE": "C0"}) == [
        ("clntconn", "C1", {"crt"}), ("clntconn", "C0", {"dsp"})]
    assert _needs("DEFINE", "C1", {"CHLTYPE": "CLNTCONN", "LIKE": "C0"}, chltype="CLNTCONN",
                  flags=frozenset({"REPLACE"})) == [
        ("clntconn", "C1", {"chg"}), ("clntconn", "C0", {"dsp"})]
    assert _needs("ALTER", "C1", {"CHLTYPE": "CLNTCONN"}, chltype="CLNTCONN") == [
        ("clntconn", "C1", {"chg"})]
    assert _needs("DELETE", "C1", chltype="CLNTCONN") == [("clntconn", "C1", {"dlt"})]
    assert _needs("DISPLAY", "C1", chltype="CLNTCONN") == [("clntconn", "C1", {"dsp"})]
    assert _needs("DELETE", "S1", chltype="SVRCONN") == [("channel", "S1", {"dlt"})]
    # the defined channel's type decides, not a CHLTYPE the command claims
    assert _needs("ALTER", "S1", {"CHLTYPE": "CLNTCONN"}, chltype="SVRCONN") == [
        ("channel", "S1", {"chg"})]


@pytest.fixture
def clntconn(carol):
    """A CLNTCONN CL.CONN and a SVRCONN CL.SVRCONN; carol holds dsp, chg and dlt on CL.*
    as type channel only."""
    eng = carol.eng
    eng.define("CHANNEL", "CL.CONN", {"CHLTYPE": "CLNTCONN", "CONNAME": "127.0.0.1(1414)",
                                      "QMNAME": "QM1"})
    eng.define("CHANNEL", "CL.SVRCONN", {"CHLTYPE": "SVRCONN"})
    set_authority(eng, "channel", "CL.*", ["+dsp", "+chg", "+dlt"], principal="carol")
    return carol


def _chl(name: str) -> pcf.Parameter:
    return pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, name.encode())


def test_channel_authority_does_not_cover_a_clntconn(clntconn):
    """Given carol with dsp/chg/dlt on CL.* as type channel, when she displays, alters and
    deletes the CLNTCONN CL.CONN, then each is refused (AMQ8135E, 2035) and the channel is
    unchanged; the SVRCONN CL.SVRCONN is hers to display; a generic DISPLAY CHANNEL(CL.*)
    shows only the SVRCONN."""
    req = clntconn.requester
    assert req.mqsc_text("DISPLAY CHANNEL(CL.CONN)") == "AMQ8135E: Not authorized."
    assert reason(req.command(CMQCFC.MQCMD_INQUIRE_CHANNEL, [_chl("CL.CONN")])) == \
        CMQC.MQRC_NOT_AUTHORIZED
    assert req.mqsc_text("ALTER CHANNEL(CL.CONN) CHLTYPE(CLNTCONN) DESCR('x')") == \
        "AMQ8135E: Not authorized."
    assert reason(req.command(CMQCFC.MQCMD_DELETE_CHANNEL, [_chl("CL.CONN")])) == \
        CMQC.MQRC_NOT_AUTHORIZED
    assert clntconn.eng.lookup("CHANNEL", "CL.CONN").attributes.get("DESCR", "") == ""
    assert "CHANNEL(CL.SVRCONN)" in req.mqsc_text("DISPLAY CHANNEL(CL.SVRCONN)")
    shown = req.mqsc_text("DISPLAY CHANNEL(CL.*)")
    assert "CHANNEL(CL.SVRCONN)" in shown and "CL.CONN" not in shown, shown


def test_clntconn_authority_allows_it(clntconn):
    """Given carol also granted dsp, chg, dlt on CL.* as type clntconn, then she sees,
    alters and finally deletes CL.CONN; clntconn authority alone does not let her delete
    the SVRCONN."""
    eng, req = clntconn.eng, clntconn.requester
    set_authority(eng, "channel", "CL.*", ["-dlt"], principal="carol")
    set_authority(eng, "clntconn", "CL.*", ["+dsp", "+chg", "+dlt"], principal="carol")
    assert "CHANNEL(CL.CONN)" in req.mqsc_text("DISPLAY CHANNEL(CL.*)")
    assert "AMQ8135E" not in req.mqsc_text(
        "ALTER CHANNEL(CL.CONN) CHLTYPE(CLNTCONN) DESCR('mine')")
    assert eng.lookup("CHANNEL", "CL.CONN").attributes["DESCR"] == "mine"
    assert reason(req.command(CMQCFC.MQCMD_DELETE_CHANNEL, [_chl("CL.SVRCONN")])) == \
        CMQC.MQRC_NOT_AUTHORIZED
    assert req.command(CMQCFC.MQCMD_DELETE_CHANNEL,
                       [_chl("CL.CONN")])[-1].header.CompCode == CMQC.MQCC_OK
    assert eng.lookup("CHANNEL", "CL.CONN") is None


def test_define_clntconn_needs_crt_on_clntconn(clntconn):
    """Given carol with crt on CL.** as type channel, DEFINE CHANNEL(CL.NEW)
    CHLTYPE(CLNTCONN) is refused; with crt on type clntconn it is no longer refused for
    crt."""
    eng, req = clntconn.eng, clntconn.requester
    set_authority(eng, "channel", "CL.**", ["+crt"], principal="carol")
    define = "DEFINE CHANNEL(CL.NEW) CHLTYPE(CLNTCONN) CONNAME('127.0.0.1(1414)') QMNAME(QM1)"
    assert req.mqsc_text(define) == "AMQ8135E: Not authorized."
    assert eng.lookup("CHANNEL", "CL.NEW") is None
    set_authority(eng, "clntconn", "CL.**", ["+crt"], principal="carol")
    set_authority(eng, "clntconn", "SYSTEM.DEF.CLNTCONN", ["+dsp"], principal="carol")
    assert "AMQ8135E" not in req.mqsc_text(define)
    assert eng.lookup("CHANNEL", "CL.NEW") is not None


def test_setmqaut_and_dspmqaut_accept_clntconn(secured):
    """setmqaut -t clntconn grants the clntconn authorities (dsp chg dlt crt), refuses an
    MQI one such as +put (rc 151), and dspmqaut -t clntconn lists what was granted."""
    secured.users.add("dave", "dpw")
    r = run(setmqaut, "-m", QM, "-t", "clntconn", "-n", "CL.**", "-p", "dave", "+dsp",
            "+chg", root=secured.root)
    assert r.exit_code == 0, r.output
    bad = run(setmqaut, "-m", QM, "-t", "clntconn", "-n", "CL.**", "-p", "dave", "+put",
              root=secured.root)
    assert bad.exit_code == 151, bad.output
    shown = run(dspmqaut, "-m", QM, "-t", "clntconn", "-n", "CL.X", "-p", "dave",
                root=secured.root)
    assert shown.exit_code == 0, shown.output
    assert shown.output.split("\n")[1:3] == ["\tchg", "\tdsp"], shown.output
    other = run(dspmqaut, "-m", QM, "-t", "channel", "-n", "CL.X", "-p", "dave",
                root=secured.root)
    assert "\tnone" in other.output, other.output
