"""A queue's DEFPRESP decides a put with MQPMO_RESPONSE_AS_Q_DEF (the default): the
attribute of the object the application named, an alias's own rather than its target's;
MQPMO_SYNC_RESPONSE and MQPMO_ASYNC_RESPONSE override it, both at once are an options error."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from .conftest import ASYNC, OUT

pytestmark = pytest.mark.timeout(180)


def _failures(qm: mqpy.QueueManager) -> tuple[int, int, str]:
    sts = qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    return sts.PutFailureCount, sts.Reason, mqpy.to_string(sts.ObjectName)


def test_defpresp_async_makes_a_default_put_asynchronous(qm):
    """Given a put-inhibited queue with DEFPRESP(ASYNC), when an application puts with the
    default MQPMO (MQPMO_RESPONSE_AS_Q_DEF), then the put completes with MQCC_OK and MQSTAT
    reports its MQRC_PUT_INHIBITED; with MQPMO_SYNC_RESPONSE the same put fails at once."""
    q = mqpy.Queue(qm, "AP.DEFASYNC.INHIBITED", OUT)
    q.put(b"refused later", mqpy.MD(), mqpy.PMO())
    assert _failures(qm) == (1, CMQC.MQRC_PUT_INHIBITED, "AP.DEFASYNC.INHIBITED")
    with pytest.raises(mqpy.MQMIError) as err:
        q.put(b"refused now", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNC_RESPONSE))
    assert err.value.reason == CMQC.MQRC_PUT_INHIBITED
    assert _failures(qm)[0] == 0
    q.close()


def test_an_alias_s_own_defpresp_decides(qm):
    """Given an alias with DEFPRESP(ASYNC) over a put-inhibited queue with DEFPRESP(SYNC),
    and an alias with DEFPRESP(SYNC) over one with DEFPRESP(ASYNC), when an application puts
    with the default MQPMO through each, then the first put is asynchronous (reported by
    MQSTAT on the alias's name) and the second synchronous (it fails at once)."""
    via_async = mqpy.Queue(qm, "AP.ALIAS.ASYNC", OUT)
    via_async.put(b"x", mqpy.MD(), mqpy.PMO())
    assert _failures(qm) == (1, CMQC.MQRC_PUT_INHIBITED, "AP.ALIAS.ASYNC")
    via_sync = mqpy.Queue(qm, "AP.ALIAS.SYNC", OUT)
    with pytest.raises(mqpy.MQMIError) as err:
        via_sync.put(b"y", mqpy.MD(), mqpy.PMO())
    assert err.value.reason == CMQC.MQRC_PUT_INHIBITED
    via_async.close()
    via_sync.close()


def test_mqput1_follows_the_queue_s_defpresp(qm):
    """Given a put-inhibited queue with DEFPRESP(ASYNC), when an application puts one
    message there with MQPUT1 and the default MQPMO, then the call completes with MQCC_OK
    and MQSTAT reports the failure; to a DEFPRESP(ASYNC) queue that takes it, it is there."""
    qm.put1("AP.DEFASYNC.INHIBITED", b"refused", mqpy.MD(), mqpy.PMO())
    qm.put1("AP.DEFASYNC", b"kept", mqpy.MD(), mqpy.PMO())
    sts = qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert (sts.PutSuccessCount, sts.PutFailureCount, sts.Reason) == \
        (1, 1, CMQC.MQRC_PUT_INHIBITED)
    q = mqpy.Queue(qm, "AP.DEFASYNC", CMQC.MQOO_INPUT_AS_Q_DEF)
    assert q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)) == b"kept"
    q.close()


def test_both_response_options_at_once_fail_the_put(qm):
    """Given MQPMO_ASYNC_RESPONSE and MQPMO_SYNC_RESPONSE together, when an application puts
    (MQPUT or MQPUT1), then the call fails with MQRC_OPTIONS_ERROR, nothing is counted."""
    both = ASYNC | CMQC.MQPMO_SYNC_RESPONSE
    q = mqpy.Queue(qm, "AP.Q", OUT)
    with pytest.raises(mqpy.MQMIError) as err:
        q.put(b"x", mqpy.MD(), mqpy.PMO(Options=both))
    assert err.value.reason == CMQC.MQRC_OPTIONS_ERROR
    with pytest.raises(mqpy.MQMIError) as err:
        qm.put1("AP.Q", b"x", mqpy.MD(), mqpy.PMO(Options=both))
    assert err.value.reason == CMQC.MQRC_OPTIONS_ERROR
    sts = qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert (sts.PutSuccessCount, sts.PutFailureCount) == (0, 0)
    q.close()
