"""The user a SVRCONN conversation runs as, worked out once (``channel_decision``) and
judged by CHLAUTH as that same user: IBM's precedence is the asserted client user, then the
channel's MCAUSER, then the MQCSP user adopted by ADOPTCTX(YES), then USERSRC(MAP); BLOCKUSER
applies to the final user."""

from __future__ import annotations

from mqpy.security.policy import DEFAULT_AUTHINFO, channel_decision, set_chlauth

CHANNEL = "APP.SVRCONN"


def decide(secured, **query):
    return channel_decision(secured.eng, {"channel": CHANNEL, "address": "127.0.0.1",
                                          "client_user": "alice", **query})


def test_adopted_mqcsp_admin_is_blocked_even_with_an_mcauser(secured):
    """Given MCAUSER('app') on the channel and IBM's default *MQADMIN BLOCKUSER, when a client
    sends admin2's MQCSP (admin2 in mqm) and ADOPTCTX(YES) adopts it, then the channel is
    refused: the conversation would run as admin2, not as app."""
    secured.users.add("admin2", "admin2-pw", ["mqm"])
    d = decide(secured, csp_user="admin2", mcauser="app")
    assert not d["allowed"] and d["msgid"] == "AMQ9776E"


def test_adopted_mqcsp_user_runs_above_the_mcauser(secured):
    secured.users.add("bob", "bob-pw")
    d = decide(secured, csp_user="bob", mcauser="app")
    assert d["allowed"] and d["user"] == "bob" and d["adopted"]


def test_usersrc_map_overrides_the_adopted_user(secured):
    """Given a USERMAP for CLNTUSER('bob') mapping to 'mapped', when bob's MQCSP is adopted,
    then USERMAP matches the adopted user and the channel runs as 'mapped'."""
    set_chlauth(secured.eng, CHANNEL, {"TYPE": "USERMAP", "CLNTUSER": "bob",
                                       "USERSRC": "MAP", "MCAUSER": "mapped"})
    d = decide(secured, csp_user="bob", mcauser="app")
    assert d["allowed"] and d["user"] == "mapped" and d["adopted"]


def test_mqcsp_is_not_adopted_when_clients_are_not_authenticated(secured):
    """Given CHCKCLNT(NONE) (or ADOPTCTX(NO)), when a client sends admin2's MQCSP, then it is
    ignored: the channel runs as its MCAUSER and nothing is adopted."""
    secured.users.add("admin2", "admin2-pw", ["mqm"])
    for attrs in ({"CHCKCLNT": "NONE"}, {"CHCKCLNT": "REQDADM", "ADOPTCTX": "NO"}):
        secured.eng.alter("AUTHINFO", DEFAULT_AUTHINFO, attrs)
        d = decide(secured, csp_user="admin2", mcauser="app")
        assert d["allowed"] and d["user"] == "app" and not d["adopted"]


def test_blockuser_judges_the_twelve_character_user_id(secured):
    """Given BLOCKUSER('alice'), when a query names 'alice' followed by blanks, then it is
    judged as alice (the one string the connection would run as) and refused."""
    set_chlauth(secured.eng, CHANNEL, {"TYPE": "BLOCKUSER", "USERLIST": ["alice"]})
    d = decide(secured, client_user="alice       ")
    assert not d["allowed"] and d["msgid"] == "AMQ9776E"
