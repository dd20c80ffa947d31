"""Message segmentation, as IBM MQ has it, over each way of connecting (embedded, bindings,
client: the MQMD's Offset and MsgFlags and the MQGMO's SegmentStatus, GroupStatus and
Segmentation travel): an application's segments (MQMF_SEGMENT, MQMF_LAST_SEGMENT) put in
logical order get their Offsets from the queue manager; the queue manager segments a message
too big for its queue when MQMF_SEGMENTATION_ALLOWED says it may; MQGMO_COMPLETE_MSG
reassembles a logical message whose segments are all there, MQGMO_ALL_SEGMENTS_AVAILABLE
waits for them, MQGMO_LOGICAL_ORDER goes through them in order; each rule broken fails that
call alone with IBM's reason."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy
from mqpy import CMQC, inprocess
from tests.support.site import Site
from tests.support.site_here import QUEUE, started_site

from ._modes import connect_to_one_per_module, drain, fails_alone  # noqa: F401
from ._support import IN, OUT, raises_mq

SMALL = "SEG.SMALL"  # MAXMSGL(100): what the queue manager segments for
SEGMENT = CMQC.MQMF_SEGMENT
LAST_SEGMENT = CMQC.MQMF_LAST_SEGMENT
ALLOWED = CMQC.MQMF_SEGMENTATION_ALLOWED
IN_GROUP = CMQC.MQMF_MSG_IN_GROUP
LAST_IN_GROUP = CMQC.MQMF_LAST_MSG_IN_GROUP
LOGICAL_PUT = CMQC.MQPMO_LOGICAL_ORDER | CMQC.MQPMO_NO_SYNCPOINT
NO_SYNC_GET = CMQC.MQGMO_NO_SYNCPOINT
COMPLETE = CMQC.MQGMO_COMPLETE_MSG


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:
    """A daemon with QUEUE and SMALL, for the bindings and client modes."""
    for s in started_site(str(tmp_path_factory.mktemp("segments"))):
        s.mqsc_here(f"DEFINE QLOCAL({SMALL}) MAXMSGL(100)\n")
        yield s


@pytest.fixture(scope="module")
def embedded_for_module(tmp_path_factory):
    """A queue manager of this process with QUEUE and SMALL."""
    root = str(tmp_path_factory.mktemp("embedded-segments"))
    mqpy.embedded("QMS", data_path=root)
    eng = inprocess.running("QMS", root)
    eng.define("QLOCAL", QUEUE, {})
    eng.define("QLOCAL", SMALL, {"MAXMSGL": 100})
    try:
        yield lambda: mqpy.embedded("QMS", data_path=root)
    finally:
        inprocess.stop("QMS", root)


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
        for name in (SMALL,):
            q = mqpy.Queue(qm, name, IN)
            try:
                while True:
                    q.get(None, mqpy.MD(), mqpy.GMO(Options=NO_SYNC_GET))
            except mqpy.MQMIError:
                pass
            q.close()
        qm.disconnect()


def _put(q: mqpy.Queue, body: bytes, flags: int, opts: int = LOGICAL_PUT, **md: object
         ) -> mqpy.MD:
    d = mqpy.MD(MsgFlags=flags, **md)
    q.put(body, d, mqpy.PMO(Options=opts))
    return d


def _get(q: mqpy.Queue, opts: int = NO_SYNC_GET, max_length: int | None = None
         ) -> tuple[bytes, mqpy.MD, mqpy.GMO]:
    md = mqpy.MD()
    gmo = mqpy.GMO(Options=opts | (0 if opts & CMQC.MQGMO_SYNCPOINT else NO_SYNC_GET),
                   MatchOptions=CMQC.MQMO_NONE)
    body = q.get(max_length, md, gmo)
    return body, md, gmo


def test_segments_put_in_logical_order_get_offsets_and_one_group_id(qm):
    # given a logical message put as three segments in logical order
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    mds = [_put(q, b"0123", SEGMENT), _put(q, b"4567", SEGMENT), _put(q, b"89", LAST_SEGMENT)]
    # then the queue manager gave them one new GroupId, MsgSeqNumber 1, and their Offsets
    assert len({md.GroupId for md in mds}) == 1 and mds[0].GroupId != CMQC.MQGI_NONE
    assert [(md.MsgSeqNumber, md.Offset) for md in mds] == [(1, 0), (1, 4), (1, 8)]
    # when they are got one by one, then each says what segment it is
    got = [_get(q) for _ in range(3)]
    assert [b for b, _md, _g in got] == [b"0123", b"4567", b"89"]
    assert [md.Offset for _b, md, _g in got] == [0, 4, 8]
    assert [g.SegmentStatus for _b, _md, g in got] == [
        CMQC.MQSS_SEGMENT, CMQC.MQSS_SEGMENT, CMQC.MQSS_LAST_SEGMENT]
    assert [g.GroupStatus for _b, _md, g in got] == [CMQC.MQGS_NOT_IN_GROUP] * 3
    q.close()


def test_complete_msg_reassembles_a_logical_message(qm):
    # given a logical message of three segments
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    mds = [_put(q, b"0123", SEGMENT), _put(q, b"4567", SEGMENT), _put(q, b"89", LAST_SEGMENT)]
    # when it is got with MQGMO_COMPLETE_MSG
    body, md, gmo = _get(q, COMPLETE)
    # then the whole message comes back, with the first segment's MQMD marked the only one
    assert body == b"0123456789"
    assert (md.GroupId, md.Offset, md.MsgId) == (mds[0].GroupId, 0, mds[0].MsgId)
    assert md.MsgFlags & LAST_SEGMENT and not md.MsgFlags & SEGMENT
    assert gmo.SegmentStatus == CMQC.MQSS_LAST_SEGMENT
    # and none of its segments is left
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _get(q)
    q.close()


def test_complete_msg_skips_a_logical_message_with_a_segment_missing(qm):
    # given a logical message's first and last segments, the middle one missing
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    first = _put(q, b"0123", SEGMENT, CMQC.MQPMO_NO_SYNCPOINT)
    gid = first.GroupId
    _put(q, b"89", LAST_SEGMENT, CMQC.MQPMO_NO_SYNCPOINT, GroupId=gid, Offset=8)
    # when a get asks for a complete message, then there is none
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _get(q, COMPLETE)
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _get(q, CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE)
    # when the missing segment arrives, then the message is got whole
    _put(q, b"4567", SEGMENT, CMQC.MQPMO_NO_SYNCPOINT, GroupId=gid, Offset=4)
    assert _get(q, COMPLETE)[0] == b"0123456789"
    q.close()


def test_all_segments_available_gets_segments_only_once_all_are_there(qm):
    # given two of a logical message's segments, its last not yet put
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    _put(q, b"ab", SEGMENT)
    _put(q, b"cd", SEGMENT)
    # when a get asks for all segments available, then none is given
    opts = CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE | CMQC.MQGMO_LOGICAL_ORDER
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _get(q, opts)
    # once the last is put, they are got one by one in logical order
    _put(q, b"e", LAST_SEGMENT)
    got = [_get(q, opts) for _ in range(3)]
    assert [(b, md.Offset, g.SegmentStatus) for b, md, g in got] == [
        (b"ab", 0, CMQC.MQSS_SEGMENT), (b"cd", 2, CMQC.MQSS_SEGMENT),
        (b"e", 4, CMQC.MQSS_LAST_SEGMENT)]
    q.close()


def test_logical_order_goes_through_a_groups_segmented_message(qm):
    # given a group of two messages, the first in two segments, put in logical order, and a
    # message in no group put before its last segment by another handle
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    _put(q, b"1a", IN_GROUP | SEGMENT)
    other = mqpy.Queue(qm, QUEUE, OUT)
    other.put(b"plain", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    other.close()
    _put(q, b"1b", IN_GROUP | LAST_SEGMENT)
    last = _put(q, b"2", LAST_IN_GROUP)
    assert (last.MsgSeqNumber, last.Offset) == (2, 0)
    # when got in logical order, then the group's segments and messages come in order
    opts = CMQC.MQGMO_LOGICAL_ORDER
    got = [_get(q, opts) for _ in range(4)]
    assert [(b, md.MsgSeqNumber, md.Offset) for b, md, _g in got] == [
        (b"1a", 1, 0), (b"1b", 1, 2), (b"2", 2, 0), (b"plain", 1, 0)]
    assert [(g.GroupStatus, g.SegmentStatus) for _b, _md, g in got[:3]] == [
        (CMQC.MQGS_MSG_IN_GROUP, CMQC.MQSS_SEGMENT),
        (CMQC.MQGS_MSG_IN_GROUP, CMQC.MQSS_LAST_SEGMENT),
        (CMQC.MQGS_LAST_MSG_IN_GROUP, CMQC.MQSS_NOT_A_SEGMENT)]
    q.close()


def test_complete_msg_in_logical_order_gives_a_group_message_by_message(qm):
    # given a group whose first message is in two segments
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    _put(q, b"1a", IN_GROUP | SEGMENT)
    _put(q, b"1b", IN_GROUP | LAST_SEGMENT)
    _put(q, b"2", LAST_IN_GROUP)
    # when it is got in logical order, complete messages
    opts = CMQC.MQGMO_LOGICAL_ORDER | COMPLETE
    got = [_get(q, opts) for _ in range(2)]
    # then the first message comes whole, then the second
    assert [(b, g.GroupStatus) for b, _md, g in got] == [
        (b"1a1b", CMQC.MQGS_MSG_IN_GROUP), (b"2", CMQC.MQGS_LAST_MSG_IN_GROUP)]
    q.close()


def test_complete_msg_after_a_segment_got_alone_in_logical_order_is_incomplete_msg(qm):
    # given a logical message's first segment got alone in logical order
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    _put(q, b"ab", SEGMENT)
    _put(q, b"cd", LAST_SEGMENT)
    assert _get(q, CMQC.MQGMO_LOGICAL_ORDER)[0] == b"ab"
    # when the next get asks for a complete message, then MQRC_INCOMPLETE_MSG
    with raises_mq(CMQC.MQRC_INCOMPLETE_MSG):
        _get(q, CMQC.MQGMO_LOGICAL_ORDER | COMPLETE)
    # and the rest of the message is still got in logical order
    assert _get(q, CMQC.MQGMO_LOGICAL_ORDER)[0] == b"cd"
    q.close()


def test_complete_msg_too_long_for_the_buffer_is_truncated_msg_failed_and_stays(qm):
    # given a logical message of 10 bytes in three segments
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    for body, flags in ((b"0123", SEGMENT), (b"4567", SEGMENT), (b"89", LAST_SEGMENT)):
        _put(q, body, flags)
    # when a complete get's buffer holds 6 bytes, then it fails and the message stays
    with raises_mq(CMQC.MQRC_TRUNCATED_MSG_FAILED, CMQC.MQCC_WARNING):
        _get(q, COMPLETE, max_length=6)
    # and with MQGMO_ACCEPT_TRUNCATED_MSG the first 6 come back, the whole message gone
    with raises_mq(CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, CMQC.MQCC_WARNING) as info:
        _get(q, COMPLETE | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG, max_length=6)
    assert getattr(info.value, "message", b"012345")[:6] == b"012345"
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _get(q)
    q.close()


def test_the_queue_manager_segments_a_message_too_big_for_its_queue(qm):
    # given a queue whose MAXMSGL is 100, when 250 bytes are put allowing segmentation
    q = mqpy.Queue(qm, SMALL, OUT | IN | CMQC.MQOO_BROWSE)
    data = bytes(range(250))
    md = _put(q, data, ALLOWED, CMQC.MQPMO_NO_SYNCPOINT)
    assert md.GroupId != CMQC.MQGI_NONE
    # then the queue holds three segments of it, got one by one
    got = [_get(q, CMQC.MQGMO_BROWSE_NEXT) for _ in range(3)]
    assert [(len(b), m.Offset, g.SegmentStatus) for b, m, g in got] == [
        (100, 0, CMQC.MQSS_SEGMENT), (100, 100, CMQC.MQSS_SEGMENT),
        (50, 200, CMQC.MQSS_LAST_SEGMENT)]
    assert all(g.Segmentation == CMQC.MQSEG_ALLOWED for _b, _m, g in got)
    # and a complete get has the message back whole
    assert _get(q, COMPLETE)[0] == data
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _get(q)
    q.close()


def test_a_persistent_message_segmented_in_syncpoint_is_there_only_once_committed(qm):
    # given a persistent message the queue manager segments, put under syncpoint
    q = mqpy.Queue(qm, SMALL, OUT | IN)
    _put(q, b"x" * 300, ALLOWED, CMQC.MQPMO_SYNCPOINT, Persistence=CMQC.MQPER_PERSISTENT)
    # when the unit of work is backed out, then none of its segments is there
    qm.backout()
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _get(q)
    # and put again and committed, it is got whole, in syncpoint, persistent
    _put(q, b"y" * 300, ALLOWED, CMQC.MQPMO_SYNCPOINT, Persistence=CMQC.MQPER_PERSISTENT)
    qm.commit()
    body, md, _gmo = _get(q, COMPLETE | CMQC.MQGMO_SYNCPOINT)
    assert (body, md.Persistence) == (b"y" * 300, CMQC.MQPER_PERSISTENT)
    qm.commit()
    q.close()


def test_a_message_too_big_for_its_queue_without_segmentation_is_too_big(qm):
    q = mqpy.Queue(qm, SMALL, OUT)
    # when 101 bytes are put on a queue of MAXMSGL 100, segmentation not allowed
    with raises_mq(CMQC.MQRC_MSG_TOO_BIG_FOR_Q):
        _put(q, b"z" * 101, 0, CMQC.MQPMO_NO_SYNCPOINT)
    q.close()


def test_segmentation_outside_syncpoint_with_a_unit_of_work_under_way_fails_alone(connect):
    # given a unit of work under way, when a message the queue manager must segment is put
    # outside syncpoint, then MQRC_UOW_NOT_AVAILABLE, and the unit of work is intact
    def call(qm: mqpy.QueueManager, _q: mqpy.Queue) -> None:
        small = mqpy.Queue(qm, SMALL, OUT)
        try:
            _put(small, b"s" * 150, ALLOWED, CMQC.MQPMO_NO_SYNCPOINT)
        finally:
            small.close()

    fails_alone(connect, call, CMQC.MQRC_UOW_NOT_AVAILABLE)


def test_a_first_segment_of_no_data_is_segment_length_zero(connect):
    def call(_qm: mqpy.QueueManager, q: mqpy.Queue) -> None:
        _put(q, b"", SEGMENT, CMQC.MQPMO_NO_SYNCPOINT)

    fails_alone(connect, call, CMQC.MQRC_SEGMENT_LENGTH_ZERO)


def test_segments_of_mixed_persistence_in_logical_order_are_inconsistent_persistence(qm):
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    _put(q, b"ab", SEGMENT, Persistence=CMQC.MQPER_NOT_PERSISTENT)
    with raises_mq(CMQC.MQRC_INCONSISTENT_PERSISTENCE):
        _put(q, b"cd", LAST_SEGMENT, Persistence=CMQC.MQPER_PERSISTENT)
    # and the logical message is finished as it began
    _put(q, b"cd", LAST_SEGMENT, Persistence=CMQC.MQPER_NOT_PERSISTENT)
    assert _get(q, COMPLETE)[0] == b"abcd"
    q.close()


def test_a_message_not_a_segment_after_an_unfinished_logical_message_is_incomplete_msg(qm):
    # given a logical message's first segment put in logical order
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    _put(q, b"ab", SEGMENT)
    # when a message that is no segment is put in logical order: MQRC_INCOMPLETE_MSG
    with raises_mq(CMQC.MQRC_INCOMPLETE_MSG):
        _put(q, b"plain", 0)
    # and closing with it unfinished warns MQRC_INCOMPLETE_MSG
    with raises_mq(CMQC.MQRC_INCOMPLETE_MSG, CMQC.MQCC_WARNING):
        q.close()


def test_a_plain_message_got_with_an_mqgmo_reused_after_a_segment_is_not_a_segment(qm):
    # given a segment got with an MQGMO, which then says MQSS_SEGMENT and MQSEG_ALLOWED
    q = mqpy.Queue(qm, QUEUE, OUT | IN)
    _put(q, b"ab", SEGMENT | ALLOWED)
    _put(q, b"c", LAST_SEGMENT)
    q.put(b"plain", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    gmo = mqpy.GMO(Options=NO_SYNC_GET)
    q.get(None, mqpy.MD(), gmo)
    assert (gmo.SegmentStatus, gmo.Segmentation) == (CMQC.MQSS_SEGMENT, CMQC.MQSEG_ALLOWED)
    q.get(None, mqpy.MD(), gmo)
    # when the same MQGMO gets a message that is no segment (the queue manager's fast path)
    body = q.get(None, mqpy.MD(), gmo)
    # then its SegmentStatus and Segmentation say so
    assert body == b"plain"
    assert (gmo.GroupStatus, gmo.SegmentStatus, gmo.Segmentation) == (
        CMQC.MQGS_NOT_IN_GROUP, CMQC.MQSS_NOT_A_SEGMENT, CMQC.MQSEG_INHIBITED)
    q.close()
