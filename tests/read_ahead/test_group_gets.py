"""Read ahead and message groups: a handle whose first MQGET asks for a group's order or
selects by a group's fields is served by the queue manager, which keeps the group's order and
state; a buffer of messages taken ahead would return them in the order they were streamed
and without their GroupStatus."""

from __future__ import annotations

import mqpy
from mqpy import CMQC

from .conftest import NP, RA, fill

GROUP = b"RA.GROUP".ljust(24, b"\x00")
IN_GROUP, LAST = CMQC.MQMF_MSG_IN_GROUP, CMQC.MQMF_LAST_MSG_IN_GROUP


def _fill(qm: mqpy.QueueManager) -> None:
    """plain1, the group's second (last) message, plain2, the group's first."""
    out = mqpy.Queue(qm, "RA.YES", CMQC.MQOO_OUTPUT)
    for body, seq, flags in ((b"plain1", 1, 0), (b"g2", 2, LAST), (b"plain2", 1, 0),
                             (b"g1", 1, IN_GROUP)):
        md = mqpy.MD(Persistence=NP, MsgFlags=flags, MsgSeqNumber=seq,
                     GroupId=GROUP if flags else CMQC.MQGI_NONE)
        out.put(body, md, mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    out.close()


def test_a_first_get_in_logical_order_is_served_in_logical_order(qm):
    """Given a queue that reads ahead holding plain messages and a group out of sequence,
    when a handle's gets are all in logical order, then the group comes whole in its
    sequence at the place of its first message (MsgSeqNumber 1), each with its GroupStatus."""
    _fill(qm)
    q = mqpy.Queue(qm, "RA.YES", RA)
    got = []
    for _ in range(4):
        md, gmo = mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_NO_SYNCPOINT)
        got.append((q.get(None, md, gmo), gmo.GroupStatus))
    q.close()
    assert got == [(b"plain1", CMQC.MQGS_NOT_IN_GROUP), (b"plain2", CMQC.MQGS_NOT_IN_GROUP),
                   (b"g1", CMQC.MQGS_MSG_IN_GROUP), (b"g2", CMQC.MQGS_LAST_MSG_IN_GROUP)]


def test_a_later_get_by_group_id_is_the_queue_managers(qm):
    """Given a handle reading ahead (its first get plain, plain messages buffered behind
    it), when a later get selects by GroupId, then it gets the group's message from the
    queue, not a buffered plain one."""
    fill(qm, "RA.YES", [b"plain1", b"plain2", b"plain3"])
    out = mqpy.Queue(qm, "RA.YES", CMQC.MQOO_OUTPUT)
    for body, seq, flags in ((b"g1", 1, IN_GROUP), (b"g2", 2, LAST)):
        out.put(body, mqpy.MD(Persistence=NP, MsgFlags=flags, MsgSeqNumber=seq, GroupId=GROUP),
                mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    out.close()
    q = mqpy.Queue(qm, "RA.YES", RA)
    assert q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)) == b"plain1"
    md = mqpy.MD(GroupId=GROUP)
    gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT, MatchOptions=CMQC.MQMO_MATCH_GROUP_ID)
    assert q.get(None, md, gmo) == b"g1" and md.GroupId == GROUP
    q.close(CMQC.MQCO_NONE)
