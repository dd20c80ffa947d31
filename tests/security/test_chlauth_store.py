"""CHLAUTH records kept by the queue manager: defaults, SET / DISPLAY, restart, RUNCHECK."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQCFC, inprocess
from mqpy.security.policy import (
    check_channel,
    chlauth_records,
    display_chlauth,
    install,
    set_chlauth,
)


def test_install_creates_ibm_default_records(secured):
    """Given a newly secured queue manager, then DISPLAY CHLAUTH(*) shows IBM's three default
    records with IBM's descriptions."""
    shown = display_chlauth(secured.eng, "*")
    assert {(r["CHLAUTH"], r["TYPE"]) for r in shown} == {
        ("SYSTEM.ADMIN.SVRCONN", "ADDRESSMAP"), ("SYSTEM.*", "ADDRESSMAP"),
        ("*", "BLOCKUSER")}
    blockuser = next(r for r in shown if r["TYPE"] == "BLOCKUSER")
    assert blockuser["USERLIST"] == ["*MQADMIN"]
    assert blockuser["DESCR"] == "Default rule to disallow privileged users"


def test_set_chlauth_is_kept_across_restart_and_removed_defaults_stay_removed(secured):
    """Given SET CHLAUTH for APP.* and the removal of the SYSTEM.* default, when the queue
    manager restarts and security is installed again, then the new record is there and the
    removed default is not put back."""
    eng = secured.eng
    assert set_chlauth(eng, "APP.*", {"TYPE": "ADDRESSMAP", "ADDRESS": "10.*",
                                      "USERSRC": "MAP", "MCAUSER": "app"}).startswith("AMQ8877I")
    set_chlauth(eng, "SYSTEM.*", {"TYPE": "ADDRESSMAP", "ADDRESS": "*", "ACTION": "REMOVE"})
    inprocess.stop("QMSEC", secured.root)
    eng = inprocess.start("QMSEC", secured.root)
    install(eng, eng.qmdir)
    profiles = {(r.profile, r.type) for r in chlauth_records(eng)}
    assert ("APP.*", "ADDRESSMAP") in profiles
    assert ("SYSTEM.*", "ADDRESSMAP") not in profiles


def test_set_chlauth_errors_carry_mqrccf_reasons(secured):
    with pytest.raises(mqpy.MQMIError) as exc:
        set_chlauth(secured.eng, "SYSTEM.*", {"TYPE": "ADDRESSMAP", "ADDRESS": "*",
                                              "USERSRC": "NOACCESS"})
    assert exc.value.reason == CMQCFC.MQRCCF_CHLAUTH_ALREADY_EXISTS


def test_check_channel_uses_the_stored_records_and_the_users_privilege(secured):
    """Given the defaults, then the owner (mqm) is blocked on any channel, alice runs as
    herself on an application channel, and SYSTEM.DEF.SVRCONN is closed."""
    owner = next(u for u, e in secured.users.load().items() if "mqm" in e.groups)
    d = check_channel(secured.eng, "APP.SVRCONN", "127.0.0.1", client_user=owner)
    assert not d.allowed and d.msgid == "AMQ9776E"
    assert check_channel(secured.eng, "APP.SVRCONN", "127.0.0.1", client_user="alice").user \
        == "alice"
    assert not check_channel(secured.eng, "SYSTEM.DEF.SVRCONN", "127.0.0.1",
                             client_user="alice").allowed


def test_chlauth_disabled_lets_everything_in(secured):
    secured.eng.alter_qmgr({"CHLAUTH": "DISABLED"})
    d = check_channel(secured.eng, "SYSTEM.DEF.SVRCONN", "127.0.0.1", client_user="alice")
    assert d.allowed and d.user == "alice"


def test_display_runcheck(secured):
    """DISPLAY CHLAUTH(APP.SVRCONN) MATCH(RUNCHECK) ADDRESS(..) CLNTUSER(alice) answers
    IBM's AMQ9783I line; a generic name is refused."""
    line = display_chlauth(secured.eng, "APP.SVRCONN", {"MATCH": "RUNCHECK",
                                                        "ADDRESS": "192.0.2.1",
                                                        "CLNTUSER": "alice"})
    assert line == "AMQ9783I: Channel will run using MCAUSER('alice')."
    with pytest.raises(mqpy.MQMIError) as exc:
        display_chlauth(secured.eng, "APP.*", {"MATCH": "RUNCHECK", "ADDRESS": "192.0.2.1"})
    assert exc.value.reason == CMQCFC.MQRCCF_CHLAUTH_RUNCHECK_ERROR
