"""The user-id flows (USERID_DATA, CONAUTH_INFO) of a client on a SVRCONN conversation after
its MQCONN, to a queue manager started by strmqm, its calls relayed (MQIBindType STANDARD)
or served in the queue manager (FASTPATH); the client spoken by hand as IBM's Java client
speaks (``tests.client.test_socket_action.SharedInstance``).

A client flows them before a conversation's MQCONN (and before an MQCONN after its MQDISC).
On a conversation that is connected it sends none: that is a protocol error, as any flow a
client does not send there -- the instance is told with STATUS (PROTOCOL_SEGMENT_TYPE) and
ends, AMQ9504E names the flow, the conversation's unit of work is backed out, and other
instances go on. The flows take their place in the conversation's order: written after an
MQDISC and before the next MQCONN, in one write, they are kept for that MQCONN."""

from __future__ import annotations

import attrs
import pytest

from mqpy import CMQC
from mqpy.fap import mqiflows, userid
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.controlflows import Status
from mqpy.fap.framing import SegmentReader
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import ByteOrder, SegmentType
from tests.client.conftest import drain_site
from tests.client.test_socket_action import SharedInstance
from tests.support.site import QM
from tests.support.site_here import QUEUE, here_site_per_bind_type

pytestmark = [pytest.mark.system, pytest.mark.timeout(180)]

_T = SegmentType

site = here_site_per_bind_type("uidsvrconn")


def _drain(site) -> list[bytes]:
    return drain_site(site, QUEUE)


@pytest.fixture(autouse=True)
def empty_queue(site):
    _drain(site)


def _user_id_flow(conv_id: int):
    return userid.userid_event("mallory", conv_id=conv_id, request_id=0)


def _conauth_flow(conv_id: int):
    return userid.conauth_event(userid.Credentials("mallory", "secret"), conv_id=conv_id,
                                request_id=0)


FLOWS = pytest.mark.parametrize("flow, name", [
    (_user_id_flow, "USERID_DATA"), (_conauth_flow, "CONAUTH_INFO"),
], ids=["userid", "conauth"])


@FLOWS
def test_a_user_id_flow_on_a_connected_conversation_ends_the_instance(site, flow, name):
    """Given a conversation connected, with a put in its unit of work, when the client
    sends a user-id flow on it, then the instance is told STATUS PROTOCOL_SEGMENT_TYPE and
    closed, AMQ9504E names the flow, the put is backed out, and another instance goes on."""
    other = SharedInstance(site, ByteOrder.LITTLE)
    client = SharedInstance(site, ByteOrder.LITTLE)
    try:
        other.start(1)
        client.start(1)
        assert client.put1(1, b"uncommitted", CMQC.MQPMO_SYNCPOINT).comp == CMQC.MQCC_OK
        mark = site.mark()
        client.sendall(client.writer.send(flow(1)))
        segments = client.closed()
        statuses = [e for s in segments for e in SegmentReader().feed(s) if type(e) is Status]
        assert [s.code for s in statuses] == [StatusCode.PROTOCOL_SEGMENT_TYPE], segments
        logged = site.wait_for_log("AMQ9504E", since=mark)
        assert name in logged, logged
        assert other.put1(1, b"still", CMQC.MQPMO_NO_SYNCPOINT).comp == CMQC.MQCC_OK
    finally:
        client.close()
        other.close()
    assert _drain(site) == [b"still"]


@pytest.mark.parametrize("flow, reason", [
    (_user_id_flow, CMQC.MQRC_NOT_AUTHORIZED),  # the client user: 'mallory' may not connect
    (_conauth_flow, CMQC.MQRC_NONE),  # an MQCSP these sites' CONNAUTH does not check
], ids=["userid", "conauth"])
def test_a_user_id_flow_written_after_an_mqdisc_is_for_the_next_mqconn(site, flow, reason):
    """Given a conversation connected, when the client writes its MQDISC, a user-id flow
    naming another user and a new MQCONN in one write, then the flow takes its place after
    the MQDISC: the MQDISC is answered OK, the MQCONN is answered as for that user (a
    USERID_DATA's 'mallory' may not connect: MQRC_NOT_AUTHORIZED), and the instance goes
    on (no protocol error)."""
    client = SharedInstance(site, ByteOrder.LITTLE)
    try:
        client.start(1)
        client.start(3)
        mark = site.mark()
        ids = []
        data = b""
        for verb, values in ((_T.MQDISC, []), (_T.MQCONN, [(QM, "again")])):
            ids.append(next(client.request_ids))
            request = mqiflows.encode_request(verb, values, byte_order=client.order)
            data += client.writer.send(attrs.evolve(request, conv_id=1, request_id=ids[-1]))
            if verb == _T.MQDISC:
                data += client.writer.send(flow(1))
        client.sendall(data)
        replies = [client.next()[1] for _ in ids]
        assert all(isinstance(r, MQIReply) for r in replies), replies
        assert [(r.request_id, r.reason) for r in replies] == [
            (ids[0], CMQC.MQRC_NONE), (ids[1], reason)], replies
        assert "AMQ9504E" not in site.errors(mark)
        assert client.put1(3, b"three", CMQC.MQPMO_NO_SYNCPOINT).comp == CMQC.MQCC_OK
    finally:
        client.close()
    assert _drain(site) == [b"three"]
