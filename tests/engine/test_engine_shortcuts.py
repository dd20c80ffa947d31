"""Shortcuts of the engine's usual calls, each giving what the longer way gives.

A get that can have no message (2033) is answered by the fast path when the queue holds
nothing, or nothing but messages got under syncpoint (a sending MCA's batch ends with such a
get): the same answer, statistic and waiter as the general path, and every error the
general path puts before 2033 still comes first. A commit looks a queue up only for the
puts that have a getter to wake or an arrival to confirm."""

from __future__ import annotations

import threading

import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy.engine import fastpath
from mqpy.engine.connection import Connection

IN = CMQC.MQOO_INPUT_SHARED
OUT = CMQC.MQOO_OUTPUT
PERSISTENT = CMQC.MQPER_PERSISTENT


@pytest.fixture
def engine(tmp_path):
    root = str(tmp_path)
    mqpy.embedded("NOMSG", data_path=root).disconnect()
    eng = inprocess.running("NOMSG", root)
    eng.define("QLOCAL", "Q", {})
    yield eng, root
    inprocess.stop("NOMSG", root)


@pytest.fixture
def no_message_answers(monkeypatch):
    """How many gets the fast path found no message for."""
    seen = {"n": 0}
    get_fast = Connection._get_fast

    def counting(conn, *args, **kwargs):
        done = get_fast(conn, *args, **kwargs)
        seen["n"] += done is fastpath.NO_MESSAGE
        return done

    monkeypatch.setattr(Connection, "_get_fast", counting)
    return seen


def _reason(call) -> int | None:
    try:
        call()
    except mqpy.MQMIError as e:
        return e.reason
    return None


def test_a_get_from_a_queue_of_messages_all_got_under_syncpoint_is_2033_and_counted(
        engine, no_message_answers):
    """Given two persistent messages got under syncpoint by one connection, when another
    connection gets (head, and by the MsgId of one of them), then each get is 2033
    (MQRC_NO_MSG_AVAILABLE), answered without the general path, and the queue manager's
    failed-get statistic counts both; a message put then is had at once, and after the first
    connection backs out its two come back."""
    eng, root = engine
    batch = mqpy.embedded("NOMSG", data_path=root)
    out = mqpy.Queue(batch, "Q", OUT)
    mds = []
    for data in (b"one", b"two"):
        md = mqpy.MD(Persistence=PERSISTENT)
        out.put(data, md)
        mds.append(md)
    inq = mqpy.Queue(batch, "Q", IN)
    for _ in range(2):
        inq.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    other = mqpy.Queue(mqpy.embedded("NOMSG", data_path=root), "Q", IN)
    fails = eng.stats.mqi.get_fails
    assert _reason(lambda: other.get(None, mqpy.MD(), mqpy.GMO())) == 2033
    assert _reason(lambda: other.get(None, mqpy.MD(MsgId=mds[1].MsgId), mqpy.GMO())) == 2033
    assert no_message_answers["n"] == 2
    assert eng.stats.mqi.get_fails == fails + 2
    out.put(b"three")  # one message to be had beside the two got
    assert other.get(None, mqpy.MD(), mqpy.GMO()) == b"three"
    batch.backout()
    assert sorted(other.get() for _ in range(2)) == [b"one", b"two"]


def test_a_waiting_get_on_a_queue_of_messages_got_under_syncpoint_is_woken_by_a_backout(
        engine, no_message_answers):
    """Given a message got under syncpoint by one connection, when another connection waits
    for a message (MQGMO_WAIT, a long WaitInterval) and the first backs out, then the waiter
    is woken and has the message: the fast path registered it on the queue as the general
    path does (else it would sleep out its interval)."""
    eng, root = engine
    batch = mqpy.embedded("NOMSG", data_path=root)
    mqpy.Queue(batch, "Q", OUT).put(b"backed out", mqpy.MD(Persistence=PERSISTENT))
    mqpy.Queue(batch, "Q", IN).get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    waiter_q = mqpy.Queue(mqpy.embedded("NOMSG", data_path=root), "Q", IN)
    got: list[bytes] = []

    def waiter() -> None:
        got.append(waiter_q.get(None, mqpy.MD(),
                                mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=120000)))

    th = threading.Thread(target=waiter, daemon=True)
    th.start()
    mq = eng.catalog.queues[eng.lookup("QLOCAL", "Q").qid]
    for _ in range(3000):  # until its get has found no message (30 s at most)
        if no_message_answers["n"] or not th.is_alive():
            break
        th.join(0.01)
    with eng.lock:  # (the get registers its waiter before it lets the engine lock go)
        assert no_message_answers["n"] == 1 and len(mq.waiters) == 1
    batch.backout()
    th.join(60)
    assert got == [b"backed out"]


@pytest.mark.parametrize("case", ["buffer", "inhibited", "not_input"])
def test_the_errors_the_general_path_gives_before_2033_still_come_first(engine, case):
    """Given an empty queue, when a get also has a negative buffer length, or the queue is
    GET(DISABLED), or the handle is not open for input, then the get fails with that error
    (2005, 2016, 2037), not with 2033."""
    eng, root = engine
    qm = mqpy.embedded("NOMSG", data_path=root)
    if case == "inhibited":
        eng.alter("QLOCAL", "Q", {"GET": "DISABLED"})
    q = mqpy.Queue(qm, "Q", OUT if case == "not_input" else IN)
    conn = qm.connection()
    length = -1 if case == "buffer" else None
    expected = {"buffer": CMQC.MQRC_BUFFER_LENGTH_ERROR, "inhibited": CMQC.MQRC_GET_INHIBITED,
                "not_input": CMQC.MQRC_NOT_OPEN_FOR_INPUT}[case]
    assert _reason(lambda: conn.get(q.get_handle(), mqpy.MD(), mqpy.GMO(), length)) \
        == expected


def test_a_coa_report_of_a_put_under_syncpoint_arrives_at_its_commit(engine):
    """Given a put under syncpoint asking for a COA report, then no report is on the reply
    queue before the commit, and one (MQFB_COA) is after it: the commit, which looks at
    waiters and report options before it looks the queue up, still confirms arrival."""
    eng, root = engine
    eng.define("QLOCAL", "REPLY", {})
    qm = mqpy.embedded("NOMSG", data_path=root)
    md = mqpy.MD(Report=CMQC.MQRO_COA, ReplyToQ=b"REPLY", Persistence=PERSISTENT)
    mqpy.Queue(qm, "Q", OUT).put(b"confirm me", md, mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    reply = mqpy.Queue(qm, "REPLY", IN)
    assert _reason(lambda: reply.get()) == CMQC.MQRC_NO_MSG_AVAILABLE
    qm.commit()
    report = mqpy.MD()
    reply.get(None, report)
    assert report.MsgType == CMQC.MQMT_REPORT and report.Feedback == CMQC.MQFB_COA
