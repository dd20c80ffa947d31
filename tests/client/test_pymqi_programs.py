"""pymqi programs, written as pymqi's users write them (``import mqpy as pymqi``), run
unchanged over a client connection (SVRCONN) and over a bindings / in-process connection.

what pymqi users rely on: "the same MQI semantics as bindings mode: syncpoint, browse, wait, inquire,
set, put1"; "a test suite of pymqi-style programs ... run against a client connection AND a
bindings/in-process connection".
"""

from __future__ import annotations

import threading
import time

import pytest

import mqpy as pymqi
from mqpy import CMQC
from tests.client.conftest import CHANNEL, QMGR, QUEUE, drain


@pytest.fixture(params=["client", "bindings"])
def connect(request, env):
    """A pymqi-style connect function: pymqi.connect(qmgr, channel, conn_info) for a client,
    MQCONN to the queue manager of this process for bindings."""
    made = []

    def _connect() -> pymqi.QueueManager:
        if request.param == "client":
            qm = pymqi.connect(QMGR, CHANNEL, env.conn_info)
            assert type(qm.connection()).__name__ == "ClientConnection"
        else:
            qm = env.bindings()
        made.append(qm)
        return qm

    yield _connect
    for qm in made:
        if qm.is_connected:
            qm.disconnect()


def test_put_then_get(connect):
    """Given a connection, when a program puts a message and gets it back, then the data, the
    MsgId the put returned and the Format travel intact."""
    qmgr = connect()
    queue = pymqi.Queue(qmgr, QUEUE)
    md = pymqi.MD(Format=CMQC.MQFMT_STRING)
    queue.put(b"Hello from pymqi", md)
    queue.close()
    assert md.MsgId != b"\x00" * 24

    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
    got_md = pymqi.MD()
    assert queue.get(None, got_md) == b"Hello from pymqi"
    assert got_md.MsgId == md.MsgId
    assert got_md.Format.rstrip() == CMQC.MQFMT_STRING.rstrip()
    queue.close()
    assert qmgr.get_name() == QMGR


def test_get_with_wait(connect):
    """Given an empty queue and a get waiting 5 s, when another connection puts a message
    0.3 s later, then the waiting get returns it at once; an empty wait ends in 2033."""
    qmgr = connect()
    other = connect()
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING, WaitInterval=5000)

    def later() -> None:
        time.sleep(0.3)
        pymqi.Queue(other, QUEUE).put(b"worth the wait")

    thread = threading.Thread(target=later)
    t0 = time.monotonic()
    thread.start()
    assert queue.get(None, pymqi.MD(), gmo) == b"worth the wait"
    thread.join()
    assert 0.25 <= time.monotonic() - t0 < 3

    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=300)
    with pytest.raises(pymqi.MQMIError) as err:
        queue.get(None, pymqi.MD(), gmo)
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED,
                                                  CMQC.MQRC_NO_MSG_AVAILABLE)


def test_browse_then_get(connect):
    """Given three messages, when a program browses them first/next then gets under the
    cursor, then browsing leaves them on the queue and the browse ends in 2033."""
    qmgr = connect()
    put_q = pymqi.Queue(qmgr, QUEUE)
    for i in range(3):
        put_q.put(f"msg {i}".encode())
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_BROWSE | CMQC.MQOO_INPUT_SHARED
                        | CMQC.MQOO_INQUIRE)
    seen = []
    gmo = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)
    while True:
        try:
            seen.append(queue.get(None, pymqi.MD(), gmo))
        except pymqi.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
        gmo = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)
    assert seen == [b"msg 0", b"msg 1", b"msg 2"]
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 3
    first = queue.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
    taken = queue.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_MSG_UNDER_CURSOR))
    assert first == taken == b"msg 0"
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 2


def test_request_reply_by_correlid(connect):
    """Given a requester and a server program, when the server answers with CorrelId =
    the request's MsgId, then the requester gets exactly its reply by CorrelId."""
    requester, server = connect(), connect()
    req_md = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"APP.REPLY")
    pymqi.Queue(requester, QUEUE).put(b"what time is it?", req_md)
    pymqi.Queue(requester, "APP.REPLY").put(b"someone else's reply",
                                           pymqi.MD(CorrelId=b"X" * 24))

    in_md = pymqi.MD()
    request = pymqi.Queue(server, QUEUE, CMQC.MQOO_INPUT_SHARED).get(None, in_md)
    assert request == b"what time is it?" and in_md.MsgType == CMQC.MQMT_REQUEST
    reply_md = pymqi.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=in_md.MsgId)
    server.put1(pymqi.OD(ObjectName=in_md.ReplyToQ), b"noon", reply_md)

    replies = pymqi.Queue(requester, "APP.REPLY", CMQC.MQOO_INPUT_SHARED)
    md = pymqi.MD(CorrelId=req_md.MsgId)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=2000,
                    MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
    assert replies.get(None, md, gmo) == b"noon"
    assert md.CorrelId == req_md.MsgId


def test_syncpoint_commit_and_backout(connect):
    """Given puts and gets in syncpoint, then nothing is visible before MQCMIT, MQBACK
    restores what was got, and the backout count goes up."""
    qmgr, observer = connect(), connect()
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    queue.put(b"one", pymqi.MD(), pmo)
    queue.put(b"two", pymqi.MD(), pmo)
    look = pymqi.Queue(observer, QUEUE, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
    with pytest.raises(pymqi.MQMIError) as err:
        look.get()
    assert err.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    qmgr.commit()
    assert look.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 2

    gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    assert queue.get(None, pymqi.MD(), gmo) == b"one"
    qmgr.backout()
    md = pymqi.MD()
    assert queue.get(None, md, pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"one"
    assert md.BackoutCount == 1
    qmgr.commit()
    assert drain(observer) == [b"two"]


def test_inquire_set_and_put1(connect):
    """Given a program that inquires and sets queue attributes and uses MQPUT1, then the
    depth, the queue manager name, an inhibited put (2051) and MQPUT1 behave as MQ's."""
    qmgr = connect()
    qmgr.put1(QUEUE, b"by put1")
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_INQUIRE | CMQC.MQOO_SET | CMQC.MQOO_OUTPUT)
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 1
    assert queue.inquire(CMQC.MQCA_Q_NAME).rstrip() == QUEUE.encode()
    assert qmgr.inquire(CMQC.MQCA_Q_MGR_NAME).rstrip() == QMGR.encode()
    queue.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    with pytest.raises(pymqi.MQMIError) as err:
        queue.put(b"refused")
    assert err.value.reason == CMQC.MQRC_PUT_INHIBITED
    queue.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)
    queue.put(b"allowed")
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 2
    with pytest.raises(pymqi.MQMIError) as err:
        pymqi.Queue(qmgr, "NO.SUCH.Q", CMQC.MQOO_OUTPUT)
    assert err.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_truncation_and_large_messages(connect):
    """Given a 100 KB message (several segments over a client channel), then a 10-byte
    buffer fails 2080 with the length, and get(None) returns all of it."""
    qmgr = connect()
    data = bytes(range(256)) * 400
    pymqi.Queue(qmgr, QUEUE).put(data)
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
    with pytest.raises(pymqi.MQMIError) as err:
        queue.get(10)
    assert err.value.reason == CMQC.MQRC_TRUNCATED_MSG_FAILED
    assert err.value.original_length == len(data)
    assert queue.get() == data


def test_a_truncated_get_still_fills_the_callers_md_and_gmo(connect):
    """Given a 100-byte message put with a CorrelId and Priority 7, when a program gets it
    into 10 bytes accepting truncation, then MQMIError 2079 (a warning) carries the first
    10 bytes and the length 100, and the MD and GMO the program passed were filled in
    place, as pymqi's are: the message's MsgId, CorrelId and Priority, the queue's name, and
    ReturnedLength 10 (IBM: the length of the data returned in the buffer)."""
    qmgr = connect()
    put_md = pymqi.MD(CorrelId=b"C" * 24, Priority=7)
    pymqi.Queue(qmgr, QUEUE).put(bytes(range(100)), put_md)
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
    md, gmo = pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
    with pytest.raises(pymqi.MQMIError) as err:
        queue.get(10, md, gmo)
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_WARNING,
                                                  CMQC.MQRC_TRUNCATED_MSG_ACCEPTED)
    assert err.value.message == bytes(range(10))
    assert err.value.original_length == 100
    assert (md.MsgId, md.CorrelId, md.Priority) == (put_md.MsgId, b"C" * 24, 7)
    assert gmo.ResolvedQName.rstrip(b" \x00") == QUEUE.encode()
    assert gmo.ReturnedLength == 10
    with pytest.raises(pymqi.MQMIError) as err:
        queue.get(None, pymqi.MD(), pymqi.GMO())
    assert err.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
