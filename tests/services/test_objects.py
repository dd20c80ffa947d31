"""DEFINE, ALTER, DISPLAY and DELETE SERVICE: stored like the other objects, from IBM's
default object SYSTEM.DEFAULT.SERVICE (IBM: "DEFINE SERVICE", "DISPLAY SERVICE")."""

from __future__ import annotations

import pytest

from mqpy.mqsc import dump

from .conftest import attrs_of, run

pytestmark = pytest.mark.timeout(60)


def test_crtmqm_makes_the_default_service_with_ibms_defaults(proc):
    """Given a new queue manager, when DISPLAY SERVICE(*) ALL is issued, then
    SYSTEM.DEFAULT.SERVICE is there with IBM's defaults: SERVTYPE(COMMAND), CONTROL(MANUAL)
    and blank commands, arguments and output files."""
    lines = run(proc, "DISPLAY SERVICE(*) ALL")
    assert lines[0] == "AMQ8629I: Display service information details."
    shown = attrs_of(lines[1:])
    assert shown["SERVICE"] == "SYSTEM.DEFAULT.SERVICE"
    assert shown["SERVTYPE"] == "COMMAND" and shown["CONTROL"] == "MANUAL"
    for key in ("STARTCMD", "STARTARG", "STOPCMD", "STOPARG", "STDOUT", "STDERR", "DESCR"):
        assert shown[key] == " ", key
    assert shown["ALTDATE"].count("-") == 2 and shown["ALTTIME"].count(".") == 2


def test_define_takes_the_default_objects_values_and_display_shows_what_is_asked(proc):
    """Given SYSTEM.DEFAULT.SERVICE altered to CONTROL(STARTONLY), when a service is defined
    without CONTROL, then it has STARTONLY (copied from the default object); DISPLAY with an
    attribute list shows the name and those attributes only."""
    assert run(proc, "ALTER SERVICE(SYSTEM.DEFAULT.SERVICE) CONTROL(STARTONLY)") == [
        "AMQ8628I: IBM MQ service changed."]
    assert run(proc, "DEFINE SERVICE(S1) SERVTYPE(SERVER) STARTCMD('/bin/sleep') "
                     "STARTARG('100') DESCR('a server')") == [
        "AMQ8625I: IBM MQ service created."]
    lines = run(proc, "DISPLAY SERVICE(S1) CONTROL SERVTYPE STARTARG")
    assert attrs_of(lines[1:]) == {"SERVICE": "S1", "CONTROL": "STARTONLY",
                                   "SERVTYPE": "SERVER", "STARTARG": "100"}


def test_like_replace_and_alter(proc):
    """Given S1, when S2 is defined LIKE(S1), then it has S1's attributes; DEFINE of S1 again
    is refused (AMQ8150E) unless REPLACE; ALTER changes only what it names."""
    run(proc, "DEFINE SERVICE(S1) SERVTYPE(SERVER) CONTROL(QMGR) STARTCMD('/bin/sleep') "
              "STDOUT('/tmp/x.out')")
    assert run(proc, "DEFINE SERVICE(S2) LIKE(S1) STARTARG('5')") == [
        "AMQ8625I: IBM MQ service created."]
    shown = attrs_of(run(proc, "DISPLAY SERVICE(S2) ALL")[1:])
    assert (shown["SERVTYPE"], shown["CONTROL"], shown["STARTCMD"], shown["STDOUT"],
            shown["STARTARG"]) == ("SERVER", "QMGR", "/bin/sleep", "/tmp/x.out", "5")
    assert run(proc, "DEFINE SERVICE(S1)") == ["AMQ8150E: IBM MQ object already exists."]
    assert run(proc, "DEFINE SERVICE(S1) STARTCMD('/bin/true') REPLACE") == [
        "AMQ8625I: IBM MQ service created."]
    assert run(proc, "ALTER SERVICE(S2) CONTROL(MANUAL)") == [
        "AMQ8628I: IBM MQ service changed."]
    shown = attrs_of(run(proc, "DISPLAY SERVICE(S2) ALL")[1:])
    assert shown["CONTROL"] == "MANUAL" and shown["STARTARG"] == "5"
    assert run(proc, "DEFINE SERVICE(S3) LIKE(NOSUCH)") == [
        "AMQ8147E: IBM MQ object NOSUCH not found."]


def test_generic_display_where_and_delete(proc):
    """Given two services, when displayed generically with WHERE, then only the matching one
    shows; DELETE removes one (AMQ8624I), and an unknown service is AMQ8147E for DISPLAY,
    ALTER and DELETE."""
    run(proc, "DEFINE SERVICE(APP.A) SERVTYPE(SERVER)\nDEFINE SERVICE(APP.B)")
    lines = run(proc, "DISPLAY SERVICE(APP.*) WHERE(SERVTYPE EQ SERVER)")
    assert [ln for ln in lines if ln.startswith("AMQ")] == [
        "AMQ8629I: Display service information details."]
    assert attrs_of(lines[1:]) == {"SERVICE": "APP.A", "SERVTYPE": "SERVER"}
    assert run(proc, "DELETE SERVICE(APP.B)") == ["AMQ8624I: IBM MQ service deleted."]
    for command in ("DISPLAY SERVICE(APP.B)", "ALTER SERVICE(APP.B) DESCR('x')",
                    "DELETE SERVICE(APP.B)"):
        assert run(proc, command) == ["AMQ8147E: IBM MQ object APP.B not found."], command


def test_dmpmqcfg_dumps_a_service_as_define_replace(proc):
    """Given a service differing from IBM's defaults, when its DISPLAY ALL answer goes
    through dmpmqcfg's core, then it is one DEFINE SERVICE ... REPLACE with the attributes
    that differ, quoted; replayed into the queue manager under another name it gives the
    same attributes."""
    run(proc, "DEFINE SERVICE(TRM) SERVTYPE(SERVER) CONTROL(QMGR) "
              "STARTCMD('+MQ_INSTALL_PATH+bin/runmqtrm') STARTARG('-m +QMNAME+ -q ''A B''')")
    text = "\n".join(run(proc, "DISPLAY SERVICE(TRM) ALL"))
    (definition,) = dump.object_definitions("SERVICE", dump.parse_display(text))
    mqsc = definition.mqsc(one_line=True)
    assert mqsc.startswith("DEFINE SERVICE('TRM')") and mqsc.endswith("REPLACE")
    assert "CONTROL(QMGR)" in mqsc and "SERVTYPE(SERVER)" in mqsc
    assert "STARTARG('-m +QMNAME+ -q ''A B''')" in mqsc
    assert "STOPCMD" not in mqsc  # IBM's default: not dumped
    assert run(proc, mqsc.replace("'TRM'", "'TRM2'")) == ["AMQ8625I: IBM MQ service created."]
    again = attrs_of(run(proc, "DISPLAY SERVICE(TRM2) STARTCMD CONTROL SERVTYPE")[1:])
    assert again == {"SERVICE": "TRM2", "STARTCMD": "+MQ_INSTALL_PATH+bin/runmqtrm",
                     "CONTROL": "QMGR", "SERVTYPE": "SERVER"}
