"""Object authorities: setmqaut's vocabulary, generic profiles, and enforcement at MQOPEN."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from mqpy.security import effective_authority, remove_authority, set_authority
from mqpy.security.authority import (
    AuthRecord,
    AuthSpecError,
    effective,
    open_requirements,
    parse_specs,
    profile_matches,
)
from mqpy.structures import OD

# ------------------------------------------------------------------ pure rules


def test_specs_apply_in_order():
    """+all then -put leaves every queue authority but put; +allmqi is the MQI ones only."""
    auths = parse_specs("queue", ["+all", "-put"])
    assert "put" not in auths and {"get", "browse", "dlt", "chg", "crt"} <= auths
    assert parse_specs("queue", ["+allmqi"]) == {"browse", "get", "inq", "passall", "passid",
                                                 "put", "set", "setall", "setid"}
    assert parse_specs("queue", ["-all"], current={"put"}) == frozenset()
    assert parse_specs("qmgr", ["+connect", "+inq"]) == {"connect", "inq"}


@pytest.mark.parametrize(("objtype", "specs", "rc"), [
    ("queue", ["+connect"], 151),  # connect is a queue-manager authority
    ("queue", ["put"], 151),
    ("queue", ["+flyaway"], 151),
    ("queue", [], 150),
])
def test_bad_specs_have_setmqaut_return_codes(objtype, specs, rc):
    with pytest.raises(AuthSpecError) as exc:
        parse_specs(objtype, specs)
    assert exc.value.rc == rc


@pytest.mark.parametrize(("profile", "name", "expected"), [
    ("Q.*", "Q.A", True),
    ("Q.*", "Q.A.B", False),
    ("Q.**", "Q.A.B", True),
    ("Q.**", "Q", True),
    ("**.IN", "PAY.EU.IN", True),
    ("PAY?", "PAY1", True),
    ("PAY?", "PAY12", False),
    ("AB*", "ABC", True),
    ("Q1", "Q1", True),
    ("Q1", "Q10", False),
])
def test_generic_profiles(profile, name, expected):
    """IBM OAM generic profiles: ? one character, * within a qualifier, ** whole qualifiers."""
    assert profile_matches(profile, name) is expected


def test_only_the_most_specific_profile_of_an_entity_counts():
    """Given alice has +put +get on Q.* and only +browse on Q.SECRET, then on Q.SECRET she
    has browse alone; her group's record on Q.** adds inq (union over entities)."""
    recs = [AuthRecord("principal", "alice", "queue", "Q.*", frozenset({"put", "get"})),
            AuthRecord("principal", "alice", "queue", "Q.SECRET", frozenset({"browse"})),
            AuthRecord("principal", "alice", "queue", "**", frozenset({"dsp"})),
            AuthRecord("group", "apps", "queue", "Q.**", frozenset({"inq"}))]
    assert effective(recs, "alice", [], "queue", "Q.SECRET") == {"browse"}
    assert effective(recs, "alice", [], "queue", "Q.OTHER") == {"put", "get"}
    assert effective(recs, "alice", ["apps"], "queue", "Q.SECRET") == {"browse", "inq"}
    assert effective(recs, "alice", [], "queue", "R") == {"dsp"}
    assert effective(recs, "bob", [], "queue", "Q.OTHER") == frozenset()


def test_open_options_map_to_authorities():
    obj, qm = open_requirements(CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE
                                | CMQC.MQOO_FAIL_IF_QUIESCING)
    assert obj == {"get", "browse", "inq"} and not qm
    obj, qm = open_requirements(CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT
                                | CMQC.MQOO_PASS_IDENTITY_CONTEXT
                                | CMQC.MQOO_ALTERNATE_USER_AUTHORITY)
    assert obj == {"put", "setall", "passid"} and qm == {"altusr"}


# ------------------------------------------------------------------ enforcement


@pytest.fixture
def carol(secured):
    secured.users.add("carol", "carol-pw", ["apps"])
    set_authority(secured.eng, "qmgr", secured.eng.name, ["+connect"], principal="carol")
    for q in ("Q1", "PAY.IN", "PAY.OUT"):
        secured.eng.define("QLOCAL", q, {})
    secured.conn = secured.eng.connect("app", user="carol", password="carol-pw")
    return secured


def opens(conn, name: str, options: int) -> bool:
    try:
        conn.close(conn.open(OD(ObjectName=name.encode()), options), 0)
        return True
    except mqpy.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_NOT_AUTHORIZED
        return False


def test_open_for_output_needs_put(carol):
    """Given carol without +put on Q1, when she opens it for output, then 2035 and AMQ8077W;
    after setmqaut +put she can; -put takes it away again."""
    assert not opens(carol.conn, "Q1", CMQC.MQOO_OUTPUT)
    assert "insufficient authority to access object 'Q1'" in carol.errors()
    set_authority(carol.eng, "queue", "Q1", ["+put"], principal="carol")
    assert opens(carol.conn, "Q1", CMQC.MQOO_OUTPUT)
    assert not opens(carol.conn, "Q1", CMQC.MQOO_INPUT_AS_Q_DEF)
    assert not opens(carol.conn, "Q1", CMQC.MQOO_BROWSE)
    set_authority(carol.eng, "queue", "Q1", ["-put", "+get"], principal="carol")
    assert not opens(carol.conn, "Q1", CMQC.MQOO_OUTPUT)
    assert opens(carol.conn, "Q1", CMQC.MQOO_INPUT_SHARED)


def test_generic_group_profile_grants_a_family_of_queues(carol):
    """Given group apps has +put +inq on PAY.*, then carol (in apps) may put to PAY.IN and
    PAY.OUT but not Q1, and context options need their own authorities."""
    set_authority(carol.eng, "queue", "PAY.*", ["+put", "+inq"], group="apps")
    assert opens(carol.conn, "PAY.IN", CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
    assert opens(carol.conn, "PAY.OUT", CMQC.MQOO_OUTPUT)
    assert not opens(carol.conn, "Q1", CMQC.MQOO_OUTPUT)
    assert not opens(carol.conn, "PAY.IN", CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    set_authority(carol.eng, "queue", "PAY.*", ["+setall"], group="apps")
    assert opens(carol.conn, "PAY.IN", CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    assert not opens(carol.conn, "PAY.IN", CMQC.MQOO_OUTPUT
                     | CMQC.MQOO_ALTERNATE_USER_AUTHORITY)


def test_owner_has_all_authority(secured):
    """Given the user who installed security (the owner, in mqm), then it connects without a
    password and opens any queue with any options, with no authority records at all."""
    owner = next(u for u, e in secured.users.load().items() if "mqm" in e.groups)
    secured.eng.define("QLOCAL", "ANY.Q", {})
    conn = secured.eng.connect("admin", user=owner)
    every = (CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT
             | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET | CMQC.MQOO_SET_ALL_CONTEXT
             | CMQC.MQOO_ALTERNATE_USER_AUTHORITY)
    assert opens(conn, "ANY.Q", every)
    assert "put" in effective_authority(secured.eng, secured.eng.qmdir, owner, "queue",
                                        "ANY.Q")
    # the connection made before security was installed (the OS user) still works
    q = mqpy.Queue(secured.qm, "ANY.Q", CMQC.MQOO_OUTPUT)
    q.put(b"x")
    q.close()


def test_authority_records_survive_a_restart(carol):
    """Given carol's +put on Q1, when the queue manager restarts and security is installed
    again, then the record is still there (authority records are logged definitions)."""
    from mqpy import local
    from mqpy.security import install

    set_authority(carol.eng, "queue", "Q1", ["+put"], principal="carol")
    local.stop("QMSEC", carol.root)
    eng = local.start("QMSEC", carol.root)
    install(eng, eng.qmdir)
    conn = eng.connect("app", user="carol", password="carol-pw")
    assert opens(conn, "Q1", CMQC.MQOO_OUTPUT)
    assert remove_authority(eng, "queue", "Q1", principal="carol")
    assert not opens(conn, "Q1", CMQC.MQOO_OUTPUT)
