"""END_CONV in its conversation's order on a shared SVRCONN instance of a queue manager
started by strmqm, its calls relayed (MQIBindType STANDARD) or served in the queue manager
(FASTPATH), by a client of either byte order spoken by hand as IBM's Java client speaks
(``tests.client.test_socket_action.SharedInstance``).

A queue manager serves a conversation's flows in the order they came, and a SOCKET_ACTION
END_CONV is one of them:

- the requests of that conversation that came before its END_CONV (queued, or being
  served) are served and answered first, and only then does the conversation end (its
  unit of work, if it left one, backed out);
- an MQGET among them does not wait: the client said it reads nothing more there, so a
  get waiting, or queued to wait, ends MQRC_NO_MSG_AVAILABLE rather than take a message
  that comes later for a reader that is gone;
- nothing that came after the END_CONV is served for the ended conversation: a call on its
  ConvId is answered MQRC_HCONN_ERROR, and a conversation started again on the ConvId is
  served only after the ended one's last reply;
- with CLOSE_CHANNEL (the client's last conversation) the same, and then the instance ends.
"""

from __future__ import annotations

import socket
import time

import attrs
import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows, sockact, tshc
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.sockact import SocketAction, SocketActionType
from mqpy.fap.tsh import ByteOrder, ControlFlags1, SegmentType
from tests.client.conftest import drain_site
from tests.client.test_socket_action import SharedInstance, _curshcnv
from tests.support.site import QM
from tests.support.site_here import QUEUE, here_site_per_bind_type
from tests.support.waiting import came_true

pytestmark = [pytest.mark.system, pytest.mark.timeout(180)]

_T = SegmentType
_A = SocketActionType
_OK = CMQC.MQCC_OK
_SYNC = CMQC.MQPMO_SYNCPOINT
_NO_SYNC = CMQC.MQPMO_NO_SYNCPOINT

#: a reply owed comes well within this (a get waiting 60 seconds must not be waited for)
_PROMPT = 10.0


site = here_site_per_bind_type("endconvorder")


def _drain(site) -> list[bytes]:
    return drain_site(site, QUEUE)


@pytest.fixture(autouse=True)
def empty_queue(site):
    _drain(site)


@pytest.fixture(params=[ByteOrder.LITTLE, ByteOrder.BIG], ids=["le", "be"])
def order(request):
    return request.param


class Writer:
    """The flows of one write of ``client``, gathered, then sent together (so that the
    queue manager reads the END_CONV with the requests before it)."""

    def __init__(self, client: SharedInstance) -> None:
        self.client = client
        self.data = b""

    def call(self, conv_id: int, verb: SegmentType, values, hobj: int = 0) -> int:
        """A request; its RequestId."""
        client = self.client
        request_id = next(client.request_ids)
        request = mqiflows.encode_request(verb, values, hobj=hobj, byte_order=client.order)
        self.data += client.writer.send(attrs.evolve(request, conv_id=conv_id,
                                                     request_id=request_id))
        return request_id

    def put1(self, conv_id: int, data: bytes, options: int) -> int:
        od = mqpy.OD(ObjectName=QUEUE.encode())
        return self.call(conv_id, _T.MQPUT1, [od, mqpy.MD(), mqpy.PMO(Options=options), data])

    def action(self, action: SocketAction, flags=ControlFlags1.NONE) -> None:
        client = self.client
        self.data += tshc.connection_level(client.writer.send(
            sockact.event(action, client.little, flags)))

    def send(self) -> None:
        self.client.sendall(self.data)
        self.data = b""


def _replies(client: SharedInstance, wanted: set[int], timeout: float = _PROMPT
             ) -> list[MQIReply]:
    """The MQI replies that come until those to the RequestIds ``wanted`` all have (within
    ``timeout`` seconds, else the test fails naming what did not come), in the order they
    came."""
    came: list[MQIReply] = []
    deadline = time.monotonic() + timeout
    while not wanted <= {r.request_id for r in came}:
        left = deadline - time.monotonic()
        missing = wanted - {r.request_id for r in came}
        assert left > 0, f"no reply to requests {sorted(missing)} in {timeout}s: {came}"
        client.sock.settimeout(left)
        try:
            _segment, event = client.next()
        except (TimeoutError, socket.timeout):
            raise AssertionError(f"no reply to requests {sorted(missing)} in {timeout}s: "
                                 f"{came}") from None
        if isinstance(event, MQIReply):
            came.append(event)
    client.sock.settimeout(20)
    return came


def _started(site, order: ByteOrder) -> SharedInstance:
    client = SharedInstance(site, order)
    client.start(1)
    client.start(3)
    return client


def test_calls_written_before_end_conv_are_answered_and_their_work_kept(site, order):
    """Given conversations 1 and 3, when the client writes, in one write, conversation 1's
    two MQPUT1s under syncpoint, its MQCMIT and its END_CONV, then the three calls are
    served and answered, in the order they came, before the conversation ends: both
    messages are committed, one conversation is shown, and conversation 3 goes on."""
    client = _started(site, order)
    try:
        w = Writer(client)
        ids = [w.put1(1, b"first", _SYNC), w.put1(1, b"second", _SYNC),
               w.call(1, _T.MQCMIT, [])]
        w.action(SocketAction(1, _A.END_CONV))
        w.send()
        came = [r for r in _replies(client, set(ids)) if r.conv_id == 1]
        assert [(r.request_id, r.comp) for r in came] == [(i, _OK) for i in ids], came
        assert came_true(lambda: _curshcnv(site) == ["CURSHCNV(1)"])
        assert client.put1(3, b"third", _NO_SYNC).comp == _OK
    finally:
        client.close()
    assert sorted(_drain(site)) == [b"first", b"second", b"third"]


def test_a_put_before_end_conv_without_commit_is_answered_then_backed_out(site, order):
    """Given conversations 1 and 3, when the client writes conversation 1's MQPUT1 under
    syncpoint, an MQPUT1 outside syncpoint and its END_CONV (no MQCMIT, no MQDISC) in one
    write, then both puts are answered OK, and then the conversation ends with its unit of
    work backed out: only the put outside syncpoint is on the queue."""
    client = _started(site, order)
    try:
        w = Writer(client)
        ids = [w.put1(1, b"in its unit of work", _SYNC), w.put1(1, b"outside", _NO_SYNC)]
        w.action(SocketAction(1, _A.END_CONV))
        w.send()
        came = [r for r in _replies(client, set(ids)) if r.conv_id == 1]
        assert [(r.request_id, r.comp) for r in came] == [(i, _OK) for i in ids], came
        assert came_true(lambda: _curshcnv(site) == ["CURSHCNV(1)"])
    finally:
        client.close()
    assert _drain(site) == [b"outside"]


def test_a_waiting_get_before_end_conv_is_answered_at_once_and_takes_nothing(site, order):
    """Given conversation 1 with the queue open for input, when the client writes an MQGET
    that waits a minute and then END_CONV of conversation 1, then the get is answered at
    once MQRC_NO_MSG_AVAILABLE (it waits no more: nobody will read what it got), the
    conversation ends, and a message put afterwards stays on the queue; conversation 3 goes
    on."""
    client = _started(site, order)
    try:
        hobj = client.open_input(1)
        w = Writer(client)
        waits = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=60000)
        get = w.call(1, _T.MQGET, [mqpy.MD(), waits, 64], hobj)
        w.action(SocketAction(1, _A.END_CONV))
        w.send()
        [reply] = [r for r in _replies(client, {get}) if r.conv_id == 1]
        assert (reply.comp, reply.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)
        assert came_true(lambda: _curshcnv(site) == ["CURSHCNV(1)"])
        assert client.put1(3, b"for nobody there", _NO_SYNC).comp == _OK
    finally:
        client.close()
    assert _drain(site) == [b"for nobody there"]


def test_a_get_already_waiting_when_end_conv_comes_is_answered_at_once(site, order):
    """Given conversation 1 in an MQGET that waits a minute (sent, not answered), when the
    client then sends its END_CONV, then the get is answered MQRC_NO_MSG_AVAILABLE at
    once, the conversation ends, and conversation 3 is served."""
    client = _started(site, order)
    try:
        hobj = client.open_input(1)
        w = Writer(client)
        waits = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT, WaitInterval=60000)
        get = w.call(1, _T.MQGET, [mqpy.MD(), waits, 64], hobj)
        w.send()
        time.sleep(0.5)  # the get waits in the queue manager
        w.action(SocketAction(1, _A.END_CONV))
        w.send()
        [reply] = [r for r in _replies(client, {get}) if r.conv_id == 1]
        assert reply.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        assert came_true(lambda: _curshcnv(site) == ["CURSHCNV(1)"])
        assert client.put1(3, b"three", _NO_SYNC).comp == _OK
    finally:
        client.close()
    assert _drain(site) == [b"three"]


def test_nothing_written_after_end_conv_is_served_before_or_for_the_ended_conversation(
        site, order):
    """Given conversation 1, when the client writes in one write its MQPUT1 under syncpoint
    and MQCMIT, its END_CONV, an MQPUT1 on the ended ConvId, then START_CONV, MQCONN and an
    MQPUT1 of a new conversation 1, then the calls before END_CONV are answered first, the
    put on the ended ConvId is answered MQRC_HCONN_ERROR and puts nothing, and the new
    conversation's MQCONN is answered after the ended one's MQCMIT: both puts of the
    conversations are on the queue, the refused one is not."""
    client = _started(site, order)
    try:
        w = Writer(client)
        before = [w.put1(1, b"before", _SYNC), w.call(1, _T.MQCMIT, [])]
        w.action(SocketAction(1, _A.END_CONV))
        refused = w.put1(1, b"refused", _NO_SYNC)
        w.action(SocketAction(1, _A.START_CONV))
        conn = w.call(1, _T.MQCONN, [(QM, "again")])
        again = w.put1(1, b"again", _NO_SYNC)
        w.send()
        came = [r for r in _replies(client, {*before, refused, conn, again}) if r.conv_id == 1]
        by_id = {r.request_id: r for r in came}
        assert [by_id[i].comp for i in before] == [_OK, _OK], came
        assert by_id[refused].reason == CMQC.MQRC_HCONN_ERROR, came
        assert (by_id[conn].comp, by_id[again].comp) == (_OK, _OK), came
        order_came = [r.request_id for r in came]
        assert order_came.index(before[1]) < order_came.index(conn) \
            < order_came.index(again), came
        assert came_true(lambda: _curshcnv(site) == ["CURSHCNV(2)"])
    finally:
        client.close()
    assert sorted(_drain(site)) == [b"again", b"before"]


def test_end_conv_with_close_channel_answers_what_came_before_it_then_closes(site, order):
    """Given conversation 1 alone on an instance, when the client writes its MQPUT1 under
    syncpoint, its MQCMIT and its END_CONV with CLOSE_CHANNEL (its last conversation) in
    one write, then both calls are answered before the queue manager closes the connection,
    and the message is committed."""
    client = SharedInstance(site, order)
    try:
        client.start(1)
        w = Writer(client)
        ids = [w.put1(1, b"kept", _SYNC), w.call(1, _T.MQCMIT, [])]
        w.action(SocketAction(1, _A.END_CONV), ControlFlags1.CLOSE_CHANNEL)
        w.send()
        came = _replies(client, set(ids))
        assert [(r.request_id, r.comp) for r in came] == [(i, _OK) for i in ids], came
        assert client.closed() == []
    finally:
        client.close()
    assert _drain(site) == [b"kept"]
