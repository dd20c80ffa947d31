"""MQI failures: each an MQMIError with IBM's completion code, reason and reason name."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from ._support import BROWSE, IN, INQ, OUT, depth, get, put, raises_mq


def test_open_of_an_unknown_queue_fails_2085(qm):
    """Given no queue NO.SUCH.Q, when opened for output, then MQRC_UNKNOWN_OBJECT_NAME."""
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        mqpy.Queue(qm, "NO.SUCH.Q", OUT)


def test_define_of_a_name_longer_than_48_characters_fails_2152(qmgr):
    """Given a 49-character queue name, when defined, then MQRC_OBJECT_NAME_ERROR; 48 is
    allowed."""
    with raises_mq(CMQC.MQRC_OBJECT_NAME_ERROR):
        qmgr.define("Q" * 49)
    qmgr.define("Q" * 48)


def test_open_of_a_name_longer_than_48_characters_fails_2152(qm):
    """Given a 49-character object name, when Queue(qm, name, MQOO_OUTPUT) opens it, then an
    MQMIError MQRC_OBJECT_NAME_ERROR, not a bare ValueError from the structure layer."""
    with raises_mq(CMQC.MQRC_OBJECT_NAME_ERROR):
        mqpy.Queue(qm, "Q" * 49, OUT)


def test_message_longer_than_the_queue_maxmsgl_fails_2030(qmgr):
    """Given a queue with MAXMSGL(100), when a 101-byte message is put, then
    MQRC_MSG_TOO_BIG_FOR_Q and nothing is queued; a 100-byte message fits."""
    qmgr.define("Q1", {"MAXMSGL": 100})
    with raises_mq(CMQC.MQRC_MSG_TOO_BIG_FOR_Q):
        put(qmgr.qm, "Q1", b"x" * 101)
    assert depth(qmgr.qm, "Q1") == 0
    put(qmgr.qm, "Q1", b"x" * 100)


def test_message_longer_than_the_qmgr_maxmsgl_fails_2031(qmgr):
    """Given the queue manager's MAXMSGL is 1000 and the queue's is larger, when a 1001-byte
    message is put, then MQRC_MSG_TOO_BIG_FOR_Q_MGR."""
    qmgr.define("Q1", {"MAXMSGL": 4194304})
    qmgr.eng.alter_qmgr({"MAXMSGL": 1000})
    with raises_mq(CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR):
        put(qmgr.qm, "Q1", b"x" * 1001)


def test_put_to_a_full_queue_fails_2053(qmgr):
    """Given a queue with MAXDEPTH(3) holding 3 messages, when a fourth is put, then
    MQRC_Q_FULL and the depth stays 3."""
    qmgr.define("Q1", {"MAXDEPTH": 3})
    for n in range(3):
        put(qmgr.qm, "Q1", b"%d" % n)
    with raises_mq(CMQC.MQRC_Q_FULL):
        put(qmgr.qm, "Q1", b"4")
    assert depth(qmgr.qm, "Q1") == 3


def test_get_from_an_empty_queue_fails_2033(qm):
    """Given an empty queue, when MQGET without wait, then MQRC_NO_MSG_AVAILABLE."""
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        get(qm, "Q1")


def test_input_exclusive_holder_blocks_a_shared_open_2042(qmgr):
    """Given A holds Q1 open INPUT_EXCLUSIVE, when B opens it INPUT_SHARED, then
    MQRC_OBJECT_IN_USE; browse and output opens still succeed.
    spec: aliases-channels-storage 4.45"""
    qmgr.define("Q1")
    b = qmgr.connect()
    holder = mqpy.Queue(qmgr.qm, "Q1", CMQC.MQOO_INPUT_EXCLUSIVE)  # noqa: F841 - held open
    with raises_mq(CMQC.MQRC_OBJECT_IN_USE):
        mqpy.Queue(b, "Q1", CMQC.MQOO_INPUT_SHARED)
    mqpy.Queue(b, "Q1", BROWSE).close()
    mqpy.Queue(b, "Q1", OUT).close()


def test_shared_holder_blocks_an_exclusive_open_2042(qmgr):
    """Given A holds Q1 open INPUT_SHARED, when B opens it INPUT_EXCLUSIVE, then
    MQRC_OBJECT_IN_USE; once A closes, B's exclusive open succeeds.
    spec: aliases-channels-storage 4.45"""
    qmgr.define("Q1")
    b = qmgr.connect()
    qa = mqpy.Queue(qmgr.qm, "Q1", CMQC.MQOO_INPUT_SHARED)
    with raises_mq(CMQC.MQRC_OBJECT_IN_USE):
        mqpy.Queue(b, "Q1", CMQC.MQOO_INPUT_EXCLUSIVE)
    qa.close()
    mqpy.Queue(b, "Q1", CMQC.MQOO_INPUT_EXCLUSIVE).close()


def test_share_no_queue_allows_one_input_open_only(qmgr):
    """Given a queue with SHARE(NO) opened INPUT_SHARED by A, when B opens it INPUT_SHARED,
    then MQRC_OBJECT_IN_USE (a shared request is treated as exclusive)."""
    qmgr.define("QX", {"SHARE": "NO"})
    holder = mqpy.Queue(qmgr.qm, "QX", CMQC.MQOO_INPUT_SHARED)  # noqa: F841 - held open
    with raises_mq(CMQC.MQRC_OBJECT_IN_USE):
        mqpy.Queue(qmgr.connect(), "QX", CMQC.MQOO_INPUT_SHARED)


def test_input_as_q_def_on_defsopt_excl_is_exclusive(qmgr):
    """Given a queue with DEFSOPT(EXCL) opened INPUT_AS_Q_DEF by A, when B opens it
    INPUT_AS_Q_DEF, then MQRC_OBJECT_IN_USE."""
    qmgr.define("QX", {"DEFSOPT": "EXCL"})
    holder = mqpy.Queue(qmgr.qm, "QX", IN)  # noqa: F841 - held open
    with raises_mq(CMQC.MQRC_OBJECT_IN_USE):
        mqpy.Queue(qmgr.connect(), "QX", IN)


def test_a_closed_handle_fails_2019(qm):
    """Given an object handle that has been closed, when MQGET and MQPUT use it, then
    MQRC_HOBJ_ERROR."""
    q = mqpy.Queue(qm, "Q1", IN | OUT)
    hobj = q.get_handle()
    q.close()
    conn = qm.connection()
    with raises_mq(CMQC.MQRC_HOBJ_ERROR):
        conn.get(hobj, mqpy.MD(), mqpy.GMO(), None)
    with raises_mq(CMQC.MQRC_HOBJ_ERROR):
        conn.put(hobj, mqpy.MD(), mqpy.PMO(), b"x")


def test_a_disconnected_connection_fails_2018(qmgr):
    """Given a connection that has disconnected, when its backend is used, then
    MQRC_HCONN_ERROR."""
    qmgr.define("Q1")
    b = qmgr.connect()
    conn = b.connection()
    b.disconnect()
    with raises_mq(CMQC.MQRC_HCONN_ERROR):
        conn.open(mqpy.OD(ObjectName=b"Q1"), OUT)


def test_put_inhibited_queue_fails_2051(qmgr):
    """Given a queue with PUT(DISABLED), when a message is put, then MQRC_PUT_INHIBITED."""
    qmgr.define("Q1", {"PUT": "DISABLED"})
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        put(qmgr.qm, "Q1", b"x")


def test_get_inhibited_queue_fails_2016_but_browse_works(qmgr):
    """Given a message on a queue then GET(DISABLED) set by MQSET, when got, then
    MQRC_GET_INHIBITED; browsing is still allowed."""
    qmgr.define("Q1")
    put(qmgr.qm, "Q1", b"x")
    mqpy.Queue(qmgr.qm, "Q1", CMQC.MQOO_SET).set(CMQC.MQIA_INHIBIT_GET,
                                                 CMQC.MQQA_GET_INHIBITED)
    with raises_mq(CMQC.MQRC_GET_INHIBITED):
        get(qmgr.qm, "Q1")
    b = mqpy.Queue(qmgr.qm, "Q1", BROWSE)
    assert b.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)) == b"x"


@pytest.mark.parametrize(("open_opts", "call", "reason"), [
    (OUT, "get", CMQC.MQRC_NOT_OPEN_FOR_INPUT),
    (IN, "put", CMQC.MQRC_NOT_OPEN_FOR_OUTPUT),
    (IN, "browse", CMQC.MQRC_NOT_OPEN_FOR_BROWSE),
    (IN, "inquire", CMQC.MQRC_NOT_OPEN_FOR_INQUIRE),
])
def test_a_call_the_handle_was_not_opened_for_fails(qm, open_opts, call, reason):
    """Given a handle opened without the needed option, when MQGET / MQPUT / browse / MQINQ
    uses it, then 2037 / 2039 / 2036 / 2038."""
    put(qm, "Q1", b"x")
    q = mqpy.Queue(qm, "Q1", open_opts)
    with raises_mq(reason):
        if call == "get":
            q.get(None, mqpy.MD(), mqpy.GMO())
        elif call == "put":
            q.put(b"y")
        elif call == "browse":
            q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
        else:
            q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)


def test_syncpoint_and_no_syncpoint_together_fail_2046(qm):
    """Given both SYNCPOINT and NO_SYNCPOINT, when MQPUT or MQGET, then MQRC_OPTIONS_ERROR
    and nothing is put or got."""
    put(qm, "Q1", b"x")
    q = mqpy.Queue(qm, "Q1", IN | OUT)
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        q.put(b"y", mqpy.MD(),
              mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NO_SYNCPOINT))
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        q.get(None, mqpy.MD(),
              mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT))
    assert depth(qm, "Q1") == 1


def test_two_input_options_together_fail_2046(qm):
    """Given INPUT_SHARED and INPUT_EXCLUSIVE together, when MQOPEN, then
    MQRC_OPTIONS_ERROR."""
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        mqpy.Queue(qm, "Q1", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE)


def test_inquire_returns_queue_attributes(qmgr):
    """Given a queue with MAXDEPTH(77) DESCR('hello'), when MQINQ, then MAXDEPTH is 77,
    Q_TYPE is MQQT_LOCAL and the description is blank-padded to 64 characters."""
    qmgr.define("Q1", {"MAXDEPTH": 77, "DESCR": "hello"})
    q = mqpy.Queue(qmgr.qm, "Q1", INQ)
    assert q.inquire(CMQC.MQIA_MAX_Q_DEPTH) == 77
    assert q.inquire(CMQC.MQIA_Q_TYPE) == CMQC.MQQT_LOCAL
    assert q.inquire(CMQC.MQCA_Q_DESC) == b"hello".ljust(64)


def test_inquire_with_an_unknown_selector_fails_2067(qm):
    """Given a selector that is no queue attribute, when MQINQ, then MQRC_SELECTOR_ERROR."""
    q = mqpy.Queue(qm, "Q1", INQ)
    with raises_mq(CMQC.MQRC_SELECTOR_ERROR):
        q.inquire(9999)


def test_inquire_of_a_selector_not_for_the_queue_type_warns_2068(qmgr):
    """Given an alias queue opened for inquire, when MQINQ asks for CURDEPTH (local queues
    only), then MQCC_WARNING / MQRC_SELECTOR_NOT_FOR_TYPE (IBM returns the other values and
    MQIAV_NOT_APPLICABLE for this one)."""
    qmgr.define("Q1")
    qmgr.define("QA", {"TARGET": "Q1"}, objtype="QALIAS")
    q = mqpy.Queue(qmgr.qm, "QA", INQ)
    with raises_mq(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE, CMQC.MQCC_WARNING):
        q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)


def test_calls_after_the_queue_manager_stopped_report_a_broken_connection(qmgr):
    """Given a connection whose queue manager has been stopped, when it opens a queue, then
    MQRC_CONNECTION_BROKEN (2009; MQRC_Q_MGR_STOPPING 2162 is also IBM's), not
    MQRC_HCONN_ERROR: the application's handle was valid, the queue manager went away."""
    qmgr.define("Q1")
    conn = qmgr.qm.connection()
    qmgr.stop()
    with pytest.raises(mqpy.MQMIError) as info:
        conn.open(mqpy.OD(ObjectName=b"Q1"), OUT)
    assert info.value.reason in (CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_STOPPING)
