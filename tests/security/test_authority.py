"""Object authorities: setmqaut's vocabulary, generic profiles, and enforcement at MQOPEN."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy.security.authority import (
    AuthRecord,
    AuthSpecError,
    effective,
    open_checks,
    open_requirements,
    parse_specs,
    profile_matches,
)
from mqpy.security.policy import effective_authority, remove_authority, set_authority
from mqpy.structs.tables import OD

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
    assert obj == {"put", "setall", "passid"} and qm == {"altusr", "setall"}


def test_set_context_needs_the_authority_on_the_queue_manager_too():
    """IBM: "To use setid or setall authority, authorizations must be granted on both the
    appropriate queue object and also on the queue manager object"; pass context does not."""
    for option, auth in ((CMQC.MQOO_SET_IDENTITY_CONTEXT, "setid"),
                         (CMQC.MQOO_SET_ALL_CONTEXT, "setall")):
        obj, qm = open_requirements(CMQC.MQOO_OUTPUT | option)
        assert obj == {"put", auth} and qm == {auth}
    obj, qm = open_requirements(CMQC.MQOO_OUTPUT | CMQC.MQOO_PASS_ALL_CONTEXT)
    assert obj == {"put", "passall"} and not qm
    # with alternate-user authority, context is still the connection's user's business
    checks = open_checks("carol", CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT
                         | CMQC.MQOO_ALTERNATE_USER_AUTHORITY, "dave")
    assert ("carol", "qmgr", {"altusr", "setall"}) in checks
    assert ("carol", "object", {"setall"}) in checks and ("dave", "object", {"put"}) in checks


# ------------------------------------------------------------------ enforcement


@pytest.fixture
def carol(secured):
    secured.users.add("carol", "carol-pw", ["apps"])
    set_authority(secured.eng, "qmgr", secured.eng.name, ["+connect"], principal="carol")
    for q in ("Q1", "PAY.IN", "PAY.OUT"):
        secured.eng.define("QLOCAL", q, {})
    secured.conn = secured.eng.connect("app", user="carol", password="carol-pw")
    return secured


def opens(conn, name: str, options: int, alternate: str = "") -> bool:
    try:
        od = OD(ObjectName=name.encode(), AlternateUserId=alternate.encode())
        conn.close(conn.open(od, options), 0)
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
    PAY.OUT but not Q1, and context options need their own authorities (setall on the
    queue and on the queue manager)."""
    set_authority(carol.eng, "queue", "PAY.*", ["+put", "+inq"], group="apps")
    assert opens(carol.conn, "PAY.IN", CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
    assert opens(carol.conn, "PAY.OUT", CMQC.MQOO_OUTPUT)
    assert not opens(carol.conn, "Q1", CMQC.MQOO_OUTPUT)
    assert not opens(carol.conn, "PAY.IN", CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    set_authority(carol.eng, "queue", "PAY.*", ["+setall"], group="apps")
    assert not opens(carol.conn, "PAY.IN", CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    set_authority(carol.eng, "qmgr", carol.eng.name, ["+setall"], group="apps")
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
    assert opens(conn, "ANY.Q", every, alternate=owner)
    assert "put" in effective_authority(secured.eng, secured.eng.qmdir, owner, "queue",
                                        "ANY.Q")
    # the connection made before security was installed (the OS user) still works
    q = mqpy.Queue(secured.qm, "ANY.Q", CMQC.MQOO_OUTPUT)
    q.put(b"x")
    q.close()


def test_authority_records_survive_a_restart(carol):
    """Given carol's +put on Q1, when the queue manager restarts and security is installed
    again, then the record is still there (authority records are logged definitions)."""
    from mqpy.security.policy import install

    set_authority(carol.eng, "queue", "Q1", ["+put"], principal="carol")
    inprocess.stop("QMSEC", carol.root)
    eng = inprocess.start("QMSEC", carol.root)
    install(eng, eng.qmdir)
    conn = eng.connect("app", user="carol", password="carol-pw")
    assert opens(conn, "Q1", CMQC.MQOO_OUTPUT)
    assert remove_authority(eng, "queue", "Q1", principal="carol")
    assert not opens(conn, "Q1", CMQC.MQOO_OUTPUT)


# ------------------------------------------------------------------ alternate-user authority


def test_open_checks_split_access_from_context():
    """Pure rule: with alternate-user authority the connection's user needs altusr and keeps
    the context options; the alternate user takes the access options."""
    opts = CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY
    assert sorted(open_checks("mca", opts, "bob")) == sorted([
        ("mca", "qmgr", frozenset({"altusr", "setall"})),
        ("mca", "object", frozenset({"setall"})),
        ("bob", "object", frozenset({"put"}))])
    assert open_checks("mca", CMQC.MQOO_OUTPUT, None) == [
        ("mca", "object", frozenset({"put"})), ("mca", "qmgr", frozenset())]


@pytest.fixture
def server(carol):
    """carol is a server program: +put +setall on Q1 herself (and setall on the queue
    manager, which setting context needs too); dave is who she acts for."""
    set_authority(carol.eng, "queue", "Q1", ["+put", "+setall"], principal="carol")
    set_authority(carol.eng, "qmgr", carol.eng.name, ["+setall"], principal="carol")
    carol.users.add("dave", "dave-pw", [])
    return carol


ALT_PUT = CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY


def test_alternate_user_needs_altusr_on_the_queue_manager(server):
    """Given dave holds +put on Q1, when carol (no altusr) opens Q1 for output as alternate
    user dave, then 2035 and AMQ8077W naming the queue manager; with +altusr on the queue
    manager she can."""
    set_authority(server.eng, "queue", "Q1", ["+put"], principal="dave")
    assert not opens(server.conn, "Q1", ALT_PUT, alternate="dave")
    assert f"access object '{server.eng.name}'" in server.errors()
    assert "altusr" in server.errors()
    set_authority(server.eng, "qmgr", server.eng.name, ["+altusr"], principal="carol")
    assert opens(server.conn, "Q1", ALT_PUT, alternate="dave")


def test_alternate_user_is_judged_for_access_not_the_connection(server):
    """Given carol with +altusr and +put on Q1, when she opens Q1 for output as dave, who
    has no authority on Q1, then 2035 (her own put does not count) and AMQ8077W names dave;
    a blank AlternateUserId is nobody: 2035 too."""
    set_authority(server.eng, "qmgr", server.eng.name, ["+altusr"], principal="carol")
    assert not opens(server.conn, "Q1", ALT_PUT, alternate="dave")
    assert "Entity 'dave' has insufficient authority to access object 'Q1'" in \
        server.errors()
    assert not opens(server.conn, "Q1", ALT_PUT, alternate="")


def test_context_options_stay_with_the_connection_user(server):
    """Given dave with +put (no setall) and carol with +altusr +setall, when carol opens Q1
    with SET_ALL_CONTEXT as dave, then it succeeds: context checks use carol's authority;
    without carol's setall it fails even if dave holds setall."""
    set_authority(server.eng, "qmgr", server.eng.name, ["+altusr"], principal="carol")
    set_authority(server.eng, "queue", "Q1", ["+put"], principal="dave")
    ctx = ALT_PUT | CMQC.MQOO_SET_ALL_CONTEXT
    assert opens(server.conn, "Q1", ctx, alternate="dave")
    set_authority(server.eng, "queue", "Q1", ["-setall"], principal="carol")
    set_authority(server.eng, "queue", "Q1", ["+setall"], principal="dave")
    assert not opens(server.conn, "Q1", ctx, alternate="dave")


def test_put1_with_alternate_user_authority(server):
    """Given carol with +altusr, when she MQPUT1s to Q1 with MQPMO_ALTERNATE_USER_AUTHORITY
    naming dave, then it is refused (2035) until dave has +put; without the option the
    AlternateUserId is ignored and carol's own +put counts."""
    from mqpy.structs.tables import MD, PMO

    set_authority(server.eng, "qmgr", server.eng.name, ["+altusr"], principal="carol")
    od = OD(ObjectName=b"Q1", AlternateUserId=b"dave")
    alt = PMO(Options=CMQC.MQPMO_ALTERNATE_USER_AUTHORITY | CMQC.MQPMO_NO_SYNCPOINT)
    with pytest.raises(mqpy.MQMIError) as exc:
        server.conn.put1(od, MD(), alt, b"as dave")
    assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    server.conn.put1(OD(ObjectName=b"Q1", AlternateUserId=b"dave"), MD(),
                     PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), b"as carol")
    set_authority(server.eng, "queue", "Q1", ["+put"], principal="dave")
    server.conn.put1(OD(ObjectName=b"Q1", AlternateUserId=b"dave"), MD(), alt, b"as dave")
    assert server.eng.queue_status("Q1")["CURDEPTH"] == 2


def test_distribution_list_with_alternate_user_authority_judges_that_user(server):
    """Given carol with +altusr and dave with +put on Q1 but not PAY.IN, when carol MQPUT1s
    to the list [Q1, PAY.IN] with MQPMO_ALTERNATE_USER_AUTHORITY naming dave in the MQOD,
    then Q1 gets the message and PAY.IN answers 2035 in its response record (2136 overall):
    the list's AlternateUserId is judged for each destination, not dropped."""
    from mqpy.structs.tables import MD, OR, PMO

    set_authority(server.eng, "qmgr", server.eng.name, ["+altusr"], principal="carol")
    set_authority(server.eng, "queue", "Q1", ["+put"], principal="dave")
    set_authority(server.eng, "queue", "PAY.IN", ["+put"], principal="carol")
    od = OD(Version=CMQC.MQOD_VERSION_2, RecsPresent=2, AlternateUserId=b"dave",
            ObjectRecPtr=[OR(ObjectName=b"Q1"), OR(ObjectName=b"PAY.IN")])
    pmo = PMO(Options=CMQC.MQPMO_ALTERNATE_USER_AUTHORITY | CMQC.MQPMO_NO_SYNCPOINT)
    assert server.conn.put1(od, MD(), pmo, b"as dave") == CMQC.MQRC_MULTIPLE_REASONS
    assert [r.Reason for r in pmo.ResponseRecPtr] == [0, CMQC.MQRC_NOT_AUTHORIZED]
    assert server.eng.queue_status("Q1")["CURDEPTH"] == 1
    assert server.eng.queue_status("PAY.IN")["CURDEPTH"] == 0
