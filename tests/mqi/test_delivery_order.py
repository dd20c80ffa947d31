"""Delivery sequence: MSGDLVSQ(PRIORITY) and (FIFO), queue defaults, priority above MaxPriority."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from ._support import OUT, drain, get, put


def test_priority_queue_delivers_highest_priority_first_fifo_within_priority(qm):
    """Given messages of priorities 0-9 put in a scrambled order onto a MSGDLVSQ(PRIORITY)
    queue, when they are got, then priority 9 comes first and, within a priority, the order
    of arrival is kept. spec: aliases-channels-storage 4.43"""
    order = [3, 0, 9, 5, 3, 9, 1, 7, 0, 5, 2, 8, 6, 4]
    for n, prio in enumerate(order):
        put(qm, "Q1", f"{prio}:{n}".encode(), priority=prio)
    expected = sorted((f"{p}:{n}".encode() for n, p in enumerate(order)),
                      key=lambda b: (-int(b.split(b":")[0]), int(b.split(b":")[1])))
    assert drain(qm, "Q1") == expected


def test_persistent_and_nonpersistent_interleave_by_arrival_within_a_priority(qm):
    """Given persistent and non-persistent messages of one priority put alternately, when got,
    then they come back in arrival order, not grouped by persistence (the two subqueues of a
    priority are merged). spec: aliases-channels-storage 4.43"""
    for n in range(8):
        put(qm, "Q1", b"m%d" % n, persistent=bool(n % 2), priority=4)
    put(qm, "Q1", b"hi", persistent=False, priority=6)
    assert drain(qm, "Q1") == [b"hi"] + [b"m%d" % n for n in range(8)]


def test_fifo_queue_delivers_in_arrival_order_whatever_the_priority(qmgr):
    """Given a MSGDLVSQ(FIFO) queue, when messages of mixed priority and persistence are put,
    then they are got in pure arrival order, each keeping its own Priority."""
    qmgr.define("QF", {"MSGDLVSQ": "FIFO"})
    prios = [1, 9, 0, 5, 9, 2]
    for n, p in enumerate(prios):
        put(qmgr.qm, "QF", b"f%d" % n, priority=p, persistent=bool(n % 2))
    got = []
    for _ in prios:
        data, md = get(qmgr.qm, "QF")
        got.append((data, md.Priority))
    assert got == [(b"f%d" % n, p) for n, p in enumerate(prios)]


def test_priority_and_persistence_as_queue_default_take_defprty_and_defpsist(qmgr):
    """Given a queue with DEFPRTY(6) DEFPSIST(YES), when a message is put with
    MQPRI_PRIORITY_AS_Q_DEF and MQPER_PERSISTENCE_AS_Q_DEF, then it is got with Priority 6 and
    Persistence MQPER_PERSISTENT, and it outranks a priority-5 message put before it."""
    qmgr.define("QD", {"DEFPRTY": 6, "DEFPSIST": "YES"})
    put(qmgr.qm, "QD", b"five", priority=5)
    md_in = mqpy.MD()
    assert md_in.Priority == CMQC.MQPRI_PRIORITY_AS_Q_DEF
    assert md_in.Persistence == CMQC.MQPER_PERSISTENCE_AS_Q_DEF
    mqpy.Queue(qmgr.qm, "QD", OUT).put(b"dflt", md_in)
    data, md = get(qmgr.qm, "QD")
    assert (data, md.Priority, md.Persistence) == (b"dflt", 6, CMQC.MQPER_PERSISTENT)


def test_defaults_of_an_alias_queue_are_the_alias_own(qmgr):
    """Given an alias with DEFPRTY(2) DEFPSIST(NO) over a queue with DEFPRTY(8) DEFPSIST(YES),
    when a message is put through the alias with queue-default priority and persistence, then
    the alias's defaults apply (the first queue in the resolution path)."""
    qmgr.define("QT", {"DEFPRTY": 8, "DEFPSIST": "YES"})
    qmgr.define("QA", {"TARGET": "QT", "DEFPRTY": 2, "DEFPSIST": "NO"}, objtype="QALIAS")
    mqpy.Queue(qmgr.qm, "QA", OUT).put(b"via alias")
    data, md = get(qmgr.qm, "QT")
    assert (data, md.Priority, md.Persistence) == (b"via alias", 2, CMQC.MQPER_NOT_PERSISTENT)


def test_priority_above_maximum_warns_2049_and_is_queued_at_priority_9(qm):
    """Given a priority-9 message already queued, when a message is put with Priority 15,
    then MQPUT completes with MQCC_WARNING / MQRC_PRIORITY_EXCEEDS_MAXIMUM, the message is on
    the queue, and it is delivered as a priority-9 message (after the earlier 9, before an 8)."""
    put(qm, "Q1", b"eight", priority=8)
    put(qm, "Q1", b"nine", priority=9)
    q = mqpy.Queue(qm, "Q1", OUT)
    with pytest.raises(mqpy.MQMIError) as info:
        q.put(b"fifteen", mqpy.MD(Priority=15))
    assert (info.value.comp, info.value.reason) == (
        CMQC.MQCC_WARNING, CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM)
    assert "MQRC_PRIORITY_EXCEEDS_MAXIMUM" in str(info.value)
    assert drain(qm, "Q1") == [b"nine", b"fifteen", b"eight"]


def test_priority_above_maximum_keeps_the_putters_priority_in_the_descriptor(qm):
    """Given a message put with Priority 15 (warning 2049), when it is got, then
    MQMD.Priority is still 15: IBM queues it at MaxPriority but "the Priority field in the
    message descriptor retains the value specified by the application that put the message"
    (reason code 2049), so that a relay to a system with more priorities keeps it."""
    with pytest.raises(mqpy.MQMIError):
        mqpy.Queue(qm, "Q1", OUT).put(b"fifteen", mqpy.MD(Priority=15))
    _data, md = get(qm, "Q1")
    assert md.Priority == 15


def test_negative_priority_is_rejected_with_2050(qm):
    """Given Priority -2 (not MQPRI_PRIORITY_AS_Q_DEF), when put, then MQRC_PRIORITY_ERROR."""
    from ._support import raises_mq

    with raises_mq(CMQC.MQRC_PRIORITY_ERROR):
        mqpy.Queue(qm, "Q1", OUT).put(b"x", mqpy.MD(Priority=-2))
