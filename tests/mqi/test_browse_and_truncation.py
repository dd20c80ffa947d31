"""Browse cursors, the message under the cursor, and truncated gets."""

from __future__ import annotations

import mqpy
from mqpy import CMQC

from ._support import BROWSE, IN, depth, drain, get, put, raises_mq

FIRST = CMQC.MQGMO_BROWSE_FIRST
NEXT = CMQC.MQGMO_BROWSE_NEXT


def _browse(q, options: int) -> bytes:
    return q.get(None, mqpy.MD(), mqpy.GMO(Options=options))


def _browse_all(q) -> list[bytes]:
    out = [_browse(q, FIRST)]
    while True:
        try:
            out.append(_browse(q, NEXT))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out


def test_browse_walks_the_queue_in_delivery_order_without_removing(qm):
    """Given messages of mixed priority, when browsed with BROWSE_FIRST then BROWSE_NEXT to
    the end, then they come in priority/arrival order, the walk ends with 2033 and the depth
    is unchanged."""
    for data, prio in ((b"a", 1), (b"b", 5), (b"c", 1), (b"d", 5)):
        put(qm, "Q1", data, priority=prio)
    q = mqpy.Queue(qm, "Q1", BROWSE)
    assert _browse_all(q) == [b"b", b"d", b"a", b"c"]
    assert depth(qm, "Q1") == 4
    assert drain(qm, "Q1") == [b"b", b"d", b"a", b"c"]


def test_browse_next_on_a_fresh_handle_starts_at_the_first_message(qm):
    """Given a new browse handle, when the first call is BROWSE_NEXT, then it returns the first
    message (the cursor starts logically before the first message)."""
    put(qm, "Q1", b"first")
    put(qm, "Q1", b"second")
    q = mqpy.Queue(qm, "Q1", BROWSE)
    assert _browse(q, NEXT) == b"first"
    assert _browse(q, NEXT) == b"second"


def test_browse_skips_messages_locked_by_another_connections_syncpoint_get(qmgr):
    """Given three messages and connection B has got the first under syncpoint, when A
    browses, then A sees only the second and third; after B backs out, A's BROWSE_FIRST sees
    the first again."""
    qmgr.define("Q1")
    a, b = qmgr.qm, qmgr.connect()
    for m in (b"m1", b"m2", b"m3"):
        put(a, "Q1", m)
    get(b, "Q1", syncpoint=True)
    q = mqpy.Queue(a, "Q1", BROWSE)
    assert _browse_all(q) == [b"m2", b"m3"]
    b.backout()
    assert _browse(q, FIRST) == b"m1"


def test_browse_does_not_see_another_connections_uncommitted_put(qmgr):
    """Given B's uncommitted put, when A browses, then 2033."""
    qmgr.define("Q1")
    put(qmgr.connect(), "Q1", b"hidden", syncpoint=True)
    q = mqpy.Queue(qmgr.qm, "Q1", BROWSE)
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _browse(q, FIRST)


def test_browse_msg_under_cursor_returns_the_same_message_again(qm):
    """Given a cursor on the second message, when browsed with BROWSE_MSG_UNDER_CURSOR, then
    the second message is returned again and the cursor stays there."""
    for m in (b"m1", b"m2", b"m3"):
        put(qm, "Q1", m)
    q = mqpy.Queue(qm, "Q1", BROWSE)
    _browse(q, FIRST)
    assert _browse(q, NEXT) == b"m2"
    assert _browse(q, CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR) == b"m2"
    assert _browse(q, NEXT) == b"m3"


def test_get_msg_under_cursor_removes_the_browsed_message(qm):
    """Given a handle open for browse and input whose cursor is on the second message, when it
    gets with MQGMO_MSG_UNDER_CURSOR, then the second message is removed and the first and
    third stay (IBM: the message pointed to by the browse cursor is retrieved)."""
    for m in (b"m1", b"m2", b"m3"):
        put(qm, "Q1", m)
    q = mqpy.Queue(qm, "Q1", BROWSE | IN)
    _browse(q, FIRST)
    _browse(q, NEXT)
    assert _browse(q, CMQC.MQGMO_MSG_UNDER_CURSOR) == b"m2"
    assert drain(qm, "Q1") == [b"m1", b"m3"]


def test_get_after_browse_removes_the_first_message_and_browse_continues(qm):
    """Given a cursor on the first message, when the same handle does a destructive get, then
    the first message is removed, and BROWSE_NEXT continues with the second."""
    for m in (b"m1", b"m2", b"m3"):
        put(qm, "Q1", m)
    q = mqpy.Queue(qm, "Q1", BROWSE | IN)
    assert _browse(q, FIRST) == b"m1"
    assert q.get(None, mqpy.MD(), mqpy.GMO()) == b"m1"
    assert _browse(q, NEXT) == b"m2"
    assert drain(qm, "Q1") == [b"m2", b"m3"]


def test_browse_msg_under_cursor_after_the_message_was_got_fails_2034(qm):
    """Given a cursor on a message that is then got by another handle, when browsed with
    BROWSE_MSG_UNDER_CURSOR, then MQRC_NO_MSG_UNDER_CURSOR."""
    put(qm, "Q1", b"m1")
    q = mqpy.Queue(qm, "Q1", BROWSE)
    _browse(q, FIRST)
    get(qm, "Q1")
    with raises_mq(CMQC.MQRC_NO_MSG_UNDER_CURSOR):
        _browse(q, CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR)


def test_two_browse_options_together_are_an_options_error(qm):
    """Given BROWSE_FIRST and BROWSE_NEXT together, when MQGET, then MQRC_OPTIONS_ERROR."""
    put(qm, "Q1", b"m")
    q = mqpy.Queue(qm, "Q1", BROWSE)
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        _browse(q, FIRST | NEXT)


# ------------------------------------------------------------------ truncation

def test_short_buffer_without_accept_truncated_fails_2080_and_keeps_the_message(qm):
    """Given a 10-byte message, when got with max_length 4 and no ACCEPT_TRUNCATED_MSG, then
    MQCC_WARNING / MQRC_TRUNCATED_MSG_FAILED, the MD is filled in anyway, the message stays on
    the queue and a later full-length get returns it whole."""
    md_put = put(qm, "Q1", b"0123456789")
    q = mqpy.Queue(qm, "Q1", IN)
    md = mqpy.MD()
    with raises_mq(CMQC.MQRC_TRUNCATED_MSG_FAILED, CMQC.MQCC_WARNING):
        q.get(4, md, mqpy.GMO())
    assert md.MsgId == md_put.MsgId
    assert depth(qm, "Q1") == 1
    assert q.get(None, mqpy.MD(), mqpy.GMO()) == b"0123456789"


def test_short_buffer_with_accept_truncated_warns_2079_and_removes_the_message(qm):
    """Given a 10-byte message, when got with max_length 4 and MQGMO_ACCEPT_TRUNCATED_MSG, then
    MQCC_WARNING / MQRC_TRUNCATED_MSG_ACCEPTED and the message is gone from the queue."""
    put(qm, "Q1", b"0123456789")
    q = mqpy.Queue(qm, "Q1", IN)
    with raises_mq(CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, CMQC.MQCC_WARNING):
        q.get(4, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG))
    assert depth(qm, "Q1") == 0


def test_exact_length_buffer_is_not_truncation(qm):
    """Given a 10-byte message, when got with max_length 10, then it is returned whole."""
    put(qm, "Q1", b"0123456789")
    assert get(qm, "Q1", max_length=10)[0] == b"0123456789"
