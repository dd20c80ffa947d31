"""Given pymqi's and IBM ``ibmmq``'s ways of using a message handle (``MessageHandle(qmgr,
cmho)``, ``properties.set`` / ``get`` / ``inq`` / ``dlt``, ``dlt()`` with an MQDMHO), when an
application uses them on a connection, then they make MQCRTMH, MQSETMP, MQINQMP, MQDLTMP and
MQDLTMH with IBM's results, and a deleted handle given to MQGET is MQRC_HMSG_ERROR."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, inprocess
from tests.mqi._modes import QUEUE

from .test_put_get_with_handles import _put_with


def test_ibmmq_inq_and_dlt(embedded):
    qm = embedded()
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    handle.properties.set("colour", "blue")
    handle.properties.set("size", 3, property_type=CMQC.MQTYPE_INT32)
    assert handle.properties.inq("colour") == "blue"
    assert handle.properties.inq("s%") == (3, b"size")
    handle.properties.dlt("colour")
    with pytest.raises(mqpy.MQMIError) as e:
        handle.properties.inq("colour")
    assert e.value.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE
    qm.disconnect()


def test_a_deleted_handle_cannot_be_used_on_mqget(embedded):
    qm = embedded()
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    hmsg = handle.msg_handle
    handle.dlt(mqpy.DMHO())
    assert handle.msg_handle == CMQC.MQHM_NONE
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4, Options=CMQC.MQGMO_NO_WAIT)
    gmo.MsgHandle = hmsg
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED)
    with pytest.raises(mqpy.MQMIError) as e:
        q.get(None, mqpy.MD(), gmo)
    assert e.value.reason == CMQC.MQRC_HMSG_ERROR
    q.close()
    qm.disconnect()


def test_a_handle_of_another_connection_is_hmsg_error_on_mqput(embedded):
    qm, other = embedded(), embedded()
    handle = mqpy.MessageHandle(other, mqpy.CMHO())
    pmo = mqpy.PMO(Version=CMQC.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = handle.msg_handle
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
    with pytest.raises(mqpy.MQMIError) as e:
        q.put(b"x", mqpy.MD(), pmo)
    assert e.value.reason == CMQC.MQRC_HMSG_ERROR
    q.close()
    qm.disconnect()
    other.disconnect()


def test_properties_in_handle_without_a_handle_is_hmsg_error(embedded):
    qm = embedded()
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
    q.put(b"x")
    with pytest.raises(mqpy.MQMIError) as e:
        q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT
                                        | CMQC.MQGMO_PROPERTIES_IN_HANDLE))
    assert e.value.reason == CMQC.MQRC_HMSG_ERROR
    q.close()
    qm.disconnect()


def test_properties_longer_than_maxpropl_are_refused(embedded, tmp_path):
    """Given MAXPROPL(64), when a message is put with properties longer than that, then the
    put fails with MQRC_PROPERTIES_TOO_BIG and nothing is queued; shorter ones go."""
    qm = embedded()
    inprocess.running("QMS", str(tmp_path)).alter_qmgr({"MAXPROPL": 64})
    with pytest.raises(mqpy.MQMIError) as e:
        _put_with(qm, {"colour": ("blue" * 30, CMQC.MQTYPE_STRING)})
    assert e.value.reason == CMQC.MQRC_PROPERTIES_TOO_BIG
    _put_with(qm, {"colour": ("blue", CMQC.MQTYPE_STRING)})
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INQUIRE)
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 1
    q.close()
    qm.disconnect()


def test_mqdisc_deletes_the_connections_message_handles(embedded):
    """Given a message handle of a connection, when the connection ends (MQDISC), then the
    handle is gone as IBM's implicit MQDLTMH leaves it: MQRC_HMSG_ERROR."""
    qm = embedded()
    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    handle.properties.set("colour", "blue")
    qm.disconnect()
    with pytest.raises(mqpy.MQMIError) as e:
        handle.properties.get("colour")
    assert e.value.reason == CMQC.MQRC_HMSG_ERROR
