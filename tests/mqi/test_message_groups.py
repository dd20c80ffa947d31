"""Message groups, as IBM MQ has them, over each way of connecting (embedded, bindings,
client): MQPMO_LOGICAL_ORDER makes a group's GroupId and numbers its messages; MQGET selects
by GroupId and MsgSeqNumber, returns a group in logical order with its GroupStatus, and
with MQGMO_ALL_MSGS_AVAILABLE waits for a group's last message; the rules of a group's puts
(MQRC_INCOMPLETE_GROUP, MQRC_INCONSISTENT_UOW, MQRC_INCONSISTENT_PERSISTENCE) each fail
that call alone."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.support.site_here import QUEUE

from ._modes import connect_to_one_per_module, drain, embedded_for_module, site  # noqa: F401
from ._support import BROWSE, IN, OUT, raises_mq

IN_GROUP = CMQC.MQMF_MSG_IN_GROUP
LAST = CMQC.MQMF_LAST_MSG_IN_GROUP
LOGICAL_PUT = CMQC.MQPMO_LOGICAL_ORDER
LOGICAL_GET = CMQC.MQGMO_LOGICAL_ORDER
NO_SYNC = CMQC.MQPMO_NO_SYNCPOINT


def _put_group(q: mqpy.Queue, bodies: list[bytes], opts: int = NO_SYNC) -> list[mqpy.MD]:
    """Put ``bodies`` as one group in logical order; the MQMDs the puts returned."""
    mds = []
    for i, body in enumerate(bodies):
        md = mqpy.MD(MsgFlags=LAST if i == len(bodies) - 1 else IN_GROUP)
        q.put(body, md, mqpy.PMO(Options=LOGICAL_PUT | opts))
        mds.append(md)
    return mds


def _get(q: mqpy.Queue, opts: int = 0, md: mqpy.MD | None = None,
         match: int = CMQC.MQMO_NONE) -> tuple[bytes, mqpy.MD, mqpy.GMO]:
    md = md or mqpy.MD()
    gmo = mqpy.GMO(Options=opts | CMQC.MQGMO_NO_SYNCPOINT if not opts & CMQC.MQGMO_SYNCPOINT
                   else opts, MatchOptions=match)
    body = q.get(None, md, gmo)
    return body, md, gmo


@pytest.fixture
def q(connect):
    """QUEUE opened for output, input and browse, empty, on a connection of each mode."""
    qm = connect()
    drain(qm)
    queue = mqpy.Queue(qm, QUEUE, OUT | IN | BROWSE)
    try:
        yield queue
    finally:
        try:
            queue.close()
        except mqpy.MQMIError:
            pass
        drain(qm)
        qm.disconnect()


def test_a_group_put_in_logical_order_gets_one_new_group_id_and_numbered_messages(q):
    # given a queue, when three messages are put as a group in logical order
    mds = _put_group(q, [b"a", b"b", b"c"])
    # then the queue manager made one GroupId, not none and not a MsgId, and numbered them
    group_ids = {md.GroupId for md in mds}
    assert len(group_ids) == 1 and mds[0].GroupId.strip(b"\x00")
    assert mds[0].GroupId not in {md.MsgId for md in mds}
    assert [md.MsgSeqNumber for md in mds] == [1, 2, 3]
    assert [md.Offset for md in mds] == [0, 0, 0]
    # and the next group gets another GroupId
    again = _put_group(q, [b"d", b"e"])
    assert again[0].GroupId != mds[0].GroupId
    assert [md.MsgSeqNumber for md in again] == [1, 2]
    # and a get returns each message's group fields and GroupStatus
    statuses = []
    for expected_seq in (1, 2, 3):
        _body, md, gmo = _get(q)
        assert (md.GroupId, md.MsgSeqNumber) == (mds[0].GroupId, expected_seq)
        statuses.append(gmo.GroupStatus)
    assert statuses == [CMQC.MQGS_MSG_IN_GROUP, CMQC.MQGS_MSG_IN_GROUP,
                        CMQC.MQGS_LAST_MSG_IN_GROUP]


def test_a_message_in_no_group_has_group_status_not_in_group(q):
    # given a group's last message got, then a message in no group
    _put_group(q, [b"only"])
    q.put(b"plain", mqpy.MD(), mqpy.PMO(Options=NO_SYNC))
    gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
    q.get(None, mqpy.MD(), gmo)
    assert gmo.GroupStatus == CMQC.MQGS_LAST_MSG_IN_GROUP
    # when the message in no group is got with the same MQGMO
    md = mqpy.MD()
    body = q.get(None, md, gmo)
    # then its GroupStatus says so
    assert (body, gmo.GroupStatus, md.GroupId) == (b"plain", CMQC.MQGS_NOT_IN_GROUP,
                                                   CMQC.MQGI_NONE)


def test_without_logical_order_the_applications_group_fields_are_taken_as_given(q):
    # given a GroupId and sequence numbers of the application's own
    gid = b"MY.OWN.GROUP".ljust(24, b"\x00")
    for seq, flags in ((2, LAST), (1, IN_GROUP)):
        q.put(b"m%d" % seq, mqpy.MD(GroupId=gid, MsgSeqNumber=seq, MsgFlags=flags),
              mqpy.PMO(Options=NO_SYNC))
    # when they are got in physical order, then they carry them as given
    got = [(_get(q)[1].MsgSeqNumber) for _ in range(2)]
    assert got == [2, 1]


def test_a_group_id_of_none_without_logical_order_is_made_new(q):
    # given a message in a group put without logical order with GroupId MQGI_NONE
    md = mqpy.MD(MsgFlags=IN_GROUP)
    q.put(b"x", md, mqpy.PMO(Options=NO_SYNC))
    # then the queue manager made its GroupId (IBM: the application asks for one so)
    assert md.GroupId.strip(b"\x00")


def test_get_selects_by_group_id_and_msg_seq_number(q):
    # given two groups on the queue
    first = _put_group(q, [b"a1", b"a2", b"a3"])
    second = _put_group(q, [b"b1", b"b2"])
    # when the second group's message 2 is asked for by GroupId and MsgSeqNumber
    body, md, _gmo = _get(q, md=mqpy.MD(GroupId=second[0].GroupId, MsgSeqNumber=2),
                          match=CMQC.MQMO_MATCH_GROUP_ID | CMQC.MQMO_MATCH_MSG_SEQ_NUMBER)
    # then that one comes
    assert (body, md.GroupId) == (b"b2", second[0].GroupId)
    # and by GroupId alone, the first of the first group in delivery order
    body, _md, _gmo = _get(q, md=mqpy.MD(GroupId=first[0].GroupId),
                           match=CMQC.MQMO_MATCH_GROUP_ID)
    assert body == b"a1"
    # and a GroupId no message has: 2033
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _get(q, md=mqpy.MD(GroupId=b"NO.SUCH.GROUP".ljust(24, b"\x00")),
             match=CMQC.MQMO_MATCH_GROUP_ID)
    # and MQGI_NONE (an MQMD's initial GroupId) matches any
    assert _get(q, match=CMQC.MQMO_MATCH_GROUP_ID)[0] == b"a2"


def test_logical_order_returns_each_group_whole_in_sequence(q):
    # given two groups whose messages are interleaved and out of sequence on the queue
    ga = b"GROUP.A".ljust(24, b"\x00")
    gb = b"GROUP.B".ljust(24, b"\x00")
    for gid, seq, flags in ((ga, 2, IN_GROUP), (gb, 1, IN_GROUP), (ga, 1, IN_GROUP),
                            (gb, 2, LAST), (ga, 3, LAST)):
        q.put(gid[:7] + b"%d" % seq, mqpy.MD(GroupId=gid, MsgSeqNumber=seq, MsgFlags=flags),
              mqpy.PMO(Options=NO_SYNC))
    q.put(b"plain", mqpy.MD(), mqpy.PMO(Options=NO_SYNC))
    # when they are got in logical order
    got = []
    statuses = []
    for _ in range(6):
        body, _md, gmo = _get(q, LOGICAL_GET)
        got.append(body)
        statuses.append(gmo.GroupStatus)
    # then group B comes first (its first message is first on the queue), each whole in order
    assert got == [b"GROUP.B1", b"GROUP.B2", b"GROUP.A1", b"GROUP.A2", b"GROUP.A3", b"plain"]
    assert statuses[-1] == CMQC.MQGS_NOT_IN_GROUP
    assert statuses[1] == statuses[4] == CMQC.MQGS_LAST_MSG_IN_GROUP


def test_logical_order_waits_for_the_next_message_of_its_group(q):
    # given a group's message 1 got in logical order, message 2 not yet on the queue
    gid = b"GROUP.GAP".ljust(24, b"\x00")
    q.put(b"1", mqpy.MD(GroupId=gid, MsgSeqNumber=1, MsgFlags=IN_GROUP),
          mqpy.PMO(Options=NO_SYNC))
    q.put(b"other", mqpy.MD(), mqpy.PMO(Options=NO_SYNC))
    assert _get(q, LOGICAL_GET)[0] == b"1"
    # when the next get in logical order is made, then only message 2 would do: 2033
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _get(q, LOGICAL_GET)
    # and once it arrives it comes
    q.put(b"2", mqpy.MD(GroupId=gid, MsgSeqNumber=2, MsgFlags=LAST), mqpy.PMO(Options=NO_SYNC))
    assert _get(q, LOGICAL_GET)[0] == b"2"
    assert _get(q, LOGICAL_GET)[0] == b"other"


def test_all_msgs_available_takes_a_group_only_once_its_last_message_is_there(q):
    # given a group whose last message is not yet on the queue, and a message in no group
    gid = b"GROUP.LATE".ljust(24, b"\x00")
    for seq in (1, 2):
        q.put(b"g%d" % seq, mqpy.MD(GroupId=gid, MsgSeqNumber=seq, MsgFlags=IN_GROUP),
              mqpy.PMO(Options=NO_SYNC))
    q.put(b"plain", mqpy.MD(), mqpy.PMO(Options=NO_SYNC))
    opts = LOGICAL_GET | CMQC.MQGMO_ALL_MSGS_AVAILABLE
    # when a get asks for all of a group's messages, then the message in no group comes
    assert _get(q, opts)[0] == b"plain"
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _get(q, opts)
    # and once the last message is put the group comes, whole
    q.put(b"g3", mqpy.MD(GroupId=gid, MsgSeqNumber=3, MsgFlags=LAST), mqpy.PMO(Options=NO_SYNC))
    assert [_get(q, opts)[0] for _ in range(3)] == [b"g1", b"g2", b"g3"]


def test_browse_in_logical_order_follows_the_group(q):
    # given a group's messages out of sequence on the queue
    gid = b"GROUP.BROWSE".ljust(24, b"\x00")
    for seq, flags in ((2, LAST), (1, IN_GROUP)):
        q.put(b"%d" % seq, mqpy.MD(GroupId=gid, MsgSeqNumber=seq, MsgFlags=flags),
              mqpy.PMO(Options=NO_SYNC))
    # when they are browsed in logical order
    first = _get(q, CMQC.MQGMO_BROWSE_FIRST | LOGICAL_GET)[0]
    second = _get(q, CMQC.MQGMO_BROWSE_NEXT | LOGICAL_GET)[0]
    # then in sequence, and they are still there
    assert (first, second) == (b"1", b"2")
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _get(q, CMQC.MQGMO_BROWSE_NEXT | LOGICAL_GET)
    assert [_get(q)[0] for _ in range(2)] == [b"2", b"1"]


def test_a_group_put_in_syncpoint_and_backed_out_leaves_nothing(connect):
    # given a group put in logical order under syncpoint
    qm = connect()
    try:
        drain(qm)
        q = mqpy.Queue(qm, QUEUE, OUT | IN)
        _put_group(q, [b"a", b"b", b"c"], CMQC.MQPMO_SYNCPOINT)
        # when the unit of work is backed out
        qm.backout()
        # then nothing of it is on the queue
        with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
            _get(q)
        q.close()
    finally:
        qm.disconnect()


def test_close_with_a_group_unfinished_warns_incomplete_group(connect):
    # given a group put in logical order without its last message
    qm = connect()
    try:
        drain(qm)
        q = mqpy.Queue(qm, QUEUE, OUT)
        q.put(b"a", mqpy.MD(MsgFlags=IN_GROUP), mqpy.PMO(Options=LOGICAL_PUT | NO_SYNC))
        # when the queue is closed, then it closes with the warning MQRC_INCOMPLETE_GROUP
        with raises_mq(CMQC.MQRC_INCOMPLETE_GROUP, CMQC.MQCC_WARNING):
            q.close()
        # and the handle is closed, and the connection goes on: the message is there
        with pytest.raises(mqpy.PYIFError):
            q.close()
        assert drain(qm) == [b"a"]
    finally:
        qm.disconnect()


def _group_begun(q: mqpy.Queue, opts: int = NO_SYNC) -> None:
    q.put(b"first", mqpy.MD(MsgFlags=IN_GROUP), mqpy.PMO(Options=LOGICAL_PUT | opts))


def _end_group(q: mqpy.Queue, opts: int = NO_SYNC) -> None:
    q.put(b"end", mqpy.MD(MsgFlags=LAST), mqpy.PMO(Options=LOGICAL_PUT | opts))


def _fails_alone_in_a_group(connect, bad_put, reason: int) -> None:
    """Given a group begun in logical order under syncpoint, ``bad_put(q)`` fails with
    ``reason``; then the same connection ends the group and commits it, and another
    connection gets the group whole, numbered 1 and 2."""
    qm = connect()
    try:
        drain(qm)
        q = mqpy.Queue(qm, QUEUE, OUT)
        _group_begun(q, CMQC.MQPMO_SYNCPOINT)
        with raises_mq(reason):
            bad_put(q)
        _end_group(q, CMQC.MQPMO_SYNCPOINT)
        qm.commit()
        q.close()
    finally:
        qm.disconnect()
    other = connect()
    try:
        q = mqpy.Queue(other, QUEUE, IN)
        got = [_get(q) for _ in range(2)]
        assert [(body, md.MsgSeqNumber) for body, md, _gmo in got] == [(b"first", 1),
                                                                       (b"end", 2)]
        assert got[0][1].GroupId == got[1][1].GroupId
        q.close()
        assert drain(other) == []
    finally:
        other.disconnect()


def test_a_message_in_no_group_in_the_middle_of_a_group_is_incomplete_group(connect):
    _fails_alone_in_a_group(connect, lambda q: q.put(
        b"x", mqpy.MD(), mqpy.PMO(Options=LOGICAL_PUT | CMQC.MQPMO_SYNCPOINT)),
        CMQC.MQRC_INCOMPLETE_GROUP)


def test_a_group_half_in_syncpoint_is_inconsistent_uow(connect):
    _fails_alone_in_a_group(connect, lambda q: _end_group(q, NO_SYNC),
                            CMQC.MQRC_INCONSISTENT_UOW)


def test_a_group_of_mixed_persistence_is_inconsistent_persistence(connect):
    _fails_alone_in_a_group(connect, lambda q: q.put(
        b"x", mqpy.MD(MsgFlags=LAST, Persistence=CMQC.MQPER_PERSISTENT),
        mqpy.PMO(Options=LOGICAL_PUT | CMQC.MQPMO_SYNCPOINT)),
        CMQC.MQRC_INCONSISTENT_PERSISTENCE)


def test_a_put_not_in_logical_order_after_an_unfinished_group_warns_incomplete_group(q):
    # given a group begun in logical order
    _group_begun(q)
    # when a put not in logical order follows, then it is made with the warning
    with raises_mq(CMQC.MQRC_INCOMPLETE_GROUP, CMQC.MQCC_WARNING):
        q.put(b"y", mqpy.MD(), mqpy.PMO(Options=NO_SYNC))
    # and the group goes on in logical order
    _end_group(q)
    assert [_get(q)[1].MsgSeqNumber for _ in range(3)] == [1, 1, 2]


def test_msg_flags_ibm_does_not_define_are_msg_flags_error(q):
    # given an MQMD whose MsgFlags has a bit of MQMF_REJECT_UNSUP_MASK IBM does not define
    md = mqpy.MD(MsgFlags=0x20)
    # when it is put, then the put fails MQRC_MSG_FLAGS_ERROR and nothing is on the queue
    with raises_mq(CMQC.MQRC_MSG_FLAGS_ERROR):
        q.put(b"x", md, mqpy.PMO(Options=NO_SYNC))
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        _get(q)


def test_a_group_got_half_in_syncpoint_in_logical_order_is_inconsistent_uow(connect):
    qm = connect()
    try:
        drain(qm)
        q = mqpy.Queue(qm, QUEUE, OUT | IN)
        # given a group whose first message is got in logical order under syncpoint
        _put_group(q, [b"1", b"2"])
        assert _get(q, LOGICAL_GET | CMQC.MQGMO_SYNCPOINT)[0] == b"1"
        # when its next message is asked for outside syncpoint, then that get fails alone
        with raises_mq(CMQC.MQRC_INCONSISTENT_UOW):
            _get(q, LOGICAL_GET)
        # and under syncpoint it comes, the group then committed whole
        body, _md, gmo = _get(q, LOGICAL_GET | CMQC.MQGMO_SYNCPOINT)
        assert (body, gmo.GroupStatus) == (b"2", CMQC.MQGS_LAST_MSG_IN_GROUP)
        qm.commit()
        assert drain(qm) == []
        q.close()
    finally:
        qm.disconnect()
