"""Connection authentication (CONNAUTH, CHCKLOCL / CHCKCLNT) on an embedded queue manager."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from mqpy.security.policy import DEFAULT_AUTHINFO, set_authority

ALICE_PW = "alice-pw-1"


@pytest.fixture
def alice(secured):
    secured.users.add("alice", ALICE_PW, ["apps"])
    set_authority(secured.eng, "qmgr", secured.eng.name, ["+connect"], principal="alice")
    return secured


def refused(call) -> None:
    with pytest.raises(mqpy.MQMIError) as exc:
        call()
    assert exc.value.comp == CMQC.MQCC_FAILED
    assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED


def set_check(secured, **attrs):
    secured.eng.alter("AUTHINFO", DEFAULT_AUTHINFO, attrs)


def test_install_makes_ibm_connauth_defaults(secured):
    """Given a new secured queue manager, then QMGR CONNAUTH names
    SYSTEM.DEFAULT.AUTHINFO.IDPWOS with CHCKLOCL(OPTIONAL) CHCKCLNT(REQDADM)."""
    assert secured.eng.catalog.qmgr["CONNAUTH"] == DEFAULT_AUTHINFO
    ai = secured.eng.lookup("AUTHINFO", DEFAULT_AUTHINFO).attributes
    assert (ai["AUTHTYPE"], ai["CHCKLOCL"], ai["CHCKCLNT"]) == ("IDPWOS", "OPTIONAL",
                                                                 "REQDADM")


def test_right_password_connects(alice):
    """Given alice with +connect, when she connects with her password, then MQCONN works."""
    conn = alice.eng.connect("app", user="alice", password=ALICE_PW)
    assert conn.user.strip() == b"alice"
    conn.disconnect()


def test_wrong_password_is_2035_and_logs_amq5534(alice):
    """Given alice, when she connects with a wrong password, then 2035 and an AMQ5534E entry
    naming her in the queue manager's error log."""
    refused(lambda: alice.eng.connect("payroll", user="alice", password="nope"))
    log = alice.errors()
    assert "AMQ5534E: User ID 'alice' authentication failed" in log
    assert "CommentInsert1(alice)" in log


def test_unknown_user_is_refused(alice):
    refused(lambda: alice.eng.connect("app", user="mallory", password=ALICE_PW))


def test_chcklocl_required_needs_a_password(alice):
    """Given CHCKLOCL(REQUIRED), when alice connects in bindings without a password, then
    2035; with it, she connects."""
    set_check(alice, CHCKLOCL="REQUIRED")
    refused(lambda: alice.eng.connect("app", user="alice"))
    alice.eng.connect("app", user="alice", password=ALICE_PW).disconnect()


def test_chcklocl_optional_checks_only_a_given_password(alice):
    """Given CHCKLOCL(OPTIONAL), a connection without password is an asserted identity; a
    given password must be right."""
    alice.eng.connect("app", user="alice").disconnect()
    refused(lambda: alice.eng.connect("app", user="alice", password="bad"))


def test_chcklocl_none_ignores_passwords(alice):
    set_check(alice, CHCKLOCL="NONE")
    alice.eng.connect("app", user="alice", password="bad").disconnect()


def test_chckclnt_reqdadm_applies_to_client_connections(alice):
    """Given CHCKCLNT(REQDADM), when a privileged user connects over a channel without a
    password, then 2035; a non-privileged client may connect without one; bindings
    connections follow CHCKLOCL instead."""
    owner = next(u for u, e in alice.users.load().items() if "mqm" in e.groups)
    refused(lambda: alice.eng.connect("c", user=owner, channel="APP.SVRCONN"))
    alice.eng.connect("c", user="alice", channel="APP.SVRCONN").disconnect()
    alice.eng.connect("c", user=owner).disconnect()  # bindings: CHCKLOCL(OPTIONAL)


def test_chckclnt_required(alice):
    set_check(alice, CHCKCLNT="REQUIRED")
    refused(lambda: alice.eng.connect("c", user="alice", channel="APP.SVRCONN"))
    alice.eng.connect("c", user="alice", password=ALICE_PW, channel="APP.SVRCONN").disconnect()


def test_connauth_naming_no_authinfo_refuses(alice):
    """Given QMGR CONNAUTH naming an AUTHINFO that does not exist, then every connection is
    refused (fail closed) and logged."""
    alice.eng.alter_qmgr({"CONNAUTH": "NO.SUCH.AUTHINFO"})
    refused(lambda: alice.eng.connect("app", user="alice", password=ALICE_PW))


def test_blank_connauth_means_no_authentication(alice):
    alice.eng.alter_qmgr({"CONNAUTH": ""})
    alice.eng.connect("app", user="alice", password="bad").disconnect()


def test_authenticated_user_without_connect_authority_is_2035(secured):
    """Given bob with a right password but no +connect, then 2035 and AMQ8077W."""
    secured.users.add("bob", "bob-pw")
    refused(lambda: secured.eng.connect("app", user="bob", password="bob-pw"))
    assert "AMQ8077W: Entity 'bob' has insufficient authority" in secured.errors()


# ------------------------------------------------------------------ adopting the MQCSP user


@pytest.fixture
def admin2(alice):
    """alice plus admin2, a member of mqm (every authority) with a password."""
    alice.users.add("admin2", "admin2-pw", ["mqm"])
    return alice


def _owner() -> bytes:
    from mqpy.security.policy import owner

    return owner()[:12].encode("latin-1")


@pytest.mark.parametrize("how", ["CHCKLOCL(NONE)", "CONNAUTH blank"])
def test_unchecked_mqcsp_user_is_not_adopted(admin2, how):
    """Given no password checking (CHCKLOCL(NONE), or QMGR CONNAUTH blank), when an
    application connects with admin2's user id and a wrong password, then it connects as
    itself, never as admin2: IBM adopts an MQCSP user only after authenticating it."""
    if how == "CONNAUTH blank":
        admin2.eng.alter_qmgr({"CONNAUTH": ""})
    else:
        set_check(admin2, CHCKLOCL="NONE")
    conn = admin2.eng.connect("app", user="admin2", password="WRONG")
    assert conn.user.strip() == _owner()
    conn.disconnect()


def test_unchecked_mqcsp_user_is_not_adopted_on_a_channel(admin2):
    """Given CHCKCLNT(NONE), when a SVRCONN connects for alice with admin2's MQCSP and a
    wrong password, then the connection runs as alice."""
    set_check(admin2, CHCKCLNT="NONE")
    conn = admin2.eng.connect("c", user="admin2", password="WRONG", channel="APP.SVRCONN",
                              asserted="alice")
    assert conn.user.strip() == b"alice"
    conn.disconnect()


def test_adoptctx_no_authenticates_but_keeps_the_asserted_user(admin2):
    """Given ADOPTCTX(NO), when alice's application gives admin2's right password, then the
    password is checked (a wrong one is 2035) but the connection runs as alice."""
    set_check(admin2, ADOPTCTX="NO")
    refused(lambda: admin2.eng.connect("app", user="admin2", password="WRONG",
                                       asserted="alice"))
    conn = admin2.eng.connect("app", user="admin2", password="admin2-pw", asserted="alice")
    assert conn.user.strip() == b"alice"
    conn.disconnect()


def test_adoptctx_yes_adopts_the_authenticated_user(admin2):
    """Given ADOPTCTX(YES) (IBM's default), when alice's application gives admin2's right
    password, then the connection runs as admin2."""
    conn = admin2.eng.connect("app", user="admin2", password="admin2-pw", asserted="alice")
    assert conn.user.strip() == b"admin2"
    conn.disconnect()


def test_channel_user_derived_from_the_mqcsp_is_always_authenticated(admin2):
    """Given CHCKCLNT(NONE), when the channel initiator says the user it decided on came from
    the MQCSP (``adopted``), then the password is checked anyway: a wrong one is 2035."""
    set_check(admin2, CHCKCLNT="NONE")
    refused(lambda: admin2.eng.connect("c", user="admin2", password="WRONG",
                                       channel="APP.SVRCONN", asserted="admin2",
                                       adopted=True))


def test_mqcsp_user_that_is_not_a_user_id_is_refused(admin2):
    """Given a user id with embedded blanks ('alice' + 7 blanks + 'zz': 12 characters
    would read as alice), when it connects with alice's password, then 2035."""
    refused(lambda: admin2.eng.connect("app", user="alice" + " " * 7 + "zz",
                                       password=ALICE_PW))


# ------------------------------------------------------------------ FAILDLAY and threads


def test_failed_authentication_carries_faildlay(alice):
    """Given AUTHINFO FAILDLAY (IBM's default 1 second, here also 5), when a password is
    wrong, then the 2035 carries that delay for the server to wait before answering; a
    refusal for missing authority (not a failed password) carries none."""
    with pytest.raises(mqpy.MQMIError) as err:
        alice.eng.connect("app", user="alice", password="bad")
    assert err.value.fail_delay == 1
    set_check(alice, FAILDLAY=5)
    with pytest.raises(mqpy.MQMIError) as err:
        alice.eng.connect("app", user="alice", password="bad")
    assert err.value.fail_delay == 5
    alice.users.add("bob", "bob-pw")
    with pytest.raises(mqpy.MQMIError) as err:
        alice.eng.connect("app", user="bob", password="bob-pw")
    assert not hasattr(err.value, "fail_delay")


async def test_password_checks_have_threads_of_their_own(alice):
    """Given the bindings server with every worker thread of its shared pool taken, when an
    application connects with a password, then the check (scrypt) still runs and the
    connection is made: password checks use a small pool of their own, so a burst of them
    cannot hold the threads other applications' calls need, nor wait behind them."""
    import trio

    from mqpy import bindings
    from mqpy.bindings_listener import BindingsServer
    from mqpy.fap import mqiparams
    from mqpy.fap.userid import Credentials

    server = BindingsServer(alice.eng)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        for n in range(int(server.limiter.total_tokens)):
            await server.limiter.acquire_on_behalf_of(("held", n))
        with trio.fail_after(60):  # a guard against hanging, not a timing assertion
            conn = await trio.to_thread.run_sync(lambda: bindings.connect(
                "QMSEC", alice.root,
                security=mqiparams.ConnSecurity(Credentials("alice", ALICE_PW))),
                abandon_on_cancel=True)
        for n in range(int(server.limiter.total_tokens)):
            server.limiter.release_on_behalf_of(("held", n))  # MQDISC uses the shared pool
        await trio.to_thread.run_sync(conn.disconnect)
        nursery.cancel_scope.cancel()


# ------------------------------------------------------------------ who the peer is


def test_privilege_compares_whole_operating_system_names(alice, monkeypatch):
    """Given an owner whose name is longer than 12 characters, when another user shares its
    first 12, then that user is not privileged (may not connect on behalf of others)."""
    from mqpy.security import policy

    monkeypatch.setattr(policy, "_owner", lambda: "queuemanager1")
    assert policy.is_privileged(alice.eng.qmdir, "queuemanager1")
    assert not policy.is_privileged(alice.eng.qmdir, "queuemanager2")
    alice.users.add("mqadmin", None, ["mqm"])
    assert policy.is_privileged(alice.eng.qmdir, "mqadmin")
    assert not policy.is_privileged(alice.eng.qmdir, "mqadmin" + "x" * 10)


async def test_an_unidentified_bindings_peer_is_refused(alice, monkeypatch):
    """Given a bindings application whose user cannot be read from the socket, when it
    connects, then 2035 (and AMQ5534E): it is never trusted as the queue manager's owner."""
    import trio

    from mqpy import bindings, bindings_listener
    from mqpy.bindings_listener import BindingsServer

    monkeypatch.setattr(bindings_listener, "_peer_user", lambda sock: None)
    srv = BindingsServer(alice.eng)
    async with trio.open_nursery() as nursery:
        await nursery.start(srv.run)
        with trio.fail_after(60):  # a guard against hanging, not a timing assertion
            with pytest.raises(mqpy.MQMIError) as err:
                await trio.to_thread.run_sync(lambda: bindings.connect("QMSEC", alice.root),
                                              abandon_on_cancel=True)
        assert err.value.reason == CMQC.MQRC_NOT_AUTHORIZED
        nursery.cancel_scope.cancel()
    assert "AMQ5534E" in alice.errors()


def test_a_peer_without_a_user_name_is_its_uid(monkeypatch):
    """Given a peer uid with no passwd entry, then the bindings connection's user is the
    numeric uid (an unprivileged id), not nobody."""
    import socket

    from mqpy import bindings_listener

    def unknown(uid):
        raise KeyError(uid)

    monkeypatch.setattr(bindings_listener.pwd, "getpwuid", unknown)
    a, b = socket.socketpair(socket.AF_UNIX)
    try:
        import os

        assert bindings_listener._peer_user(a) == str(os.getuid())
    finally:
        a.close()
        b.close()
