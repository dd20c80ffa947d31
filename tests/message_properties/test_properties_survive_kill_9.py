"""Given persistent messages put with properties (some before a checkpoint, on the pagesets,
some after it, in the log only; outside and inside units of work), when the queue manager's
process is killed with SIGKILL, then after restart each message comes back with its own
properties, in order, none lost and none twice."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.mqi.conftest import QMgrHarness
from tests.mqi.test_crash import crash_after

pytestmark = pytest.mark.system

_PUT_WITH = """
def put_with(data, n, opts=CMQC.MQPMO_NO_SYNCPOINT):
    h = mqpy.MessageHandle(qm, mqpy.CMHO())
    h.properties.set("n", n, property_type=CMQC.MQTYPE_INT32)
    h.properties.set("label", data.decode(), property_type=CMQC.MQTYPE_STRING)
    pmo = mqpy.PMO(Version=CMQC.MQPMO_VERSION_3, Options=opts)
    pmo.OriginalMsgHandle = h.msg_handle
    q.put(data, P(), pmo)
"""


def _get_all(qm: mqpy.QueueManager) -> list[tuple[bytes, int, str]]:
    q = mqpy.Queue(qm, "Q1", CMQC.MQOO_INPUT_AS_Q_DEF)
    out = []
    while True:
        handle = mqpy.MessageHandle(qm, mqpy.CMHO())
        gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4,
                       Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE)
        gmo.MsgHandle = handle.msg_handle
        try:
            data = q.get(None, mqpy.MD(), gmo)
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
        out.append((data, handle.properties.get("n"), handle.properties.get("label")))
    q.close()
    return out


def test_persistent_messages_with_properties_survive_kill_9(tmp_path):
    harness = QMgrHarness(str(tmp_path))
    harness.define("Q1")
    try:
        crash_after(harness, _PUT_WITH + """
put_with(b"a", 1)
put_with(b"b", 2, SP); put_with(b"c", 3, SP); qm.commit()
eng.data.checkpoint()
put_with(b"d", 4)
put_with(b"e", 5, SP); qm.commit()
put_with(b"lost", 6, SP)
""")
        qm = harness.start()
        assert _get_all(qm) == [(b"a", 1, "a"), (b"b", 2, "b"), (b"c", 3, "c"),
                                (b"d", 4, "d"), (b"e", 5, "e")]
    finally:
        harness.stop()


def test_properties_stay_with_messages_across_a_clean_restart(tmp_path):
    harness = QMgrHarness(str(tmp_path))
    harness.define("Q1")
    try:
        qm = harness.qm
        handle = mqpy.MessageHandle(qm, mqpy.CMHO())
        handle.properties.set("n", 7, property_type=CMQC.MQTYPE_INT32)
        handle.properties.set("label", "x")
        pmo = mqpy.PMO(Version=CMQC.MQPMO_VERSION_3)
        pmo.OriginalMsgHandle = handle.msg_handle
        mqpy.Queue(qm, "Q1", CMQC.MQOO_OUTPUT).put(
            b"x", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT), pmo)
        qm = harness.restart()
        assert _get_all(qm) == [(b"x", 7, "x")]
    finally:
        harness.stop()
