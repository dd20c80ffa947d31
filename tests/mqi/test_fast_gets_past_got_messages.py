"""The fast get (``Connection._get_fast``) past messages got under syncpoint at the head.

A unit of work that gets several messages (a sending MCA's batch, any application's) leaves
the head of the queue got under syncpoint after its first get. The fast path then takes the
first available message behind them, as the general path does from the queue's got-prefix
hint, instead of leaving every later get of the batch to the general path. Each test runs
one script twice, once with the fast paths and once with every call on the general path,
and the application must see the same messages, MQMDs and answers both times; with the fast
paths, the general path served no plain get that found a message."""

from __future__ import annotations

import time

import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy.engine import fastpath, options
from mqpy.engine.connection import Connection

from ._support import BROWSE, IN, OUT

SYNC = CMQC.MQGMO_SYNCPOINT
QM = "QM1"


class _GeneralGets:
    """Counts the destructive gets that found a message on the general path."""

    def __init__(self, monkeypatch) -> None:
        self.n = 0
        general = Connection._get_general

        def counting(conn, hobj, md, gmo, *a, **kw):
            out = general(conn, hobj, md, gmo, *a, **kw)
            if not gmo.Options & (options._BROWSE_OPTS | CMQC.MQGMO_MSG_UNDER_CURSOR):
                self.n += 1
            return out

        monkeypatch.setattr(Connection, "_get_general", counting)


def _run(root: str, script, msgdlvsq: str) -> list:
    """What ``script(qm, other, put, get, seen, q)`` shows on a queue Q of this MSGDLVSQ."""
    qm = mqpy.embedded(QM, data_path=root)
    eng = inprocess.running(QM, root)
    eng.define("QLOCAL", "Q", {"MSGDLVSQ": msgdlvsq})
    other = mqpy.embedded(QM, data_path=root)
    seen: list = []
    try:
        out = mqpy.Queue(qm, "Q", OUT)
        queues = {id(qm): mqpy.Queue(qm, "Q", IN | BROWSE),
                  id(other): mqpy.Queue(other, "Q", IN | BROWSE)}

        def put(data: bytes, priority: int = 0, persistent: bool = False,
                expiry: int = CMQC.MQEI_UNLIMITED) -> None:
            out.put(data, mqpy.MD(Priority=priority, Expiry=expiry, Persistence=(
                CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT)))

        def get(conn=qm, options: int = SYNC) -> None:
            md = mqpy.MD()
            gmo = mqpy.GMO(Options=options)
            try:
                data = queues[id(conn)].get(None, md, gmo)
            except mqpy.MQMIError as e:
                seen.append(("error", e.reason))
            else:
                seen.append((data, md.Priority, md.BackoutCount, gmo.ReturnedLength))

        script(qm, other, put, get, seen, queues[id(qm)])
        seen.append(("depth", eng.queue_status("Q")["CURDEPTH"]))
    finally:
        inprocess.stop(QM, root)
    return seen


def _both(tmp_path, monkeypatch, script, msgdlvsq: str, *, fast_only: bool = True) -> list:
    """What ``script`` shows (:func:`_run`) with the fast paths (``fast_only``: the general
    path finding no message for a plain get), which must be what it shows with every call
    on the general path."""
    general_gets = _GeneralGets(monkeypatch)
    fast = _run(str(tmp_path / "fast"), script, msgdlvsq)
    if fast_only:
        assert general_gets.n == 0, "the fast path left gets behind got messages"
    monkeypatch.setattr(fastpath, "ENABLED", False)
    assert _run(str(tmp_path / "general"), script, msgdlvsq) == fast
    return fast


def _data(seen: list) -> list:
    return [s[0] for s in seen if type(s[0]) is bytes]


PRIORITIES = (3, 7, 3, 0, 7, 5, 9, 0)


@pytest.mark.parametrize("msgdlvsq", ["PRIORITY", "FIFO"])
def test_a_batch_under_syncpoint_gets_in_delivery_order_past_its_own_got_messages(
        tmp_path, monkeypatch, msgdlvsq):
    """Given messages of mixed priorities (some persistent), when one unit of work gets
    them all under syncpoint, then each get takes the next in delivery order (priority then
    arrival, or arrival alone), the fast path serving every one, and none is left after the
    commit."""

    def script(qm, other, put, get, seen, q):
        for i, prio in enumerate(PRIORITIES):
            put(b"m%d" % i, prio, persistent=i % 3 == 0)
        for _ in PRIORITIES:
            get()
        get()  # every message got under syncpoint: none left for this get
        qm.commit()

    seen = _both(tmp_path, monkeypatch, script, msgdlvsq)
    order = sorted(range(len(PRIORITIES)),
                   key=lambda i: (-PRIORITIES[i] if msgdlvsq == "PRIORITY" else 0, i))
    assert _data(seen) == [b"m%d" % i for i in order]
    assert seen[-2:] == [("error", CMQC.MQRC_NO_MSG_AVAILABLE), ("depth", 0)]


@pytest.mark.parametrize("msgdlvsq", ["PRIORITY", "FIFO"])
def test_messages_arriving_during_a_batch_and_messages_backed_out_come_in_order(
        tmp_path, monkeypatch, msgdlvsq):
    """Given a batch under syncpoint half way through the queue, when messages of higher and
    lower priority arrive, the batch goes on, is backed out and is got again, then every get
    takes what the general path takes: the arrivals where their priority puts them, the
    backed-out messages again with BackoutCount 1."""

    def script(qm, other, put, get, seen, q):
        for i, prio in enumerate(PRIORITIES):
            put(b"m%d" % i, prio, persistent=i % 2 == 0)
        for _ in range(3):
            get()
        put(b"high", 9)
        put(b"low", 1, persistent=True)
        for _ in range(3):
            get()
        qm.backout()
        for _ in range(4):
            get()
        qm.commit()
        for _ in range(len(PRIORITIES) + 2 - 4 + 1):
            get(options=CMQC.MQGMO_NO_SYNCPOINT)

    seen = _both(tmp_path, monkeypatch, script, msgdlvsq)
    assert [s[2] for s in seen[6:10]] != [0, 0, 0, 0]  # (backed-out messages got again)
    assert seen[-2:] == [("error", CMQC.MQRC_NO_MSG_AVAILABLE), ("depth", 0)]


@pytest.mark.parametrize("msgdlvsq", ["PRIORITY", "FIFO"])
def test_a_get_takes_the_message_behind_another_connections_batch(
        tmp_path, monkeypatch, msgdlvsq):
    """Given another connection's batch got under syncpoint at the head, when this connection
    gets, then it takes the first message behind that batch; when the batch is backed out,
    its messages are the next got, in order."""

    def script(qm, other, put, get, seen, q):
        for i, prio in enumerate(PRIORITIES):
            put(b"m%d" % i, prio)
        for _ in range(3):
            get(other)
        get(qm)
        get(qm, CMQC.MQGMO_NO_SYNCPOINT)
        other.backout()
        for _ in range(4):
            get(qm)
        qm.commit()

    seen = _both(tmp_path, monkeypatch, script, msgdlvsq)
    assert seen[5:8] == [(s[0], s[1], 1, s[3]) for s in seen[:3]]  # the batch, backed out


@pytest.mark.parametrize("msgdlvsq", ["PRIORITY", "FIFO"])
def test_a_get_past_got_messages_moves_a_browse_cursor_off_what_it_takes(
        tmp_path, monkeypatch, msgdlvsq):
    """Given a browse cursor on the second message, when a unit of work gets the first and
    then (past it) the second under syncpoint and backs out, then the cursor no longer names
    the second (even available again), and a browse goes on from it to the third."""

    def script(qm, other, put, get, seen, q):
        for i, prio in enumerate(PRIORITIES[:4]):
            put(b"m%d" % i, prio)
        for opt in (CMQC.MQGMO_BROWSE_FIRST, CMQC.MQGMO_BROWSE_NEXT):
            get(qm, opt)
        get(qm)
        get(qm)
        qm.backout()
        get(qm, CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR)
        get(qm, CMQC.MQGMO_BROWSE_NEXT)

    seen = _both(tmp_path, monkeypatch, script, msgdlvsq)
    assert seen[1][0] == seen[3][0]  # the second browsed, then got
    assert seen[4] == ("error", CMQC.MQRC_NO_MSG_UNDER_CURSOR)
    assert seen[5][0] not in (seen[2][0], seen[3][0])


@pytest.mark.parametrize("msgdlvsq", ["PRIORITY", "FIFO"])
def test_a_message_expired_behind_got_messages_is_not_got(tmp_path, monkeypatch, msgdlvsq):
    """Given the first message got under syncpoint and the second expired behind it, when
    the unit of work gets again, then it has the third (the expired one is gone, the
    general path removing it) and the queue's depth counts neither."""

    def script(qm, other, put, get, seen, q):
        put(b"first", 5)
        put(b"expires", 5, expiry=1)
        put(b"third", 5, persistent=True)
        get()
        time.sleep(0.2)  # (past the expiry of a tenth of a second)
        get()
        get()
        qm.commit()

    seen = _both(tmp_path, monkeypatch, script, msgdlvsq, fast_only=False)
    assert _data(seen) == [b"first", b"third"]
    assert seen[-1] == ("depth", 0)


@pytest.mark.parametrize("msgdlvsq", ["PRIORITY", "FIFO"])
def test_a_get_past_got_messages_goes_past_another_units_uncommitted_put(
        tmp_path, monkeypatch, msgdlvsq):
    """Given another connection's get under syncpoint at the head and its uncommitted put
    behind it, when this connection gets, then it takes the committed message behind both
    (the fast path stepping aside at the uncommitted one), and after the other's commit the
    message it put."""

    def script(qm, other, put, get, seen, q):
        put(b"first", 5)
        get(other)
        mqpy.Queue(other, "Q", OUT).put(b"uncommitted", mqpy.MD(Priority=5),
                                        mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        put(b"committed", 5)
        get()
        other.commit()
        get()
        get()
        qm.commit()

    seen = _both(tmp_path, monkeypatch, script, msgdlvsq, fast_only=False)
    assert _data(seen) == [b"first", b"committed", b"uncommitted"]
    assert seen[-2:] == [("error", CMQC.MQRC_NO_MSG_AVAILABLE), ("depth", 0)]
