"""MQSTAT's other answers: the reconnection types (client connections only, which mqpy's are
not reconnecting: connected), a status type it does not know, an MQSTS it cannot fill."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from .conftest import ASYNC, OUT

pytestmark = pytest.mark.timeout(180)


def test_reconnection_status_is_for_client_connections_only(qm, request):
    """Given a connection, when it asks MQSTAT for MQSTAT_TYPE_RECONNECTION or
    MQSTAT_TYPE_RECONNECTION_ERROR, then a client connection has MQCC_OK with a connected
    status (MQRC_NONE, no object), and any other fails with MQRC_ENVIRONMENT_ERROR."""
    client = request.node.callspec.params["connect"] in ("client", "fastpath")
    for status_type in (CMQC.MQSTAT_TYPE_RECONNECTION, CMQC.MQSTAT_TYPE_RECONNECTION_ERROR):
        if client:
            sts = qm.stat(status_type)
            assert (sts.CompCode, sts.Reason, mqpy.to_string(sts.ObjectName)) == \
                (CMQC.MQCC_OK, CMQC.MQRC_NONE, "")
        else:
            with pytest.raises(mqpy.MQMIError) as err:
                qm.stat(status_type)
            assert err.value.reason == CMQC.MQRC_ENVIRONMENT_ERROR


def test_an_unknown_type_or_a_bad_mqsts_fails_the_call_and_keeps_the_counts(qm):
    """Given an asynchronous put counted, when MQSTAT is called with a type IBM does not
    define (MQRC_STAT_TYPE_ERROR) or an MQSTS of an unknown Version (MQRC_STS_ERROR), then
    the call fails and the count is still there for the next MQSTAT, which a version-1
    MQSTS receives."""
    q = mqpy.Queue(qm, "AP.Q", OUT)
    q.put(b"x", mqpy.MD(), mqpy.PMO(Options=ASYNC))
    with pytest.raises(mqpy.MQMIError) as err:
        qm.stat(99)
    assert err.value.reason == CMQC.MQRC_STAT_TYPE_ERROR
    with pytest.raises(mqpy.MQMIError) as err:
        qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR, mqpy.STS(Version=3))
    assert err.value.reason in (CMQC.MQRC_STS_ERROR,)
    sts = qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR, mqpy.STS(Version=CMQC.MQSTS_VERSION_1))
    assert (sts.Version, sts.PutSuccessCount) == (CMQC.MQSTS_VERSION_1, 1)
    assert len(sts.pack()) == CMQC.MQSTS_LENGTH_1
    q.close()
