"""Units of work seen from two connections: what is visible to whom, and CURDEPTH."""

from __future__ import annotations

import mqpy
from mqpy import CMQC

from ._support import OUT, depth, drain, get, put, raises_mq


def test_uncommitted_put_is_invisible_to_others_and_visible_to_its_own_uow(qmgr):
    """Given connection A puts under syncpoint without committing, when B gets, then 2033;
    when A gets under syncpoint, then A receives its own message.
    spec: aliases-channels-storage 4.42"""
    qmgr.define("Q1")
    a, b = qmgr.qm, qmgr.connect()
    put(a, "Q1", b"uncommitted", syncpoint=True, persistent=True)
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        get(b, "Q1")
    assert get(a, "Q1", syncpoint=True)[0] == b"uncommitted"


def test_message_got_under_syncpoint_is_locked_until_backout_then_back_in_place(qmgr):
    """Given three messages and A has got the first under syncpoint, when B gets, then B
    receives the second; when A backs out, then the first is available again ahead of the
    third. spec: aliases-channels-storage 4.42"""
    qmgr.define("Q1")
    a, b = qmgr.qm, qmgr.connect()
    for m in (b"m1", b"m2", b"m3"):
        put(a, "Q1", m, persistent=True)
    assert get(a, "Q1", syncpoint=True)[0] == b"m1"
    assert get(b, "Q1")[0] == b"m2"
    a.backout()
    data, md = get(b, "Q1")
    assert (data, md.BackoutCount) == (b"m1", 1)
    assert drain(b, "Q1") == [b"m3"]


def test_commit_makes_the_put_visible_and_the_get_final(qmgr):
    """Given A has put NEW and got OLD under syncpoint, when A commits, then B sees NEW and
    never OLD. spec: aliases-channels-storage 4.42"""
    qmgr.define("Q1")
    a, b = qmgr.qm, qmgr.connect()
    put(a, "Q1", b"OLD", persistent=True)
    put(a, "Q1", b"NEW", syncpoint=True, persistent=False)
    assert get(a, "Q1", syncpoint=True)[0] == b"OLD"
    a.commit()
    assert drain(b, "Q1") == [b"NEW"]


def test_backout_removes_uncommitted_puts(qmgr):
    """Given A has put two messages under syncpoint, when A backs out, then nobody can get
    them and the depth is 0."""
    qmgr.define("Q1")
    a, b = qmgr.qm, qmgr.connect()
    put(a, "Q1", b"p", syncpoint=True, persistent=True)
    put(a, "Q1", b"n", syncpoint=True, persistent=False)
    a.backout()
    assert drain(b, "Q1") == [] and drain(a, "Q1") == []
    assert depth(b, "Q1") == 0


def test_curdepth_counts_uncommitted_puts(qmgr):
    """Given A has put two messages under syncpoint, when B inquires CURDEPTH, then it is 2
    although B can get none of them (IBM: the count includes uncommitted puts)."""
    qmgr.define("Q1")
    a, b = qmgr.qm, qmgr.connect()
    put(a, "Q1", b"1", syncpoint=True)
    put(a, "Q1", b"2", syncpoint=True)
    assert depth(b, "Q1") == 2
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        get(b, "Q1")


def test_curdepth_excludes_messages_got_in_an_uncommitted_uow(qmgr):
    """Given two messages and A has got one under syncpoint, when CURDEPTH is inquired, then it
    is 1; after A backs out it is 2 again. IBM (CurrentQDepth): decremented during a nonbrowse
    MQGET, incremented at backout of the get; "it excludes messages that have been retrieved
    within a unit of work ... which have yet to be committed"."""
    qmgr.define("Q1")
    a, b = qmgr.qm, qmgr.connect()
    put(a, "Q1", b"1")
    put(a, "Q1", b"2")
    get(a, "Q1", syncpoint=True)
    assert depth(b, "Q1") == 1
    a.backout()
    assert depth(b, "Q1") == 2


def test_a_message_got_under_syncpoint_frees_its_place_for_a_put(qmgr):
    """Given a MAXDEPTH(1) queue holding one message that A has got under syncpoint, when B
    puts, then the put succeeds (CurrentQDepth is 0), and after A commits B's message is the
    only one."""
    qmgr.define("Q1", {"MAXDEPTH": 1})
    a, b = qmgr.qm, qmgr.connect()
    put(a, "Q1", b"old")
    get(a, "Q1", syncpoint=True)
    put(b, "Q1", b"new")
    a.commit()
    assert drain(b, "Q1") == [b"new"]


def test_queue_full_counts_uncommitted_puts(qmgr):
    """Given a MAXDEPTH(2) queue with two uncommitted puts by A, when B puts, then
    MQRC_Q_FULL; after A backs out, B's put succeeds."""
    qmgr.define("Q1", {"MAXDEPTH": 2})
    a, b = qmgr.qm, qmgr.connect()
    put(a, "Q1", b"1", syncpoint=True)
    put(a, "Q1", b"2", syncpoint=True)
    with raises_mq(CMQC.MQRC_Q_FULL):
        put(b, "Q1", b"3")
    a.backout()
    put(b, "Q1", b"3")
    assert drain(b, "Q1") == [b"3"]


def test_units_of_work_of_two_connections_are_independent(qmgr):
    """Given A and B each put under syncpoint, when A commits and B backs out, then only A's
    message remains."""
    qmgr.define("Q1")
    a, b = qmgr.qm, qmgr.connect()
    q_a, q_b = mqpy.Queue(a, "Q1", OUT), mqpy.Queue(b, "Q1", OUT)
    q_a.put(b"A", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    q_b.put(b"B", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    a.commit()
    b.backout()
    assert drain(a, "Q1") == [b"A"]
