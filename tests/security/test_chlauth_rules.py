"""The channel authentication evaluator: IBM's documented examples, precedence and defaults.

Pure tests of :func:`mqpy.security.chlauth.evaluate` -- no queue manager, no sockets.
"""

from __future__ import annotations

import pytest

from mqpy import CMQCFC
from mqpy.errors import MQMIError
from mqpy.security.chlauth import (
    DEFAULT_RULES,
    ChlauthRecord,
    address_matches,
    apply_set,
    display,
    evaluate,
    runcheck_line,
)

ADMINS = {"mqm", "root"}


def is_admin(user: str) -> bool:
    return user in ADMINS


def rules_from(*commands: tuple[str, dict]) -> list[ChlauthRecord]:
    """Apply SET CHLAUTH commands in order, as runmqsc would."""
    recs: dict[tuple, ChlauthRecord] = {}
    for profile, params in commands:
        put, gone = apply_set(recs.values(), profile, params)
        for r in gone:
            recs.pop(r.key)
        for r in put:
            recs[r.key] = r
    return list(recs.values())


# ------------------------------------------------------------------ default rules


def test_default_rules_block_system_channels():
    """Given IBM's default records, when a client starts SYSTEM.DEF.SVRCONN, then it is
    blocked by the SYSTEM.* ADDRESSMAP NOACCESS rule (AMQ9777E)."""
    d = evaluate(DEFAULT_RULES, "SYSTEM.DEF.SVRCONN", "192.0.2.1", client_user="alice",
                 is_admin=is_admin)
    assert not d.allowed
    assert d.msgid == "AMQ9777E"
    assert d.reason_qualifier == CMQCFC.MQRQ_CHANNEL_BLOCKED_NOACCESS
    assert d.record.profile == "SYSTEM.*"


def test_default_rules_let_non_admin_use_system_admin_svrconn():
    """Given the defaults, when alice (not privileged) starts SYSTEM.ADMIN.SVRCONN, then the
    more specific SYSTEM.ADMIN.SVRCONN USERSRC(CHANNEL) rule wins and she runs as herself."""
    d = evaluate(DEFAULT_RULES, "SYSTEM.ADMIN.SVRCONN", "192.0.2.1", client_user="alice",
                 is_admin=is_admin)
    assert d.allowed and d.user == "alice" and d.msgid == "AMQ9783I"
    assert runcheck_line(d) == "AMQ9783I: Channel will run using MCAUSER('alice')."


def test_default_rules_block_privileged_users_everywhere():
    """Given the defaults, when a privileged user connects on any channel, then the
    '*' BLOCKUSER *MQADMIN rule blocks it (AMQ9776E)."""
    for channel in ("SYSTEM.ADMIN.SVRCONN", "APP.SVRCONN"):
        d = evaluate(DEFAULT_RULES, channel, "192.0.2.1", client_user="mqm", is_admin=is_admin)
        assert not d.allowed and d.msgid == "AMQ9776E"
        assert d.reason_qualifier == CMQCFC.MQRQ_CHANNEL_BLOCKED_USERID


def test_default_rules_block_receiver_running_as_the_channel_initiator():
    """Given the defaults and a RCVR channel with blank MCAUSER, when the channel initiator
    runs as mqm, then the channel is blocked: it would run privileged (IBM's 7.1 behaviour)."""
    d = evaluate(DEFAULT_RULES, "QM2.TO.QM1", "192.0.2.9", remote_qmgr="QM2",
                 default_user="mqm", is_admin=is_admin)
    assert not d.allowed and d.msgid == "AMQ9776E"
    ok = evaluate(DEFAULT_RULES, "QM2.TO.QM1", "192.0.2.9", remote_qmgr="QM2",
                  mcauser="qm2app", default_user="mqm", is_admin=is_admin)
    assert ok.allowed and ok.user == "qm2app"


# ------------------------------------------------------------------ IBM's examples


def test_only_an_address_range_may_use_a_channel():
    """IBM "Creating new CHLAUTH rules": APP2.CHAN blocked from everywhere but 9.95.100.1-5,
    whose connections run as mqapp2."""
    rules = rules_from(
        ("APP2.CHAN", {"TYPE": "ADDRESSMAP", "ADDRESS": "*", "USERSRC": "NOACCESS"}),
        ("APP2.CHAN", {"TYPE": "ADDRESSMAP", "ADDRESS": "9.95.100.1-5", "USERSRC": "MAP",
                       "MCAUSER": "mqapp2"}),
    )
    inside = evaluate(rules, "APP2.CHAN", "9.95.100.3", client_user="bob")
    assert inside.allowed and inside.user == "mqapp2"
    outside = evaluate(rules, "APP2.CHAN", "9.95.100.6", client_user="bob")
    assert not outside.allowed and outside.msgid == "AMQ9777E"


def test_block_all_users_but_allow_one_and_override_the_admin_rule():
    """IBM's MY.SVRCONN example: block everyone, override the *MQADMIN rule for this channel,
    allow johndoe by USERMAP USERSRC(CHANNEL)."""
    rules = [*DEFAULT_RULES, *rules_from(
        ("MY.SVRCONN", {"TYPE": "ADDRESSMAP", "ADDRESS": "*", "USERSRC": "NOACCESS"}),
        ("MY.SVRCONN", {"TYPE": "BLOCKUSER", "USERLIST": ("nobody",)}),
        ("MY.SVRCONN", {"TYPE": "USERMAP", "CLNTUSER": "johndoe", "USERSRC": "CHANNEL"}),
        ("MY.SVRCONN", {"TYPE": "USERMAP", "CLNTUSER": "mqm", "USERSRC": "CHANNEL"}),
    )]
    john = evaluate(rules, "MY.SVRCONN", "203.0.113.5", client_user="johndoe",
                    is_admin=is_admin)
    assert john.allowed and john.user == "johndoe"
    eve = evaluate(rules, "MY.SVRCONN", "203.0.113.5", client_user="eve", is_admin=is_admin)
    assert not eve.allowed and eve.msgid == "AMQ9777E"
    # the channel's own BLOCKUSER record replaces the '*' *MQADMIN one
    admin = evaluate(rules, "MY.SVRCONN", "203.0.113.5", client_user="mqm", is_admin=is_admin)
    assert admin.allowed and admin.user == "mqm"
    nobody = rules_from(("MY.SVRCONN", {"TYPE": "USERMAP", "CLNTUSER": "nobody",
                                        "USERSRC": "CHANNEL"}))
    blocked = evaluate([*rules, *nobody], "MY.SVRCONN", "203.0.113.5", client_user="nobody")
    assert not blocked.allowed and blocked.msgid == "AMQ9776E"


def test_qmgrmap_maps_partner_queue_managers():
    """Given QMGRMAP records for QM2 (MAP) and QM* (NOACCESS), when QM2 and QM3 start the
    receiver, then QM2 runs as its mapped user and QM3 is blocked; a client is not matched."""
    rules = rules_from(
        ("TO.QM1", {"TYPE": "QMGRMAP", "QMNAME": "QM2", "USERSRC": "MAP",
                    "MCAUSER": "qm2user"}),
        ("TO.QM1", {"TYPE": "QMGRMAP", "QMNAME": "QM*", "USERSRC": "NOACCESS"}),
    )
    assert evaluate(rules, "TO.QM1", "10.1.1.1", remote_qmgr="QM2").user == "qm2user"
    assert evaluate(rules, "TO.QM1", "10.1.1.1", remote_qmgr="QM3").msgid == "AMQ9777E"
    client = evaluate(rules, "TO.QM1", "10.1.1.1", client_user="carol")
    assert client.allowed and client.user == "carol"


def test_sslpeermap_maps_a_certificate_dn():
    """Given SSLPEERMAP SSLPEER('CN=payments*,O=Example') MAP MCAUSER(pay), when a partner
    presents 'CN=payments.prod, O=Example, C=GB', then it runs as pay; other DNs do not match,
    and an SSLCERTI needs a matching issuer."""
    rules = rules_from(
        ("PAY.SVRCONN", {"TYPE": "SSLPEERMAP", "SSLPEER": "CN=payments*,O=Example",
                         "USERSRC": "MAP", "MCAUSER": "pay"}),
        ("PAY.SVRCONN", {"TYPE": "SSLPEERMAP", "SSLPEER": "CN=audit", "SSLCERTI": "CN=CA1",
                         "USERSRC": "MAP", "MCAUSER": "audit"}),
    )
    d = evaluate(rules, "PAY.SVRCONN", "10.0.0.1", client_user="x",
                 ssl_peer="CN=payments.prod, O=Example, C=GB")
    assert d.user == "pay"
    assert evaluate(rules, "PAY.SVRCONN", "10.0.0.1", client_user="x",
                    ssl_peer="CN=other, O=Example").user == "x"
    assert evaluate(rules, "PAY.SVRCONN", "10.0.0.1", client_user="x", ssl_peer="CN=audit",
                    ssl_issuer="CN=CA2").user == "x"
    assert evaluate(rules, "PAY.SVRCONN", "10.0.0.1", client_user="x", ssl_peer="CN=audit",
                    ssl_issuer="CN=CA1").user == "audit"


def test_blockaddr_is_checked_before_anything_else():
    """Given BLOCKADDR ADDRLIST('10.0.0.1-20') and a MAP rule for every address, when
    10.0.0.7 connects, then it is refused (AMQ9782E, MQRQ_CHANNEL_BLOCKED_ADDRESS);
    10.0.0.21 gets the MAP rule."""
    rules = rules_from(
        ("*", {"TYPE": "BLOCKADDR", "ADDRLIST": ("10.0.0.1-20",)}),
        ("APP.*", {"TYPE": "ADDRESSMAP", "ADDRESS": "*", "USERSRC": "MAP", "MCAUSER": "app"}),
    )
    d = evaluate(rules, "APP.SVRCONN", "10.0.0.7", client_user="u")
    assert not d.allowed and d.msgid == "AMQ9782E"
    assert d.reason_qualifier == CMQCFC.MQRQ_CHANNEL_BLOCKED_ADDRESS
    assert evaluate(rules, "APP.SVRCONN", "10.0.0.21", client_user="u").user == "app"


def test_warn_yes_lets_the_channel_in_but_says_so():
    """Given a NOACCESS record with WARN(YES), when it matches, then the channel runs and the
    decision carries the AMQ9777E warning for the channel-blocked-warning event."""
    rules = rules_from(("APP.*", {"TYPE": "ADDRESSMAP", "ADDRESS": "*", "USERSRC": "NOACCESS",
                                  "WARN": "YES"}))
    d = evaluate(rules, "APP.SVRCONN", "10.0.0.1", client_user="u")
    assert d.allowed and d.warning and d.msgid == "AMQ9777E" and d.user == "u"


# ------------------------------------------------------------------ precedence


def test_the_most_specific_channel_profile_wins():
    """Given ADDRESSMAP records for '*', 'APP.*' and 'APP.PAY.*', when APP.PAY.SVRCONN
    starts, then the APP.PAY.* record decides; APP.HR.SVRCONN gets APP.*; X gets '*'."""
    rules = rules_from(*(
        (p, {"TYPE": "ADDRESSMAP", "ADDRESS": "*", "USERSRC": "MAP", "MCAUSER": u})
        for p, u in (("*", "anyone"), ("APP.*", "app"), ("APP.PAY.*", "pay"))))
    assert evaluate(rules, "APP.PAY.SVRCONN", "10.0.0.1").user == "pay"
    assert evaluate(rules, "APP.HR.SVRCONN", "10.0.0.1").user == "app"
    assert evaluate(rules, "X", "10.0.0.1").user == "anyone"


def test_channel_profile_outranks_identity_type():
    """Given a '*' USERMAP for bob (NOACCESS) and an exact-channel ADDRESSMAP (CHANNEL), when
    bob uses that channel, then the channel-specific record wins."""
    rules = rules_from(
        ("*", {"TYPE": "USERMAP", "CLNTUSER": "bob", "USERSRC": "NOACCESS"}),
        ("APP.SVRCONN", {"TYPE": "ADDRESSMAP", "ADDRESS": "*", "USERSRC": "CHANNEL"}),
    )
    assert evaluate(rules, "APP.SVRCONN", "10.0.0.1", client_user="bob").allowed
    assert not evaluate(rules, "OTHER", "10.0.0.1", client_user="bob").allowed


def test_identity_types_rank_sslpeer_then_user_then_address():
    """Given SSLPEERMAP, USERMAP and ADDRESSMAP records on one profile, when all match, then
    SSLPEERMAP decides; without a DN USERMAP decides; without either ADDRESSMAP."""
    rules = rules_from(
        ("C", {"TYPE": "ADDRESSMAP", "ADDRESS": "*", "USERSRC": "MAP", "MCAUSER": "byaddr"}),
        ("C", {"TYPE": "USERMAP", "CLNTUSER": "u", "USERSRC": "MAP", "MCAUSER": "byuser"}),
        ("C", {"TYPE": "SSLPEERMAP", "SSLPEER": "CN=x", "USERSRC": "MAP",
               "MCAUSER": "bypeer"}),
    )
    assert evaluate(rules, "C", "10.0.0.1", client_user="u", ssl_peer="CN=x").user == "bypeer"
    assert evaluate(rules, "C", "10.0.0.1", client_user="u").user == "byuser"
    assert evaluate(rules, "C", "10.0.0.1", client_user="v").user == "byaddr"


def test_the_most_specific_address_wins():
    """Given addresses 192.168.*, 192.168.1.*, 192.168.1.5-20 and 192.168.1.10 on one
    profile, then each address is decided by the most specific pattern that matches it."""
    rules = rules_from(*(
        ("C", {"TYPE": "ADDRESSMAP", "ADDRESS": a, "USERSRC": "MAP", "MCAUSER": u})
        for a, u in (("192.168.*", "wide"), ("192.168.1.*", "subnet"),
                     ("192.168.1.5-20", "range"), ("192.168.1.10", "host"))))
    assert evaluate(rules, "C", "192.168.1.10").user == "host"
    assert evaluate(rules, "C", "192.168.1.7").user == "range"
    assert evaluate(rules, "C", "192.168.1.50").user == "subnet"
    assert evaluate(rules, "C", "192.168.2.1").user == "wide"
    assert evaluate(rules, "C", "10.0.0.1").user == ""


def test_a_usermap_with_an_address_beats_one_without():
    """Given two USERMAP records for alice, one restricted to 10.0.0.*, then connections from
    10.0.0.* use the restricted one."""
    rules = rules_from(
        ("C", {"TYPE": "USERMAP", "CLNTUSER": "alice", "USERSRC": "NOACCESS"}),
        ("C", {"TYPE": "USERMAP", "CLNTUSER": "alice", "ADDRESS": "10.0.0.*",
               "USERSRC": "MAP", "MCAUSER": "alice2"}),
    )
    assert evaluate(rules, "C", "10.0.0.4", client_user="alice").user == "alice2"
    assert not evaluate(rules, "C", "10.9.0.4", client_user="alice").allowed


@pytest.mark.parametrize(("pattern", "address", "expected"), [
    ("192.0.2.*", "192.0.2.77", True),
    ("192.0.*", "192.0.9.9", True),
    ("192.0.*.2", "192.0.7.2", True),
    ("192.0.*.2", "192.0.7.3", False),
    ("192.*.2", "192.5.6.2", True),
    ("*", "198.51.100.1", True),
    ("192.0.2.1-8", "192.0.2.8", True),
    ("192.0.2.1-8", "192.0.2.9", False),
    ("192.0.*.1-8", "192.0.200.3", True),
    ("10.0.0.1-20", "10.0.0.21", False),
    ("192.0.2.1", "::ffff:192.0.2.1", True),
    ("2001:DB8:0:0:0:0:0:*", "2001:db8::42", True),
    ("2001:DB8:0:0:0:0:0:0-8", "2001:db8::9", False),
    # a link-local peer carries its zone; the zone is not part of the address
    ("FE80:0:0:0:0:0:0:*", "fe80::1%eth0", True),
    ("10.0.0.*", "fe80::1%eth0", False),
    ("10.0.0.*", "[fe80::1%eth0]", False),
    ("*.example.com", "host.EXAMPLE.com", True),
])
def test_generic_ip_addresses(pattern, address, expected):
    """IBM "Generic IP addresses for channel authentication records"."""
    assert address_matches(pattern, address) is expected


@pytest.mark.parametrize("bad", ["192.0.2", "192.0.2.300", "192.0.2.1-300", "192.0*",
                                 "192.0.*.*", "2001::*", "2001:::1"])
def test_invalid_ip_patterns_are_refused(bad):
    """Given a pattern IBM refuses (too few parts, out of range, a star not a part of its
    own, adjacent asterisks, a double colon with a star), when it is set, then
    MQRCCF_IPADDR_ERROR (3345), IBM's reason for an invalid address or pattern."""
    with pytest.raises(MQMIError) as exc:
        apply_set([], "C", {"TYPE": "ADDRESSMAP", "ADDRESS": bad, "USERSRC": "CHANNEL"})
    assert exc.value.reason == CMQCFC.MQRCCF_IPADDR_ERROR == 3345


@pytest.mark.parametrize("bad", ["192.0.2.9-1", "192.0.2.4-4", "10.*.1-1"])
def test_ip_ranges_not_ascending_are_refused(bad):
    """Given a range whose first number is not below its last, when it is set, then
    MQRCCF_IPADDR_RANGE_ERROR (3346)."""
    with pytest.raises(MQMIError) as exc:
        apply_set([], "*", {"TYPE": "BLOCKADDR", "ADDRLIST": (bad,)})
    assert exc.value.reason == CMQCFC.MQRCCF_IPADDR_RANGE_ERROR == 3346


# ------------------------------------------------------------------ SET / DISPLAY semantics


def test_set_chlauth_actions():
    """ADD refuses a duplicate (3337), REPLACE replaces, REMOVE of a missing record is 3338,
    BLOCKUSER ADD / REMOVE edit the list, REMOVEALL drops every record of the type."""
    params = {"TYPE": "ADDRESSMAP", "ADDRESS": "*", "USERSRC": "NOACCESS"}
    rules = rules_from(("C", params))
    with pytest.raises(MQMIError) as exc:
        apply_set(rules, "C", params)
    assert exc.value.reason == CMQCFC.MQRCCF_CHLAUTH_ALREADY_EXISTS
    put, gone = apply_set(rules, "C", {**params, "USERSRC": "CHANNEL", "ACTION": "REPLACE"})
    assert put[0].usersrc == "CHANNEL" and not gone
    with pytest.raises(MQMIError) as exc:
        apply_set(rules, "C", {**params, "ADDRESS": "10.*", "ACTION": "REMOVE"})
    assert exc.value.reason == CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND

    users = rules_from(("C", {"TYPE": "BLOCKUSER", "USERLIST": ("a", "b")}),
                       ("C", {"TYPE": "BLOCKUSER", "USERLIST": ("c",)}))
    assert users[0].userlist == ("a", "b", "c")
    users = rules_from(*[("C", {"TYPE": "BLOCKUSER", "USERLIST": ("a", "b")}),
                         ("C", {"TYPE": "BLOCKUSER", "USERLIST": ("a",), "ACTION": "REMOVE"})])
    assert users[0].userlist == ("b",)
    both = rules_from(("C", params), ("C", {**params, "ADDRESS": "10.*"}),
                      ("C", {"TYPE": "ADDRESSMAP", "ACTION": "REMOVEALL"}))
    assert both == []


@pytest.mark.parametrize(("profile", "params", "reason"), [
    ("C", {"TYPE": "BLOCKADDR", "ADDRLIST": ("10.*",)}, CMQCFC.MQRCCF_CHLAUTH_NAME_ERROR),
    ("C", {"TYPE": "ADDRESSMAP", "ADDRESS": "*", "USERSRC": "MAP"},
     CMQCFC.MQRCCF_PARM_MISSING),
    ("C", {"TYPE": "ADDRESSMAP", "ADDRESS": "*", "USERLIST": ("x",)},
     CMQCFC.MQRCCF_WRONG_CHLAUTH_TYPE),
    ("C", {"TYPE": "USERMAP", "USERSRC": "CHANNEL"}, CMQCFC.MQRCCF_PARM_MISSING),
    ("C", {"TYPE": "NOSUCH"}, CMQCFC.MQRCCF_CHLAUTH_TYPE_ERROR),
])
def test_set_chlauth_refusals(profile, params, reason):
    """Given a SET CHLAUTH IBM refuses, then the MQRCCF reason it gives."""
    with pytest.raises(MQMIError) as exc:
        apply_set([], profile, params)
    assert exc.value.reason == reason


def test_display_match_modes():
    """DISPLAY CHLAUTH: GENERIC filters profiles by a generic name, EXACT takes the profile
    as written, ALL lists the records that apply to a channel."""
    recs = list(DEFAULT_RULES)
    assert {r.profile for r in display(recs, "SYSTEM.*")} == {"SYSTEM.*",
                                                               "SYSTEM.ADMIN.SVRCONN"}
    assert [r.profile for r in display(recs, "SYSTEM.*", match="EXACT")] == ["SYSTEM.*"]
    assert {r.profile for r in display(recs, "SYSTEM.DEF.SVRCONN", match="ALL")} == {
        "SYSTEM.*", "*"}
    assert [r.type for r in display(recs, "*", type="BLOCKUSER")] == ["BLOCKUSER"]


def test_blockaddr_with_a_scoped_ipv6_peer_is_answered_not_raised():
    """Given BLOCKADDR with an IPv4 pattern, when a link-local IPv6 peer with a zone
    (fe80::1%eth0) arrives, then evaluate answers (allowed) instead of raising, so the
    listener's check cannot fail on the address alone."""
    rules = rules_from(("*", {"TYPE": "BLOCKADDR", "ADDRLIST": ["10.0.0.*"]}))
    assert evaluate(rules, "", "fe80::1%eth0").allowed
