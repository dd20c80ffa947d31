"""setmqaut / dspmqaut / mqpyuser, run as commands against a queue manager in this process."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import mqpy
from mqpy import CMQC, inprocess
from mqpy.security.users import UserFile
from mqpy.structs.tables import OD
from mqpy_cli.security import dmpmqaut, dspmqaut, mqpyuser, setmqaut
from tests.support.cli import run

QM = "QMSEC"


def user(root: str, *args: str):
    sub, *rest = args
    return CliRunner().invoke(mqpyuser, [sub, "--data-path", root, *rest],
                              catch_exceptions=False)


def test_mqpyuser_add_passwd_del(secured):
    """mqpyuser add / passwd / del change the repository CONNAUTH checks."""
    r = user(secured.root, "add", "-m", QM, "-g", "apps,payments", "--password", "pw1", "dave")
    assert r.exit_code == 0, r.output
    users = UserFile(secured.users.path)
    assert users.verify("dave", "pw1") and users.groups("dave") == ("apps", "payments")
    assert user(secured.root, "passwd", "-m", QM, "--password", "pw2", "dave").exit_code == 0
    assert users.verify("dave", "pw2") and not users.verify("dave", "pw1")
    listed = user(secured.root, "list", "-m", QM).output
    assert "dave" in listed and "apps,payments" in listed
    assert user(secured.root, "del", "-m", QM, "dave").exit_code == 0
    assert users.get("dave") is None
    again = user(secured.root, "del", "-m", QM, "dave")
    assert again.exit_code == 36 and "does not exist" in again.output


def test_mqpyuser_prompts_for_the_password(secured):
    r = CliRunner().invoke(mqpyuser, ["add", "--data-path", secured.root, "-m", QM, "erin"],
                           input="s3cret\ns3cret\n")
    assert r.exit_code == 0, r.output
    assert secured.users.verify("erin", "s3cret")


def test_mqpyuser_needs_an_existing_queue_manager(tmp_path):
    r = user(str(tmp_path), "add", "-m", "NOQM", "--password", "x", "dave")
    assert r.exit_code == 72 and "AMQ8118E" in r.output


def test_setmqaut_dspmqaut_round_trip_and_enforcement(secured):
    """Given alice with +connect only, when setmqaut grants +put +get -browse on Q1, then
    dspmqaut lists get and put, alice may open Q1 for output; -put removes that again."""
    secured.users.add("alice", "apw")
    secured.eng.define("QLOCAL", "Q1", {})
    r = run(setmqaut, "-m", QM, "-t", "qmgr", "-p", "alice", "+connect", root=secured.root)
    assert r.exit_code == 0 and "completed successfully" in r.output
    r = run(setmqaut, "-m", QM, "-t", "queue", "-n", "Q1", "-p", "alice", "+put", "+get",
            "+browse", "-browse", root=secured.root)
    assert r.exit_code == 0, r.output
    shown = run(dspmqaut, "-m", QM, "-t", "queue", "-n", "Q1", "-p", "alice",
                root=secured.root)
    assert shown.output == ("Entity alice has the following authorizations for object Q1:\n"
                            "\tget\n\tput\n")
    conn = secured.eng.connect("app", user="alice", password="apw")
    conn.close(conn.open(OD(ObjectName=b"Q1"), CMQC.MQOO_OUTPUT), 0)
    run(setmqaut, "-m", QM, "-t", "q", "-n", "Q1", "-p", "alice", "-put", root=secured.root)
    with pytest.raises(mqpy.MQMIError) as exc:
        conn.open(OD(ObjectName=b"Q1"), CMQC.MQOO_OUTPUT)
    assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED


def test_setmqaut_generic_group_profile_and_remove(secured):
    """setmqaut -g with a generic profile, seen by dspmqaut for a member; -remove drops it."""
    secured.users.add("frank", None, ["payments"])
    r = run(setmqaut, "-m", QM, "-t", "queue", "-n", "PAY.**", "-g", "payments", "+allmqi",
            "-setall", root=secured.root)
    assert r.exit_code == 0, r.output
    shown = run(dspmqaut, "-m", QM, "-t", "queue", "-n", "PAY.EU.IN", "-p", "frank",
                root=secured.root).output
    assert "\tput\n" in shown and "\tsetall" not in shown
    grp = run(dspmqaut, "-m", QM, "-t", "queue", "-n", "PAY.X", "-g", "payments",
              root=secured.root).output
    assert grp.startswith("Entity payments has the following authorizations for object PAY.X")
    run(setmqaut, "-m", QM, "-t", "queue", "-n", "PAY.**", "-g", "payments", "-remove",
        root=secured.root)
    shown = run(dspmqaut, "-m", QM, "-t", "queue", "-n", "PAY.EU.IN", "-p", "frank",
                root=secured.root).output
    assert shown.endswith("\tnone\n")


def test_setmqaut_refusals_have_ibm_return_codes(secured):
    secured.users.add("alice", "apw")
    secured.eng.define("QLOCAL", "Q1", {})
    cases = [
        (("-m", QM, "-n", "Q1", "-p", "alice", "+put"), 147),  # no -t
        (("-m", QM, "-t", "blob", "-n", "Q1", "-p", "alice", "+put"), 148),
        (("-m", QM, "-t", "queue", "-n", "Q1", "-p", "nobody", "+put"), 149),
        (("-m", QM, "-t", "queue", "-n", "Q1", "-p", "alice"), 150),
        (("-m", QM, "-t", "queue", "-n", "Q1", "-p", "alice", "+connect"), 151),
        (("-m", QM, "-t", "queue", "-p", "alice", "+put"), 146),
        (("-m", QM, "-t", "queue", "-n", "NOSUCH", "-p", "alice", "+put"), 133),
        (("-m", "NOQM", "-t", "queue", "-n", "Q1", "-p", "alice", "+put"), 72),
    ]
    for args, rc in cases:
        r = run(setmqaut, *args, root=secured.root)
        assert r.exit_code == rc, (args, r.output)


def test_owner_shows_all_authority(secured):
    owner = next(u for u, e in secured.users.load().items() if "mqm" in e.groups)
    shown = run(dspmqaut, "-m", QM, "-t", "qmgr", "-p", owner, root=secured.root).output
    assert "\tconnect\n" in shown and "\taltusr\n" in shown


def test_setmqaut_on_a_stopped_queue_manager(secured):
    """Given the queue manager is not running, setmqaut starts it for the command, and the
    record is there when it runs again."""
    secured.users.add("alice", "apw")
    inprocess.stop(QM, secured.root)
    r = run(setmqaut, "-m", QM, "-t", "qmgr", "-p", "alice", "+connect", root=secured.root)
    assert r.exit_code == 0, r.output
    assert inprocess.running(QM, secured.root) is None
    shown = run(dspmqaut, "-m", QM, "-t", "qmgr", "-p", "alice", root=secured.root).output
    assert "\tconnect\n" in shown


def test_setmqaut_altusr_lets_a_server_act_for_another_user(secured):
    """Given alice (+connect) and dave with +put on Q1, when setmqaut -t qmgr grants alice
    +altusr, then dspmqaut lists altusr for the queue manager and alice may open Q1 for
    output as alternate user dave; +altusr on a queue is refused (rc 151)."""
    secured.users.add("alice", "apw")
    secured.users.add("dave", None)
    secured.eng.define("QLOCAL", "Q1", {})
    run(setmqaut, "-m", QM, "-t", "qmgr", "-p", "alice", "+connect", root=secured.root)
    run(setmqaut, "-m", QM, "-t", "q", "-n", "Q1", "-p", "dave", "+put", root=secured.root)
    conn = secured.eng.connect("app", user="alice", password="apw")
    od = OD(ObjectName=b"Q1", AlternateUserId=b"dave")
    alt = CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY
    with pytest.raises(mqpy.MQMIError) as exc:
        conn.open(od, alt)
    assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    r = run(setmqaut, "-m", QM, "-t", "qmgr", "-p", "alice", "+altusr", root=secured.root)
    assert r.exit_code == 0, r.output
    shown = run(dspmqaut, "-m", QM, "-t", "qmgr", "-p", "alice", root=secured.root).output
    assert "\taltusr\n" in shown and "\tconnect\n" in shown
    conn.close(conn.open(od, alt), 0)
    bad = run(setmqaut, "-m", QM, "-t", "q", "-n", "Q1", "-p", "alice", "+altusr",
              root=secured.root)
    assert bad.exit_code == 151


def test_dmpmqaut_dumps_the_records_as_ibm_lays_them_out(secured):
    """Given records for alice on Q1 and the queue manager and for the group apps on PAY.*,
    when dmpmqaut runs, then each record is a block (profile, object type, entity, entity
    type, authority) ended by a dashed line, in object-type then profile order; -t, -n and
    -p narrow the dump; nothing matching says so; -p with -g is AMQ7026E."""
    secured.users.add("alice", "apw", groups=("apps",))
    secured.eng.define("QLOCAL", "Q1", {})
    for args in (("-t", "qmgr", "-p", "alice", "+connect"),
                 ("-t", "queue", "-n", "Q1", "-p", "alice", "+put", "+get"),
                 ("-t", "queue", "-n", "PAY.*", "-g", "apps", "+browse")):
        assert run(setmqaut, "-m", QM, *args, root=secured.root).exit_code == 0
    dump = run(dmpmqaut, "-m", QM, root=secured.root)
    assert dump.exit_code == 0, dump.output
    blocks = [b.strip() for b in dump.output.split("- - - - - - - - -") if b.strip()]
    assert blocks == [
        "profile:     QMSEC\nobject type: qmgr\nentity:      alice\n"
        "entity type: principal\nauthority:   connect",
        "profile:     PAY.*\nobject type: queue\nentity:      apps\n"
        "entity type: group\nauthority:   browse",
        "profile:     Q1\nobject type: queue\nentity:      alice\n"
        "entity type: principal\nauthority:   get put",
    ]
    only = run(dmpmqaut, "-m", QM, "-t", "q", "-n", "Q1", "-p", "alice", root=secured.root)
    assert only.output.count("profile:") == 1 and "profile:     Q1" in only.output
    none = run(dmpmqaut, "-m", QM, "-p", "nobody", root=secured.root)
    assert none.exit_code == 0 and "No matching authority records." in none.output
    both = run(dmpmqaut, "-m", QM, "-p", "alice", "-g", "apps", root=secured.root)
    assert both.exit_code == 149 and "AMQ7026E" in both.output


def test_dmpmqaut_refuses_a_bad_object_type(secured):
    """Given -t with a word that is no object type, when dmpmqaut runs, then it ends with
    148 and names the type; -t with an alias (q) is taken."""
    bad = run(dmpmqaut, "-m", QM, "-t", "nosuch", root=secured.root)
    assert bad.exit_code == 148 and "Object type 'nosuch' is not valid." in bad.output
    assert run(dmpmqaut, "-m", QM, "-t", "q", root=secured.root).exit_code == 0


def test_dmpmqaut_on_a_daemon_passes_on_its_command_servers_refusals(secured, monkeypatch):
    """Given the queue manager held by its daemon (dmpmqaut then asks the command server,
    DISPLAY AUTHREC), when the answer is a refusal, then dmpmqaut prints the refusal's AMQ
    line (AMQ8135E for 2035) or AMQ8146E when nothing answered, and ends with 40; "no record"
    (AMQ8147E) is no error; a bad -t or -p with -g is refused before anything is asked."""
    import contextlib

    import mqpy_cli.runmqsc
    import mqpy_cli.security as cli

    @contextlib.contextmanager
    def held(qmgr, root):  # noqa: ANN001, ARG001
        raise cli._HeldByDaemon
        yield
    answers: list[tuple[list[str], int]] = []
    asked: list[list[str]] = []

    def client(qmgr, source, **kw):  # noqa: ANN001, ANN003, ARG001
        asked.append(list(source))
        return answers.pop(0)
    monkeypatch.setattr(cli, "_engine", held)
    monkeypatch.setattr(mqpy_cli.runmqsc, "run_client", client)

    answers.append((["AMQ8135E: Not authorized."], 20))
    refused = run(dmpmqaut, "-m", QM, root=secured.root)
    assert (refused.exit_code, refused.output.strip()) == (40, "AMQ8135E: Not authorized.")
    answers.append(([], 20))
    gone = run(dmpmqaut, "-m", QM, root=secured.root)
    assert gone.exit_code == 40 and "AMQ8146E" in gone.output
    answers.append((["AMQ8147E: IBM MQ object * not found."], 10))
    none = run(dmpmqaut, "-m", QM, root=secured.root)
    assert none.exit_code == 0 and "No matching authority records." in none.output
    assert asked == [["DISPLAY AUTHREC\n"]] * 3
    assert run(dmpmqaut, "-m", QM, "-t", "nosuch", root=secured.root).exit_code == 148
    assert run(dmpmqaut, "-m", QM, "-p", "a", "-g", "b", root=secured.root).exit_code == 149
    assert len(asked) == 3  # neither asked the command server
