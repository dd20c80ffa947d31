"""MQGMO_BROWSE_FIRST that finds no message (MQRC_NO_MSG_AVAILABLE) leaves the browse cursor
where MQOPEN leaves it, logically before the first message, as IBM MQ's does: a following
BROWSE_NEXT starts from the first message, and no message is under the cursor. The same
embedded, over bindings and as a client."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from ._modes import QUEUE, drain

pytestmark = pytest.mark.timeout(120)

_NO_WAIT = CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT


def _browse(q: mqpy.Queue, options: int, md: mqpy.MD | None = None) -> bytes:
    return q.get(None, md or mqpy.MD(), mqpy.GMO(Options=options | _NO_WAIT))


def _fails_2033(q: mqpy.Queue, options: int, md: mqpy.MD | None = None) -> None:
    with pytest.raises(mqpy.MQMIError) as err:
        _browse(q, options, md)
    assert err.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE


def test_browse_first_that_finds_nothing_puts_the_cursor_before_the_first_message(connect):
    """Given a browse cursor on the second of three messages, when a BROWSE_FIRST selecting
    a CorrelId none of them has fails 2033, then BROWSE_MSG_UNDER_CURSOR fails
    MQRC_NO_MSG_UNDER_CURSOR and BROWSE_NEXT returns the first message, then the second."""
    qm = connect()
    try:
        drain(qm)
        for data in (b"one", b"two", b"three"):
            qm.put1(QUEUE, data)
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_BROWSE)
        try:
            assert _browse(q, CMQC.MQGMO_BROWSE_FIRST) == b"one"
            assert _browse(q, CMQC.MQGMO_BROWSE_NEXT) == b"two"
            _fails_2033(q, CMQC.MQGMO_BROWSE_FIRST, mqpy.MD(CorrelId=b"nobody's".ljust(24)))
            with pytest.raises(mqpy.MQMIError) as err:
                _browse(q, CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR)
            assert err.value.reason == CMQC.MQRC_NO_MSG_UNDER_CURSOR
            assert _browse(q, CMQC.MQGMO_BROWSE_NEXT) == b"one"
            assert _browse(q, CMQC.MQGMO_BROWSE_NEXT) == b"two"
        finally:
            q.close()
    finally:
        drain(qm)
        qm.disconnect()


def test_browse_first_on_an_empty_queue_then_browse_next_sees_what_arrives(connect):
    """Given a browse cursor past the last message, which is then got, when BROWSE_FIRST on
    the empty queue fails 2033 and two messages arrive, then BROWSE_NEXT returns the first of
    them (not only those after where the cursor was)."""
    qm = connect()
    try:
        drain(qm)
        qm.put1(QUEUE, b"old")
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_BROWSE)
        try:
            assert _browse(q, CMQC.MQGMO_BROWSE_FIRST) == b"old"
            assert drain(qm) == [b"old"]
            _fails_2033(q, CMQC.MQGMO_BROWSE_FIRST)
            qm.put1(QUEUE, b"new", mqpy.MD(Priority=1))
            qm.put1(QUEUE, b"newer", mqpy.MD(Priority=9))
            assert _browse(q, CMQC.MQGMO_BROWSE_NEXT) == b"newer"
            assert _browse(q, CMQC.MQGMO_BROWSE_NEXT) == b"new"
            _fails_2033(q, CMQC.MQGMO_BROWSE_NEXT)
        finally:
            q.close()
    finally:
        drain(qm)
        qm.disconnect()
