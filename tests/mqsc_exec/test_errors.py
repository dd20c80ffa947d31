"""Every failure answers with IBM's message and the script goes on."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from .conftest import run


@pytest.mark.parametrize("script, expected", [
    ("DISPLAY QLOCAL(NOPE)", "AMQ8147E: IBM MQ object NOPE not found."),
    ("DISPLAY QUEUE(NOPE*)", "AMQ8147E: IBM MQ object NOPE* not found."),
    ("ALTER QLOCAL(NOPE) MAXDEPTH(1)", "AMQ8147E: IBM MQ object NOPE not found."),
    ("DELETE QALIAS(NOPE)", "AMQ8147E: IBM MQ object NOPE not found."),
    ("CLEAR QLOCAL(NOPE)", "AMQ8147E: IBM MQ object NOPE not found."),
    ("DEFINE QLOCAL(X) LIKE(NOPE)", "AMQ8147E: IBM MQ object NOPE not found."),
    ("DEFINE QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE)", "AMQ8150E: IBM MQ object already exists."),
    ("DEFINE QALIAS(SYSTEM.DEFAULT.LOCAL.QUEUE) REPLACE",
     "AMQ8151E: IBM MQ object has different type."),
    ("ALTER QREMOTE(SYSTEM.DEFAULT.LOCAL.QUEUE) RNAME(A)",
     "AMQ8151E: IBM MQ object has different type."),
    ("DEFINE CHANNEL(C1) CHLTYPE(SDR) XMITQ(X)",
     "AMQ8214E: CONNAME parameter required with channel types SDR, RQSTR, CLNTCONN, "
     "CLUSSDR and CLUSRCVR."),
    ("START CHANNEL(NOPE)", "AMQ8227E: Channel NOPE not found."),
    ("DISPLAY CHSTATUS(*)", "AMQ8420I: Channel Status not found."),
])
def test_failure_messages(proc, script, expected):
    """Given a command that cannot be carried out, then runmqsc's message is printed and
    the command counts as not processed."""
    lines, code = proc.run_script(script + "\nDEFINE QLOCAL(AFTER)\n", echo=False)
    assert lines[4] == expected
    assert "One valid MQSC command could not be processed." in lines
    assert code == 10
    assert proc.engine.lookup("QLOCAL", "AFTER") is not None


def test_delete_of_non_empty_queue_needs_purge(qmgr, proc):
    """Given a queue holding a message, DELETE says AMQ8143E; DELETE ... PURGE deletes."""
    qm, eng, _ = qmgr
    run(proc, "DEFINE QLOCAL(FULL)")
    qm.put1("FULL", b"x")
    assert run(proc, "DELETE QLOCAL(FULL)") == ["AMQ8143E: IBM MQ queue not empty."]
    assert run(proc, "DELETE QLOCAL(FULL) PURGE") == ["AMQ8007I: IBM MQ queue deleted."]


def test_delete_and_clear_of_open_queue_are_in_use(qmgr, proc):
    """Given a queue open for input, DELETE and CLEAR answer AMQ8148E."""
    qm, eng, _ = qmgr
    run(proc, "DEFINE QLOCAL(BUSY)")
    q = mqpy.Queue(qm, "BUSY", CMQC.MQOO_INPUT_SHARED)
    assert run(proc, "DELETE QLOCAL(BUSY)") == ["AMQ8148E: IBM MQ object in use."]
    assert run(proc, "CLEAR QLOCAL(BUSY)") == ["AMQ8148E: IBM MQ object in use."]
    q.close()
    assert run(proc, "CLEAR QLOCAL(BUSY)") == ["AMQ8022I: IBM MQ queue cleared."]


@pytest.mark.parametrize("script", ["STOP CHANNEL(C1)", "PING CHANNEL(C1)",
                                    "START CHANNEL(C1)"])
def test_channel_control_needs_the_channel_initiator(proc, script):
    """Given a defined channel and no channel initiator, START/STOP/PING fail with
    MQRCCF_NO_CHANNEL_INITIATOR (0xC91)."""
    run(proc, "DEFINE CHANNEL(C1) CHLTYPE(SDR) CONNAME('h(1)') XMITQ(X)")
    assert run(proc, script) == ["AMQ8101S: IBM MQ error (C91) has occurred."]


def test_reset_and_resolve_work_on_the_queue_manager_without_the_channel_initiator(proc):
    """Given a channel not in doubt, RESOLVE answers that it is not in doubt and RESET CHANNEL
    rewrites its sync record (both are the queue manager's business, not the initiator's)."""
    run(proc, "DEFINE CHANNEL(C1) CHLTYPE(SDR) CONNAME('h(1)') XMITQ(X)")
    assert run(proc, "RESOLVE CHANNEL(C1) ACTION(COMMIT)") == [
        "AMQ9528E: Channel C1 is not in doubt."]
    assert run(proc, "RESET CHANNEL(C1) SEQNUM(5)") == ["AMQ8023I: IBM MQ channel reset."]


def test_execute_never_raises_for_a_wrong_value(proc):
    """Given a value the parser refuses, execute_text answers AMQ8425E, not an exception."""
    result = proc.execute_text("DEFINE QLOCAL(V) DEFPRTY(12)")
    assert not result.ok and result.lines[0].startswith("AMQ8425E")
