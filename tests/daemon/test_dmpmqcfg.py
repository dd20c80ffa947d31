"""dmpmqcfg: a running queue manager's configuration as the MQSC (and setmqaut) that re-creates
it, read through the command server as IBM's does; replayed into another queue manager, it
gives the same objects."""

from __future__ import annotations

import re

import pytest

from mqpy.mqsc import dump
from tests.support.installation import Installation, cli

OBJECTS = """
DEFINE QLOCAL(APP.IN) DESCR('it''s (a) queue') MAXDEPTH(100) TRIGGER TRIGTYPE(DEPTH) +
       TRIGDPTH(5) INITQ(SYSTEM.DEFAULT.INITIATION.QUEUE) PROCESS(APP.PROC) NOSHARE
DEFINE QLOCAL(APP.XQ) USAGE(XMITQ) DEFPSIST(YES)
DEFINE QALIAS(APP.ALIAS) TARGET(APP.IN) PUT(DISABLED)
DEFINE QREMOTE(APP.REMOTE) RNAME(THEIR.Q) RQMNAME(QM9) XMITQ(APP.XQ)
DEFINE QMODEL(APP.MODEL) DEFTYPE(PERMDYN) MAXDEPTH(42)
DEFINE PROCESS(APP.PROC) APPLICID('/usr/bin/app --flag') USERDATA('x y')
DEFINE NAMELIST(APP.NL) NAMES(APP.IN, APP.XQ)
DEFINE LISTENER(APP.LSTR) TRPTYPE(TCP) PORT(1499) CONTROL(MANUAL)
DEFINE SERVICE(APP.SVC) SERVTYPE(SERVER) CONTROL(MANUAL) STARTCMD('/bin/sleep') +
       STARTARG('60 +QMNAME+') STDOUT('/tmp/app.out')
DEFINE CHANNEL(APP.TO.QM9) CHLTYPE(SDR) CONNAME('10.0.0.1(1414),10.0.0.2(1415)') +
       XMITQ(APP.XQ) BATCHSZ(20) HBINT(30) DESCR('to QM9')
DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN) MCAUSER('app') SHARECNV(1)
SET CHLAUTH(APP.SVRCONN) TYPE(ADDRESSMAP) ADDRESS('10.*') USERSRC(CHANNEL) DESCR('app net')
SET AUTHREC PROFILE(APP.*) OBJTYPE(QUEUE) PRINCIPAL('root') AUTHADD(GET,PUT,INQ)
ALTER QMGR DEADQ(APP.IN) DESCR('dumped queue manager')
"""

USER_OBJECTS = [
    "QUEUE(APP.*)", "PROCESS(APP.*)", "NAMELIST(APP.*)", "LISTENER(APP.*)", "SERVICE(APP.*)",
    "CHANNEL(APP.*)", "CHLAUTH(APP.*)",
]
_STAMPS = re.compile(r"(ALTDATE|ALTTIME|CRDATE|CRTIME)\([^)]*\)")


def _display(inst, qmgr: str) -> dict[str, str]:
    """What DISPLAY ... ALL shows of the user objects (without stamps), per command."""
    commands = [f"DISPLAY {what} ALL" for what in USER_OBJECTS]
    commands.append("DISPLAY AUTHREC PROFILE(APP.*) OBJTYPE(QUEUE)")
    text = cli(inst, "runmqsc", "runmqsc", qmgr, stdin="\n".join(commands) + "\n").stdout
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        command = next((c for c in commands if line.endswith(": " + c)), None)
        if command is not None:
            current = out.setdefault(command, [])
        elif current is not None and line.startswith("   "):
            current.append(_STAMPS.sub("", line))
    return {k: "\n".join(v) for k, v in out.items()}


@pytest.fixture(scope="module")
def two_qmgrs(tmp_path_factory):
    """QM1 with the objects of OBJECTS, and an empty QM2, started by strmqm for the module."""
    inst = Installation(str(tmp_path_factory.mktemp("dmpmqcfg")))
    try:
        for name in ("QM1", "QM2"):
            inst.create(name, queues=())
            inst.start(name)
        out = cli(inst, "runmqsc", "runmqsc", "QM1", stdin=OBJECTS)
        assert out.returncode == 0, out.stdout
        yield inst
    finally:
        inst.kill_all()


def test_a_dump_replayed_into_another_queue_manager_recreates_every_object(two_qmgrs):
    """Given QM1 with queues of the four types, a process, a namelist, a listener, a sender
    and a SVRCONN channel, a CHLAUTH rule, an authority record and altered queue-manager
    attributes, when dmpmqcfg -m QM1 dumps it and runmqsc runs the dump on QM2, then QM2
    shows the same objects as QM1, attribute for attribute (quotes, parentheses and lists
    included), and the same authority record."""
    out = cli(two_qmgrs, "dmpmqcfg", "dmpmqcfg", "-m", "QM1")
    assert out.returncode == 0, out.stderr
    script = out.stdout
    assert script.startswith("*" * 81) and "* Queue manager name: QM1" in script
    assert "DEFINE QLOCAL('APP.IN') +\n   DESCR('it''s (a) queue') +" in script
    assert "CONNAME('10.0.0.1(1414),10.0.0.2(1415)')" in script
    assert "NAMES('APP.IN','APP.XQ')" in script
    assert "SET AUTHREC +\n   PROFILE('APP.*') +\n   OBJTYPE(QUEUE)" in script
    replay = cli(two_qmgrs, "runmqsc", "runmqsc", "QM2", stdin=script)
    assert "AMQ8405I" not in replay.stdout, replay.stdout  # no syntax error
    assert replay.returncode == 0, replay.stdout
    shown = _display(two_qmgrs, "QM1")
    assert all(shown.values()) and len(shown) == len(USER_OBJECTS) + 1, shown
    assert _display(two_qmgrs, "QM2") == shown
    qmgr = cli(two_qmgrs, "runmqsc", "runmqsc", "QM2", stdin="DISPLAY QMGR DEADQ DESCR\n")
    assert "DEADQ(APP.IN)" in qmgr.stdout and "DESCR(dumped queue manager)" in qmgr.stdout


def test_only_attributes_that_differ_from_the_defaults_unless_all_are_asked_for(two_qmgrs):
    """Given APP.XQ with only USAGE and DEFPSIST changed, when dmpmqcfg dumps it, then its
    definition names only those two; with -a it names every attribute, MAXDEPTH(5000)
    included; -o 1line puts each command on one line."""
    out = cli(two_qmgrs, "dmpmqcfg", "dmpmqcfg", "-m", "QM1", "-t", "queue", "-n", "APP.XQ",
               "-x", "object", "-o", "1line")
    assert out.returncode == 0, out.stderr
    commands = [line for line in out.stdout.splitlines() if not line.startswith("*")]
    assert commands == ["DEFINE QLOCAL('APP.XQ') DEFPSIST(YES) USAGE(XMITQ) REPLACE"]
    every = cli(two_qmgrs, "dmpmqcfg", "dmpmqcfg", "-m", "QM1", "-t", "queue", "-n",
                 "APP.XQ", "-x", "object", "-a")
    assert "   MAXDEPTH(5000) +" in every.stdout and "   NOTRIGGER +" in every.stdout
    assert "CURDEPTH" not in every.stdout and "CRDATE" not in every.stdout


def test_authority_records_as_setmqaut_commands(two_qmgrs):
    """Given an authority record, when dmpmqcfg -x authrec -o setmqaut dumps it, then it is
    one setmqaut command, and running it on QM2 grants the same authorities."""
    out = cli(two_qmgrs, "dmpmqcfg", "dmpmqcfg", "-m", "QM1", "-x", "authrec", "-o",
               "setmqaut")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["setmqaut -m QM1 -n 'APP.*' -t queue -p root +get "
                                       "+put +inq"]  # in the record's order
    record = "DISPLAY AUTHREC PROFILE(APP.*) OBJTYPE(QUEUE)"
    cli(two_qmgrs, "runmqsc", "runmqsc", "QM2", stdin="SET AUTHREC PROFILE(APP.*) "
         "OBJTYPE(QUEUE) PRINCIPAL('root') AUTHRMV(ALL)\n")
    assert not _display(two_qmgrs, "QM2").get(record)
    args = out.stdout.split()[1:]
    args[1] = "QM2"
    granted = cli(two_qmgrs, "security", "setmqaut", *[a.strip("'") for a in args])
    assert granted.returncode == 0, granted.stdout + granted.stderr
    assert _display(two_qmgrs, "QM2")[record] == _display(two_qmgrs, "QM1")[record]


def test_no_queue_manager_is_amq8146_and_exit_20(install):
    """Given no queue manager of that name, when dmpmqcfg runs, then it says AMQ8146E and
    ends with 20, without a traceback."""
    out = cli(install, "dmpmqcfg", "dmpmqcfg", "-m", "NOSUCHQM")
    assert out.returncode == 20
    assert "AMQ8146E" in out.stderr and "Traceback" not in out.stderr


def test_display_lines_are_read_back_item_by_item():
    """DISPLAY's two-column layout, long items alone on their line, bare flags and blank
    values read back as the items they are."""
    assert dump.parse_items("   QUEUE(APP.IN)                           TYPE(QLOCAL)") == [
        ("QUEUE", "APP.IN"), ("TYPE", "QLOCAL")]
    assert dump.parse_items("   DESCR(it's (a) queue)                   NOSHARE") == [
        ("DESCR", "it's (a) queue"), ("NOSHARE", None)]
    long = "   CONNAME(10.0.0.1(1414),10.0.0.2(1415),10.0.0.3(1416))"
    assert dump.parse_items(long) == [("CONNAME", "10.0.0.1(1414),10.0.0.2(1415),10.0.0.3(1416)")]
    assert dump.parse_items("   BOQNAME( )                              HARDENBO") == [
        ("BOQNAME", ""), ("HARDENBO", None)]
    shown = dump.parse_display("AMQ8409I: Display Queue details.\n"
                               "   QUEUE(A)                                TYPE(QLOCAL)\n"
                               "AMQ8409I: Display Queue details.\n"
                               "   QUEUE(B)                                TYPE(QALIAS)\n")
    assert [o["QUEUE"] for o in shown] == ["A", "B"]


def test_a_client_definition_that_is_not_a_clntconn_is_refused(two_qmgrs):
    """Given -c with something other than 'default' or an MQSC DEFINE of a CLNTCONN channel
    with a CONNAME, then dmpmqcfg refuses it with its usage, before connecting."""
    for bad in ("DEFINE CHANNEL(X) CHLTYPE(SVRCONN)", "DEFINE CHANNEL(X) CHLTYPE(CLNTCONN)",
                "DEFINE CHANNEL(X) CHLTYPE(", "host(1414)"):
        out = cli(two_qmgrs, "dmpmqcfg", "dmpmqcfg", "-m", "QM1", "-c", bad)
        assert out.returncode == 2 and "-c takes 'default'" in out.stderr, (bad, out.stderr)
