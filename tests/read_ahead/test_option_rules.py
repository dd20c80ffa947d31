"""Which handles read ahead, and the MQGET options read ahead allows (IBM's "MQGET options and
read ahead" and "Enabling and disabling read ahead"): over bindings, and the options accepted
by an embedded connection, which needs no buffer."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from mqpy.mqsc.processor import MQSCProcessor
from tests.read_ahead.conftest import IN, RA, depth, drain, fill

AS_Q_DEF = CMQC.MQOO_READ_AHEAD_AS_Q_DEF
BOTH = CMQC.MQOO_READ_AHEAD | CMQC.MQOO_NO_READ_AHEAD


def _streamed(qm, queue: str, options: int) -> bool:
    """Did a handle opened with ``options`` have the queue's messages sent ahead after its
    first get?"""
    fill(qm, queue, [b"1", b"2", b"3", b"4", b"5"])
    q = mqpy.Queue(qm, queue, options)
    assert q.get(None) == b"1"
    streamed = depth(qm, queue) == 0
    assert [q.get(None) for _ in range(4)] == [b"2", b"3", b"4", b"5"]
    q.close()
    return streamed


@pytest.mark.parametrize(("queue", "options", "streamed"), [
    ("RA.NO", IN | AS_Q_DEF, False),
    ("RA.NO", IN | CMQC.MQOO_READ_AHEAD, True),
    ("RA.YES", IN | AS_Q_DEF, True),
    ("RA.YES", IN | CMQC.MQOO_NO_READ_AHEAD, False),
    ("RA.DISABLED", IN | CMQC.MQOO_READ_AHEAD, False),
    ("RA.YES", IN | CMQC.MQOO_BROWSE | CMQC.MQOO_READ_AHEAD, False),
])
def test_the_open_options_and_defreada_decide_whether_a_handle_reads_ahead(
        qm, queue, options, streamed):
    """Given a queue's DEFREADA and the MQOPEN's read-ahead option, when the handle gets its
    first message, then the rest were sent ahead exactly when IBM's rules say: READ_AHEAD
    unless DISABLED, NO_READ_AHEAD never, AS_Q_DEF as DEFREADA; never with MQOO_BROWSE."""
    assert _streamed(qm, queue, options) is streamed


def test_read_ahead_and_no_read_ahead_together_are_2046(qm):
    """Given MQOO_READ_AHEAD with MQOO_NO_READ_AHEAD, when MQOPEN is called over bindings,
    then it fails with MQRC_OPTIONS_ERROR (2046)."""
    with pytest.raises(mqpy.MQMIError) as e:
        mqpy.Queue(qm, "RA.RULES", IN | BOTH)
    assert e.value.reason == CMQC.MQRC_OPTIONS_ERROR


@pytest.mark.parametrize("first", [
    mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT),
    mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_MARK_SKIP_BACKOUT),
])
def test_a_first_get_with_an_option_read_ahead_forbids_turns_it_off(qm, first):
    """Given a read-ahead handle, when its first MQGET has an option not permitted with
    read ahead (MQGMO_SYNCPOINT ...), then read ahead is off for the handle: the other
    messages stay on the queue, and later gets are plain gets."""
    fill(qm, "RA.RULES", [b"1", b"2", b"3"])
    q = mqpy.Queue(qm, "RA.RULES", RA)
    assert q.get(None, mqpy.MD(), first) == b"1"
    assert depth(qm, "RA.RULES") == 2
    qm.commit()
    assert q.get(None) == b"2"
    assert depth(qm, "RA.RULES") == 1
    q.close()
    assert drain(qm, "RA.RULES") == [b"3"]


def test_a_first_get_by_msgid_turns_read_ahead_off(qm):
    """Given a read-ahead handle, when its first MQGET selects by MsgId, then read ahead is
    off for the handle (the others are not sent ahead)."""
    out = mqpy.Queue(qm, "RA.RULES", CMQC.MQOO_OUTPUT)
    md = mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT)
    out.put(b"first", md)
    out.put(b"second", mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
    q = mqpy.Queue(qm, "RA.RULES", RA)
    assert q.get(None, mqpy.MD(MsgId=md.MsgId)) == b"first"
    assert depth(qm, "RA.RULES") == 1
    q.close()
    assert drain(qm, "RA.RULES") == [b"second"]


def test_later_gets_that_change_or_add_options_fail_as_ibm_says(qm):
    """Given a read-ahead handle whose first get was MQGMO_NO_SYNCPOINT, when a later get
    adds MQGMO_ACCEPT_TRUNCATED_MSG, then MQRC_OPTIONS_CHANGED (2457); adds MQGMO_SYNCPOINT,
    then MQRC_OPTIONS_ERROR (2046); adds MQGMO_WAIT (which may change), then it gets."""
    fill(qm, "RA.RULES", [b"1", b"2", b"3"])
    q = mqpy.Queue(qm, "RA.RULES", RA)
    nosync = CMQC.MQGMO_NO_SYNCPOINT
    assert q.get(None, mqpy.MD(), mqpy.GMO(Options=nosync)) == b"1"
    with pytest.raises(mqpy.MQMIError) as e:
        q.get(None, mqpy.MD(), mqpy.GMO(Options=nosync | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG))
    assert e.value.reason == CMQC.MQRC_OPTIONS_CHANGED
    with pytest.raises(mqpy.MQMIError) as e:
        q.get(None, mqpy.MD(), mqpy.GMO(Options=nosync | CMQC.MQGMO_SYNCPOINT))
    assert e.value.reason == CMQC.MQRC_OPTIONS_ERROR
    wait = mqpy.GMO(Options=nosync | CMQC.MQGMO_WAIT, WaitInterval=100)
    assert [q.get(None, mqpy.MD(), wait) for _ in range(2)] == [b"2", b"3"]
    q.close()


def test_an_embedded_connection_accepts_the_read_ahead_options(tmp_path):
    """Given an embedded queue manager (no buffer needed), when a queue is opened with
    MQOO_READ_AHEAD, MQOO_NO_READ_AHEAD or AS_Q_DEF, then gets work as usual; with both
    READ_AHEAD and NO_READ_AHEAD, MQOPEN is MQRC_OPTIONS_ERROR."""
    qm = mqpy.embedded("RAEMB", data_path=str(tmp_path))
    try:
        qm.connection().engine.define("QLOCAL", "EQ", {"DEFREADA": "YES"})
        fill(qm, "EQ", [b"a", b"b", b"c"])
        got = []
        for option in (CMQC.MQOO_READ_AHEAD, CMQC.MQOO_NO_READ_AHEAD, AS_Q_DEF):
            q = mqpy.Queue(qm, "EQ", IN | option)
            got.append(q.get(None))
            q.close()
        assert got == [b"a", b"b", b"c"]
        with pytest.raises(mqpy.MQMIError) as e:
            mqpy.Queue(qm, "EQ", IN | BOTH)
        assert e.value.reason == CMQC.MQRC_OPTIONS_ERROR
    finally:
        qm.disconnect()


def test_display_qstatus_of_handles_shows_reada(tmp_path):
    """Given handles opened with MQOO_READ_AHEAD and with MQOO_NO_READ_AHEAD, when
    DISPLAY QSTATUS TYPE(HANDLE) runs, then READA shows YES for the first and NO for the
    second, as IBM's display does."""
    qm = mqpy.embedded("RADSP", data_path=str(tmp_path))
    try:
        eng = qm.connection().engine
        eng.define("QLOCAL", "DQ", {})
        handles = [mqpy.Queue(qm, "DQ", IN | CMQC.MQOO_READ_AHEAD),
                   mqpy.Queue(qm, "DQ", IN | CMQC.MQOO_NO_READ_AHEAD)]
        lines, _ = MQSCProcessor(eng).run_script("DISPLAY QSTATUS(DQ) TYPE(HANDLE)", echo=False)
        text = " ".join(lines)
        assert text.count("READA(YES)") == 1 and text.count("READA(NO)") == 1
        for q in handles:
            q.close()
    finally:
        qm.disconnect()
