"""Given a queue holding messages with different properties, when an application opens it
with a selection string (MQOD version 4 SelectionString), then its MQGETs and browses receive
only the messages the selector selects -- the queue manager chooses, in every mode -- and the
others stay for other handles; a selection string IBM's grammar refuses fails the MQOPEN with
MQRC_SELECTOR_SYNTAX_ERROR (2459)."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.mqi._modes import QUEUE

from .test_put_get_with_handles import _put_with


def _open_selecting(qm: mqpy.QueueManager, selection: str,
                    options: int = CMQC.MQOO_INPUT_SHARED) -> mqpy.Queue:
    od = mqpy.OD(Version=CMQC.MQOD_VERSION_4, ObjectName=QUEUE.encode())
    od.set_vs("SelectionString", selection)
    return mqpy.Queue(qm, od, options)


def _all(q: mqpy.Queue, options: int = 0) -> list[bytes]:
    out = []
    while True:
        try:
            out.append(q.get(None, mqpy.MD(), mqpy.GMO(
                Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_PROPERTIES | options)))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out


def drain(qm: mqpy.QueueManager) -> list[bytes]:
    """Every message left, without its properties."""
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED)
    try:
        return _all(q)
    finally:
        q.close()


def _fill(qm: mqpy.QueueManager) -> None:
    for colour, n in (("red", 1), ("blue", 2), ("red", 3), ("green", 4)):
        _put_with(qm, {"colour": (colour, CMQC.MQTYPE_STRING),
                       "n": (n, CMQC.MQTYPE_INT32)}, data=f"{colour}{n}".encode())
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
    q.put(b"plain")  # no properties: no selector on a property selects it
    q.close()


def test_get_receives_only_the_selected_messages(connect):
    qm = connect()
    try:
        _fill(qm)
        q = _open_selecting(qm, "colour = 'red' AND n > 0")
        assert _all(q) == [b"red1", b"red3"]
        q.close()
        assert drain(qm) == [b"blue2", b"green4", b"plain"]
    finally:
        qm.disconnect()


def test_browse_sees_only_the_selected_messages(connect):
    qm = connect()
    try:
        _fill(qm)
        q = _open_selecting(qm, "n BETWEEN 2 AND 4 AND colour IN ('blue', 'green')",
                            CMQC.MQOO_BROWSE)
        first = q.get(None, mqpy.MD(), mqpy.GMO(
            Options=CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_PROPERTIES))
        assert first == b"blue2"
        assert _all(q, CMQC.MQGMO_BROWSE_NEXT) == [b"green4"]
        q.close()
        assert len(drain(qm)) == 5
    finally:
        qm.disconnect()


def test_a_selector_on_mqmd_fields_selects_messages_without_properties(connect):
    qm = connect()
    try:
        _fill(qm)
        q = _open_selecting(qm, "Root.MQMD.Format = 'MQSTR' AND colour IS NULL")
        assert _all(q) == []  # plain's Format is blank
        q.close()
        q = _open_selecting(qm, "colour IS NULL")
        assert _all(q) == [b"plain"]
        q.close()
        drain(qm)
    finally:
        qm.disconnect()


@pytest.mark.parametrize("selection", ["colour = ", "colour == 'red'", "AND n > 1",
                                       "n BETWEEN 1"])
def test_a_bad_selection_string_fails_the_open_with_2459(connect, selection):
    qm = connect()
    try:
        with pytest.raises(mqpy.MQMIError) as e:
            _open_selecting(qm, selection)
        assert e.value.reason == CMQC.MQRC_SELECTOR_SYNTAX_ERROR
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)  # the connection still works
        q.put(b"x")
        q.close()
        assert drain(qm) == [b"x"]
    finally:
        qm.disconnect()
