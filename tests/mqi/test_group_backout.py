"""A handle's group and segment state and MQBACK, as IBM MQ has them: "If a unit of work is
backed out, the queue manager restores the group and segment information to the value it had
before" -- for MQPUT with MQPMO_LOGICAL_ORDER and MQGET with MQGMO_LOGICAL_ORDER under
syncpoint; a commit keeps it. Over each way of connecting (embedded, bindings, client): the
state is the queue manager's, kept per handle."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.support.site_here import QUEUE

from ._modes import connect_to_one_per_module, drain, embedded_for_module, site  # noqa: F401
from ._support import IN, OUT

IN_GROUP = CMQC.MQMF_MSG_IN_GROUP
LAST = CMQC.MQMF_LAST_MSG_IN_GROUP
SEGMENT = CMQC.MQMF_SEGMENT
LAST_SEGMENT = CMQC.MQMF_LAST_SEGMENT
LOGICAL_SYNC_PUT = CMQC.MQPMO_LOGICAL_ORDER | CMQC.MQPMO_SYNCPOINT
LOGICAL_SYNC_GET = CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_SYNCPOINT


@pytest.fixture
def qm(connect):
    qm = connect()
    drain(qm)
    try:
        yield qm
    finally:
        try:
            qm.backout()
        except mqpy.MQMIError:
            pass
        drain(qm)
        qm.disconnect()


def _put(q: mqpy.Queue, body: bytes, flags: int, opts: int = LOGICAL_SYNC_PUT) -> mqpy.MD:
    md = mqpy.MD(MsgFlags=flags)
    q.put(body, md, mqpy.PMO(Options=opts))
    return md


def _get(q: mqpy.Queue, opts: int = LOGICAL_SYNC_GET) -> tuple[bytes, mqpy.MD]:
    md = mqpy.MD()
    body = q.get(None, md, mqpy.GMO(Options=opts))
    return body, md


def test_a_group_put_in_logical_order_backed_out_starts_again_at_message_one(qm):
    # given messages 1..3 of a group put in logical order under syncpoint
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    first = [_put(q, b"m%d" % i, IN_GROUP) for i in (1, 2, 3)]
    # when the unit of work is backed out
    qm.backout()
    # then the handle's group is as before the unit of work: none under way, so the next
    # put in logical order begins a new group at message 1 (not message 4 of the old one)
    again = [_put(q, b"n1", IN_GROUP), _put(q, b"n2", LAST)]
    qm.commit()
    assert [md.MsgSeqNumber for md in again] == [1, 2]
    assert again[0].GroupId != first[0].GroupId
    # and the queue holds that whole group, got in logical order
    got = [_get(q, CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_NO_SYNCPOINT) for _ in range(2)]
    assert [(b, md.MsgSeqNumber) for b, md in got] == [(b"n1", 1), (b"n2", 2)]
    # and closing warns of no unfinished group
    q.close()


def test_a_group_spanning_units_of_work_backed_out_resumes_after_the_last_commit(qm):
    # given messages 1 and 2 of a group committed, 3 and 4 put in the next unit of work
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    committed = [_put(q, b"m1", IN_GROUP), _put(q, b"m2", IN_GROUP)]
    qm.commit()
    _put(q, b"m3", IN_GROUP)
    _put(q, b"m4", IN_GROUP)
    # when that unit of work is backed out
    qm.backout()
    # then the group goes on from message 2, the state at the start of the unit of work
    last = _put(q, b"m3'", LAST)
    qm.commit()
    assert (last.GroupId, last.MsgSeqNumber) == (committed[0].GroupId, 3)
    got = [_get(q, CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_NO_SYNCPOINT)[0] for _ in range(3)]
    assert got == [b"m1", b"m2", b"m3'"]
    q.close()


def test_a_group_got_in_logical_order_backed_out_is_got_again_from_its_first_message(qm):
    # given a whole group on the queue, messages 1 and 2 got in logical order in syncpoint
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    for body, flags in ((b"a", IN_GROUP), (b"b", IN_GROUP), (b"c", LAST)):
        _put(q, body, flags, CMQC.MQPMO_LOGICAL_ORDER | CMQC.MQPMO_NO_SYNCPOINT)
    assert [_get(q)[0] for _ in range(2)] == [b"a", b"b"]
    # when the unit of work is backed out
    qm.backout()
    # then the handle is where it was before: the next get in logical order has message 1
    got = [_get(q) for _ in range(3)]
    assert [(b, md.MsgSeqNumber) for b, md in got] == [(b"a", 1), (b"b", 2), (b"c", 3)]
    qm.commit()
    q.close()


def test_a_committed_group_get_keeps_its_place(qm):
    # given a group of three, message 1 got in logical order and committed
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    for body, flags in ((b"a", IN_GROUP), (b"b", IN_GROUP), (b"c", LAST)):
        _put(q, body, flags, CMQC.MQPMO_LOGICAL_ORDER | CMQC.MQPMO_NO_SYNCPOINT)
    assert _get(q)[0] == b"a"
    qm.commit()
    # when message 2 is got and backed out
    assert _get(q)[0] == b"b"
    qm.backout()
    # then the handle goes on from message 1, committed: message 2 again, then 3
    assert [_get(q)[0] for _ in range(2)] == [b"b", b"c"]
    qm.commit()
    q.close()


def test_a_segmented_message_put_in_logical_order_backed_out_starts_again_at_offset_zero(qm):
    # given two segments of a logical message put in logical order under syncpoint
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    first = [_put(q, b"0123", SEGMENT), _put(q, b"4567", SEGMENT)]
    assert [md.Offset for md in first] == [0, 4]
    # when the unit of work is backed out
    qm.backout()
    # then the next segment begins a new logical message at offset 0
    again = [_put(q, b"ab", SEGMENT), _put(q, b"cd", LAST_SEGMENT)]
    qm.commit()
    assert [md.Offset for md in again] == [0, 2]
    assert again[0].GroupId != first[0].GroupId
    body, _md = _get(q, CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_NO_SYNCPOINT)
    assert body == b"abcd"
    q.close()
