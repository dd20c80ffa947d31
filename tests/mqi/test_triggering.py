"""Triggering: when a message arriving on an application queue puts an MQTM on its INITQ.

Set-up used throughout: process P1, application queue APPQ (TRIGGER, INITQ(INITQ1),
PROCESS(P1), TRIGDATA) and a trigger monitor that holds INITQ1 open for input on its own
connection, as runmqtrm does. Trigger messages are counted and read from INITQ1.
"""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from ._support import IN, OUT, curdepth, drain, get_trigger, od, put, s


class Monitor:
    """A trigger monitor: its own connection holding the initiation queue open for input."""

    def __init__(self, q, initq: str = "INITQ1") -> None:
        self.conn = q.connect()
        self.q = mqpy.Queue(self.conn, initq, IN)

    def stop(self) -> None:
        self.q.close()


@pytest.fixture
def trig(qm1):
    qm1.define("PROCESS", "P1", APPLTYPE="UNIX", APPLICID="/usr/bin/serve",
               USERDATA="user data", ENVRDATA="env data")
    qm1.define("QLOCAL", "INITQ1")
    qm1.define("QLOCAL", "APPQ", TRIGGER="YES", TRIGTYPE="FIRST", INITQ="INITQ1",
               PROCESS="P1", TRIGDATA="trigger data")
    qm1.monitor = Monitor(qm1)
    return qm1


def _triggers(q, initq: str = "INITQ1") -> int:
    return curdepth(q.eng, initq)


def _retrigger(q, **attrs) -> None:
    q.eng.alter("QLOCAL", "APPQ", attrs)


# ------------------------------------------------------------------ the trigger message

def test_first_message_makes_a_trigger_message_with_the_process_attributes(trig):
    """Given TRIGTYPE FIRST and a listening monitor, when the first message is put on the empty
    APPQ, then INITQ1 holds one non-persistent MQTM (684 bytes, Format MQTRIG) naming APPQ, P1,
    the queue's TRIGDATA and the process's APPLTYPE, APPLICID, ENVRDATA and USERDATA. spec:
    aliases-channels-storage 4.47"""
    put(trig.qm, "APPQ", b"work")
    md, tm = get_trigger(trig.qm, "INITQ1")
    assert tm.StrucId == b"TM  " and tm.Version == CMQC.MQTM_VERSION_1
    assert s(tm.QName) == "APPQ" and s(tm.ProcessName) == "P1"
    assert s(tm.TriggerData) == "trigger data"
    assert tm.ApplType == CMQC.MQAT_UNIX
    assert s(tm.ApplId) == "/usr/bin/serve"
    assert s(tm.EnvData) == "env data" and s(tm.UserData) == "user data"
    assert md.Persistence == CMQC.MQPER_NOT_PERSISTENT
    assert drain(trig.qm, "APPQ") == [b"work"]  # the application message is untouched


# ------------------------------------------------------------------ FIRST

def test_first_triggers_once_until_the_queue_is_empty_again(trig):
    """Given FIRST, when three messages are put, then one trigger; when the queue is drained and
    a new message arrives, then a second trigger."""
    for i in range(3):
        put(trig.qm, "APPQ", b"%d" % i)
    assert _triggers(trig) == 1
    drain(trig.qm, "APPQ")
    put(trig.qm, "APPQ", b"again")
    assert _triggers(trig) == 2


def test_first_is_suppressed_while_the_queue_is_open_for_input(trig):
    """Given FIRST and an application holding APPQ open for input, when a message arrives on the
    empty queue, then no trigger (the application is already serving it)."""
    server = mqpy.Queue(trig.qm, "APPQ", IN)
    put(trig.qm, "APPQ", b"x")
    assert _triggers(trig) == 0
    server.close()


def test_first_counts_only_messages_at_or_above_trigmpri(trig):
    """Given FIRST with TRIGMPRI(5), when a priority-3 message arrives, then no trigger; when a
    priority-5 message arrives (first eligible one), then a trigger."""
    _retrigger(trig, TRIGMPRI=5)
    put(trig.qm, "APPQ", b"low", priority=3)
    assert _triggers(trig) == 0
    put(trig.qm, "APPQ", b"high", priority=5)
    assert _triggers(trig) == 1


def test_first_with_trigint_zero_retriggers_a_non_empty_queue(trig):
    """Given FIRST and QMGR TRIGINT(0), when a second message arrives on the non-empty queue,
    then another trigger message is made (the trigger interval has passed); with the default
    TRIGINT(999999999) it is not."""
    put(trig.qm, "APPQ", b"1")
    put(trig.qm, "APPQ", b"2")
    assert _triggers(trig) == 1
    trig.eng.alter_qmgr({"TRIGINT": 0})
    put(trig.qm, "APPQ", b"3")
    assert _triggers(trig) == 2


# ------------------------------------------------------------------ EVERY and DEPTH

def test_every_triggers_for_each_message_even_while_open_for_input(trig):
    """Given TRIGTYPE EVERY, when three messages arrive (one while APPQ is open for input), then
    three trigger messages."""
    _retrigger(trig, TRIGTYPE="EVERY")
    put(trig.qm, "APPQ", b"1")
    put(trig.qm, "APPQ", b"2")
    server = mqpy.Queue(trig.qm, "APPQ", IN)
    put(trig.qm, "APPQ", b"3")
    server.close()
    assert _triggers(trig) == 3


def test_depth_triggers_at_trigdpth_then_switches_trigger_off(trig):
    """Given TRIGTYPE DEPTH TRIGDPTH(3), when messages 1 and 2 arrive there is no trigger; at 3
    one trigger and the queue's TRIGGER becomes NO, so message 4 makes none. spec:
    aliases-channels-storage 4.47"""
    _retrigger(trig, TRIGTYPE="DEPTH", TRIGDPTH=3)
    put(trig.qm, "APPQ", b"1")
    put(trig.qm, "APPQ", b"2")
    assert _triggers(trig) == 0
    put(trig.qm, "APPQ", b"3")
    assert _triggers(trig) == 1
    assert trig.eng.lookup("QLOCAL", "APPQ").attributes["TRIGGER"] == "NO"
    put(trig.qm, "APPQ", b"4")
    assert _triggers(trig) == 1


def test_depth_is_suppressed_while_the_queue_is_open_for_input(trig):
    """Given DEPTH TRIGDPTH(2) and APPQ open for input, when the depth reaches 2, then no
    trigger and TRIGGER stays on."""
    _retrigger(trig, TRIGTYPE="DEPTH", TRIGDPTH=2)
    server = mqpy.Queue(trig.qm, "APPQ", IN)
    put(trig.qm, "APPQ", b"1")
    put(trig.qm, "APPQ", b"2")
    server.close()
    assert _triggers(trig) == 0
    assert trig.eng.lookup("QLOCAL", "APPQ").attributes["TRIGGER"] == "YES"


def test_trigger_control_set_through_mqset(trig):
    """Given TRIGGER NO, when an application switches it on with MQSET(MQIA_TRIGGER_CONTROL),
    then the next first message triggers."""
    _retrigger(trig, TRIGGER="NO")
    put(trig.qm, "APPQ", b"0")
    drain(trig.qm, "APPQ")
    assert _triggers(trig) == 0
    q = mqpy.Queue(trig.qm, "APPQ", CMQC.MQOO_SET)
    q.set(CMQC.MQIA_TRIGGER_CONTROL, CMQC.MQTC_ON)
    q.close()
    put(trig.qm, "APPQ", b"1")
    assert _triggers(trig) == 1


# ------------------------------------------------------------------ units of work

def test_syncpoint_put_triggers_at_commit(trig):
    """Given FIRST, when a message is put under syncpoint, then no trigger yet; at MQCMIT the
    trigger message appears."""
    put(trig.qm, "APPQ", b"uow", syncpoint=True)
    assert _triggers(trig) == 0
    trig.qm.commit()
    assert _triggers(trig) == 1


def test_backed_out_syncpoint_put_still_delivers_a_first_trigger(trig):
    """Given FIRST, when a put under syncpoint is backed out, then the trigger message it caused
    is still made available (IBM: 'made available even if the unit of work is backed out')."""
    put(trig.qm, "APPQ", b"uow", syncpoint=True)
    trig.qm.backout()
    assert _triggers(trig) == 1


# ------------------------------------------------------------------ preconditions

def test_no_trigger_without_a_monitor_then_trigger_when_one_opens_the_initq(trig):
    """Given nobody has INITQ1 open for input, when a message arrives, then no trigger; when a
    trigger monitor opens INITQ1 for input, then the waiting queue is triggered."""
    trig.monitor.stop()
    put(trig.qm, "APPQ", b"waiting")
    assert _triggers(trig) == 0
    monitor = Monitor(trig)  # noqa: F841 - holds the initiation queue open
    assert _triggers(trig) == 1
    _md, tm = get_trigger(trig.qm, "INITQ1")
    assert s(tm.QName) == "APPQ"


def test_no_trigger_for_a_normal_queue_without_a_process(trig):
    """Given APPQ names no process (or one that does not exist), then no trigger message."""
    _retrigger(trig, PROCESS="")
    put(trig.qm, "APPQ", b"x")
    drain(trig.qm, "APPQ")
    _retrigger(trig, PROCESS="NO.SUCH.PROCESS")
    put(trig.qm, "APPQ", b"y")
    assert _triggers(trig) == 0


def test_no_trigger_when_the_initq_does_not_exist(trig):
    """Given INITQ names a queue that does not exist, then the put succeeds without trigger."""
    _retrigger(trig, INITQ="NO.SUCH.INITQ")
    put(trig.qm, "APPQ", b"x")
    assert curdepth(trig.eng, "APPQ") == 1 and _triggers(trig) == 0


def test_trigger_type_none_never_triggers(trig):
    """Given TRIGTYPE NONE with TRIGGER on, then no trigger message."""
    _retrigger(trig, TRIGTYPE="NONE")
    put(trig.qm, "APPQ", b"x")
    assert _triggers(trig) == 0


def test_transmission_queue_triggers_the_channel_initiator_without_a_process(trig):
    """Given xmitq QMB with TRIGGER TRIGTYPE(FIRST) INITQ(SYSTEM.CHANNEL.INITQ) TRIGDATA(CH1)
    and no PROCESS, and a channel initiator holding SYSTEM.CHANNEL.INITQ, when a message for a
    queue at QMB is put, then the initq holds an MQTM naming QMB with TriggerData CH1. spec:
    dqm-intercommunication 9.49 (queue-manager side), 4 (triggering setup)"""
    chinit = Monitor(trig, "SYSTEM.CHANNEL.INITQ")
    trig.xmitq("QMB", TRIGGER="YES", TRIGTYPE="FIRST", INITQ="SYSTEM.CHANNEL.INITQ",
               TRIGDATA="CH1")
    q = mqpy.Queue(trig.qm, od("QX", "QMB"), OUT)
    q.put(b"for QMB")
    q.put(b"again")
    q.close()
    assert curdepth(trig.eng, "SYSTEM.CHANNEL.INITQ") == 1
    _md, tm = get_trigger(trig.qm, "SYSTEM.CHANNEL.INITQ")
    assert s(tm.QName) == "QMB" and s(tm.TriggerData) == "CH1" and s(tm.ProcessName) == ""
    chinit.stop()


def test_trigger_on_the_transmission_queue_of_a_remote_definition(trig):
    """Given a triggered xmitq reached through QREMOTE(R) RQMNAME(QMB), then putting to R
    triggers the xmitq like a direct put."""
    monitor = Monitor(trig, "SYSTEM.CHANNEL.INITQ")  # noqa: F841 - holds it open
    trig.xmitq("QMB", TRIGGER="YES", INITQ="SYSTEM.CHANNEL.INITQ", TRIGDATA="CH1")
    trig.define("QREMOTE", "R", RNAME="Q", RQMNAME="QMB")
    put(trig.qm, "R", b"x")
    assert curdepth(trig.eng, "SYSTEM.CHANNEL.INITQ") == 1
