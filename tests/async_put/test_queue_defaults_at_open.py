"""The queue's defaults come back with MQOPEN (its reply's FOPA, as IBM's queue manager sends
them from FAP level 9): a put with MQPMO_RESPONSE_AS_Q_DEF on a queue with DEFPRESP(ASYNC)
does not wait for the queue manager, over bindings and client connections alike; Wireshark's
MQ dissector reads the FOPA's fields."""

from __future__ import annotations

from pathlib import Path

import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap.tsh import SegmentType
from tests.support.pcap import TSHARK, _decode, _RecordingProxy
from tests.support.site import CHANNEL, QM

from .conftest import OUT, drain, returns_while_stopped

pytestmark = [pytest.mark.system, pytest.mark.timeout(180)]


def _connect(request, mode: str):
    if mode == "fastpath":
        site = request.getfixturevalue("fastpath_site")
        return site, site.client()
    site = request.getfixturevalue("site")
    return site, site.bindings() if mode == "bindings" else site.client()


@pytest.mark.parametrize("mode", ["bindings", "client", "fastpath"])
def test_a_default_put_to_a_defpresp_async_queue_does_not_wait(request, mode):
    """Given a queue with DEFPRESP(ASYNC) opened by a bindings, relayed client or FASTPATH
    client application, and its queue manager's daemon stopped by SIGSTOP, when the
    application puts 10 messages with the default MQPMO (MQPMO_RESPONSE_AS_Q_DEF), then
    every call returns without the daemon; once it runs again MQSTAT counts 10 successes and
    the messages are there in order."""
    site, qm = _connect(request, mode)
    drain(qm, "AP.DEFASYNC")
    qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    q = mqpy.Queue(qm, "AP.DEFASYNC", OUT)

    def puts() -> None:
        for i in range(10):
            q.put(b"%d" % i, mqpy.MD(), mqpy.PMO())

    assert returns_while_stopped(site, puts), "a put with the queue's DEFPRESP(ASYNC) waited"
    try:
        assert qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR).PutSuccessCount == 10
        assert drain(qm, "AP.DEFASYNC") == [b"%d" % i for i in range(10)]
    finally:
        q.close()
        qm.disconnect()


def test_a_default_put_to_a_defpresp_sync_queue_still_fails_at_once(site):
    """Given a put-inhibited queue with DEFPRESP(SYNC) (IBM's default) opened by a client
    application, when it puts with the default MQPMO, then the call fails with
    MQRC_PUT_INHIBITED at once, as a synchronous put does."""
    qm = site.client()
    try:
        q = mqpy.Queue(qm, "AP.INHIBITED", OUT)
        with pytest.raises(mqpy.MQMIError) as err:
            q.put(b"x", mqpy.MD(), mqpy.PMO())
        assert err.value.reason == CMQC.MQRC_PUT_INHIBITED
        q.close()
    finally:
        qm.disconnect()


@pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")
def test_tshark_decodes_the_fopa_of_an_mqopen_reply(site, tmp_path: Path):
    """Given a client that opens a queue with DEFPRESP(ASYNC) for output, when tshark decodes
    the recorded segments as MQ, then the MQOPEN request carries an FOPA of version 1 and
    28 bytes asking nothing (-1), its reply one with DefPutRespType 2
    (MQPRT_ASYNC_RESPONSE), DefReadAhead 0 (MQREADA_NO) and DefPersistence 0, and nothing is
    malformed."""
    proxy = _RecordingProxy(site.port)
    qm = mqpy.connect(QM, CHANNEL, f"127.0.0.1({proxy.port})")
    mqpy.Queue(qm, "AP.DEFASYNC", OUT).close()
    qm.disconnect()
    with proxy.lock:
        flows = list(proxy.flows)
    rows = _decode(flows, tmp_path, ["mq.tsh.type", "mq.fopa.structid", "mq.fopa.version",
                                     "mq.fopa.length", "mq.fopa.defpersistence",
                                     "mq.fopa.defputresponsetype", "mq.fopa.defreadahaed",
                                     "_ws.malformed"])
    assert not [row for row in rows if row[-1]], rows
    requests = [row for row in rows if row[0] and int(row[0], 16) == SegmentType.MQOPEN]
    replies = [row for row in rows if row[0] and int(row[0], 16) == SegmentType.MQOPEN_REPLY]
    assert requests and replies, rows
    assert requests[0][1:7] == ["FOPA", "1", "28", "-1", "-1", "0"], rows  # nothing asked
    assert replies[0][1:7] == ["FOPA", "1", "28", "0", "2", "0"], rows
